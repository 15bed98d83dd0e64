"""LINE tests: the fake LINE Messaging API and a LINE bot pointed at it, on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine


@pytest.fixture
async def line() -> AsyncIterator[FakeLine]:
    async with FakeLine.running() as fake:
        yield fake


@pytest.fixture
async def bot(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[LineBot]:
    settings = Settings(
        line_channel_secret=SECRET,
        line_channel_access_token=ACCESS_TOKEN,
        line_api_base_url=line.base_url,
        bot_delay=0,
        table_interval=0,
        tick=3600,  # no background ticks: the tests tick themselves
    )
    store = RedisStore.from_url(redis_url, redis_prefix)
    lb = LineBot(settings, store, registry())
    await lb.start()
    try:
        yield lb
    finally:
        await lb.stop()
