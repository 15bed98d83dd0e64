"""The webhook server: one ASGI app (Starlette, served by uvicorn) with `/line/webhook` and
`/telegram/webhook` for the platforms it is given (a Telegram press's answer rides on the
HTTP response), and the routes a bot serves beside its webhook (LINE's hand page).
`/healthz` (the store answers) and `/metrics` (Prometheus) are served by `ops_app`, on a
port of their own (`METRICS_HOST`, `METRICS_PORT`: localhost by default).
The bots start with the app and, when it stops, deliver what they owe.

A webhook body is read only up to `max_body` bytes (413 past that: nothing more is read),
and a Telegram request without its secret is refused before its body is read."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from chatbot.bodies import TooLarge, bounded_body
from chatbot.metrics import RunningGames
from chatbot.store.base import Store

if TYPE_CHECKING:
    from chatbot.line.bot import LineBot
    from chatbot.telegram.bot import TelegramBot

HEALTH_KEY = "health"
SECRET_HEADER = "x-telegram-bot-api-secret-token"


def _too_large() -> PlainTextResponse:
    return PlainTextResponse("body too large", status_code=413)


def app(
    line: LineBot | None = None, telegram: TelegramBot | None = None, ops: bool = True
) -> Starlette:
    """The app serving the webhooks of the bots given (at least one); with `ops`, also
    /healthz and /metrics (tests; `python -m chatbot web` serves those on their own port
    through `ops_app`). Their stores (one shared store, as a rule) are closed once, after
    both bots stopped."""
    stores: list[Store] = []
    for bot in (line, telegram):
        if bot is not None and all(bot.tables.store is not s for s in stores):
            stores.append(bot.tables.store)
    if not stores:
        raise ValueError("the webhook server needs a LINE or a Telegram bot")
    routes = []

    if line is not None:
        line_bot = line
        line_limit = line.settings.max_body

        async def line_webhook(request: Request) -> PlainTextResponse:
            try:
                raw = await bounded_body(request, line_limit)
            except TooLarge:
                return _too_large()
            except ClientDisconnect:
                return PlainTextResponse("", status_code=400)
            body = raw.decode("utf-8", "replace")
            signature = request.headers.get("x-line-signature")
            if not line_bot.signed(body, signature):
                return PlainTextResponse("bad signature", status_code=400)
            status = await line_bot.webhook(body, signature)
            text = "OK" if status == 200 else "not a webhook body"
            return PlainTextResponse(text, status_code=status)

        routes.append(Route("/line/webhook", line_webhook, methods=["POST"]))
        routes += line.web_routes()

    if telegram is not None:
        telegram_bot = telegram
        telegram_limit = telegram.settings.max_body

        async def telegram_webhook(request: Request) -> Response:
            secret = request.headers.get(SECRET_HEADER)
            if not telegram_bot.authentic(secret):  # before a byte of the body is read
                return PlainTextResponse("bad secret token", status_code=403)
            try:
                body = await bounded_body(request, telegram_limit)
            except TooLarge:
                return _too_large()
            except ClientDisconnect:
                return PlainTextResponse("", status_code=400)
            status, method = await telegram_bot.webhook_response(body, secret)
            if status == 200 and method is not None:  # Telegram calls it: one call saved
                return JSONResponse(method)
            texts = {200: "OK", 400: "not an update", 403: "bad secret token"}
            return PlainTextResponse(texts.get(status, ""), status_code=status)

        routes.append(Route("/telegram/webhook", telegram_webhook, methods=["POST"]))

    first = line if line is not None else telegram
    assert first is not None
    running = RunningGames(stores[0], first.tables.games.names)  # the bots' store (one, as a rule)
    if ops:
        routes += ops_routes(stores, running)

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
    server.state.stores = stores
    return server


def ops_app(webhooks: Starlette) -> Starlette:
    """/healthz and /metrics of the webhook app `webhooks`, as an app of their own (for a
    port that is not public). It starts and stops nothing: `webhooks` does."""
    return Starlette(routes=ops_routes(webhooks.state.stores, webhooks.state.running))


def ops_routes(stores: list[Store], running: RunningGames) -> list[Route]:
    async def healthz(request: Request) -> PlainTextResponse:
        try:  # the store answers: the bots can load and save games
            for store in stores:
                await store.get_setting(HEALTH_KEY, "probe")
        except Exception as exc:
            return PlainTextResponse(f"storage unavailable: {exc!r}", status_code=503)
        return PlainTextResponse("OK")

    async def metrics(request: Request) -> Response:
        await running.refresh()
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]
