"""End-to-end tests use the fixtures of tests/conftest.py (the fake Telegram server, a real
redis-server); `harness` here is a started bot on that Redis (a test file may define its own)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness


@pytest.fixture
async def harness(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Harness]:
    h = Harness(tg, RedisStore.from_url(redis_url, redis_prefix), TEST_SETTINGS)
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
        await h.bot.sessions._store.close()
