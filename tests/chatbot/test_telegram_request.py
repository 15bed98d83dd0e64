"""The Bot API connection (chatbot/telegram/request.py) against a local HTTP server: what it
sends, how many connections it opens, and how failures reach python-telegram-bot."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import BadRequest, NetworkError, TimedOut

from chatbot.telegram.request import AiohttpRequest

TOKEN = "123:abc"


class Server:
    """A Bot API stand-in: records each call's parameters (a JSON body or a form), answers
    {"ok": true}, or as told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []  # method, form, User-Agent
        self.delay = 0.0
        self.open = 0  # requests being served now
        self.most_open = 0
        self.peers: set[int] = set()  # client ports seen: one a connection

    async def handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        form: dict[str, Any] = {}
        if request.content_type == "application/json":
            form = await request.json()
        for name, value in (await request.post()).items():
            form[name] = value.file.read() if isinstance(value, web.FileField) else value
        self.calls.append((method, form, request.headers.get("User-Agent", "")))
        assert request.transport is not None
        self.peers.add(request.transport.get_extra_info("peername")[1])
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.open -= 1
        if method == "drop":  # the connection breaks without an answer
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if method == "refuse":
            return web.json_response(
                {"ok": False, "error_code": 400, "description": "Bad Request: no"}, status=400
            )
        if method == "getMe":
            me = {"id": 123, "is_bot": True, "first_name": "Bot", "username": "bot"}
            return web.json_response({"ok": True, "result": me})
        return web.json_response({"ok": True, "result": form.get("echo", True)})


@pytest.fixture
async def server() -> AsyncIterator[tuple[Server, str]]:
    fake = Server()
    app = web.Application()
    app.router.add_post("/bot{token}/{method}", fake.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield fake, f"http://127.0.0.1:{port}/bot"
    await runner.cleanup()


async def test_a_call_sends_its_parameters_as_json(server: tuple[Server, str]) -> None:
    fake, base = server
    keyboard = {"inline_keyboard": [[{"text": "ก", "callback_data": "m1|x"}]]}
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest(trust_env=False)) as bot:
        result = await bot.do_api_request(
            "echo", api_kwargs={"echo": "สวัสดี", "n": 5, "reply_markup": keyboard}
        )
    assert result == "สวัสดี"
    method, params, agent = fake.calls[-1]
    assert method == "echo"
    assert params == {"echo": "สวัสดี", "n": 5, "reply_markup": keyboard}
    assert "python-telegram-bot" in agent


async def test_a_file_goes_as_multipart(server: tuple[Server, str]) -> None:
    fake, base = server
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest(trust_env=False)) as bot:
        assert await bot.set_webhook("https://example.org/hook", certificate=b"-----CERT-----")
    method, form, _ = fake.calls[-1]
    assert method == "setWebhook"
    assert form["url"] == "https://example.org/hook"
    assert form["certificate"] == b"-----CERT-----"


async def test_overlapping_calls_share_at_most_the_pool(server: tuple[Server, str]) -> None:
    fake, base = server
    fake.delay = 0.05
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest(3, trust_env=False)) as bot:
        fake.peers.clear()
        results = await asyncio.gather(
            *(bot.do_api_request("echo", api_kwargs={"echo": str(i)}) for i in range(12))
        )
    assert results == [str(i) for i in range(12)]
    assert fake.most_open == 3
    assert len(fake.peers) == 3  # connections are kept and reused


async def test_a_refusal_is_the_bot_apis_error(server: tuple[Server, str]) -> None:
    _, base = server
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest(trust_env=False)) as bot:
        with pytest.raises(BadRequest, match="No"):
            await bot.do_api_request("refuse")


async def test_a_slow_answer_times_out(server: tuple[Server, str]) -> None:
    fake, base = server
    request = AiohttpRequest(read_timeout=0.2, write_timeout=0.0, trust_env=False)
    async with Bot(TOKEN, base_url=base, request=request) as bot:
        fake.delay = 1.0
        with pytest.raises(TimedOut):
            await bot.do_api_request("echo", api_kwargs={"echo": "late"})


