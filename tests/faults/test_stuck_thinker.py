"""A computer player's worker process that never answers (issue 21, item 4): the move is
abandoned after THINK_TIMEOUT, the worker process is ended and replaced, and the seat plays
its fallback move; meanwhile the heartbeat goes on and the other group's table works, and
its computer moves once a worker is free again. Real worker processes (THINKERS=1)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from chatbot.core import buttons as b
from chatbot.core import thinking
from chatbot.core.registry import Registry
from chatbot.core.session import Session
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness
from tests.e2e.helpers import button
from tests.games import pick, stuck

STALLED, OTHER = -1007710000001, -1007710000002
TIMEOUT = 2.0


async def until(check: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    """Wait for `check` (a bound on a hang, not a measured figure)."""
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.02)


async def open_with_a_computer(h: Harness, tg: FakeTelegram, group: int, game: str) -> None:
    host = tg.user(abs(group) % 1000, f"Host{abs(group) % 10}")
    tg.group(group, game, creator=host)
    await h.command(group, host, f"/newgame {game}")
    lobby = tg.last_message(group)
    assert lobby is not None
    await h.press(host, lobby, button(lobby, b.ADD_BOT))
    lobby = tg.message(group, lobby.message_id)
    await h.press(host, lobby, button(lobby, b.START))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "(Z)" not in Path(f"/proc/{pid}/status").read_text()


async def test_a_stuck_thinker_is_abandoned_and_stalls_nothing_else(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    marker = tmp_path / "stuck.pid"
    games = Registry([stuck.bundle(str(marker)), pick.bundle()])
    settings = replace(TEST_SETTINGS, thinkers=1, think_timeout=TIMEOUT, bot_delay=0.05, tick=0.05)
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, settings, games=games).start()
    h.bot.runner.start()
    tables = h.bot.tables

    async def session(group: int) -> Session:
        found, _ = await tables.load(f"tg:{group}")
        assert found is not None
        return found

    try:
        await open_with_a_computer(h, tg, STALLED, "stuck")
        await until(lambda: asyncio.sleep(0, marker.exists()), 30, "the computer began to think")
        worker = int(marker.read_text())
        beat = await store.get_setting(f"alive:{tables.process}", "at")

        # Meanwhile: another group opens and starts a game, its presses answered at once.
        await open_with_a_computer(h, tg, OTHER, "pick")
        other = await session(OTHER)
        assert other.phase == "playing" and not h.bot.errors

        async def beaten() -> bool:
            return await store.get_setting(f"alive:{tables.process}", "at") != beat

        await until(beaten, 15, "the heartbeat went on while a computer was stuck")
        status = len(tg.sent_to(STALLED))  # (timers run outside the chat's lock)
        await h.command(STALLED, tg.user(abs(STALLED) % 1000, "Host1"), "/status")
        assert len(tg.sent_to(STALLED)) > status, "/status in the stalled group is answered"

        async def fallback_played() -> bool:
            picks = pick.Pick().load((await session(STALLED)).state["s"]).picks
            return picks[1] != 0

        await until(fallback_played, TIMEOUT + 30, "the stuck seat played its fallback")
        assert pick.Pick().load((await session(STALLED)).state["s"]).picks[1] == 1, "legal[0]"
        await until(lambda: asyncio.sleep(0, not alive(worker)), 10, "the stuck worker ended")

        async def other_computer_moved() -> bool:
            state = pick.Pick().load((await session(OTHER)).state["s"])
            return state.picks[1] != 0

        await until(other_computer_moved, 30, "the other group's computer moved")
        assert not h.bot.errors, h.bot.errors
    finally:
        await h.stop()
        await store.close()
        thinking.shutdown()
