"""Start-up says in one line where the games live and what is on (issue 34, item 4): a
`chatbot web` without REDIS_URL no longer keeps its games in memory silently."""

from __future__ import annotations

import asyncio
import logging

import pytest

from chatbot.__main__ import run_telegram
from chatbot.bootstrap import startup_line
from chatbot.games import registry
from chatbot.settings import Settings
from tests.e2e.fake_telegram import FakeTelegram

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
    assert "no LINE hand page" in line and "/healthz and /metrics on 127.0.0.1:9180" in line


def test_with_redis_the_line_names_it_without_its_password() -> None:
    env = {**LINE, **TELEGRAM, "REDIS_URL": "redis://:hunter2@redis.internal:6379/0"}
    env |= {"LINE_LIFF_ID": "123-abc", "METRICS_HOST": "0.0.0.0"}
    line = startup_line(Settings.from_env(env))
    assert "hunter2" not in line
    assert line.startswith("games live in Redis at redis://:***@redis.internal:6379/0;")
    for part in ("Telegram webhook", "LINE webhook", "LINE hand page /liff/hand", "0.0.0.0:9180"):
        assert part in line


def test_polling_says_so() -> None:
    line = startup_line(Settings.from_env({"TELEGRAM_TOKEN": "1:x"}), polling=True)
    assert line.endswith("on: Telegram by long polling") and "memory" in line


async def test_the_polling_bot_logs_the_line_once_as_it_starts(
    tg: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    """The real start-up path (`python -m chatbot telegram`, in a thread beside the fake Bot
    API's loop), stopped before it polls: the Bot API refuses the token."""
    tg.inject_error("getMe", 401, "Unauthorized")
    env = {"TELEGRAM_TOKEN": tg.token, "TELEGRAM_BASE_URL": tg.base_url.removesuffix("/bot")}
    env |= {"THINK_WORKERS": "0"}
    caplog.set_level(logging.INFO, logger="chatbot")
    assert await asyncio.to_thread(run_telegram, Settings.from_env(env), registry()) == 2
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("games live")]
    assert said == [startup_line(Settings.from_env(env), polling=True)]
