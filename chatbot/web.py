"""The webhook server: one ASGI app (Starlette, served by uvicorn) serving the routes of the
adapters it is given (each its webhook, and what it serves beside it). `/healthz` (the store
answers) and `/metrics` (Prometheus) are served by `ops_app`, on a port of their own
(`METRICS_HOST`, `METRICS_PORT`: localhost by default). The adapters start with the app and,
when it stops, deliver what they owe.

Every response of the app says how browsers may use it (`Guarded`: no sniffing of types, a
Content-Security-Policy, shown in frames of the chat apps' own sites only), and a connection
whose request headers do not arrive within `HEADER_TIMEOUT` seconds is closed
(`header_timeout`: uvicorn itself only times out idle kept-alive connections)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from chatbot.core.sessions import Sessions
from chatbot.metrics import RunningGames

# The sites whose pages may show ours in a frame: the chat apps' web versions (LINE's, and
# Telegram's: web.telegram.org and its other hosts).
FRAMED_BY = "'self' https://line.me https://*.line.me https://telegram.org https://*.telegram.org"
# A response that sets no policy of its own (the APIs, the webhooks): nothing to load or run.
NO_CONTENT = "default-src 'none'; base-uri 'none'; form-action 'none'"


class Guarded:
    """ASGI middleware: every HTTP response gets `X-Content-Type-Options: nosniff` and a
    Content-Security-Policy (its own, else NO_CONTENT) that lets only FRAMED_BY frame it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def guarded(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["x-content-type-options"] = "nosniff"
                policy = headers.get("content-security-policy") or NO_CONTENT
                if "frame-ancestors" not in policy:
                    policy = f"{policy}; frame-ancestors {FRAMED_BY}"
                headers["content-security-policy"] = policy
            await send(message)

        await self.app(scope, receive, guarded)


def header_timeout(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools' where installed, else h11's) closing a connection
    whose request headers have not all arrived `seconds` after it opened, or after the first
    bytes of a later request on it (a client that holds connections half open)."""
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # (httptools not installed)
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class HeaderTimeout(base):  # type: ignore[misc]
        _timer: asyncio.TimerHandle | None = None
        _before: Any = None  # the request cycle before the one whose headers are awaited

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            idle = self._timer is None and before is not None and before.response_complete
            super().data_received(data)
            if idle and self.cycle is before:  # a later request's first bytes, not its headers
                self._arm()
            elif self.cycle is not self._before:  # the headers are in: a request began
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._before = self.cycle
            self._timer = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self) -> None:
            self._timer = None
            if self.cycle is self._before and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeout


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

    server = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(Guarded)])
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
