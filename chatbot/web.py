"""The webhook server: one ASGI app (Starlette, served by uvicorn) with `/line/webhook` and
`/telegram/webhook` for the platforms it is given (a Telegram press's answer rides on the
HTTP response), `/healthz` (the store answers) and `/metrics` (Prometheus). The bots start
with the app and, when it stops, deliver what they owe."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from chatbot.metrics import RunningGames
from chatbot.store.base import Store

if TYPE_CHECKING:
    from chatbot.line.bot import LineBot
    from chatbot.telegram.bot import TelegramBot

HEALTH_KEY = "health"
SECRET_HEADER = "x-telegram-bot-api-secret-token"


def app(line: LineBot | None = None, telegram: TelegramBot | None = None) -> Starlette:
    """The app serving the webhooks of the bots given (at least one). Their stores (one
    shared store, as a rule) are closed once, after both bots stopped."""
    stores: list[Store] = []
    for bot in (line, telegram):
        if bot is not None and all(bot.tables.store is not s for s in stores):
            stores.append(bot.tables.store)
    if not stores:
        raise ValueError("the webhook server needs a LINE or a Telegram bot")
    routes = []

    if line is not None:
        line_bot = line

        async def line_webhook(request: Request) -> PlainTextResponse:
            body = (await request.body()).decode("utf-8", "replace")
            status = await line_bot.webhook(body, request.headers.get("x-line-signature"))
            text = "OK" if status == 200 else "bad signature"
            return PlainTextResponse(text, status_code=status)

        routes.append(Route("/line/webhook", line_webhook, methods=["POST"]))

    if telegram is not None:
        telegram_bot = telegram

        async def telegram_webhook(request: Request) -> Response:
            status, method = await telegram_bot.webhook_response(
                await request.body(), request.headers.get(SECRET_HEADER)
            )
            if status == 200 and method is not None:  # Telegram calls it: one call saved
                return JSONResponse(method)
            texts = {200: "OK", 400: "not an update", 403: "bad secret token"}
            return PlainTextResponse(texts.get(status, ""), status_code=status)

        routes.append(Route("/telegram/webhook", telegram_webhook, methods=["POST"]))

    async def healthz(request: Request) -> PlainTextResponse:
        try:  # the store answers: the bots can load and save games
            for store in stores:
                await store.get_setting(HEALTH_KEY, "probe")
        except Exception as exc:
            return PlainTextResponse(f"storage unavailable: {exc!r}", status_code=503)
        return PlainTextResponse("OK")

    first = line if line is not None else telegram
    assert first is not None
    running = RunningGames(stores[0], first.tables.games.names)  # the bots' store (one, as a rule)

    async def metrics(request: Request) -> Response:
        await running.refresh()
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    routes += [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if line is not None:
            await line.start()
        if telegram is not None:
            await telegram.start_webhook()
        try:
            yield
        finally:
            try:
                if telegram is not None:
                    await telegram.stop_webhook(close_store=False)
                if line is not None:
                    await line.stop(close_store=False)
            finally:
                for store in stores:
                    await store.close()

    server = Starlette(routes=routes, lifespan=lifespan)
    server.state.line, server.state.telegram, server.state.running = line, telegram, running
    return server
