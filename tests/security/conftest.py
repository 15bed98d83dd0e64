"""Security tests: the fake LINE Messaging API beside the shared fixtures (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.line.fake_line import FakeLine


@pytest.fixture
async def line() -> AsyncIterator[FakeLine]:
    async with FakeLine.running() as fake:
        yield fake
