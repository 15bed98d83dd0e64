"""What the webhook server does for strangers' browsers and slow clients (chatbot/web.py):
every response says nosniff and carries a Content-Security-Policy whose framing policy lets
only the chat apps' sites (LINE's, Telegram's incl. web.telegram.org) show the page; and a
connection whose request headers do not arrive in time is closed (real uvicorn, real
sockets)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from chatbot.bootstrap import line_bot
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.store.memory import MemoryStore
from chatbot.web import Guarded, app, header_timeout
from tests.line.fake_line import FakeLine, liff_settings
from tests.local_server import LocalServer

FRAMERS = ("https://liff.line.me", "https://web.telegram.org", "https://*.telegram.org")


@pytest.fixture
async def bot(line: FakeLine) -> AsyncIterator[LineBot]:
    lb = line_bot(liff_settings(line), MemoryStore(), registry())
    await lb.start()
    try:
        yield lb
    finally:
        await lb.stop()


def policy(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy header's directives."""
    parts = (p.split() for p in header.split(";") if p.strip())
    return {p[0]: p[1:] for p in parts}


def framed_by(sources: list[str], origin: str) -> bool:
    """Whether a frame-ancestors source list lets a page of `origin` frame ours."""
    host = origin.split("://", 1)[1]
    for source in sources:
        allowed = source.split("://", 1)[-1]
        if allowed == host or (allowed.startswith("*.") and host.endswith(allowed[1:])):
            return True
    return False


async def test_the_page_the_api_and_the_webhook_tell_browsers_what_they_may_do(
    bot: LineBot, line: FakeLine
) -> None:
    transport = httpx.ASGITransport(app=app(bot))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
        responses = {
            "page": await client.get("/liff/page", params={"game": "C1"}),
            "script": await client.get("/liff/static/page.js"),
            "api": await client.get("/liff/api/state", params={"game": "C1"}),
            "webhook": await client.post("/line/webhook", content=b"{}"),
        }
    for name, got in responses.items():
        assert got.headers["x-content-type-options"] == "nosniff", name
        rules = policy(got.headers["content-security-policy"])
        ancestors = rules["frame-ancestors"]
        for origin in ("https://liff.line.me", "https://web.telegram.org"):
            assert framed_by(ancestors, origin), (name, origin)
        assert not framed_by(ancestors, "https://evil.example"), name
        assert "*" not in ancestors and "https:" not in ancestors, name
    page = policy(responses["page"].headers["content-security-policy"])
    sdk = bot.settings.line.liff_sdk_url.split("/liff-test/")[0]
    assert page["script-src"] == ["'self'", sdk], "the page runs its own script and the SDK"
    assert "'unsafe-inline'" not in page["script-src"] and page["object-src"] == ["'none'"]
    assert policy(responses["api"].headers["content-security-policy"])["default-src"] == ["'none'"]


async def _hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.fixture
async def slow_site() -> AsyncIterator[int]:
    """A guarded app on real uvicorn whose request headers must arrive within 0.3 s."""
    site = Starlette(routes=[Route("/", _hello)], middleware=[])
    server = LocalServer(Guarded(site), "guarded", http=header_timeout(0.3))
    port = await server.start()
    try:
        yield port
    finally:
        await server.stop()


async def _closed(reader: asyncio.StreamReader) -> bool:
    """Whether the server closes the connection (it would have answered nothing before)."""
    try:
        return await asyncio.wait_for(reader.read(), 10) == b""
    except TimeoutError:
        return False


@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: x\r\n"], ids=["nothing", "half"])
async def test_a_request_whose_headers_do_not_arrive_in_time_is_closed(
    slow_site: int, sent: bytes
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", slow_site)
    try:
        writer.write(sent)
        await writer.drain()
        assert await _closed(reader)
    finally:
        writer.close()


async def test_a_kept_alive_connection_is_closed_when_its_next_headers_stall(
    slow_site: int,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", slow_site)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"nosniff" in head
        assert await reader.readexactly(5) == b"hello"
        writer.write(b"GET / HTTP/1.1\r\nHo")  # the next request's first bytes only
        await writer.drain()
        assert await _closed(reader)
    finally:
        writer.close()


async def test_requests_whose_headers_arrive_are_answered(slow_site: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{slow_site}") as client:
        for _ in range(3):  # one kept-alive connection
            got = await client.get("/")
            assert got.text == "hello"
            await asyncio.sleep(0.1)
