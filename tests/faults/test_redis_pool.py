"""The Redis store's connection pool against a real redis-server: under load a command waits
for a free connection instead of failing (load is not an outage), and a frozen Redis is still
reported within REDIS_TIMEOUT of each call, however long it waited for a connection."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest
import redis.asyncio as aioredis

from chatbot.settings import Settings
from chatbot.store.base import StoreUnavailable
from chatbot.store.redis import RedisStore
from tests.faults.conftest import RedisProcess


async def test_more_calls_than_connections_wait_their_turn(own_redis: RedisProcess) -> None:
    redis_url = own_redis.url
    # Each call's deadline counts its wait for a connection: the last of 200 calls on 2
    # connections waits for about 100 round trips, more than the default 2 s on a busy
    # machine. What is tested here is that they wait instead of failing; the deadline has a
    # test of its own below.
    settings = Settings(redis_url=redis_url, redis_pool_size=2, redis_timeout=30.0)
    store = RedisStore.from_settings(settings, "pool-wait:")
    try:
        keys = [f"game:c{n}" for n in range(200)]
        versions = await asyncio.gather(*(store.save(k, b"x", 0, 60) for k in keys))
        loaded = await asyncio.gather(*(store.load(k) for k in keys))
        assert versions == [1] * 200
        assert [doc.data if doc else None for doc in loaded] == [b"x"] * 200
        checker = aioredis.Redis.from_url(redis_url)
        try:
            mine = await checker.client_id()
            clients = [c for c in await checker.client_list() if int(c["id"]) != mine]
        finally:
            await checker.aclose()
        assert 1 <= len(clients) <= 2, clients
    finally:
        await store.close()


async def test_a_call_that_waited_for_a_connection_still_fails_within_the_timeout(
    own_redis: RedisProcess,
) -> None:
    """One connection: the second call waits while the first hangs on a frozen Redis, then
    gets the connection when the first gives up. Its own deadline counts from its start, the
    wait included (without it the second call would take the wait plus a whole timeout)."""
    timeout = 1.0
    settings = replace(
        Settings(redis_url=own_redis.url, redis_pool_size=1),
        redis_timeout=timeout,
        redis_connect_timeout=timeout,
    )
    store = RedisStore.from_settings(settings, "pool-frozen:")
    try:
        await store.load("game:c1")  # the connection is open
        own_redis.freeze()

        async def timed(key: str) -> float:
            began = time.monotonic()
            with pytest.raises(StoreUnavailable):
                await store.load(key)
            return time.monotonic() - began

        first = asyncio.create_task(timed("game:c1"))
        await asyncio.sleep(0.05)  # the first holds the one connection now
        second = await timed("game:c2")
        await first
        assert second < 1.5 * timeout, f"the waiting call took {second:.2f} s"
    finally:
        own_redis.thaw()
        await store.close()
