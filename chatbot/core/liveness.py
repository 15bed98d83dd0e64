"""Liveness: which process is alive, and which saved changes are still owed to their chats.

Heartbeats on the store's clock tell who is alive; the chats' delivery ledgers tell what was
delivered. Reached through `Sessions` (`sessions.liveness`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from chatbot.core import keys
from chatbot.core.session import BadSession, Session
from chatbot.core.work import Found
from chatbot.settings import Settings
from chatbot.store.base import Seen, Store


class Owner(Protocol):
    """What Liveness reads of the process's `Sessions`: who this process is, the changes it
    will not deliver, the settings."""

    process: str
    unsent: set[tuple[str, int]]
    settings: Settings


DELIVERED = "change"  # the ledger's field of the last change recorded as delivered
ALIVE_FOR = 10.0  # seconds a process counts as alive after its last heartbeat
ALIVE_TTL = 60  # seconds a process's heartbeat is kept


class Liveness:
    """This process's heartbeat and clock, the others' heartbeats, and the ledgers of
    deliveries: what tells whether a change is owed and by whom."""

    def __init__(self, sessions: Owner, store: Store, clock: Callable[[], float]) -> None:
        self.sessions = sessions
        self._store = store
        # Deadlines are compared across processes: with the default clock, this process's clock
        # is set to the store's (Redis TIME) at every heartbeat.
        self.offset = 0.0
        self._follows_store = clock is time.time
        self.clock = self._synced if self._follows_store else clock

    def _synced(self) -> float:
        return time.time() + self.offset

    async def sync_clock(self) -> None:
        """Set this process's clock to the store's (a round trip's error at most)."""
        if not self._follows_store:
            return
        before = time.time()
        server = await self._store.server_time()
        after = time.time()
        if server is not None:
            self.offset = server - (before + after) / 2

    async def heartbeat(self) -> None:
        """This process is alive (it delivers what it owes); its clock follows the store's."""
        await self.sync_clock()
        process = self.sessions.process
        await self._store.set_setting(keys.alive(process), "at", repr(self.clock()), ALIVE_TTL)

    async def alive(self, process: str) -> bool:
        if process == self.sessions.process:
            return True
        beat = await self._store.get_setting(keys.alive(process), "at")
        try:
            return beat is not None and float(beat) > self.clock() - ALIVE_FOR
        except ValueError:
            return False

    async def answer_lost(self, found: Found) -> bool:
        """Whether the process that saved the game's last change is gone (its heartbeat
        lapsed): a copy of a move it saved may be all that is left of the press, its answer
        lost with it. A live owner answered, or answers, its own press."""
        try:
            session = found.session
        except BadSession:
            return False
        if session is None or session.owner in ("", self.sessions.process):
            return False
        return not await self.alive(session.owner)

    async def owed(self, session: Session) -> bool:
        """Whether the session's last change was never delivered by a process that is gone."""
        if session.change == 0:
            return False
        sent = await self.ledger(session.chat, DELIVERED)
        if sent is not None and sent.isdigit() and int(sent) >= session.change:
            return False
        if (session.chat, session.change) in self.sessions.unsent:
            return True  # saved by this process while it thought the save had failed
        return not await self.alive(session.owner)

    async def delivered(self, chat: str, change: int) -> None:
        """Record that the messages of `chat`'s change `change` went out."""
        await self.write_ledger({chat: change}, {})

    async def write_ledger(
        self,
        delivered: dict[str, int],
        hands: dict[tuple[str, str], str],
        seen: Sequence[Seen] = (),
    ) -> None:
        """Record, in one write, chats' delivered changes ({chat: change}), the ids of newly
        sent hand messages ({(chat, slot): message id}, kept beside the sessions: no save of a
        game, which could race a change), and updates handled that changed no game."""
        for chat, change in delivered.items():
            self.sessions.unsent.discard((chat, change))
        marks = [(keys.ledger(chat), DELIVERED, str(change)) for chat, change in delivered.items()]
        marks += [(keys.ledger(chat), slot, message) for (chat, slot), message in hands.items()]
        await self._store.write_marks(marks, self.sessions.settings.idle_ttl, seen)

    async def last_message(self, chat: str, slot: str) -> str | None:
        """The id of a hand slot's last message not yet bared of its buttons."""
        return await self.ledger(chat, slot) or None

    async def bared(self, chat: str, slot: str) -> None:
        """A hand slot's last message has lost its buttons: nothing more to edit."""
        await self._store.drop_setting(keys.ledger(chat), slot)

    async def ledger(self, chat: str, name: str) -> str | None:
        """A field of `chat`'s ledger; the last change delivered, where it has none, from
        where an older version kept it."""
        value = await self._store.get_setting(keys.ledger(chat), name)
        if value is None and name == DELIVERED:
            value = await self._store.get_setting(keys.old_ledger(chat), name)
        return value
