"""Every key the bot writes expires: during a game and after it, on a single redis-server and
on a three-node Redis Cluster, a scan of the store finds no key without a time to live; on
the Cluster, a chat's keys and its deadline index share one slot."""

from __future__ import annotations

import logging

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from chatbot.core import keys
from chatbot.core.sessions import HISTORY_TTL, PREFS_TTL
from chatbot.store.base import INDEX_KEEP
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness
from tests.e2e.helpers import CHAT, GROUP, open_table, play_out


async def _ttls(client: aioredis.Redis | RedisCluster, prefix: str) -> dict[str, int]:
    """Every key under `prefix` (on every node) and its time to live in seconds."""
    return {
        key.decode(): await client.ttl(key)
        async for key in client.scan_iter(match=prefix + "*", count=1000)
    }


async def _errors(client: aioredis.Redis | RedisCluster) -> dict[str, int]:
    """Redis's count of each error it answered, summed over every node."""
    if isinstance(client, RedisCluster):
        stats = await client.info("errorstats", target_nodes=RedisCluster.PRIMARIES)
        nodes = (
            list(stats.values()) if all(isinstance(v, dict) for v in stats.values()) else [stats]
        )
    else:
        nodes = [await client.info("errorstats")]
    total: dict[str, int] = {}
    for node in nodes:
        for name, value in node.items():
            total[name] = total.get(name, 0) + int(value["count"])
    return total


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_during_and_after_a_full_game_every_key_has_a_ttl(
    tg: FakeTelegram,
    redis_prefix: str,
    request: pytest.FixtureRequest,
    cluster: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    client = RedisCluster.from_url(url) if cluster else aioredis.Redis.from_url(url)
    store = RedisStore.from_url(url, redis_prefix, cluster=cluster)
    errors = await _errors(client)
    h = await Harness(tg, store).start()
    try:
        users = [tg.user(87, "Ivy"), tg.user(88, "Jo")]
        await open_table(h, tg, users, computers=1)
        await h.command(GROUP, users[0], "/language")
        await h.tick()
        await h.bot.sessions.liveness.heartbeat()
        during = await _ttls(client, redis_prefix)
        index = store.index(keys.game(CHAT))
        assert index in during, sorted(during)  # the game is scheduled (its computer)
        assert during[index] > INDEX_KEEP - 60
        await play_out(h, tg, users, seed=9)
        after = await _ttls(client, redis_prefix)
        handled = await client.zrange(store.name(f"seen:{CHAT}"), 0, -1)
        crossslot = (await _errors(client)).get("errorstat_CROSSSLOT", 0)
        crossslot -= errors.get("errorstat_CROSSSLOT", 0)
    finally:
        await h.stop()
        await store.close()
        await client.aclose()
    assert crossslot == 0, "no script or pipeline crossed slots"
    faults = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [f for f in faults if "storage" in f or "handled" in f], faults
    for ttls in (during, after):
        forever = sorted(k for k, ttl in ttls.items() if ttl == -1)  # (-2: gone since SCAN)
        assert forever == [], forever
    assert after[store.name(f"hist:{CHAT}")] > HISTORY_TTL - 60
    assert PREFS_TTL - 60 < after[store.name("user:tg:87")] <= PREFS_TTL
    assert store.name(f"seen:{CHAT}") in after, sorted(after)
    assert handled and all(m.isdigit() for m in handled), "ids kept bare: Redis packs numbers"
    if cluster:  # every key the chat's game wrote together: one slot
        chat = [store.name(f"{kind}:{CHAT}") for kind in ("game", "seen", "ledger")]
        chat += [store._fields(keys.game(CHAT)), index]
        assert len({key_slot(k.encode()) for k in chat}) == 1
        assert store.name(keys.game(CHAT)) in during and store._fields(keys.game(CHAT)) in during
