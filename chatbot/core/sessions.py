"""What every desk shares: a chat's session in the store (load, compare-and-set save, update),
languages, who may host, and the platform's ports. Desks use it; it knows no desk."""

from __future__ import annotations

import json
import logging
import random
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from chatbot.core.dedupe import Dedupe
from chatbot.core.model import Capabilities, Incoming
from chatbot.core.registry import Bundle, Registry
from chatbot.core.session import BadSession, Session
from chatbot.i18n import negotiate
from chatbot.settings import Settings
from chatbot.store.base import (
    ANY_VERSION,
    RETRIES,
    Conflict,
    Doc,
    Seen,
    Store,
    StoreUnavailable,
)

log = logging.getLogger(__name__)
GAMES_KEPT = 30  # the newest chats a user sat down in (a private /language and /stats)
HAND_SLOT = "hand:"  # slots of private hand messages (their ids kept in the chat's ledger)
DELIVERED = "change"  # the ledger's field of the last change recorded as delivered
OWED_GRACE = 10.0  # seconds before another process delivers a change its owner did not confirm
ALIVE_FOR = 10.0  # seconds a process counts as alive after its last heartbeat
PREFS_TTL = 365 * 24 * 3600  # seconds a user's or chat's settings are kept after last use
HISTORY_TTL = 180 * 24 * 3600  # seconds a chat's results are kept after its last game
ALIVE_TTL = 60  # seconds a process's heartbeat is kept
UNSENT_KEPT = 10_000  # changes remembered whose save this process saw fail
PARKED_KEPT = 20  # group updates parked for a chat's next reply (the oldest go)
KEPT_DOCS = 4096  # the game documents this process last loaded or saved, newest kept


class Busy(Exception):
    """Too many concurrent writers on one session."""


@dataclass(frozen=True)
class Platform:
    """The ports a platform adapter gives the core."""

    capabilities: Capabilities = field(default_factory=Capabilities)
    deep_link: Callable[[str], str | None] = lambda payload: None
    is_admin: Callable[[str, str], Awaitable[bool]] | None = None
    is_member: Callable[[str, str], Awaitable[bool]] | None = None  # (chat, user)


def game_key(chat: str) -> str:
    return f"game:{chat}"


def ledger_key(chat: str) -> str:
    """The chat's delivery ledger: its last change delivered and its hand messages' ids."""
    return f"ledger:{chat}"


def chat_of(key: str) -> str:
    return key.removeprefix("game:")


