"""A Telegram bot whose game page is a Mini App, served by the bot's real web server (uvicorn
in this process) beside the fake Bot API server; init data signed here as Telegram signs it
(docs/platforms.md), with the tests' stand-in for telegram-web-app.js served at SDK_PATH."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from chatbot.core import buttons as b
from chatbot.settings import Settings
from chatbot.store.base import Store
from chatbot.web import app
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness
from tests.e2e.helpers import GROUP, button
from tests.local_server import LocalServer

JSON = dict[str, Any]
APP = "table"  # the Mini App's short name
SDK_PATH = "/test/telegram-web-app.js"
SDK_FILE = Path(__file__).with_name("telegram_web_app.js")
PAGE_SETTINGS = replace(
    TEST_SETTINGS,
    telegram=replace(TEST_SETTINGS.telegram, webapp_name=APP, webapp_sdk_url=SDK_PATH),
)


def init_data(token: str, user: JSON, start: str, made: float | None = None, **more: str) -> str:
    """Init data as Telegram gives a Mini App: the fields, and their hash signed with the key
    HMAC-SHA256("WebAppData", bot token)."""
    fields = {
        "auth_date": str(int(time.time() if made is None else made)),
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "start_param": start,
        **more,
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def game_token(group: int = GROUP) -> str:
    return b.hand_payload(f"tg:{group}")


class Site:
    """One bot process with its web server (the page and its API)."""

    def __init__(self, h: Harness, port: int) -> None:
        self.h, self.port = h, port
        self.base = f"http://127.0.0.1:{port}"

    @property
    def tg(self) -> FakeTelegram:
        return self.h.tg

    def auth(self, user: JSON, **kw: Any) -> str:
        token = kw.pop("token", self.tg.token)
        return "tma " + init_data(token, user, kw.pop("start", game_token()), **kw)

    def page(self) -> str:
        return f"{self.base}/webapp/page"

    def who(self, user: JSON, **kw: Any) -> dict[str, Any]:
        data = init_data(self.tg.token, user, game_token())
        test = {"initData": data, "startParam": game_token(), "user": user, **kw}
        return {"__telegramTest": test}

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, timeout=10)


@asynccontextmanager
async def served(
    tg: FakeTelegram, store: Store, settings: Settings = PAGE_SETTINGS
) -> AsyncIterator[Site]:
    """A started bot with a Mini App, and its web server."""
    h = Harness(tg, store, settings)
    await h.start()
    web = app(h.bot, ops=False)

    async def sdk(request: Request) -> Response:
        return Response(SDK_FILE.read_text("utf-8"), media_type="text/javascript")

    web.router.routes.append(Route(SDK_PATH, sdk, methods=["GET"]))
    server = LocalServer(web, "the bot's web server")
    port = await server.start()
    try:
        yield Site(h, port)
    finally:
        await server.stop()
        await h.stop()
        await store.close()


async def open_game(
    h: Harness, tg: FakeTelegram, game: str, humans: list[JSON], members: tuple[JSON, ...] = ()
) -> None:
    """`game` opened in GROUP by the first of `humans`, the others joined, started."""
    host = humans[0]
    tg.group(GROUP, "Symposium", creator=host, members=[*humans, *members])
    for user in humans:
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, host, f"/newgame {game}")
    lobby = tg.last_message(GROUP)
    assert lobby is not None
    for user in humans[1:]:
        await h.press(user, lobby, button(lobby, b.JOIN))
        lobby = tg.message(GROUP, lobby.message_id)
    await h.bot.runner.delivery.flush()
    lobby = tg.message(GROUP, lobby.message_id)
    await h.press(host, lobby, button(lobby, b.START))
    await h.bot.runner.delivery.flush()
