"""Parking: group updates kept in the store for the next reply in their chat.

Where unasked messages cost and players read the game on a page (docs/delivery.md, "Parked
updates").
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import replace

import orjson

from chatbot.core.model import Button, Capabilities, Message
from chatbot.core.outbox import REPLY_MESSAGES, SLOTS_KEPT, shows
from chatbot.core.sessions import Sessions

log = logging.getLogger(__name__)


class Parking:
    """One process's parked updates: written to the store in order, one chat's after another's,
    and taken from there (whichever process parked them) by the next reply in the chat."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self._unwritten: dict[str, list[Message]] = {}  # chat -> parked here, not yet stored
        self._writing: dict[str, asyncio.Task[None]] = {}  # chat -> writing its parked updates
        self._here: OrderedDict[str, None] = OrderedDict()  # chats parked for, newest last

    def park(self, message: Message) -> None:
        """Park a group update for the next reply in its chat, in the store, where whichever
        process gets that reply finds it (an older table update of the same slot that carries
        no news goes: this one shows it)."""
        chat = message.chat
        self._unwritten.setdefault(chat, []).append(message)
        if chat not in self._writing:
            self._writing[chat] = asyncio.create_task(self._write(chat))
        self._here[chat] = None
        self._here.move_to_end(chat)
        while len(self._here) > SLOTS_KEPT:
            self._here.popitem(last=False)

    def here(self, chat: str) -> bool:
        """Whether this process parked updates for `chat` (its next reply looks for them)."""
        return chat in self._here

    async def _write(self, chat: str) -> None:
        """Write the updates parked here for `chat` to the store, oldest first."""
        try:
            while messages := self._unwritten.pop(chat, None):
                for message in messages:
                    key = f"{message.host}/{message.slot or ''}"
                    tag = key if message.coalesce else ""
                    try:
                        await self.sessions.park(chat, _stored(message), tag, key)
                    except Exception as exc:  # the next reply shows the table as it is then
                        log.warning("could not park an update of %s: %r", chat, exc)
        finally:
            del self._writing[chat]

    async def written(self) -> None:
        """Wait until the updates parked here are in the store (a page's message in the
        group, which another process may get, follows at once)."""
        while self._writing:
            await asyncio.gather(*self._writing.values(), return_exceptions=True)

    async def taken(self, chat: str) -> list[Message]:
        """The updates parked for `chat` by any process, oldest first, taken from the store
        (this process's own written there first)."""
        writing = self._writing.get(chat)
        if writing is not None:
            await asyncio.gather(writing, return_exceptions=True)
        self._here.pop(chat, None)
        try:
            stored = await self.sessions.unpark(chat)
        except Exception as exc:  # they wait for the next reply
            log.warning("could not take the updates parked for %s: %r", chat, exc)
            return []
        parked = []
        for raw in stored:
            try:
                parked.append(_restored(raw))
            except (orjson.JSONDecodeError, TypeError, KeyError, AttributeError) as exc:
                log.error("an unreadable parked update of %s: %r", chat, exc)
        return parked

    async def joined(self, message: Message) -> Message:
        """A reply to a chat this process parked updates for takes along every update parked
        there (by any process), before its own, up to REPLY_MESSAGES in all; one of a table
        the reply shows anew is dropped, and what does not fit stays parked."""
        parked = await self.taken(message.chat)
        rest = [m for m in parked if not shows(message, m)]
        room = REPLY_MESSAGES - 1 - len(message.also)
        for left in rest[room:]:
            self.park(left)
        if not rest[:room]:
            return message
        return replace(message, also=(*rest[:room], *message.also))


def parks(message: Message, caps: Capabilities) -> bool:
    """Whether a message waits for the next reply in its chat, however long: an update of
    a game's group that answers no event, where such messages cost and players read the
    game on a page (the page and the table always read the game as it is)."""
    if caps.unasked_free or message.answers is not None:
        return False
    return message.host is not None and message.chat == message.host


def _stored(message: Message) -> bytes:
    """A parked message as the store keeps it (JSON)."""
    return orjson.dumps(message)


def _restored(raw: bytes) -> Message:
    """The parked message `_stored` made."""
    data = orjson.loads(raw)
    data["buttons"] = tuple(tuple(Button(**b) for b in row) for row in data["buttons"])
    data["also"] = tuple(_restored(orjson.dumps(m)) for m in data["also"])
    return Message(**data)