class Sessions:
    """The sessions of every chat, and what desks need to know about people and chats."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        games: Registry,
        platform: Platform,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] = lambda: random.SystemRandom().randrange(1 << 62),
        salts: Callable[[], int] = lambda: random.SystemRandom().randrange(1 << 62),
    ) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.platform = platform
        # Deadlines are compared across processes: with the default clock, this process's clock
        # is set to the store's (Redis TIME) at every heartbeat.
        self.offset = 0.0
        self._follows_store = clock is time.time
        self.clock = self._synced if self._follows_store else clock
        self.seeds = seeds
        self.salts = salts  # a deal's secret beside its seed (chatbot.core.fairness)
        self.process = uuid.uuid4().hex[:12]  # this process, as owner of undelivered changes
        # Changes whose save failed with a storage fault: this process will not deliver them,
        # though Redis may have applied the save (chat, change). Kept for the process's life.
        self.unsent: set[tuple[str, int]] = set()
        self.dedupe = Dedupe(store, self.process)
        # Game documents as this process last loaded or saved them (key -> document): a press
        # may change one without loading it, its save checking that nothing changed since.
        self._kept: OrderedDict[str, Doc] = OrderedDict()

    @property
    def caps(self) -> Capabilities:
        return self.platform.capabilities

    def bundle(self, session: Session) -> Bundle:
        """The session's game; BadSession for a game not hosted here."""
        bundle = self.games.get(session.game)
        if bundle is None:
            raise BadSession(f"unknown game {session.game!r}")
        return bundle

    async def load(self, chat: str) -> tuple[Session | None, int]:
        doc = await self.store.load(game_key(chat))
        if doc is None and (moved := await self.moved_to(chat)):
            doc = await self.store.load(game_key(moved))
        return self.session(doc)

    async def moved_to(self, chat: str) -> str | None:
        """The chat that `chat` became (a Telegram group upgraded to a supergroup), if any."""
        return await self.store.get_setting(f"moved:{chat}", "to")

    def keep(self, key: str, doc: Doc | None) -> None:
        """Remember `doc` as the document at `key` now (None: forget it)."""
        kept = self._kept
        kept.pop(key, None)
        if doc is not None:
            kept[key] = doc
            if len(kept) > KEPT_DOCS:
                kept.popitem(last=False)

    def kept(self, key: str) -> Doc | None:
        """The document at `key` as this process last loaded or saved it (it may be stale:
        only a save that checks its fields, `save(..., kept=doc.fields)`, may rely on it)."""
        return self._kept.get(key)

    @staticmethod
    def session(doc: Doc | None) -> tuple[Session | None, int]:
        """The session of a stored document (BadSession when it cannot be read)."""
        if doc is None:
            return None, 0
        return Session.loads(doc.data, doc.fields), doc.version

    async def save(
        self,
        session: Session,
        version: int,
        owed: bool = False,
        seen: Seen | None = None,
        kept: Mapping[str, str] | None = None,
    ) -> None:
        """Compare-and-set `session`. `owed`: the save makes messages that this process now
        owes the chats; until it records them delivered, the game is also due a little later,
        so that another process delivers them if this one dies. `seen`: the update that made
        the change is marked handled in the same step (its redelivery is then ignored).
        `kept`: the fields of the kept document (`kept()`) the session was read from, with
        `seen`'s update unclaimed: the save also checks both (Store.save's `fields`)."""
        key = game_key(session.chat)
        if version:  # ids its document held itself go beside it, before the save drops them
            for slot, message in session.take_unmoved().items():
                await self.store.set_field(key, slot, message, replace=False)
        deadline = session.deadline
        if owed:
            session.change += 1
            session.owner = self.process
            grace = self.clock() + OWED_GRACE
            deadline = grace if deadline is None else min(deadline, grace)
        data = session.dumps()
        try:
            new = await self.store.save(
                key, data, version, self.settings.idle_ttl, deadline, seen, kept
            )
            self.keep(key, Doc(new, data, dict(session.message_ids)))
        except Conflict:
            self.keep(key, None)
            raise
        except StoreUnavailable:
            self.keep(key, None)
            if owed:  # it may have been saved all the same (Redis stalled, then went on)
                if len(self.unsent) >= UNSENT_KEPT:
                    self.unsent.pop()
                self.unsent.add((session.chat, session.change))
            raise

    async def try_save(
        self,
        session: Session,
        version: int,
        owed: bool = False,
        seen: Seen | None = None,
        kept: Mapping[str, str] | None = None,
    ) -> bool:
        try:
            await self.save(session, version, owed, seen, kept)
            return True
        except Conflict:
            return False

    async def running(self, session: Session) -> None:
        """Count the session's game as running (for /metrics) until its document goes; a
        count lost to a storage fault only leaves the game uncounted."""
        try:
            await self.store.mark_running(game_key(session.chat), session.game)
        except StoreUnavailable as exc:
            log.warning("game of %s not counted as running: %r", session.chat, exc)

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
        game, which could race a change), and updates handled that changed no game (their
        marks: `Dedupe.marks`)."""
        for chat, change in delivered.items():
            self.unsent.discard((chat, change))
        marks = [(ledger_key(chat), DELIVERED, str(change)) for chat, change in delivered.items()]
        marks += [(ledger_key(chat), slot, message) for (chat, slot), message in hands.items()]
        await self.store.write_marks(marks, self.settings.idle_ttl, seen)  # as long as the sessions

    async def owed(self, session: Session) -> bool:
        """Whether the session's last change was never delivered by a process that is gone."""
        if session.change == 0:
            return False
        sent = await self._ledger(session.chat, DELIVERED)
        if sent is not None and sent.isdigit() and int(sent) >= session.change:
            return False
        if (session.chat, session.change) in self.unsent:
            return True  # saved by this process while it thought the save had failed
        return not await self.alive(session.owner)

    def _synced(self) -> float:
        return time.time() + self.offset

    async def sync_clock(self) -> None:
        """Set this process's clock to the store's (a round trip's error at most)."""
        if not self._follows_store:
            return
        before = time.time()
        server = await self.store.server_time()
        after = time.time()
        if server is not None:
            self.offset = server - (before + after) / 2

    async def heartbeat(self) -> None:
        """This process is alive (it delivers what it owes); its clock follows the store's."""
        await self.sync_clock()
        await self.store.set_setting(f"alive:{self.process}", "at", repr(self.clock()), ALIVE_TTL)

    async def alive(self, process: str) -> bool:
        if process == self.process:
            return True
        beat = await self.store.get_setting(f"alive:{process}", "at")
        try:
            return beat is not None and float(beat) > self.clock() - ALIVE_FOR
        except ValueError:
            return False

    async def postpone(self, key: str, seconds: float) -> None:
        """Move the deadline of the game at `key` to `seconds` from now."""
        await self.store.set_deadline(key, self.clock() + seconds)

    async def reindex(self, session: Session) -> None:
        """Put the session's own deadline back in the index (after a delivery's grace)."""
        key = game_key(session.chat)
        if session.deadline is None:
            await self.store.clear_deadline(key)
        else:
            await self.store.set_deadline(key, session.deadline)

    async def update(self, chat: str, change: Callable[[Session], bool]) -> Session | None:
        """Load `chat`'s session, apply `change` and save it with compare-and-set, again from
        the load while another writer wins the race; `change` returns False to save nothing."""
        for _ in range(RETRIES):
            session, version = await self.load(chat)
            if session is None or not change(session):
                return session
            if await self.try_save(session, version):
                return session
        raise Busy(chat)

    async def remember(self, chat: str, slot: str, message: str) -> str | None:
        """Record the platform id of a newly sent slot message beside the chat's session (no
        save of the session, which could race a change); the id it replaces (None: none, or
        a hand slot's, which is recorded with the deliveries)."""
        if slot.startswith(HAND_SLOT):
            await self.write_ledger({}, {(chat, slot): message})
            return None
        key = game_key(chat)
        before = await self.store.set_field(key, slot, message)
        if (kept := self._kept.get(key)) is not None:  # as Redis keeps a hash: new fields last
            self._kept[key] = Doc(kept.version, kept.data, {**kept.fields, slot: message})
        return before if before != message else None

    async def park(self, chat: str, update: bytes, tag: str, drop: str) -> None:
        """Park a group update (stored) for the next reply in `chat`, tagged `tag`, after
        dropping the parked updates tagged `drop` (`Store.append`); kept as long as a
        session."""
        key = f"parked:{chat}"
        await self.store.append(key, update, PARKED_KEPT, self.settings.idle_ttl, tag, drop)

    async def unpark(self, chat: str) -> list[bytes]:
        """Every update parked for `chat`, oldest first, taken (no other process gets them)."""
        return await self.store.take(f"parked:{chat}")

    async def last_message(self, chat: str, slot: str) -> str | None:
        """The id of a hand slot's last message not yet bared of its buttons (the ids an older
        version kept in `hand:<chat>` are not read: those messages keep their buttons, and a
        press on them is refused as outdated)."""
        return await self._ledger(chat, slot) or None

    async def bared(self, chat: str, slot: str) -> None:
        """A hand slot's last message has lost its buttons: nothing more to edit."""
        await self.store.drop_setting(ledger_key(chat), slot)

    async def _ledger(self, chat: str, name: str) -> str | None:
        """A field of `chat`'s ledger; the last change delivered, where it has none, from
        where an older version kept it (`sent:<chat>`)."""
        value = await self.store.get_setting(ledger_key(chat), name)
        if value is None and name == DELIVERED:
            value = await self.store.get_setting(f"sent:{chat}", name)
        return value

    async def delete(self, chat: str) -> None:
        """Remove `chat`'s session whatever its version (a finished or unreadable game)."""
        key = game_key(chat)
        for _ in range(RETRIES):
            try:
                doc = await self.store.load(key)
            except BadSession:  # not even a document: removed as it is
                return await self.store.delete(key, ANY_VERSION)
            if doc is None:
                return
            try:
                await self.store.delete(key, doc.version)
                return
            except Conflict:
                continue

    async def user_language(self, user_id: str, code: str | None) -> str:
        chosen = await self.store.get_setting(f"user:{user_id}", "lang", refresh=PREFS_TTL)
        return chosen or negotiate(code)

    async def chat_language(self, inc: Incoming) -> str:
        return await self.known_chat_language(inc) or negotiate(None)

    async def known_chat_language(self, inc: Incoming) -> str | None:
        """The language of the event's chat: chosen for the group, else the platform's guess,
        else the sender's; None when nothing tells (a group the bot just joined)."""
        if inc.private:
            return await self.user_language(inc.user.id, inc.user.language)
        chosen = await self.store.get_setting(f"chat:{inc.chat}", "lang", refresh=PREFS_TTL)
        code = chosen or inc.chat_language or inc.user.language
        return negotiate(code) if code else None

    async def may_host(self, inc: Incoming, session: Session) -> bool:
        """The player who opened the table, or an admin of the chat."""
        if inc.user.id == session.creator:
            return True
        is_admin = self.platform.is_admin
        return is_admin is not None and await is_admin(inc.chat, inc.user.id)

    async def is_admin(self, chat: str, user: str) -> bool:
        """Whether `user` administers `chat` (True where the platform cannot tell)."""
        is_admin = self.platform.is_admin
        return is_admin is None or await is_admin(chat, user)

    async def is_member(self, chat: str, user: str) -> bool:
        """Whether `user` is in `chat` (True where the platform cannot tell)."""
        is_member = self.platform.is_member
        return is_member is None or await is_member(chat, user)

    async def games_of(self, user: str) -> list[str]:
        """The chats whose games `user` sat down in lately, newest first."""
        raw = await self.store.get_setting(f"user:{user}", "games")
        try:
            chats = json.loads(raw) if raw else []
        except ValueError:
            return []
        return [c for c in chats if isinstance(c, str)] if isinstance(chats, list) else []

    async def seated(self, user: str, chat: str) -> None:
        """Remember that `user` sits in `chat`'s game (a private /language finds it)."""
        chats = [chat, *(c for c in await self.games_of(user) if c != chat)][:GAMES_KEPT]
        await self.store.set_setting(f"user:{user}", "games", json.dumps(chats), PREFS_TTL)

    async def reachable(self, user: str) -> bool:
        """Whether the bot may write to `user` privately (they opened the private chat)."""
        return await self.store.get_setting(f"user:{user}", "dm") == "1"
