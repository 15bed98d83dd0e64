"""Platform-neutral chat model: what comes in and what goes out.

In: commands, button presses, text; out: messages with buttons, pop-up answers. Adapters
translate platforms to and from these.

Ids are strings qualified by the adapter ("tg:-1001234" for a Telegram group); a private chat's
id is the user's id. Message text uses a tiny HTML subset (<b>, <i>, <code>); names are escaped.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cached_property

from chatbot.core.buttons import Code, decode


@dataclass(frozen=True)
class User:
    id: str
    name: str
    language: str | None = None  # the platform's language code, e.g. "th", "en-US"


@dataclass(frozen=True, kw_only=True)
class Incoming:
    """Something a person did in a chat: a `Command`, a `Press` or a `Membership` change."""

    chat: str
    private: bool
    user: User
    update_id: str | None = None  # for dropping duplicate deliveries
    chat_title: str = ""  # a group's name (hand messages say which group they belong to)
    # The platform's guess at a group's language (LINE: its members' profiles, the script of
    # its name and messages), used until someone chooses one; None when it cannot tell.
    chat_language: str | None = None
    # The adapter's own, opaque to the core: what it needs to answer this event (LINE: the
    # reply token). The messages answering the event carry it back (`Message.answers`).
    context: object = None


@dataclass(frozen=True, kw_only=True)
class Command(Incoming):
    """/name args, typed in the chat."""

    name: str
    args: str = ""


@dataclass(frozen=True, kw_only=True)
class Press(Incoming):
    """A button pressed: its `data`, decoded once (`code`)."""

    data: str
    message: str | None = None  # the platform id of the message whose button was pressed
    shown: int | None = None  # `looks` of the pressed message as the platform shows it now
    # Made on the game page: the answer and the messages to the presser's own chat go back
    # to the page with the answer, never into a chat.
    aside: bool = False
    # That page cannot post in the group (opened outside it, or not allowed): the group's
    # updates of this press go as if no page held them (`Capabilities.hold_unasked`).
    unheard: bool = False

    @cached_property
    def code(self) -> Code | None:
        """The decoded data; None for data this bot never made."""
        return decode(self.data)


@dataclass(frozen=True, kw_only=True)
class Membership(Incoming):
    """A change of who is where (`event`: OPENED, CLOSED, ARRIVED, LEFT)."""

    event: str


def as_command(inc: Incoming, name: str, args: str = "") -> Command:
    """`inc` taken as the command /name args (a button or a change that means one)."""
    return Command(
        chat=inc.chat,
        private=inc.private,
        user=inc.user,
        update_id=inc.update_id,
        chat_title=inc.chat_title,
        chat_language=inc.chat_language,
        context=inc.context,
        name=name,
        args=args,
    )


# Membership.event: the user opened or closed the private chat with the bot (added or blocked
# it), people arrived in a group (`user`: one of them), the bot was removed from the chat.
OPENED, CLOSED, ARRIVED, LEFT = "opened", "closed", "arrived", "left"


@dataclass(frozen=True)
class Button:
    label: str
    data: str | None = None  # pressed -> Incoming.data
    url: str | None = None  # opens a link (e.g. a deep link into the private chat)


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True)
class Message:
    """A message to send to `chat`, or to edit in place when `edit` names the message.

    `slot` names a message the game keeps editing ("table:<game>", "hand:<game>:<seat>"): the
    adapter reports the id of a newly sent one back so later edits find it."""

    chat: str
    text: str
    buttons: Keyboard = ()
    edit: str | None = None
    slot: str | None = None
    host: str | None = None  # the chat whose game session the slot belongs to
    coalesce: bool = False  # a group table update: may be merged with later ones
    only_edit: bool = False  # an edit of the slot's last message, skipped when there is none
    # The `Incoming.context` of the event this message answers (set by the runner on the
    # messages to the event's own chat): where unasked messages cost, these are free.
    answers: object = None
    minor: bool = False  # a table update that only marks a hidden choice: may wait for room
    bare: bool = False  # only take the buttons off `edit` (its text stays as it is)
    # Messages to the same chat that go out in the same request after this one (a reply of
    # several messages: LINE takes up to 5 a reply token).
    also: tuple[Message, ...] = ()


@dataclass(frozen=True)
class Answer:
    """The private pop-up answer to a button press (`alert`: a dialog, not a toast)."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    secret: bool = False  # for the presser's eyes only: never said in a group
    shown: tuple[Message, ...] = ()  # an `aside` press's messages to the presser's own chat


@dataclass
class Reply:
    """Everything one incoming event causes. The runner marks the messages to the event's own
    chat as answering it (`Message.answers`), so a platform that answers events uses that."""

    answer: Answer | None = None
    messages: list[Message] = field(default_factory=list)
    confirm: tuple[str, int] | None = None  # (chat, change) to record once all are delivered
    handled: tuple[str, str] | None = None  # (chat, update): to record as handled, soon
    chatter: bool = False  # it only tells (a status, the help): may wait in a busy group
    silent: bool = False  # a press another process answered: no answer at all from this one


@dataclass(frozen=True)
class Capabilities:
    """What a platform can do; the core picks the fallback for what it cannot."""

    edits: bool = True  # a sent message can be edited in place
    popups: bool = True  # a press in a group can be answered privately (a pop-up)
    answer_chars: int = 200  # a pop-up's length (UTF-16 units)
    label_chars: int = 64  # a button label
    data_bytes: int = 64  # a button's data
    row_buttons: int = 8  # buttons in one row
    message_buttons: int = 100  # buttons on one message
    message_chars: int = 4096  # a message's text
    answers_in_chat: bool = False  # without pop-ups: answer a press in its chat (a free reply)
    # A message that answers no event is free. Where it costs (a quota of pushes), a hand is
    # sent only as the answer to its player's own message or press (the table's "My hand"
    # opens the private chat with the request typed in), and a table update that answers no
    # event waits `table_interval` for a newer one to replace it.
    unasked_free: bool = True
    # Where unasked messages cost and players move on a page of the platform's (LINE's hand
    # page): a group update that answers no event waits for the next reply in its chat (the
    # page's own message there), however long, instead of being pushed; computers move at once.
    hold_unasked: bool = False
    # Players see their hands and move on the game page (a Mini App): no private hand is
    # sent unasked, and the table's "My hand" opens the page (`Platform.deep_link`).
    hands_on_page: bool = False
    reminders: bool = True  # an idle player is reminded (else only replaced, in time)


_TAG = re.compile(r"<[^>]*>")


def units(text: str) -> int:
    """The length of `text` in UTF-16 code units, as Telegram counts it."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-16 units, with "…" where it was cut (never inside
    a surrogate pair)."""
    if units(text) <= limit:
        return text
    out, used = [], 1  # the ellipsis
    for char in text:
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit:
            break
        out.append(char)
    return "".join(out).rstrip() + "…"


def looks(text: str, buttons: Keyboard) -> int:
    """A fingerprint of what a message shows: its plain text (markup removed and outer
    whitespace trimmed, as platforms store it) and its buttons. For comparing within one
    process only."""
    plain = html.unescape(_TAG.sub("", text)).strip()
    return hash((plain, tuple(tuple((x.label, x.data, x.url) for x in row) for row in buttons)))
