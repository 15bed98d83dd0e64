"""The webhook server: one ASGI app (Starlette, served by uvicorn) serving the routes of the
adapters it is given (each its webhook, and what it serves beside it). `/healthz` (the store
answers) and `/metrics` (Prometheus) are served by `ops_app`, on a port of their own
(`METRICS_HOST`, `METRICS_PORT`: localhost by default). The adapters start with the app and,
when it stops, deliver what they owe."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from chatbot.core.sessions import Sessions
from chatbot.metrics import RunningGames


class WebAdapter(Protocol):
    """A platform adapter the web server serves: its routes (its webhook, and what it serves
    beside it), started with the server and stopped when it stops."""

    @property
    def sessions(self) -> Sessions: ...

    def web_routes(self) -> list[BaseRoute]:
        """Its webhook's route and any it serves beside it."""
        ...

    async def start(self) -> None: ...

    async def stop(self, close_store: bool = True) -> None: ...


def app(*adapters: WebAdapter, ops: bool = True) -> Starlette:
    """The app serving the routes of the adapters given (at least one), started in the
    order given and stopped in reverse; with `ops`, also /healthz and /metrics (tests;
    `python -m chatbot web` serves those on their own port through `ops_app`). Their stores
    (one shared store, as a rule) are closed once, after every adapter stopped."""
    if not adapters:
        raise ValueError("the webhook server needs a platform's adapter")
    stores: list[Sessions] = []  # one a store (one shared store, as a rule)
    for adapter in adapters:
        if not any(adapter.sessions.same_store(s) for s in stores):
            stores.append(adapter.sessions)
    routes = [route for adapter in adapters for route in adapter.web_routes()]
    running = RunningGames(stores[0].count_running, adapters[0].sessions.games.names)
    if ops:
        routes += ops_routes(stores, running)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        for adapter in adapters:
            await adapter.start()
        try:
            yield
        finally:
            try:
                for adapter in reversed(adapters):
                    await adapter.stop(close_store=False)
            finally:
                for store in stores:
                    await store.close()

    server = Starlette(routes=routes, lifespan=lifespan)
    server.state.adapters, server.state.running = adapters, running
    server.state.stores = stores
    return server


def ops_app(webhooks: Starlette) -> Starlette:
    """/healthz and /metrics of the webhook app `webhooks`, as an app of their own (for a
    port that is not public). It starts and stops nothing: `webhooks` does."""
    return Starlette(routes=ops_routes(webhooks.state.stores, webhooks.state.running))


def ops_routes(stores: list[Sessions], running: RunningGames) -> list[Route]:
    async def healthz(request: Request) -> PlainTextResponse:
        try:  # the store answers: the bots can load and save games
            for store in stores:
                await store.probe()
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
