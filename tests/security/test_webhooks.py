"""Forged, oversized and malformed webhook requests (issue 21, items 1–3): a body is read only
up to MAX_BODY (413 past it, before the rest arrives); a Telegram request without the
webhook's secret is refused before its body is read, and a secret is made at start-up when
none is set; whatever an authentic request holds, the answer is 400, never 500; a signed
LINE event older than the window is dropped, and a copy within it counts once."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest

from chatbot import bootstrap
from chatbot.bootstrap import line_bot
from chatbot.core import keys
from chatbot.games import registry
from chatbot.line.bot import EVENT_WINDOW, LineBot
from chatbot.line.convert import qualify
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import RedisStore
from chatbot.telegram.bot import SECRET_HEADER, TelegramBot
from chatbot.web import app
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, pointed_at, request
from tests.e2e.helpers import GROUP
from tests.line.fake_line import SECRET, FakeLine, bot_settings, signature

URL = "https://bot.example/telegram/webhook"
LIMIT = 64 * 1024  # MAX_BODY in these tests (the default is 1 MB)


def telegram_bot(tg: FakeTelegram, secret: str | None) -> TelegramBot:
    settings = pointed_at(
        tg, replace(TEST_SETTINGS, max_body=LIMIT), webhook_url=URL, webhook_secret=secret
    )
    return bootstrap.telegram_bot(settings, MemoryStore(), registry(), request=request())


@pytest.fixture
async def served(tg: FakeTelegram) -> AsyncIterator[tuple[httpx.AsyncClient, TelegramBot]]:
    """The webhook app, started (it told the fake Telegram its URL), with no secret set."""
    bot = telegram_bot(tg, None)
    server = app(bot)
    async with server.router.lifespan_context(server):
        transport = httpx.ASGITransport(app=server)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            yield client, bot


async def test_without_a_secret_set_one_is_made_and_given_to_telegram(
    served: tuple[httpx.AsyncClient, TelegramBot], tg: FakeTelegram
) -> None:
    client, bot = served
    assert tg.webhook_url == URL and tg.webhook_secret, "setWebhook got a secret"
    assert tg.webhook_secret == bot.webhook_secret and len(tg.webhook_secret) >= 32
    ann = tg.user(301, "Ann")
    tg.group(GROUP, "Agora", creator=ann)
    update = tg.message_update(GROUP, ann, "/newgame")
    for headers in ({}, {SECRET_HEADER: "guess"}, {SECRET_HEADER: ""}):
        refused = await client.post("/telegram/webhook", json=update, headers=headers)
        assert refused.status_code == 403
    await bot.runner.delivery.flush()
    assert (await bot.sessions.load(f"tg:{GROUP}"))[0] is None, "a forged update touched nothing"
    ok = await client.post(
        "/telegram/webhook", json=update, headers={SECRET_HEADER: tg.webhook_secret}
    )
    assert ok.status_code == 200
    await bot.runner.delivery.flush()
    assert (await bot.sessions.load(f"tg:{GROUP}"))[0] is not None


async def test_two_processes_without_a_secret_make_different_ones(tg: FakeTelegram) -> None:
    """(Why the README asks for TELEGRAM_WEBHOOK_SECRET when several processes serve it.)"""
    assert telegram_bot(tg, None).webhook_secret != telegram_bot(tg, None).webhook_secret


async def test_a_request_without_the_secret_is_refused_before_its_body_is_read(
    served: tuple[httpx.AsyncClient, TelegramBot],
) -> None:
    client, _ = served
    read = []

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(10_000):
            read.append(1)
            yield b"x" * 1024

    refused = await client.post("/telegram/webhook", content=endless())
    assert refused.status_code == 403
    assert len(read) <= 1, "not a chunk past the first was asked for"


async def test_bodies_past_the_limit_get_413_while_being_read(
    served: tuple[httpx.AsyncClient, TelegramBot], tg: FakeTelegram
) -> None:
    client, bot = served
    headers = {SECRET_HEADER: bot.webhook_secret}
    declared = await client.post("/telegram/webhook", content=b"x" * (LIMIT + 1), headers=headers)
    assert declared.status_code == 413
    sent = []

    async def streamed() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(1000):
            sent.append(1)
            yield b"x" * 1024

    chunked = await client.post("/telegram/webhook", content=streamed(), headers=headers)
    assert chunked.status_code == 413
    assert len(sent) < 1000, "the server stopped reading past the limit"
    ann = tg.user(302, "Ann")
    tg.group(GROUP, "Agora", creator=ann)
    fits = json.dumps(tg.message_update(GROUP, ann, "/help")).encode()
    assert len(fits) < LIMIT
    assert (
        await client.post("/telegram/webhook", content=fits, headers=headers)
    ).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        b"[]",
        b"[1, 2]",
        b'"an update"',
        b"42",
        b"null",
        b"{}",
        b'{"update_id": "one"}',
        b'{"update_id": 1, "message": "hello"}',
        b'{"update_id": 1, "callback_query": []}',
        b"[" * 30_000 + b"]" * 30_000,
        b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
        b"\xff\xfe not utf-8",
        b"{",
    ],
    ids=lambda b: repr(b[:24]),
)
async def test_an_authentic_request_with_any_body_gets_400_not_500(
    served: tuple[httpx.AsyncClient, TelegramBot], body: bytes
) -> None:
    client, bot = served
    headers = {SECRET_HEADER: bot.webhook_secret}
    response = await client.post("/telegram/webhook", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert not bot.errors


async def test_a_secret_header_that_is_not_ascii_gets_403_not_500(
    served: tuple[httpx.AsyncClient, TelegramBot],
) -> None:
    client, bot = served
    for header in ("ŝekreto".encode(), b"\xff\xfe", bot.webhook_secret.encode() + b"\xe9"):
        response = await client.post(
            "/telegram/webhook", content=b"{}", headers=[(SECRET_HEADER.encode(), header)]
        )
        assert response.status_code == 403


# --- LINE --------------------------------------------------------------------------------


@pytest.fixture
async def line_client(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> AsyncIterator[tuple[httpx.AsyncClient, LineBot, list[float]]]:
    """The LINE webhook app on a bot whose clock the test sets (unix seconds)."""
    now = [1_800_000_000.0]
    store = RedisStore.from_url(redis_url, redis_prefix)
    bot = line_bot(bot_settings(line, max_body=LIMIT), store, registry(), lambda: now[0])
    server = app(bot)
    async with server.router.lifespan_context(server):
        transport = httpx.ASGITransport(app=server)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            yield client, bot, now


async def post_line(client: httpx.AsyncClient, body: str, sig: str | None = None) -> httpx.Response:
    headers = {"X-Line-Signature": sig if sig is not None else signature(body, SECRET)}
    return await client.post("/line/webhook", content=body.encode(), headers=headers)


@pytest.mark.parametrize(
    "body",
    ["not json", "[]", '"events"', '{"events": 5}', '{"events": [1]}', "[" * 30_000 + "]" * 30_000],
    ids=lambda b: repr(b[:16]),
)
async def test_a_signed_line_body_that_is_no_event_list_gets_400_not_500(
    line_client: tuple[httpx.AsyncClient, LineBot, list[float]], body: str
) -> None:
    client, bot, _ = line_client
    response = await post_line(client, body)
    assert (response.status_code, response.text) == (400, "not a webhook body")
    forged = await post_line(client, '{"events": []}', sig="AAAA")
    assert (forged.status_code, forged.text) == (400, "bad signature")
    assert not bot.errors


async def test_a_line_body_past_the_limit_gets_413(
    line_client: tuple[httpx.AsyncClient, LineBot, list[float]],
) -> None:
    client, _, _ = line_client
    big = json.dumps({"events": [], "pad": "x" * LIMIT})
    assert (await post_line(client, big)).status_code == 413


async def test_a_line_event_replayed_after_the_window_is_dropped_and_a_copy_within_counts_once(
    line_client: tuple[httpx.AsyncClient, LineBot, list[float]], line: FakeLine
) -> None:
    client, bot, now = line_client
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)

    def at(event: dict[str, object], seconds: float) -> str:
        event["timestamp"] = int(seconds * 1000)
        return line.signed(event)[0]

    opened = at(line.text(group, ann, "/newgame"), now[0])
    assert (await post_line(client, opened)).status_code == 200
    await bot.runner.delivery.flush()
    chat = qualify(group)
    assert (await bot.sessions.load(chat))[0] is not None
    stop = line.text(group, ann, "/stop")
    captured = at(stop, now[0] - EVENT_WINDOW - 1)  # signed, but from six minutes ago
    assert (await post_line(client, captured)).status_code == 200  # (LINE would retry a 4xx)
    await bot.runner.delivery.flush()
    assert (await bot.sessions.load(chat))[0] is not None, "the replayed /stop stopped nothing"

    fresh = at(stop, now[0] - 30)  # a redelivery within the window: handled, once
    said = len(line.to(group))
    for _ in range(2):
        assert (await post_line(client, fresh)).status_code == 200
        await bot.runner.delivery.flush()
    assert (await bot.sessions.load(chat))[0] is None, "the /stop within the window stopped it"
    assert len(line.to(group)) == said + 1, "one answer for the two copies"
    assert await bot.sessions._store.load(keys.game(chat)) is None
