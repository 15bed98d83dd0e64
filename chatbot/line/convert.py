"""LINE webhook events -> neutral `Incoming`; neutral messages -> LINE message objects.

A postback carries no id of the message its button was on. A one-use button (the results'
"Play again") therefore carries an id of its own message in its data, made when the message
is sent, and its press comes in with that id as `Incoming.message`, as on platforms that name
the pressed message.
"""

from __future__ import annotations

import html
import re
import secrets
from typing import Any

from chatbot.core import buttons as b
from chatbot.core.model import (
    ARRIVED,
    CLOSED,
    LEFT,
    OPENED,
    Command,
    Incoming,
    Keyboard,
    Membership,
    Message,
    Press,
    User,
)

PREFIX = "ln:"
TEXT_CHARS = 5000  # a text message
ALT_CHARS = 400  # a Flex message's text for notifications and old clients (LINE allows 1500)
LABEL_CHARS = 20  # a button label
DATA_BYTES = 300  # a postback's data
_TAG = re.compile(r"</?(?:b|i|code)>")
ONE_USE = {
    b.AGAIN: 1,
    b.STATS: 1,
}  # buttons that act once per message (op: its fields), and name it

JSON = dict[str, Any]


def qualify(line_id: str) -> str:
    return f"{PREFIX}{line_id}"


def line_id(qualified: str) -> str:
    return qualified.removeprefix(PREFIX)


def source_ids(event: Any) -> tuple[str | None, str | None]:
    """(chat, user) of an event's source, unqualified: a group, a room or a 1:1 chat."""
    source = getattr(event, "source", None)
    if source is None:
        return None, None
    user = getattr(source, "user_id", None)
    chat = getattr(source, "group_id", None) or getattr(source, "room_id", None) or user
    return chat, user


def incoming(event: Any, user: User | None, echo: str | None = None) -> Incoming | None:
    """The neutral event of a LINE webhook event (`user`: the sender, with the name from their
    profile), or None for events the bot ignores; a group message that is `echo` (the hand
    page's word after a move) asks for the table, as /status does."""
    chat, _ = source_ids(event)
    if chat is None:
        return None
    kind = event.type
    private = getattr(event.source, "type", "") == "user"
    token = getattr(event, "reply_token", None)
    update_id = f"{PREFIX}{event.webhook_event_id}"
    where = qualify(chat)
    at: dict[str, Any] = {"chat": where, "update_id": update_id, "context": token}
    if kind == "join":  # the bot was added to a group: say what it does
        return Command(**at, private=False, user=User(where, ""), name="help")
    if kind == "leave":
        return Membership(**at, private=False, user=User(where, ""), event=LEFT)
    if user is None:
        return None
    if kind == "follow":
        return Membership(**at, private=True, user=user, event=OPENED)
    if kind == "unfollow":
        return Membership(**at, private=True, user=user, event=CLOSED)
    if kind == "memberJoined":
        return Membership(**at, private=False, user=user, event=ARRIVED)
    if kind == "postback":
        data, message = pressed(event.postback.data or "")
        return Press(**at, private=private, user=user, data=data, message=message)
    if kind == "message" and getattr(event.message, "type", "") == "text":
        text = (event.message.text or "").strip()
        if echo is not None and text == echo and not private:
            text = "/status"
        if not text.startswith("/"):
            return None
        head, _, args = text.partition(" ")
        name, args = head[1:].lower(), args.strip()
        return Command(**at, private=private, user=user, name=name, args=args)
    return None


def sender_id(event: Any) -> str | None:
    """The LINE user id an event is about (the sender, or the first member who joined)."""
    if event.type == "memberJoined":
        members = event.joined.members
        return members[0].user_id if members else None
    return source_ids(event)[1]


def script_language(text: str) -> str | None:
    """ "th" or "ja" when a text is written mostly in Thai script or in Japanese kana; None
    for anything else (kanji alone may be Chinese)."""
    thai = sum("\u0e00" <= c <= "\u0e7f" for c in text)
    kana = sum("\u3040" <= c <= "\u30ff" for c in text)
    if not thai and not kana:
        return None
    return "th" if thai >= kana else "ja"


def plain(text: str) -> str:
    """Our tiny HTML subset as LINE's plain text."""
    return html.unescape(_TAG.sub("", text))


def message_id() -> str:
    """A new id for a sent message (10 URL-safe characters, 60 random bits)."""
    return secrets.token_urlsafe(8)[:10]


def tagged(data: str, message: str) -> str:
    """A button's postback data: a one-use button's names its message."""
    press = b.decode(data)
    return f"{data}|{message}" if press is not None and press.op in ONE_USE else data


def pressed(data: str) -> tuple[str, str | None]:
    """A postback's button data and the id of its message, when the button names one."""
    press = b.decode(data)
    if press is None or press.op not in ONE_USE or len(press.fields) != ONE_USE[press.op] + 1:
        return data, None  # not a one-use button, or one sent without its message's id
    head, _, message = data.rpartition("|")
    return head, message or None


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message_object(message: Message, sent_id: str | None = None) -> JSON:
    """A LINE message: plain text, or a Flex bubble with the text and its buttons (its
    one-use buttons name `sent_id`, by default a new id)."""
    text = _clip(plain(message.text), TEXT_CHARS)
    if not message.buttons:
        return {"type": "text", "text": text}
    body = {
        "type": "box",
        "layout": "vertical",
        "contents": [{"type": "text", "text": text or " ", "wrap": True, "size": "sm"}],
    }
    return {
        "type": "flex",
        "altText": _clip(text, ALT_CHARS) or " ",
        "contents": {
            "type": "bubble",
            "body": body,
            "footer": _footer(message.buttons, sent_id or message_id()),
        },
    }


def _footer(buttons: Keyboard, sent_id: str) -> JSON:
    rows = [
        {
            "type": "box",
            "layout": "horizontal",
            "spacing": "sm",
            "contents": [
                _button(x.label, tagged(x.data, sent_id) if x.data else None, x.url) for x in row
            ],
        }
        for row in buttons
    ]
    return {"type": "box", "layout": "vertical", "spacing": "sm", "contents": rows}


def _button(label: str, data: str | None, url: str | None) -> JSON:
    label = _clip(label, LABEL_CHARS)
    if url:
        action: JSON = {"type": "uri", "label": label, "uri": url}
    else:
        action = {"type": "postback", "label": label, "data": data or ""}
    return {"type": "button", "action": action, "style": "secondary", "height": "sm"}