async def test_a_broken_connection_is_a_network_error(server: tuple[Server, str]) -> None:
    _, base = server
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest(trust_env=False)) as bot:
        with pytest.raises(NetworkError) as caught:
            await bot.do_api_request("drop")
    assert not isinstance(caught.value, TimedOut)


async def test_no_server_is_a_network_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    request = AiohttpRequest(trust_env=False)
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as caught:
            await request.post(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe")
        assert not isinstance(caught.value, TimedOut)
    finally:
        await request.shutdown()


async def test_it_can_be_started_again_after_shutdown(server: tuple[Server, str]) -> None:
    _, base = server
    request = AiohttpRequest(trust_env=False)
    bot = Bot(TOKEN, base_url=base, request=request)
    for _ in range(2):  # as TelegramBot.reach does before the application starts
        async with bot:
            assert await bot.do_api_request("echo", api_kwargs={"echo": "x"}) == "x"
    with pytest.raises(NetworkError, match="not initialized"):
        await request.post(f"{base}{TOKEN}/echo")


class Proxy:
    """A forward HTTP proxy stand-in: records each request line and its Proxy-Authorization
    header, and answers every call as the Bot API's getMe would."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str | None]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := (await reader.readline()).decode():
            headers: dict[str, str] = {}
            while (header := (await reader.readline()).decode().strip()) != "":
                name, _, value = header.partition(":")
                headers[name.strip().lower()] = value.strip()
            await reader.readexactly(int(headers.get("content-length", "0")))
            self.requests.append((line.strip(), headers.get("proxy-authorization")))
            me = b'{"ok":true,"result":{"id":123,"is_bot":true,"first_name":"Bot","username":"b"}}'
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(me)}"
            writer.write(head.encode() + b"\r\n\r\n" + me)
            await writer.drain()
        writer.close()


@pytest.fixture
async def proxy(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Proxy, str]]:
    for name in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    fake = Proxy()
    listener = await asyncio.start_server(fake.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    yield fake, f"127.0.0.1:{port}"
    listener.close()
    await listener.wait_closed()


async def test_calls_go_through_the_proxy_in_the_environment(
    proxy: tuple[Proxy, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, address = proxy
    monkeypatch.setenv("HTTP_PROXY", f"http://{address}")
    request = AiohttpRequest()  # the environment is read here
    # No such host: only the proxy can answer for it.
    async with Bot(TOKEN, base_url="http://bot-api.invalid/bot", request=request) as bot:
        assert bot.username == "b"
    assert fake.requests == [(f"POST http://bot-api.invalid/bot{TOKEN}/getMe HTTP/1.1", None)]


async def test_a_proxys_credentials_go_with_every_call(
    proxy: tuple[Proxy, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, address = proxy
    monkeypatch.setenv("HTTPS_PROXY", "http://nobody:nothing@127.0.0.9:9")  # not for http://
    monkeypatch.setenv("HTTP_PROXY", f"http://egobot:s%20cret@{address}")
    async with Bot(TOKEN, base_url="http://bot-api.invalid/bot", request=AiohttpRequest()):
        pass
    assert [auth for _, auth in fake.requests] == ["Basic ZWdvYm90OnMgY3JldA=="]  # egobot:s cret


async def test_no_proxy_sends_its_hosts_straight_there(
    proxy: tuple[Proxy, str], server: tuple[Server, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_proxy, address = proxy
    fake, base = server
    monkeypatch.setenv("HTTP_PROXY", f"http://{address}")
    monkeypatch.setenv("NO_PROXY", "example.org,127.0.0.1")
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest()) as bot:
        assert await bot.do_api_request("echo", api_kwargs={"echo": "direct"}) == "direct"
    assert fake_proxy.requests == []
    assert [method for method, _, _ in fake.calls] == ["getMe", "echo"]


async def test_the_environment_is_read_once_at_start_up(
    proxy: tuple[Proxy, str], server: tuple[Server, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_proxy, address = proxy
    fake, base = server
    request = AiohttpRequest()  # no proxy in the environment now
    monkeypatch.setenv("HTTP_PROXY", f"http://{address}")  # set later: not read again
    async with Bot(TOKEN, base_url=base, request=request) as bot:
        assert await bot.do_api_request("echo", api_kwargs={"echo": "x"}) == "x"
    assert fake_proxy.requests == []
    assert len(fake.calls) == 2
