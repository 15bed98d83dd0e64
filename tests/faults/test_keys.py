"""Every key the bot writes expires: after a full game, a scan of the store finds no key
without a time to live but the deadline index."""

from __future__ import annotations

import redis.asyncio as aioredis

from chatbot.core.tables import HISTORY_TTL, PREFS_TTL
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness
from tests.e2e.helpers import CHAT, GROUP, open_table, play_out


async def test_after_a_full_game_every_key_has_a_ttl(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, redis_client: aioredis.Redis
) -> None:
    h = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(87, "Ivy"), tg.user(88, "Jo")]
        await open_table(h, tg, users, computers=1)
        await h.command(GROUP, users[0], "/language")
        await h.tick()
        await h.bot.tables.heartbeat()
        await play_out(h, tg, users, seed=9)
    finally:
        await h.stop()
        await h.bot.tables.store.close()
    keys = {
        key.decode().removeprefix(redis_prefix): await redis_client.ttl(key)
        async for key in redis_client.scan_iter(match=redis_prefix + "*")
    }
    forever = sorted(k for k, ttl in keys.items() if ttl < 0)
    assert forever == [], forever
    assert f"hist:{CHAT}" in keys and keys[f"hist:{CHAT}"] > HISTORY_TTL - 60
    assert PREFS_TTL - 60 < keys["user:tg:87"] <= PREFS_TTL
    assert any(k.startswith("seen:") for k in keys), sorted(keys)
