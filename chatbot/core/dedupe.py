"""Duplicate updates: a platform may deliver an update again (a webhook retried after a slow
answer or a lost connection, an update whose process died handling it). Each is handled once,
and one cut short is handled again (docs/delivery.md, "Dedupe"):

- a copy of an update this process answered is dropped here at once (`copy`, `answered`);
- before handling an update, a process claims it in the store, in the round trip that loads
  the game (`claim`, `load`): a copy reaching another process meanwhile waits for the claim,
  then finds the update handled (or handles it itself once the claim lapses: its process died);
- an update is marked handled by the save of the change it made (`mark`, passed to the save),
  or, when it changed no game, with the next write of the delivery ledger (`answered` queues
  the mark, the ledger takes it with `marks`): no round trip of its own.

A stamp on every button refuses a press on an outdated message whatever the dedupe saw.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from chatbot.store.base import Claim, Claimed, Doc, Seen, Store

log = logging.getLogger(__name__)
DEDUPE_TTL = 3600  # seconds a chat's handled update ids are remembered after the last one
IN_FLIGHT = 5.0  # seconds a process holds an update it handles against copies elsewhere
CLAIM_POLL = 0.1  # seconds between looks at an update another process is handling
ANSWERED_KEPT = 10_000  # newest updates this process answered, known here


def seen_key(chat: str) -> str:
    """The bounded set of the chat's handled updates."""
    return f"seen:{chat}"


def member(update: str) -> str:
    """An update's id as a chat's sets keep it: without the platform's prefix (the chat names
    the platform), so that Redis keeps a numeric id (Telegram's) as an integer, about 8 bytes
    an id less than the string."""
    return update.rpartition(":")[2]


def claims_key(chat: str) -> str:
    """The chat's updates being handled now, and by which process."""
    return f"claims:{chat}"


class Dedupe:
    """One process's view of which updates were handled: its own answers, and the store's
    record and claims, shared by every process."""

    def __init__(self, store: Store, process: str, in_flight: float = IN_FLIGHT) -> None:
        self.store = store
        self.process = process  # this process, as the holder of its claims
        self.in_flight = in_flight
        self._answered: OrderedDict[str, None] = OrderedDict()  # newest last
        self._marks: list[Seen] = []  # handled updates that changed no game, unrecorded

    def copy(self, update: str | None) -> bool:
        """Whether `update` is a copy of one this process answered already."""
        return update is not None and update in self._answered

    def answered(self, update: str | None, unmarked: tuple[str, str] | None) -> bool:
        """This process answered `update` (copies of it are dropped here from now on);
        `unmarked` (chat, update): it changed no game, so no save marked it handled: its mark
        waits for the ledger's next write. Whether one waits now."""
        if update:
            self._answered[update] = None
            while len(self._answered) > ANSWERED_KEPT:
                self._answered.popitem(last=False)
        mark = None if unmarked is None else self.mark(*unmarked)
        if mark is not None:
            self._marks.append(mark)
        return bool(self._marks)

    def marks(self) -> list[Seen]:
        """The marks waiting for the ledger, taken (it writes them with its next write)."""
        marks, self._marks = self._marks, []
        return marks

    @staticmethod
    def mark(chat: str, update: str | None) -> Seen | None:
        """What marks `update` handled in `chat` and releases its claim (None: an event
        without an update id)."""
        if not update:
            return None
        return Seen(seen_key(chat), member(update), DEDUPE_TTL, claims_key(chat))

    async def claim(self, chat: str, update: str, key: str | None = None) -> Claimed:
        """Claim `chat`'s `update` for this process, reading the document at `key` in the
        same round trip. While another process handles the same update (a copy delivered
        twice at once), wait until it has (the result says handled) or its claim lapses after
        `in_flight` seconds (it died or stalled: this process handles the update)."""
        kept = member(update)
        claim = Claim(seen_key(chat), claims_key(chat), kept, self.process, self.in_flight)
        waited = 0.0
        while True:
            got = await self.store.claim(claim, key)
            if got.busy is None:
                return got
            if waited > self.in_flight + 1:  # a claim that does not lapse: not ours to handle
                log.warning("update %s in %s: still held by %s", update, chat, got.busy)
                return Claimed(got.doc, True)
            if not waited:
                log.info("update %s in %s: a copy is handled by %s", update, chat, got.busy)
            await asyncio.sleep(CLAIM_POLL)
            waited += CLAIM_POLL

    async def load(self, chat: str, update: str | None, key: str) -> tuple[Doc | None, bool]:
        """The document at `key` and whether `chat`'s `update` was handled before (claimed for
        this process if not), in one round trip; an event without an update id is a load."""
        if not update:
            return await self.store.load(key), False
        got = await self.claim(chat, update, key)
        return got.doc, got.handled
