"""A polled update (python-telegram-bot's objects, read through `Fields`) gives the very event
and migration that the same update read as webhook JSON gives."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Bot, Update

from chatbot.telegram.convert import Fields, incoming, migration

BOT = "egobot"
ANN = {"id": 61, "is_bot": False, "first_name": "Ann", "last_name": "Lee", "language_code": "th"}
BOB = {"id": 62, "is_bot": False, "first_name": "Bob"}
GROUP = {"id": -1001234, "type": "supergroup", "title": "Symposium"}
SENT = {"id": 99, "is_bot": True, "first_name": "EgoBot", "username": BOT}
KEYBOARD = {
    "inline_keyboard": [
        [{"text": "🃏 <Card> &", "callback_data": "m3|tg:-1001234|7"}],
        [{"text": "Rules", "url": "https://example.org/rules"}],
    ]
}


def press(message: dict[str, Any], data: str = "m3|tg:-1001234|7") -> dict[str, Any]:
    query = {"id": "4204", "chat_instance": "1", "from": ANN, "message": message, "data": data}
    return {"update_id": 7001, "callback_query": query}


def said(text: str, chat: dict[str, Any] = GROUP, **more: Any) -> dict[str, Any]:
    message = {"message_id": 12, "date": 1_700_000_000, "chat": chat, "from": BOB, "text": text}
    return {"update_id": 7002, "message": message | more}


UPDATES = {
    "a press on a hand": press(
        {
            "message_id": 40,
            "date": 1_700_000_000,
            "chat": {"id": 61, "type": "private", "first_name": "Ann"},
            "from": SENT,
            "text": "Your hand: <b>7</b>",
            "reply_markup": KEYBOARD,
        }
    ),
    "a press on a message the bot cannot see": press(
        {"message_id": 41, "date": 0, "chat": GROUP}, data="j"
    ),
    "a group command to this bot": said(f"/newgame@{BOT} egonomy"),
    "a group command to another bot": said("/newgame@otherbot"),
    "a private command": said("/start h123", chat={"id": 62, "type": "private"}),
    "a message that is no command": said("hello"),
    "a group that became a supergroup": said("", chat=GROUP, migrate_from_chat_id=-4321),
}


@pytest.mark.parametrize("update", UPDATES.values(), ids=UPDATES.keys())
def test_a_polled_update_reads_as_its_json(update: dict[str, Any]) -> None:
    polled = Fields(Update.de_json(update, Bot("1:a")))
    assert incoming(polled, BOT) == incoming(update, BOT)
    assert migration(polled) == migration(update)


def test_the_reading_finds_the_events() -> None:
    hand = incoming(UPDATES["a press on a hand"], BOT)
    assert hand is not None and hand.shown is not None and hand.user.name == "Ann Lee"
    unseen = incoming(UPDATES["a press on a message the bot cannot see"], BOT)
    assert unseen is not None and unseen.shown is None
    assert migration(UPDATES["a group that became a supergroup"]) == ("tg:-4321", "tg:-1001234")
