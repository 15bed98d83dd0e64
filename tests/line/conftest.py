"""LINE tests: the fake LINE Messaging API and a LINE bot pointed at it, on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from chatbot.bootstrap import line_bot
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.store.redis import RedisStore
from tests.line.fake_line import FakeLine, bot_settings


@pytest.fixture
async def line() -> AsyncIterator[FakeLine]:
    async with FakeLine.running() as fake:
        yield fake


@pytest.fixture
async def bot(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[LineBot]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    lb = line_bot(bot_settings(line), store, registry())
    await lb.start()
    try:
        yield lb
    finally:
        await lb.stop()
