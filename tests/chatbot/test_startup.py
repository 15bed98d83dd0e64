"""Start-up: TELEGRAM_BASE_URL has one meaning (the server's root), python-telegram-bot's
durations are timedeltas (no deprecation warning), and the bot waits out a missing network."""

from __future__ import annotations

import datetime as dtm
import logging
import socket
import warnings

import pytest
from telegram.error import NetworkError, RetryAfter

from chatbot.__main__ import main
from chatbot.bootstrap import telegram_bot
from chatbot.games import registry
from chatbot.settings import Settings, TelegramSettings, bot_api_root
from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import request


@pytest.mark.parametrize(
    ("given", "root"),
    [
        ("http://localhost:8081", "http://localhost:8081"),
        ("https://api.example.org/", "https://api.example.org"),
        ("http://10.0.0.5:8081/tg", "http://10.0.0.5:8081/tg"),
    ],
)
def test_the_base_url_is_the_servers_root(given: str, root: str) -> None:
    settings = Settings.from_env({"TELEGRAM_BASE_URL": given})
    assert settings.telegram.base_url == root


@pytest.mark.parametrize(
    "given",
    [
        "http://localhost:8081/bot",
        "http://localhost:8081/bot/",
        "http://localhost:8081/bot123:abc",
        "localhost:8081",
        "ftp://localhost",
        "http://localhost:8081?x=1",
    ],
)
def test_a_base_url_that_cannot_be_right_is_refused_by_name(given: str) -> None:
    with pytest.raises(ValueError, match="TELEGRAM_BASE_URL must be a Bot API server's root"):
        Settings.from_env({"TELEGRAM_BASE_URL": given})
    with pytest.raises(ValueError):
        bot_api_root(given)


def test_a_number_setting_that_is_not_a_number_is_named() -> None:
    with pytest.raises(ValueError, match="BOT_DELAY must be a number"):
        Settings.from_env({"BOT_DELAY": "soon"})


def test_retry_after_is_a_timedelta_without_a_deprecation_warning() -> None:
    """The adapter opts in to python-telegram-bot's timedelta durations."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert RetryAfter(dtm.timedelta(seconds=3)).retry_after == dtm.timedelta(seconds=3)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_without_network_each_try_is_one_line_and_the_waits_grow(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(
        telegram=TelegramSettings(token="1:x", base_url=f"http://127.0.0.1:{_closed_port()}")
    )
    bot = telegram_bot(
        settings, MemoryStore(), registry(), request=request(), get_updates_request=request()
    )
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    caplog.set_level(logging.WARNING, logger="chatbot.telegram.bot")
    with pytest.raises(NetworkError):
        await bot.reach(attempts=4, sleep=sleep)
    assert waits == [1.0, 2.0, 4.0]
    lines = [r for r in caplog.records if r.name == "chatbot.telegram.bot"]
    assert len(lines) == 3
    assert all("cannot reach Telegram" in r.getMessage() and r.exc_info is None for r in lines)


async def test_once_telegram_answers_the_bot_starts_normally(tg: FakeTelegram) -> None:
    settings = Settings(
        telegram=TelegramSettings(token=tg.token, base_url=tg.base_url.removesuffix("/bot"))
    )
    bot = telegram_bot(
        settings, MemoryStore(), registry(), request=request(), get_updates_request=request()
    )
    await bot.reach(attempts=1)
    await bot.app.initialize()  # the connections reach() released are opened again
    try:
        assert (await bot.app.bot.get_me()).id == tg.bot_id
    finally:
        await bot.app.shutdown()


def test_a_wrong_base_url_stops_the_command_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TELEGRAM_TOKEN", "1:x")
    monkeypatch.setenv("TELEGRAM_BASE_URL", "http://localhost:8081/bot")
    assert main(["telegram"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TELEGRAM_BASE_URL" in err


def test_the_bot_without_a_token_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TELEGRAM_TOKEN", raising=False)
    assert main(["telegram"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("TELEGRAM_TOKEN is not set")


def test_health_is_ok_when_redis_answers_and_fails_when_it_does_not(
    redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["health"]) == 0
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{_closed_port()}/0")
    assert main(["health"]) == 1
    assert "Redis at REDIS_URL does not answer" in capsys.readouterr().err


def test_the_access_log_is_off_unless_asked_for() -> None:
    assert Settings.from_env({}).access_log is False
    assert Settings.from_env({"ACCESS_LOG": "1"}).access_log is True
    with pytest.raises(ValueError, match="ACCESS_LOG"):
        Settings.from_env({"ACCESS_LOG": "loud"})


def test_the_web_server_runs_on_uvloop_where_it_is_installed() -> None:
    import uvloop

    from chatbot.__main__ import fast_loop

    factory = fast_loop()
    assert factory is uvloop.new_event_loop
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
