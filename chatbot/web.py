"""The webhook server: one ASGI app (Starlette, served by uvicorn) with `/line/webhook` and
`/healthz`. The bot starts with the app and, when it stops, delivers what it owes."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from chatbot.line.bot import LineBot

HEALTH_KEY = "health"


def app(line: LineBot) -> Starlette:
    """The app serving `line`'s webhooks."""

    async def line_webhook(request: Request) -> PlainTextResponse:
        body = (await request.body()).decode("utf-8", "replace")
        status = await line.webhook(body, request.headers.get("x-line-signature"))
        return PlainTextResponse("OK" if status == 200 else "bad signature", status_code=status)

    async def healthz(request: Request) -> PlainTextResponse:
        try:  # the store answers: the bot can load and save games
            await line.tables.store.get_setting(HEALTH_KEY, "probe")
        except Exception as exc:
            return PlainTextResponse(f"storage unavailable: {exc!r}", status_code=503)
        return PlainTextResponse("OK")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await line.start()
        try:
            yield
        finally:
            await line.stop()

    routes = [
        Route("/line/webhook", line_webhook, methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
