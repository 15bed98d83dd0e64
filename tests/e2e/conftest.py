"""End-to-end fixtures: the fake Telegram server and bot processes on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.e2e.fake_telegram import FakeTelegram


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram.running() as fake:
        yield fake
