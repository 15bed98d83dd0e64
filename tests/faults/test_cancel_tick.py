"""No cancellation is swallowed (issue 21, item 7): a tick cancelled at any point of its way
(every step of the event loop from its start to its end, real Redis round trips in between)
ends cancelled, and the game is as before or moved once; a runner stopped at any point
stops, its timers with it. A cancel lost in redis-py (on Python 3.11 its `asyncio.wait_for`
drops one that comes as a send completes) once kept the ticker running and `stop()` waiting
for ever."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from chatbot.core import keys
from chatbot.core.registry import Registry
from chatbot.core.session import Session
from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness
from tests.e2e.helpers import CHAT, open_table
from tests.games import pick

STEPS = 400  # more event-loop steps than a tick takes


@pytest.fixture
async def h(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Harness]:
    settings = replace(TEST_SETTINGS, bot_delay=5.0, think_workers=0)
    store = RedisStore.from_url(redis_url, redis_prefix)
    harness = await Harness(tg, store, settings, Clock(), Registry([pick.bundle()])).start()
    try:
        yield harness
    finally:
        await harness.stop()
        await store.close()


async def loaded(h: Harness) -> Session:
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None
    return session


async def test_a_tick_cancelled_at_every_step_ends_cancelled(h: Harness, tg: FakeTelegram) -> None:
    await open_table(h, tg, [tg.user(401, "Ann")], computers=1)
    clock = h.bot.sessions.clock
    assert isinstance(clock, Clock)
    store, runner = h.bot.sessions._store, h.bot.runner
    before = await loaded(h)
    assert before.deadline is not None
    original = await store.load(keys.game(CHAT))
    assert original is not None
    clock.now = before.deadline + 1  # the computer's move is due
    cancelled = 0
    for step in range(STEPS):
        task = asyncio.create_task(runner.tick())
        for _ in range(step):
            await asyncio.sleep(0)
        requested = task.cancel()
        done, _ = await asyncio.wait([task], timeout=10)
        assert done, f"a tick cancelled after {step} steps did not end"
        if requested:
            assert task.cancelled(), f"the cancel after {step} steps was swallowed"
            cancelled += 1
        await runner.delivery.settle()
        after = await loaded(h)
        assert after.moves in (before.moves, before.moves + 1), "moved once at most"
        if not requested:
            assert after.moves == before.moves + 1, "the tick that ran to its end moved"
            break
        current = await store.load(keys.game(CHAT))  # back to the due move, for the next step
        assert current is not None
        await store.save(keys.game(CHAT), original.data, current.version, 3600, before.deadline)
    else:
        pytest.fail(f"no tick ran to its end within {STEPS} steps")
    assert cancelled > 5, "the cancels landed at many points of the tick"
    assert not h.bot.errors, h.bot.errors


async def test_a_runner_stopped_at_every_step_stops_with_its_timers(
    h: Harness, tg: FakeTelegram
) -> None:
    await open_table(h, tg, [tg.user(402, "Bea")], computers=1)
    clock = h.bot.sessions.clock
    assert isinstance(clock, Clock)
    runner = h.bot.runner
    runner.settings = replace(runner.settings, tick=0.0)  # ticking all the time
    before = await loaded(h)
    assert before.deadline is not None
    clock.now = before.deadline + 1
    for step in range(0, 120, 3):
        runner.start()
        for _ in range(step):
            await asyncio.sleep(0)
        await asyncio.wait_for(runner.stop(), 20)
        assert not runner._timing and runner._ticker is None and runner._beat is None
        assert (await loaded(h)).moves <= before.moves + 1
    assert not h.bot.errors, h.bot.errors
