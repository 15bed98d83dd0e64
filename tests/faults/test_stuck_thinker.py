"""A computer player's worker process that never answers (issue 21, item 4): a game whose
thinking never returns, or a worker frozen by SIGSTOP. Its move is abandoned after
THINK_TIMEOUT, the worker process is ended and the seat plays its fallback move; meanwhile
the heartbeat goes on, the group's /status is answered, and another group's computer moves
at its own pace: within its delay, its budget and LATE (when a busy worker counts as stuck)
plus a margin for starting a fresh worker, long before the stuck move's timeout. Real worker
processes (THINK_WORKERS=1)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from chatbot.bootstrap import thinking_pool
from chatbot.core import buttons as b
from chatbot.core import thinking
from chatbot.core.registry import Registry
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import JSON, FakeTelegram, StoredMessage
from tests.e2e.harness import TEST_SETTINGS, Harness
from tests.e2e.helpers import button
from tests.faults.test_shutdown import command_line, descendants, running
from tests.games import pick, stuck

WARM, STALLED, OTHER = -1007710000003, -1007710000001, -1007710000002
TIMEOUT = 8.0
MARGIN = 3.5  # a fresh worker process on a loaded machine, well under TIMEOUT (a bound)
SETTINGS = replace(TEST_SETTINGS, think_workers=1, think_timeout=TIMEOUT, bot_delay=0.05, tick=0.05)


async def until(check: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    """Wait for `check` (a bound on a hang, not a measured figure)."""
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.02)


def host(tg: FakeTelegram, group: int) -> JSON:
    return tg.user(abs(group) % 1000, f"Host{abs(group) % 10}")


async def open_with_a_computer(h: Harness, tg: FakeTelegram, group: int, game: str) -> None:
    tg.group(group, game, creator=host(tg, group))
    await h.command(group, host(tg, group), f"/newgame {game}")
    lobby = tg.last_message(group)
    assert lobby is not None
    await h.press(host(tg, group), lobby, button(lobby, b.ADD_BOT))
    lobby = tg.message(group, lobby.message_id)
    await h.press(host(tg, group), lobby, button(lobby, b.START))


def pick_buttons(message: StoredMessage) -> list[str]:
    """The table's buttons that pick 1, 2 and 3."""
    return [d for d in message.callback_data if d.startswith(b.GROUP_MOVE)]


def workers() -> set[int]:
    """The thinking processes of this process: the children of its forkserver."""
    servers = {p for p in descendants(os.getpid()) if "forkserver" in command_line(p)}
    return set().union(*(descendants(p) for p in servers))


@pytest.mark.parametrize("cause", ["never-returns", "sigstop"])
async def test_a_stuck_thinker_is_abandoned_and_stalls_nothing_else(
    cause: str, tg: FakeTelegram, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    thinking_pool(SETTINGS.think_workers).shutdown()  # (no worker left by an earlier test)
    marker = tmp_path / "stuck.pid"
    games = Registry([stuck.bundle(str(marker)), pick.bundle()])
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, SETTINGS, games=games).start()
    h.bot.runner.start()
    sessions = h.bot.sessions

    async def picks(group: int) -> tuple[int, ...]:
        session, _ = await sessions.load(f"tg:{group}")
        assert session is not None
        return pick.Pick().load(session.state["s"]).picks

    async def computer_moved(group: int) -> bool:
        return (await picks(group))[1] != 0

    async def turn(group: int) -> int:
        session, _ = await sessions.load(f"tg:{group}")
        assert session is not None
        return pick.Pick().load(session.state["s"]).turn

    try:
        if cause == "never-returns":
            await open_with_a_computer(h, tg, STALLED, "stuck")
            await until(lambda: asyncio.sleep(0, marker.exists()), 30, "the computer thinks")
            frozen = int(marker.read_text())
            began = time.monotonic()
            await open_with_a_computer(h, tg, OTHER, "pick")
        else:  # frozen while idle: the next move sent to it, in one of two groups, is stuck
            await open_with_a_computer(h, tg, WARM, "pick")
            await until(lambda: computer_moved(WARM), 30, "the first computer moved")
            (frozen,) = workers()
            os.kill(frozen, signal.SIGSTOP)
            began = time.monotonic()
            await open_with_a_computer(h, tg, STALLED, "pick")
            await open_with_a_computer(h, tg, OTHER, "pick")
        beat = await store.get_setting(f"alive:{sessions.process}", "at")

        # The computer of the group whose move is not stuck moves at its own pace.
        pace = SETTINGS.bot_delay + SETTINGS.tick + SETTINGS.think_budget + thinking.LATE

        async def one_moved() -> bool:
            return await computer_moved(STALLED) or await computer_moved(OTHER)

        await until(one_moved, pace + MARGIN, "the other group's computer moved")
        assert time.monotonic() - began < TIMEOUT
        moved = [group for group in (STALLED, OTHER) if await computer_moved(group)]
        assert len(moved) == 1, "the stuck move waits for its timeout"
        stalled, other = (STALLED, OTHER) if moved == [OTHER] else (OTHER, STALLED)
        assert cause == "sigstop" or stalled == STALLED

        async def beaten() -> bool:
            return await store.get_setting(f"alive:{sessions.process}", "at") != beat

        await until(beaten, 15, "the heartbeat went on while a computer was stuck")
        status = len(tg.sent_to(stalled))  # (timers run outside the chat's lock)
        await h.command(stalled, host(tg, stalled), "/status")
        assert len(tg.sent_to(stalled)) > status, "/status in the stalled group is answered"

        # At its timeout the stuck move is abandoned: the seat plays its fallback move
        # (legal[0]) and the stuck process ends.
        # (A save meanwhile, the /status above, makes the timer try again: without thinking.)
        left = began + TIMEOUT + MARGIN - time.monotonic()
        await until(lambda: computer_moved(stalled), left, "the fallback move at the timeout")
        assert time.monotonic() - began > TIMEOUT - 1
        assert (await picks(stalled))[1] == 1, "legal[0]"
        await until(lambda: asyncio.sleep(0, not running(frozen)), 10, "the stuck worker ended")
        assert frozen not in workers()

        # The other group's next turn: its computer moves at its pace again, in a worker
        # that is not the stuck one.
        table = next(m for m in reversed(tg.sent_to(other)) if pick_buttons(m))
        await h.press(host(tg, other), table, pick_buttons(table)[1])
        assert await turn(other) == 2
        await until(lambda: computer_moved(other), pace + MARGIN, "the next computer move")
        assert workers() and frozen not in workers()
        assert not h.bot.errors, h.bot.errors
    finally:
        await h.stop()
        await store.close()
        thinking_pool(SETTINGS.think_workers).shutdown()
