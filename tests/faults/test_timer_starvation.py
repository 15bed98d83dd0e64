"""Deadlines whose sessions cannot be read do not starve the timers of real games: each
one that fails is moved back (one that is no document at all is dropped), so a real game's
computer moves within one more tick."""

from __future__ import annotations

import random

import redis.asyncio as aioredis

from chatbot.core.runner import RETRY_LATER
from chatbot.core.service import DUE_BATCH
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, pick
from tests.e2e.helpers import load, open_table, ready_to_move, to_move, user_of

POISONED = 50


async def test_poisoned_deadlines_delay_a_computer_move_by_at_most_one_tick(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, redis_client: aioredis.Redis
) -> None:
    h = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(89, "Kai"), tg.user(90, "Lu")]
        await open_table(h, tg, users, computers=1)
        rng = random.Random(4)
        session = await load(h)
        while not session.seats[to_move(session)].bot:  # the humans play to the computer
            user = user_of(session, to_move(session), users)
            message = await ready_to_move(h, tg, user, rng)
            await h.press(user, message, pick(message, rng))
            session = await load(h)
        # Deadlines due before the game's, whose "sessions" cannot be read: a hash where a
        # document should be (Redis answers WRONGTYPE), a value without a version.
        for i in range(POISONED):
            key = f"game:poison{i}"
            if i % 2:
                await redis_client.hset(redis_prefix + key, "x", "1")
            else:
                await redis_client.set(redis_prefix + key, b"not a document")
            await redis_client.zadd(redis_prefix + "deadlines", {key: 1.0 + i})
        assert POISONED >= DUE_BATCH, "the poisoned deadlines fill a whole tick"
        runner = h.bot.runner
        ticks = 0
        while (await load(h)).moves == session.moves:
            assert ticks < 2, "the computer moved within one tick after the poisoned ones"
            await runner.tick()
            await runner.delivery.settle()
            ticks += 1
        assert not runner.errors, "an unreadable value is no bug of ours: logged, not raised"
        index = redis_prefix + "deadlines"
        for i in range(POISONED):
            at = await redis_client.zscore(index, f"game:poison{i}")
            if i % 2:  # Redis refuses to read it (WRONGTYPE): tried again after RETRY_LATER
                assert at is not None and at > h.bot.sessions.clock() + RETRY_LATER - 5
            else:  # no document: nothing a timer could do, its deadline is dropped
                assert at is None
        deferred = await redis_client.zscore(index, "game:poison1")
        await runner.tick()
        assert await redis_client.zscore(index, "game:poison1") == deferred, "not tried again"
    finally:
        h.bot.errors.clear()
        await h.stop()
        await h.bot.sessions._store.close()
