"""A polled update (python-telegram-bot's objects, read through `Fields`) gives the very event
and migration that the same update read as webhook JSON gives."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Bot, Update

from chatbot.core.model import ARRIVED, CLOSED, LEFT, Membership
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


def changed(
    kind: str, chat: dict[str, Any], by: dict[str, Any], who: dict[str, Any], was: str, now: str
) -> dict[str, Any]:
    """A ChatMemberUpdated update: `who` went from status `was` to `now` in `chat`."""

    def member(status: str) -> dict[str, Any]:
        made: dict[str, Any] = {"status": status, "user": who}
        if status == "kicked":
            made["until_date"] = 0
        if status == "administrator":  # every right named, as Telegram sends them
            made |= dict.fromkeys(RIGHTS, False)
        return made

    body = {"chat": chat, "from": by, "date": 1_700_000_000}
    body |= {"old_chat_member": member(was), "new_chat_member": member(now)}
    return {"update_id": 7003, kind: body}


RIGHTS = (
    "can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages",
    "can_manage_video_chats", "can_restrict_members", "can_promote_members", "can_change_info",
    "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories",
)  # fmt: skip
ANN_CHAT = {"id": 61, "type": "private", "first_name": "Ann"}
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
    "the bot kicked": changed("my_chat_member", GROUP, ANN, SENT, "member", "kicked"),
    "the bot left": changed("my_chat_member", GROUP, ANN, SENT, "administrator", "left"),
    "the bot made an admin": changed("my_chat_member", GROUP, ANN, SENT, "member", "administrator"),
    "the bot blocked": changed("my_chat_member", ANN_CHAT, ANN, SENT, "member", "kicked"),
    "the bot unblocked": changed("my_chat_member", ANN_CHAT, ANN, SENT, "kicked", "member"),
    "someone joined": changed("chat_member", GROUP, BOB, BOB, "left", "member"),
    "someone left": changed("chat_member", GROUP, BOB, BOB, "member", "left"),
    "another bot joined": changed("chat_member", GROUP, ANN, SENT | {"id": 98}, "left", "member"),
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


def test_membership_reads_as_lines_leave_unfollow_and_member_joined() -> None:
    """The bot out of a group: LEFT there; a user who blocked it: CLOSED in their chat; a
    person who joined: ARRIVED; anything else (rights, unblocking, leaving) no event."""
    events = {name: incoming(update, BOT) for name, update in UPDATES.items()}
    for name in ("the bot kicked", "the bot left"):
        left = events[name]
        assert isinstance(left, Membership) and left.event == LEFT and not left.private
        assert left.chat == "tg:-1001234" and left.update_id == "tg:7003"
    blocked = events["the bot blocked"]
    assert isinstance(blocked, Membership) and blocked.event == CLOSED and blocked.private
    assert blocked.user.id == "tg:61" and blocked.chat == "tg:61"
    joined = events["someone joined"]
    assert isinstance(joined, Membership) and joined.event == ARRIVED
    assert joined.user.id == "tg:62" and joined.user.name == "Bob"
    for name in (
        "the bot made an admin",
        "the bot unblocked",
        "someone left",
        "another bot joined",
    ):
        assert events[name] is None, name
