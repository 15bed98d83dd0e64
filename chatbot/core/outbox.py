"""The ports and parts of delivery: outbox, budget, a chat's queue and the merging helpers.

A platform's `Outbox` and `Budget`, a chat's `Queue`, a change's `Batch` of messages, and the
pure helpers that merge and bundle messages (docs/delivery.md).
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from chatbot.core.model import Capabilities, Message

SLOTS_KEPT = 10_000  # newest slot message ids (and the like) known in this process
MINOR_RECHECK = 1.0  # seconds between looks at the budget for a waiting `minor` update
REPLY_MESSAGES = 5  # messages one reply may carry (LINE's limit)


class Undelivered(Exception):
    """Raised by an outbox: the platform could not be reached (after its retries); the
    message may be sent again later."""


class Outbox(Protocol):
    """A platform's way out."""

    capabilities: Capabilities
    platform: str  # its name in metrics labels

    async def send(self, message: Message) -> str | None:
        """Send `message` (or edit the one it names); the platform id of the message that
        shows it (the edited one, or a new one), None when it could not be delivered (the
        adapter logs why)."""
        ...


class Budget(Protocol):
    """A platform's per-chat message budget (Telegram's 20 a minute in a group)."""

    def ready(self, chat: str) -> float:
        """Seconds until a message to `chat` would go without waiting."""
        ...

    def room(self, chat: str) -> float:
        """The share (0–1) of `chat`'s budget free now."""
        ...


class Unlimited:
    """No per-chat budget: every message may go at once."""

    def ready(self, chat: str) -> float:
        return 0.0

    def room(self, chat: str) -> float:
        return 1.0


@dataclass
class Batch:
    """The messages of one saved change: when the last is sent, the change is recorded as
    delivered (until then another process may deliver it if this one dies)."""

    chat: str
    change: int
    left: int
    # Batches of unasked table updates that went out with one of these messages (a reply
    # carries them): delivered, or not, with it.
    riders: list[Batch] = field(default_factory=list)


Item = tuple[Message, Batch | None]


Ask = tuple[str, str, int]  # (member, command, index in its reply)


@dataclass
class Queue:
    """One chat's undelivered messages: new messages in order, table edits by target, and
    replies to commands that changed nothing, by who asked what."""

    fifo: deque[Item] = field(default_factory=deque)
    edits: dict[str, Item] = field(default_factory=dict)
    edited: dict[str, float] = field(default_factory=dict)  # target -> when last edited
    held: dict[str, float] = field(default_factory=dict)  # held table -> when first queued
    queued: dict[str, float] = field(default_factory=dict)  # table edit target -> since when
    chatter: dict[Ask, tuple[Message, float]] = field(default_factory=dict)  # -> since
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    sending: bool = False

    def waiting(self) -> bool:
        return bool(self.fifo or self.edits or self.chatter)

    def recent(self, now: float, interval: float) -> bool:
        """Whether a table of this chat was edited within the interval (keep its timing)."""
        return any(now - at < interval for at in self.edited.values())


async def cancelled(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel `tasks` and wait until each has ended (cancelled again while one goes on)."""
    pending = set(tasks)
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=1.0)


def held_key(message: Message, caps: Capabilities) -> str | None:
    """Where a message that answers no event costs: the key under which a new table
    message waits an interval before it is sent (a newer one replaces it meanwhile)."""
    if caps.unasked_free or not message.coalesce or message.answers is not None:
        return None
    return f"{message.host}/{message.slot}" if message.slot and message.host else None


def shows(reply: Message, update: Message) -> bool:
    """Whether `reply` (or a message it carries) shows anew the table `update` only
    updates (one without news of its own)."""
    shown = {(m.host, m.slot) for m in (reply, *reply.also) if m.slot}
    return update.coalesce and (update.host, update.slot) in shown


def merged(messages: list[Message]) -> list[Message]:
    """For platforms without edits: a table superseded within the same event is dropped, and a
    message without buttons joins its chat's latest one (each chat keeps its own order), so a
    move sends one group message."""
    later = set()
    kept: list[Message] = []
    for message in reversed(messages):
        key = (message.host, message.slot)
        if message.coalesce and message.slot and key in later:
            continue
        later.add(key)
        kept.append(replace(message, edit=None))
    out: list[Message] = []
    last_of: dict[str, int] = {}  # chat -> index in `out` of its latest message
    for message in reversed(kept):
        at = last_of.get(message.chat)
        if at is None or (out[at].buttons and message.buttons):
            last_of[message.chat] = len(out)
            out.append(message)
            continue
        last = out[at]
        out[at] = replace(
            last,
            text=f"{last.text}\n\n{message.text}",
            buttons=message.buttons or last.buttons,
            slot=message.slot or last.slot,
            host=message.host or last.host,
            coalesce=last.coalesce and message.coalesce,
        )
    return bundled(out)


def bundled(messages: list[Message]) -> list[Message]:
    """The messages that answer an event in its chat as one reply (up to REPLY_MESSAGES: the
    first carries the others); an answer is never merged into a later table update (each
    press keeps its own reply)."""
    out: list[Message] = []
    first: dict[tuple[str, object], int] = {}  # (chat, context) -> index in `out` of its reply
    for message in messages:
        token = message.answers
        if token is None:
            out.append(message)
            continue
        message = replace(message, coalesce=False)
        key = (message.chat, token)
        at = first.get(key)
        if at is not None and len(out[at].also) < REPLY_MESSAGES - 1:
            out[at] = replace(out[at], also=(*out[at].also, message))
            continue
        first.setdefault(key, len(out))
        out.append(message)
    return out
