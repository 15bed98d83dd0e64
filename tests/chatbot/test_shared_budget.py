"""One flood budget for every process behind a bot: Telegram's 20 messages a minute in a group
and 30 a second over all chats hold for N processes together, because each place is reserved
in the shared Redis (chatbot/store/lua/reserve.lua); a process that loses Redis falls back to
its share of the limits."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from chatbot.core.budget import Budgets
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import RedisStore
from chatbot.telegram.limits import GROUP_PERIOD, FloodLimiter
from tests.clock import Clock

GROUP = -100777
PROCESSES = 3


@pytest.fixture
async def store(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    yield store
    await store.close()


def most_in_any(moments: list[float], period: float) -> int:
    """The most moments that fall within any `period` seconds (the window starts at one)."""
    moments = sorted(moments)
    return max(sum(1 for m in moments[i:] if m < start + period) for i, start in enumerate(moments))


async def sends(limiters: list[FloodLimiter], clock: Clock, each: int, chat: int) -> list[float]:
    """Every limiter asks for `each` messages to `chat` at once, taking turns: the moments
    their places were reserved at."""
    moments = []
    for _ in range(each):
        for limiter in limiters:
            wait = await limiter._shared_wait(chat, "sendMessage")
            assert wait is not None
            moments.append(clock() + wait)
    return moments


async def test_three_processes_keep_a_groups_minute_and_the_bots_second_together(
    store: RedisStore,
) -> None:
    clock = Clock()
    limiters = []
    for n in range(PROCESSES):
        limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
        limiter.share(Budgets(store, clock, f"p{n}"), "tg42")
        limiters.append(limiter)
    moments = await sends(limiters, clock, 20, GROUP)
    assert most_in_any(moments, GROUP_PERIOD) == 20, "20 a minute in the group, all together"
    assert max(moments) > 2 * GROUP_PERIOD, "60 messages take three minutes"
    private = await sends(limiters, clock, 20, 5)  # to a person: only the bot's 30 a second
    assert most_in_any(private, 1.0) == 30
    assert limiters[0].processes == PROCESSES, "each knows how many share the bot"
    assert limiters[0].room(GROUP) == 0 and limiters[0].ready(GROUP) > 30


async def test_a_process_that_loses_redis_keeps_its_share(store: RedisStore) -> None:
    """Three processes used the budget; one loses Redis: alone, it sends a third of the
    group's minute (the others keep theirs in Redis), never the whole minute."""
    clock = Clock()
    limiters = []
    for n in range(PROCESSES):
        limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
        limiter.share(Budgets(store, clock, f"p{n}"), "tg43")
        limiters.append(limiter)
    await sends(limiters, clock, 2, -100778)  # every process reserved: three are known
    lost = RedisStore.from_url("redis://127.0.0.1:1/0")  # nothing listens there
    try:
        alone = limiters[0]
        alone.share(Budgets(lost, clock, "p0"), "tg43")
        assert await alone._shared_wait(GROUP, "sendMessage") is None
        moments = [clock() + alone._wait(GROUP, "sendMessage") for _ in range(20)]
    finally:
        await lost.close()
    assert alone.processes == PROCESSES
    assert most_in_any(moments, GROUP_PERIOD) == 20 // PROCESSES


async def test_a_429_pauses_the_group_for_every_process(store: RedisStore) -> None:
    clock = Clock()
    one, other = (FloodLimiter(clock=clock) for _ in range(2))
    for n, limiter in enumerate((one, other)):
        limiter.share(Budgets(store, clock, f"p{n}"), "tg44")
    await Budgets(store, clock, "p0").pause(f"tg44/{GROUP}", 12.0)  # as `one` does on a 429
    wait = await other._shared_wait(GROUP, "sendMessage")
    assert wait is not None and wait >= 12.0


async def test_the_memory_store_keeps_the_same_budget_as_redis(store: RedisStore) -> None:
    """One process without Redis (the console, a quick local run) reserves the same places."""
    got = []
    for kept in (MemoryStore(), store):
        clock = Clock()
        limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
        limiter.share(Budgets(kept, clock, "p0"), "tg45")
        got.append(await sends([limiter], clock, 45, GROUP))
    assert got[0] == pytest.approx(got[1], abs=1e-3)  # (Redis keeps microseconds)
    assert most_in_any(got[0], GROUP_PERIOD) <= 20
