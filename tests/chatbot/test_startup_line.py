"""Start-up says in one line where the games live and what is on (issue 34, item 4): a
`chatbot web` without REDIS_URL no longer keeps its games in memory silently."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from telegram.error import InvalidToken

from chatbot.bootstrap import startup_line, telegram_bot
from chatbot.games import registry
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, pointed_at, request

LINE = {"LINE_CHANNEL_SECRET": "s", "LINE_CHANNEL_ACCESS_TOKEN": "t"}
TELEGRAM = {
    "TELEGRAM_TOKEN": "1:x",
    "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/webhook",
}


def test_without_redis_the_line_says_games_are_lost_on_restart() -> None:
    line = startup_line(Settings.from_env(LINE))
    assert "\n" not in line
    assert line.startswith("games live in memory: they are lost on restart")
    assert "LINE webhook /line/webhook" in line and "Telegram" not in line
    assert "no LINE game page" in line and "/healthz and /metrics on 127.0.0.1:9180" in line


def test_with_redis_the_line_names_it_without_its_password() -> None:
    env = {**LINE, **TELEGRAM, "REDIS_URL": "redis://:hunter2@redis.internal:6379/0"}
    env |= {"LINE_LIFF_ID": "123-abc", "METRICS_HOST": "0.0.0.0"}
    line = startup_line(Settings.from_env(env))
    assert "hunter2" not in line
    assert line.startswith("games live in Redis at redis://:***@redis.internal:6379/0;")
    for part in ("Telegram webhook", "LINE webhook", "LINE game page /liff/page", "0.0.0.0:9180"):
        assert part in line


def test_polling_says_so() -> None:
    line = startup_line(Settings.from_env({"TELEGRAM_TOKEN": "1:x"}), polling=True)
    assert line.endswith("on: Telegram by long polling") and "memory" in line


class Reached(Exception):
    """Raised by the test's `reached`: the bot stops there instead of polling."""


async def test_polling_announces_once_telegram_took_the_token(tg: FakeTelegram) -> None:
    """`python -m chatbot telegram` logs the line from `run_polling`'s `reached`: after the
    Bot API took the token (a refused token stays one line: tests/security), before polling."""
    settings = pointed_at(tg, replace(TEST_SETTINGS, think_workers=0))
    bot = telegram_bot(settings, MemoryStore(), registry(), request=request())
    told: list[int] = []

    def reached() -> None:
        told.append(len(tg.calls_to("getMe")))
        raise Reached

    with pytest.raises(Reached):
        await asyncio.to_thread(bot.run_polling, reached)
    assert told == [1], "after Telegram answered getMe, once"
    assert not tg.calls_to("getUpdates"), "before polling"

    tg.inject_error("getMe", 401, "Unauthorized")
    refused = telegram_bot(settings, MemoryStore(), registry(), request=request())
    with pytest.raises(InvalidToken):
        await asyncio.to_thread(refused.run_polling, reached)
    assert told == [1], "never for a refused token"
