"""Telegram by webhook: a press's answer rides on the webhook's HTTP response (Telegram carries
out the method named there), which saves an answerCallbackQuery call; it is never given twice,
and where no response can carry it, it is a call as in polling mode."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY

from chatbot.bootstrap import telegram_bot
from chatbot.core import buttons as b
from chatbot.games import registry
from chatbot.store.memory import MemoryStore
from chatbot.telegram.bot import SECRET_HEADER, TelegramBot
from chatbot.web import app
from tests.e2e.fake_telegram import Call, FakeTelegram, StoredMessage
from tests.e2e.harness import pointed_at, request
from tests.e2e.helpers import GROUP, button

SECRET = "s3cret-token_2"
JSON = dict[str, Any]


class Webhook:
    """Telegram's side of the webhook: posts updates to the app, then does what the response
    asks (a method in a JSON body), as Telegram does."""

    def __init__(self, tg: FakeTelegram, client: httpx.AsyncClient, bot: TelegramBot) -> None:
        self.tg, self.client, self.bot = tg, client, bot

    async def deliver(self, update: JSON) -> tuple[httpx.Response, Call | None]:
        response = await self.client.post(
            "/telegram/webhook", json=update, headers={SECRET_HEADER: SECRET}
        )
        assert response.status_code == 200, response.text
        call = self.tg.webhook_response(
            response.status_code, response.content, response.headers.get("content-type", "")
        )
        await self.bot.runner.delivery.settle()
        assert not self.bot.errors, self.bot.errors
        return response, call

    async def press(self, user: JSON, message: StoredMessage, data: str) -> tuple[str, Call | None]:
        update = self.tg.callback_update(user, message, data)
        _, call = await self.deliver(update)
        return update["callback_query"]["id"], call


@pytest.fixture
async def hook(tg: FakeTelegram) -> AsyncIterator[Webhook]:
    url = "https://bot.example/telegram/webhook"
    settings = pointed_at(tg, webhook_url=url, webhook_secret=SECRET)
    bot = telegram_bot(settings, MemoryStore(), registry(), request=request())
    server = app(bot)
    async with server.router.lifespan_context(server):
        transport = httpx.ASGITransport(app=server)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            yield Webhook(tg, client, bot)


def answers(how: str) -> float:
    """Presses answered so far, `how` ("call" or "response"), as /metrics counts them."""
    labels = {"platform": "telegram", "how": how}
    return REGISTRY.get_sample_value("egobot_press_answers_total", labels) or 0.0


def answer_calls(tg: FakeTelegram) -> list[Call]:
    return tg.calls_to("answerCallbackQuery")


async def lobby(hook: Webhook, tg: FakeTelegram) -> tuple[JSON, JSON, StoredMessage]:
    """Ann's open table with Bob seated (both have the bot's private chat)."""
    ann, bob = tg.user(71, "Ann"), tg.user(72, "Bob")
    tg.group(GROUP, "Symposium", creator=ann, members=[bob])
    for user in (ann, bob):
        await hook.deliver(tg.message_update(user["id"], user, "/start"))
    await hook.deliver(tg.message_update(GROUP, ann, "/newgame"))
    table = tg.last_message(GROUP)
    assert table is not None
    _, joined = await hook.press(bob, table, button(table, b.JOIN))
    assert joined is not None and joined.ok
    return ann, bob, tg.message(GROUP, table.message_id)


async def test_the_answer_rides_on_the_response_and_reaches_the_presser(
    hook: Webhook, tg: FakeTelegram
) -> None:
    ann, bob, table = await lobby(hook, tg)
    counted = answers("response"), answers("call")
    before = len(tg.calls)
    query, call = await hook.press(bob, table, button(table, b.START))  # not the host
    assert call is not None and call.ok and call.in_response
    assert tg.callback_answer(query) == {
        "text": "Only the host can change the table or start it.",
        "show_alert": False,
        "url": None,
    }, "the pop-up reached Bob"
    made = [(c.method, c.in_response) for c in tg.calls[before:]]
    assert made == [("getChatMember", False), ("answerCallbackQuery", True)], "is Bob an admin?"

    before = len(tg.calls)
    query, call = await hook.press(ann, table, button(table, b.START))
    assert call is not None and call.ok and call.in_response
    assert tg.callback_answer(query)["text"] == "The game begins!"  # type: ignore[index]
    made = tg.calls[before:]
    assert [c for c in made if c.method == "answerCallbackQuery"] == [call]
    assert [c for c in made if not c.in_response], "the game's messages went by calls"
    assert all(c.in_response for c in answer_calls(tg)), "every press answered in a response"
    assert not tg.failed_calls()
    assert (answers("response"), answers("call")) == (counted[0] + 2, counted[1]), "/metrics"


async def test_a_redelivered_press_is_not_answered_twice(hook: Webhook, tg: FakeTelegram) -> None:
    ann, _, table = await lobby(hook, tg)
    update = tg.callback_update(ann, table, button(table, b.START))
    _, first = await hook.deliver(update)
    assert first is not None and first.ok
    response, again = await hook.deliver(update)  # Telegram retried it
    assert again is None and response.text == "OK", "a duplicate: nothing more to say"
    assert len(answer_calls(tg)) == 2, "Bob's join and Ann's start, once each"
    assert not tg.failed_calls(), "no answer was refused as a second one"


async def test_without_a_response_to_carry_it_the_answer_is_a_call(
    hook: Webhook, tg: FakeTelegram
) -> None:
    _, bob, table = await lobby(hook, tg)
    update = tg.callback_update(bob, table, button(table, b.START))
    assert await hook.bot.webhook(json.dumps(update).encode(), SECRET) == 200
    await hook.bot.runner.delivery.settle()
    query = update["callback_query"]["id"]
    assert tg.callback_answer(query)["text"].startswith("Only the host")  # type: ignore[index]
    last = answer_calls(tg)[-1]
    assert last.ok and not last.in_response
