"""The only door to the store: units of work on a chat's session, and named reads and writes.

Named reads and writes of everything else the bot keeps (languages, history, standings,
records; heartbeats and the delivery ledgers through its `Liveness`).

A unit of work (`change`) claims the update that asks for it, loads the session, applies a
function that decides the change (it touches no store) and saves it with a compare-and-set,
from the load again while another writer wins the race. Every change of a game goes through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from chatbot.core import keys
from chatbot.core.budget import Budgets
from chatbot.core.dedupe import DEDUPE_TTL, IN_FLIGHT, Dedupe, mark, member
from chatbot.core.liveness import Liveness
from chatbot.core.model import Capabilities
from chatbot.core.people import People
from chatbot.core.registry import Bundle, Registry
from chatbot.core.session import BadSession, Session
from chatbot.core.work import Found, Outcome, Work
from chatbot.settings import Settings
from chatbot.store.base import (
    ANY_VERSION,
    RETRIES,
    Claim,
    Claimed,
    Conflict,
    Doc,
    Entry,
    Seen,
    Store,
    StoreUnavailable,
    Unreadable,
    Write,
)

log = logging.getLogger(__name__)
# Whether the task's units of work wrote a change (a command's reply that wrote none only
# tells or refuses: it is chatter, `GameService._command`).
WROTE: ContextVar[bool] = ContextVar("wrote", default=False)
T = TypeVar("T")
HAND_SLOT = "hand:"  # slots of private hand messages (their ids kept in the chat's ledger)
OWED_GRACE = 10.0  # seconds before another process delivers a change its owner did not confirm
PREFS_TTL = 365 * 24 * 3600  # seconds a user's or chat's settings are kept after last use
HISTORY_TTL = 180 * 24 * 3600  # seconds a chat's results are kept after its last game
UNSENT_KEPT = 10_000  # changes remembered whose save this process saw fail
PARKED_KEPT = 20  # group updates parked for a chat's next reply (the oldest go)
CLAIM_POLL = 0.1  # seconds between looks at an update another process is handling
UNKNOWN_PAUSES = (0.2, 1.0)  # seconds before looking again whether a save that stalled was applied
# The update being handled in this task and the chat whose set of handled updates has it
# (`GameService.handle` sets it): a unit of work on that chat claims it and its save marks it
# handled in the same step, so that no copy changes the game again, even after this process
# died before the ledger's next write.
ASKING: ContextVar[tuple[str, str] | None] = ContextVar("asking", default=None)


class Busy(Exception):
    """Too many concurrent writers on one session."""


@dataclass(frozen=True)
class Platform:
    """The ports a platform adapter gives the core."""

    capabilities: Capabilities = field(default_factory=Capabilities)
    deep_link: Callable[[str], str | None] = lambda payload: None
    is_admin: Callable[[str, str], Awaitable[bool]] | None = None
    is_member: Callable[[str, str], Awaitable[bool]] | None = None  # (chat, user)


class Sessions:
    """The sessions of every chat, and everything else the bot keeps about people and chats."""

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
        self._store = store
        self.settings = settings
        self.games = games
        self.platform = platform
        self.liveness = Liveness(self, store, clock)  # heartbeats, the clock, the ledgers
        self.clock = self.liveness.clock
        self.seeds = seeds
        self.salts = salts  # a deal's secret beside its seed (chatbot.core.fairness)
        self.process = uuid.uuid4().hex[:12]  # this process, as owner of undelivered changes
        # Changes whose save failed with a storage fault: this process will not deliver them,
        # though Redis may have applied the save (chat, change). Kept for the process's life.
        self.unsent: set[tuple[str, int]] = set()
        self.dedupe = Dedupe()
        self.in_flight = IN_FLIGHT
        self.people = People(self)
        self.budgets = Budgets(store, self.clock, self.process)

    @property
    def caps(self) -> Capabilities:
        return self.platform.capabilities

    def bundle(self, session: Session) -> Bundle:
        """The session's game; BadSession for a game not hosted here."""
        bundle = self.games.get(session.game)
        if bundle is None:
            raise BadSession(f"unknown game {session.game!r}")
        return bundle

    def session(self, doc: Doc | None) -> tuple[Session | None, int]:
        """The session of a stored document (BadSession when it cannot be read)."""
        if doc is None:
            return None, 0
        return self.fit(Session.loads(doc.data, doc.fields)), doc.version

    def fit(self, session: Session) -> Session:
        """`session` with its game's options as the game has them now: an option added since
        it was saved takes its default (as the game was played before it existed); an option
        the game no longer has, or a value it no longer offers, is BadSession."""
        bundle = self.games.get(session.game)
        if bundle is None:  # (answered where its game is needed)
            return session
        spec = bundle.game.spec
        known = {o.name: o for o in spec.options}
        for name, value in session.options.items():
            option = known.get(name)
            if (
                option is None
                or value not in option.choices
                or type(value) is not type(option.default)
            ):
                raise BadSession(f"option {name}={value!r} of {session.game}")
        for name, option in known.items():
            session.options.setdefault(name, option.default)
        return session

    # --- reading a session -------------------------------------------------------------------

    async def load(self, chat: str, follow: bool = True) -> tuple[Session | None, int]:
        """`chat`'s session and its version (`follow`: of the chat it moved to, if it did)."""
        return self.session(await self.find(chat, follow))

    async def find(self, chat: str, follow: bool = True) -> Doc | None:
        """`chat`'s stored session as it is (`follow`: of the chat it moved to, if it did)."""
        doc = await self._store.load(keys.game(chat))
        if doc is None and follow and (moved := await self.moved_to(chat)):
            doc = await self._store.load(keys.game(moved))
        return doc

    async def moved_to(self, chat: str) -> str | None:
        """The chat that `chat` became (a Telegram group upgraded to a supergroup), if any."""
        return await self._store.get_setting(keys.moved(chat), "to")

    # --- the unit of work --------------------------------------------------------------------

    async def change(
        self, chat: str, work: Work[T], update: str | None = None, also: Sequence[str] = ()
    ) -> Outcome[T]:
        """Run `work` on `chat`'s session and write what it decided, in one atomic step; on a
        race lost to another writer, again from a new load (Busy after RETRIES tries).

        `update`: the platform event asking for the change, claimed in the load's round trip
        and marked handled by the save (`Found.handled`: it was handled before). `also`: other
        keys of the chat the work reads (`Found.others`) and may write. A save whose answer
        was lost on the way (the connection broke, the client sent it again and lost the race
        to itself) is found applied on the next load: its outcome stands. Without `update`,
        the update this task handles (`ASKING`), if it asks about `chat`."""
        asking = ASKING.get()
        if update is None and asking is not None and asking[0] == chat:
            update = asking[1]
        tried: Outcome[T] | None = None
        unknown = 0  # saves whose answer did not come (the store stalled or went away)
        for _ in range(RETRIES):
            found = await self._found(chat, update, also)
            data = None if found.doc is None else found.doc.data
            if found.handled and tried is not None:
                if data == tried.written:  # it was saved: delivered as if nothing happened
                    if tried.save is not None:
                        self.unsent.discard((tried.save.chat, tried.save.change))
                    return tried
                self._unsent_if_mine(found)
            outcome = await work(found)
            if outcome.writes_nothing:
                return outcome
            try:
                await self._write(found, outcome, update)
                WROTE.set(True)
                return outcome
            except Conflict:
                tried = outcome if outcome.written is not None else None
            except StoreUnavailable:
                # Whether the save was applied is unknown: the next load tells (its update
                # handled, and the document as sent: it was), unless the store stays away.
                unknown += 1
                if not update or unknown > len(UNKNOWN_PAUSES):
                    raise
                tried = outcome if outcome.written is not None else None
                await asyncio.sleep(UNKNOWN_PAUSES[unknown - 1])
        raise Busy(chat)

    def _unsent_if_mine(self, found: Found) -> None:
        """A save whose answer was lost still changed the game, and others changed it since:
        if the stored change is this process's, its messages are delivered by this process's
        timer after the grace."""
        with contextlib.suppress(BadSession):
            session = found.session
            if session is not None and session.owner == self.process:
                self.unsent.add((session.chat, session.change))

    async def answering(self, chat: str, update: str) -> bool:
        """Take the answer to `chat`'s press `update`: True for the first process that asks
        (it says it), False once another did, or recorded that it said it (`Dedupe.told`)."""
        return await self._store.mark_seen(Seen(keys.answered(chat), member(update), DEDUPE_TTL))

    async def was_answered(self, chat: str, update: str) -> bool:
        """Whether a process answered `chat`'s press `update` (or took its answer)."""
        return await self._store.was_seen(keys.answered(chat), member(update))

    async def _found(self, chat: str, update: str | None, also: Sequence[str]) -> Found:
        """The session of `chat` (or of the chat it moved to), claiming `update` with it."""
        doc, handled = await self._claimed(chat, update)
        if doc is None and (moved := await self.moved_to(chat)):
            chat = moved  # the group became a supergroup: its own set of handled updates
            doc, again = await self._claimed(moved, update)
            handled = handled or again
        others = {key: await self._other(key) for key in also}
        return Found(chat, doc, handled, others, self.fit)

    async def _other(self, key: str) -> Doc | None:
        """A document a unit of work reads beside the session; one that is not even a document
        is removed (it starts again: no version could be compared with it)."""
        try:
            return await self._store.load(key)
        except Unreadable:
            log.error("unreadable %s: removed", key)
            await self._store.delete(key, ANY_VERSION)
            return None

    async def _claimed(self, chat: str, update: str | None) -> tuple[Doc | None, bool]:
        """The session document of `chat` and whether `update` was handled before (claimed
        for this process if not), in one round trip; without an update, a load."""
        if not update:
            return await self._store.load(keys.game(chat)), False
        got = await self.claim(chat, update, keys.game(chat))
        return got.doc, got.handled

    async def claim(self, chat: str, update: str, key: str | None = None) -> Claimed:
        """Claim `chat`'s `update` for this process, reading the document at `key` in the
        same round trip. While another process handles the same update (a copy delivered
        twice at once), wait until it has (the result says handled) or its claim lapses after
        `in_flight` seconds (it died or stalled: this process handles the update)."""
        held = member(update)
        claim = Claim(keys.seen(chat), keys.claims(chat), held, self.process, self.in_flight)
        waited = 0.0
        while True:
            got = await self._store.claim(claim, key)
            if got.busy is None:
                return got
            if waited > self.in_flight + 1:  # a claim that does not lapse: not ours to handle
                log.warning("update %s in %s: still held by %s", update, chat, got.busy)
                return Claimed(got.doc, True)
            if not waited:
                log.info("update %s in %s: a copy is handled by %s", update, chat, got.busy)
            await asyncio.sleep(CLAIM_POLL)
            waited += CLAIM_POLL

    async def _write(self, found: Found, outcome: Outcome[T], update: str | None) -> None:
        """Write what a unit of work decided (Conflict: another writer was first). The
        session's document is kept in `outcome.written` before it is sent: a save whose answer
        is lost is recognised by it on the next load."""
        key = keys.game(found.chat)
        if outcome.save is not None and not outcome.writes and not outcome.entries:
            seen = mark(found.chat, update)
            await self.save(outcome.save, found.version, outcome.owed, seen, outcome)
            return
        if outcome.delete and not outcome.writes and not outcome.entries:
            await self._store.delete(key, found.version)
            return
        data = None if outcome.save is None else outcome.save.dumps()
        mine = [] if data is None and not outcome.delete else [Write(key, found.version, data)]
        await self._store.commit([*mine, *outcome.writes], outcome.entries)

    async def save(
        self,
        session: Session,
        version: int,
        owed: bool = False,
        seen: Seen | None = None,
        outcome: Outcome[Any] | None = None,
    ) -> None:
        """Compare-and-set `session` (Conflict when `version` is stale). `owed`: the save
        makes messages that this process now owes the chats; until it records them delivered,
        the game is also due a little later, so that another process delivers them if this
        one dies. `seen`: the update that made the change is marked handled in the same step
        (its redelivery is then ignored). `outcome`: where the document is kept as sent."""
        key = keys.game(session.chat)
        if version:  # ids its document held itself go beside it, before the save drops them
            for slot, message in session.take_unmoved().items():
                await self._store.set_field(key, slot, message, replace=False)
        deadline = session.deadline
        if owed:
            session.change += 1
            session.owner = self.process
            grace = self.clock() + OWED_GRACE
            deadline = grace if deadline is None else min(deadline, grace)
        data = session.dumps()
        if outcome is not None:
            outcome.written = data
        try:
            await self._store.save(key, data, version, self.settings.idle_ttl, deadline, seen)
        except StoreUnavailable:
            if owed:  # it may have been saved all the same (Redis stalled, then went on)
                if len(self.unsent) >= UNSENT_KEPT:
                    self.unsent.pop()
                self.unsent.add((session.chat, session.change))
            raise

    async def delete(self, chat: str) -> None:
        """Remove `chat`'s session whatever its version (a finished or unreadable game)."""
        WROTE.set(True)
        key = keys.game(chat)
        for _ in range(RETRIES):
            try:
                doc = await self._store.load(key)
            except BadSession:  # not even a document: removed as it is
                return await self._store.delete(key, ANY_VERSION)
            if doc is None:
                return
            try:
                await self._store.delete(key, doc.version)
                return
            except Conflict:
                continue

    async def move(self, session: Session, old: str, version: int) -> bool:
        """Store `session` (now of its new chat) anew and remove it from `old`, whose history
        follows it; False when it moved already (another process, or a retried update)."""
        try:
            await self.save(session, 0)  # (a new document: nothing beside it yet)
        except Conflict:
            return False
        with contextlib.suppress(Conflict):
            await self._store.delete(keys.game(old), version)
        keep = self.settings.history_keep
        for raw in reversed(await self._store.history(keys.history(old), keep)):
            await self._store.push_history(keys.history(session.chat), raw, keep, HISTORY_TTL)
        return True

    # --- running games, timers and deliveries -----------------------------------------------

    async def running(self, session: Session) -> None:
        """Count the session's game as running (for /metrics) until its document goes; a
        count lost to a storage fault only leaves the game uncounted."""
        try:
            await self._store.mark_running(keys.game(session.chat), session.game)
        except StoreUnavailable as exc:
            log.warning("game of %s not counted as running: %r", session.chat, exc)

    async def count_running(self) -> dict[str, int]:
        """The running games by game."""
        return await self._store.running()

    async def due(self, limit: int) -> list[str]:
        """The game keys whose deadline has come, at most `limit`."""
        return await self._store.due(self.clock(), limit)

    async def drop_deadline(self, key: str) -> None:
        """Forget the deadline of the game at `key` (its document is unreadable)."""
        await self._store.clear_deadline(key)

    async def gone(self, key: str) -> None:
        """A game whose document expired: its deadline and its count as running go too
        (unless a new game is there meanwhile)."""
        with contextlib.suppress(Conflict):
            await self._store.delete(key, 0)

    async def was_handled(self, chat: str, update: str) -> bool:
        """Whether `chat`'s `update` was handled (marked by a save or the ledger)."""
        return await self._store.was_seen(keys.seen(chat), member(update))

    async def postpone(self, key: str, seconds: float) -> None:
        """Move the deadline of the game at `key` to `seconds` from now."""
        await self._store.set_deadline(key, self.clock() + seconds)

    async def reindex(self, session: Session) -> None:
        """Put the session's own deadline back in the index (after a delivery's grace)."""
        key = keys.game(session.chat)
        if session.deadline is None:
            await self._store.clear_deadline(key)
        else:
            await self._store.set_deadline(key, session.deadline)

    async def remember(self, chat: str, slot: str, message: str) -> str | None:
        """Record the platform id of a newly sent slot message beside the chat's session (no
        save of the session, which could race a change); the id it replaces (None: none, or
        a hand slot's, which is recorded with the deliveries)."""
        if slot.startswith(HAND_SLOT):
            await self.liveness.write_ledger({}, {(chat, slot): message})
            return None
        before = await self._store.set_field(keys.game(chat), slot, message)
        return before if before != message else None

    async def park(self, chat: str, update: bytes, tag: str, drop: str) -> None:
        """Park a group update (stored) for the next reply in `chat`, tagged `tag`, after
        dropping the parked updates tagged `drop`; kept as long as a session."""
        ttl = self.settings.idle_ttl
        await self._store.append(keys.parked(chat), update, PARKED_KEPT, ttl, tag, drop)

    async def unpark(self, chat: str) -> list[bytes]:
        """Every update parked for `chat`, oldest first, taken (no other process gets them)."""
        return await self._store.take(keys.parked(chat))

    # --- what is kept beside the games -------------------------------------------------------

    async def push_history(self, chat: str, entry: bytes) -> None:
        """The chat's history gets a finished (or stopped) game's line."""
        keep = self.settings.history_keep
        await self._store.push_history(keys.history(chat), entry, keep, HISTORY_TTL)

    def history_entry(self, chat: str, entry: bytes) -> Entry:
        """A history line to write with a commit."""
        return Entry(keys.history(chat), entry, self.settings.history_keep, HISTORY_TTL)

    async def history(self, chat: str, limit: int) -> list[bytes]:
        """The chat's latest finished games, newest first."""
        return await self._store.history(keys.history(chat), limit)

    async def standings(self, chat: str, ttl: int) -> Doc | None:
        """The chat's standings document (reading it keeps it `ttl` seconds more)."""
        return await self._store.load(keys.standings(chat), refresh=ttl)

    async def drop_standings(self, chat: str) -> None:
        """Remove standings that are not even a document (they start again)."""
        await self._store.delete(keys.standings(chat), ANY_VERSION)

    async def record(self, chat: str, lock: str) -> Doc | None:
        """A finished game's record, by its deal's lock."""
        return await self._store.load(keys.record(chat, lock))

    async def first_time(self, key: str, ttl: int) -> bool:
        """True the first time `key` (a `keys` one) is asked for within `ttl` seconds."""
        return await self._store.first_time(key, ttl)

    async def chat_moved(self, old: str, new: str) -> None:
        """Record that `old` became `new`; its language follows it."""
        await self._store.set_setting(keys.moved(old), "to", new, PREFS_TTL)
        language = await self._store.get_setting(keys.chat_prefs(old), "lang")
        if language:
            await self._store.set_setting(keys.chat_prefs(new), "lang", language, PREFS_TTL)

    def watch(self, chat: str) -> AbstractAsyncContextManager[asyncio.Queue[int]]:
        """The versions of `chat`'s session as any process writes them (0: gone), for a page
        that shows the game live."""
        return self._store.watch(keys.game(chat))

    async def probe(self) -> None:
        """One read: StoreUnavailable unless the store answers (/healthz)."""
        await self._store.get_setting(keys.HEALTH, "probe")

    async def close(self) -> None:
        await self._store.close()

    def same_store(self, other: Sessions) -> bool:
        """Whether `other` works on the same store (one connection pool to close)."""
        return self._store is other._store

    # --- people and chats --------------------------------------------------------------------

    async def user_setting(self, user: str, name: str, refresh: bool = False) -> str | None:
        """One of a person's settings (`refresh`: kept a year more from now)."""
        ttl = PREFS_TTL if refresh else None
        return await self._store.get_setting(keys.user_prefs(user), name, refresh=ttl)

    async def set_user_setting(self, user: str, name: str, value: str) -> None:
        await self._store.set_setting(keys.user_prefs(user), name, value, PREFS_TTL)

    async def chat_setting(self, chat: str, name: str, refresh: bool = False) -> str | None:
        """One of a chat's settings (`refresh`: kept a year more from now)."""
        ttl = PREFS_TTL if refresh else None
        return await self._store.get_setting(keys.chat_prefs(chat), name, refresh=ttl)

    async def set_chat_setting(self, chat: str, name: str, value: str) -> None:
        await self._store.set_setting(keys.chat_prefs(chat), name, value, PREFS_TTL)
