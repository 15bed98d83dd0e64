"""Start-up is the bootstrap's: importing the bot's modules changes nothing in the process,
and the web server serves the routes of the adapters the settings configure, no others."""

from __future__ import annotations

import os
import subprocess
import sys

from starlette.routing import Route

from chatbot.bootstrap import web_app
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.settings import LineSettings, Settings, TelegramSettings

PROBE = """
import atexit, os
hooks = []
register = atexit.register
atexit.register = lambda f, *a, **k: (hooks.append(f.__module__), register(f, *a, **k))[1]
import chatbot.__main__, chatbot.bootstrap, chatbot.core.thinking, chatbot.line.bot
import chatbot.telegram.bot, chatbot.web
print(os.environ.get("PTB_TIMEDELTA"), [h for h in hooks if h.startswith("chatbot")])
chatbot.bootstrap.prepare()
chatbot.bootstrap.prepare()
print(os.environ.get("PTB_TIMEDELTA"), [h for h in hooks if h.startswith("chatbot")])
assert chatbot.bootstrap.thinking_pool(1) is chatbot.bootstrap.thinking_pool(1)
print([h for h in hooks if h.startswith("chatbot")])
"""


def test_importing_runs_nothing_and_the_process_things_are_made_once() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PTB_TIMEDELTA"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["None []", "true []", "['chatbot.core.thinking']"], (
        "the process's thinking workers are made once, and ended at exit"
    )


async def _paths(settings: Settings) -> set[str]:
    server = web_app(settings, registry())
    for adapter in server.state.adapters:
        if isinstance(adapter, LineBot):
            await adapter.client.close()  # (never started: nothing else is open)
    return {r.path for r in server.routes if isinstance(r, Route)}


async def test_the_web_server_serves_the_routes_of_the_adapters_configured() -> None:
    line = Settings(line=LineSettings(channel_secret="s", channel_access_token="t"))
    telegram = Settings(
        telegram=TelegramSettings(token="123:abc", webhook_url="https://bot.example/tg")
    )
    assert await _paths(line) == {"/line/webhook"}
    assert await _paths(telegram) == {"/telegram/webhook"}
    both = Settings(
        line=LineSettings(
            channel_secret="s",
            channel_access_token="t",
            liff_id="1234-abcd",
            login_channel_id="1234",
        ),
        telegram=TelegramSettings(token="123:abc", webhook_url="https://bot.example/tg"),
    )
    assert {"/line/webhook", "/telegram/webhook"} < await _paths(both)  # and the hand page's


SETTLE = """
import gc
from chatbot.bootstrap import YOUNG_COLLECTION, settled
print(gc.get_threshold()[0], gc.get_freeze_count() == 0)
settled()
print(gc.get_threshold()[0] == YOUNG_COLLECTION, gc.get_freeze_count() > 10_000, gc.isenabled())
"""


def test_a_settled_server_freezes_start_up_and_collects_young_objects_less_often() -> None:
    """`settled` (docs/performance.md): start-up's objects frozen, the collector still on,
    the youngest generation collected every YOUNG_COLLECTION allocations, not Python's 700."""
    done = subprocess.run(
        [sys.executable, "-c", SETTLE], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == ["700 True", "True True True"], done.stdout
