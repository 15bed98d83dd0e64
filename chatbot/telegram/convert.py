"""Telegram updates -> neutral `Incoming`; neutral buttons -> Telegram keyboards. Updates are
read as the Bot API's JSON: building python-telegram-bot's objects for each, which we would
not read, cost a twentieth of the bot's processor time (bench/capacity.py under py-spy)."""

from __future__ import annotations

import datetime as dtm
from collections.abc import Iterator, Mapping
from typing import Any

from telegram import TelegramObject
from telegram.constants import ChatType

from chatbot.core.model import (
    ARRIVED,
    CLOSED,
    LEFT,
    Button,
    Command,
    Incoming,
    Keyboard,
    Membership,
    Press,
    User,
    looks,
)

PREFIX = "tg:"
# The updates the bot asks Telegram for (getUpdates and setWebhook): chat_member comes only
# when asked for by name, and only to a bot that administers the group.
ALLOWED_UPDATES = ("message", "callback_query", "my_chat_member", "chat_member")
GONE = ("left", "kicked")  # a ChatMember's status once out of the chat


def qualify(telegram_id: int) -> str:
    return f"{PREFIX}{telegram_id}"


def telegram_id(qualified: str) -> int:
    return int(qualified.removeprefix(PREFIX))


def incoming(update: Mapping[str, Any], bot_username: str) -> Incoming | None:
    """The neutral event of an update, as the Bot API's JSON, or None for updates the bot
    ignores. KeyError or TypeError: not an update."""
    changed = update.get("my_chat_member") or update.get("chat_member")
    if changed is not None:
        return membership(changed, f"{PREFIX}{update['update_id']}", "my_chat_member" in update)
    query = update.get("callback_query")
    message = update.get("message")
    pressed: Mapping[str, Any] = {}
    if query is not None:
        pressed = query.get("message") or {}
        sender, chat = query.get("from"), pressed.get("chat")
    elif message is not None:
        sender, chat = message.get("from"), message.get("chat")
    else:
        return None
    if not sender or not chat or sender.get("is_bot"):
        return None
    user = _user(sender)
    private = chat["type"] == ChatType.PRIVATE
    update_id = f"{PREFIX}{update['update_id']}"
    if query is not None:
        return Press(
            chat=qualify(chat["id"]),
            private=private,
            user=user,
            data=query.get("data") or "",
            message=str(pressed["message_id"]),
            update_id=update_id,
            chat_title=chat.get("title") or "",
            shown=_shown(pressed),
        )
    text = message.get("text") if message is not None else None
    if not text or not text.startswith("/"):
        return None
    head, _, args = text.partition(" ")
    name, _, target = head[1:].partition("@")
    if target and target.lower() != bot_username.lower():
        return None  # a command for another bot in the group
    return Command(
        chat=qualify(chat["id"]),
        private=private,
        user=user,
        name=name.lower(),
        args=args.strip(),
        update_id=update_id,
        chat_title=chat.get("title") or "",
    )


def membership(changed: Mapping[str, Any], update_id: str, mine: bool) -> Membership | None:
    """A ChatMemberUpdated as LINE's leave, unfollow and memberJoined read: the bot removed
    from a group (`mine`: a my_chat_member update), a user who blocked the bot, a person who
    joined a group (chat_member). Other changes (rights, the bot added) are not events here."""
    chat = changed["chat"]
    new = changed["new_chat_member"]
    status = new["status"]
    was = (changed.get("old_chat_member") or {}).get("status")
    where = qualify(chat["id"])
    at: dict[str, Any] = {"update_id": update_id, "chat_title": chat.get("title") or ""}
    if chat["type"] == ChatType.PRIVATE:
        if mine and status == "kicked":  # the user blocked the bot
            user = _user(changed["from"])
            return Membership(**at, chat=where, private=True, user=user, event=CLOSED)
        return None  # unblocked: their /start (Telegram's "Restart") says so
    if mine:
        if status in GONE:
            return Membership(**at, chat=where, private=False, user=User(where, ""), event=LEFT)
        return None
    person = new["user"]
    joined = status in ("member", "administrator") or bool(new.get("is_member"))
    if joined and was in GONE and not person.get("is_bot"):
        return Membership(**at, chat=where, private=False, user=_user(person), event=ARRIVED)
    return None


def _user(sender: Mapping[str, Any]) -> User:
    name = sender["first_name"]
    if sender.get("last_name"):
        name += " " + sender["last_name"]
    return User(qualify(sender["id"]), name, sender.get("language_code"))


class Fields(Mapping[str, Any]):
    """A python-telegram-bot object (a polled update) read as its Bot API JSON, one field at
    a time as `incoming` asks for it: making the whole update into a dict (`to_dict`) took
    120 µs a press, as long as the rest of reading it ten times over."""

    __slots__ = ("_of",)

    def __init__(self, of: TelegramObject) -> None:
        self._of = of

    def __getitem__(self, key: str) -> Any:
        value = getattr(self._of, "from_user" if key == "from" else key, None)  # (as to_dict)
        if value is None:
            raise KeyError(key)
        return _json(value)

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self._of, "from_user" if key == "from" else key, None)
        return default if value is None else _json(value)

    def __bool__(self) -> bool:  # (an object there is never empty: no `to_dict` to say so)
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._of.to_dict(recursive=False))

    def __len__(self) -> int:
        return len(self._of.to_dict(recursive=False))


def _json(value: Any) -> Any:
    """A field's value as the Bot API's JSON reads (objects and rows as views, times as
    unix seconds)."""
    if isinstance(value, TelegramObject):
        return Fields(value)
    if isinstance(value, tuple):
        return tuple(_json(v) for v in value)
    if isinstance(value, dtm.datetime):
        return int(value.timestamp())
    return value


def migration(update: Mapping[str, Any]) -> tuple[str, str] | None:
    """(old chat, new chat) when the update says a group became a supergroup."""
    message = update.get("message") or {}
    old = message.get("migrate_from_chat_id")
    return (qualify(old), qualify(message["chat"]["id"])) if old else None


def markup(buttons: Keyboard) -> dict[str, Any] | None:
    """The Bot API's inline keyboard for `buttons`, as JSON (None: no keyboard)."""
    if not buttons:
        return None
    return {
        "inline_keyboard": [
            [
                {"text": b.label, "url": b.url}
                if b.url
                else {"text": b.label, "callback_data": b.data}
                for b in row
            ]
            for row in buttons
        ]
    }


def _shown(message: Mapping[str, Any]) -> int | None:
    """What a pressed message shows now (`looks`), when it is a text message the bot can
    still see (an inaccessible one has date 0)."""
    text = message.get("text")
    if text is None or not message.get("date"):
        return None
    rows = (message.get("reply_markup") or {}).get("inline_keyboard", ())
    keyboard = tuple(
        tuple(
            Button(
                b["text"],
                b["callback_data"] if isinstance(b.get("callback_data"), str) else None,
                b.get("url"),
            )
            for b in row
        )
        for row in rows
    )
    return looks(text, keyboard)
