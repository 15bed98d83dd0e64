"""The session store port: versioned JSON documents per key, compare-and-set writes.

Keys are plain strings chosen by the caller, `<kind>:<owner>` (e.g. "game:tg:-100123", owner
"tg:-100123"). Keys of one owner live together (one Redis Cluster slot): a save and the set of
handled updates it marks must have the same owner, and so must a deadline's member (a key)
and that key. Every write names the
version it expects; a write whose expectation is stale raises `Conflict` and changes nothing.
0 as the expected version means "must not exist". A new version is greater than every
version the key had before, even after the document was deleted or expired (for
`VERSION_KEEP` seconds after that): a writer that loaded a document, then paused while it was
deleted and created anew, cannot overwrite the new one.

A document may have fields beside it (`set_field`: small strings, such as the platform ids of
the messages a session keeps editing): they are read with the document (`Doc.fields`) and
written without a new version, so recording one never races a change of the document. They
live and die with it: they expire with it, go when it is deleted, and a document created anew
(expected version 0) starts without any.
"""

from __future__ import annotations

import asyncio
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from chatbot.store.watch import Watchers

RETRIES = 8  # compare-and-set attempts before giving up on a busy document
VERSION_KEEP = 7 * 24 * 3600  # seconds a key's version counter outlives its document
# Update ids remembered per set at most (the newest): each stays its set's ttl after it was
# marked (chatbot.core.dedupe.DEDUPE_TTL, longer than any platform redelivers an update or
# accepts an old one); this bound only caps memory, far above what one chat sees in that time.
SEEN_KEEP = 10_000
INDEX_KEEP = VERSION_KEEP  # seconds (at least) a deadline index outlives its last write


def check_field(name: str) -> None:
    """A field's name beside a document may not start with "#" (the store's own fields)."""
    if name.startswith("#"):
        raise ValueError(f"a field's name may not start with '#': {name!r}")


def owner_of(key: str) -> str:
    """The owner of `key`: what follows its kind (`game:tg:1` -> `tg:1`), else the key."""
    kind, colon, owner = key.partition(":")
    return owner if colon else kind


def same_owner(keys: Sequence[str]) -> None:
    """ValueError unless every key has one owner (a step on several must stay in one slot)."""
    if len({owner_of(k) for k in keys}) > 1:
        raise ValueError(f"keys of different owners: {list(keys)!r}")


class StoreUnavailable(Exception):
    """The store cannot be reached now (down, frozen, timed out): nothing was changed, or
    the change is not known to have happened."""


class Unreadable(Exception):
    """A stored value that cannot be read (corrupt, or written by an unknown version)."""


ANY_VERSION = -1  # `Store.delete`: whatever the key holds, readable or not


class Conflict(Exception):
    """The stored version is not the one the writer expected (someone else wrote first)."""


@dataclass(frozen=True)
class Doc:
    """A stored document, its version and the fields beside it."""

    version: int
    data: bytes
    fields: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Seen:
    """An update to remember as handled: its id joins the set `key` for `ttl` seconds (of
    those, the newest `keep` stay), and the set expires `ttl` seconds after its last
    addition; its claim in the hash `held` (see `Claim`), if any, is released."""

    key: str
    update: str
    ttl: int
    held: str | None = None
    keep: int = SEEN_KEEP


@dataclass(frozen=True)
class Write:
    """One document of a `commit`: `data` written (None: the document deleted) if its version
    is `expected` (0: absent); it expires `ttl` seconds after (None: never)."""

    key: str
    expected: int
    data: bytes | None
    ttl: int | None = None


@dataclass(frozen=True)
class Entry:
    """An entry a `commit` prepends to the capped list `key` (as `push_history` does)."""

    key: str
    entry: bytes
    keep: int
    ttl: int | None = None


@dataclass(frozen=True)
class Claim:
    """`process` handles `update` now: until the update joins the set `seen` (handled) or
    `ttl` seconds pass, another process's claim on it finds it busy. Claims live in the hash
    `held`, which has the same owner as `seen`."""

    seen: str
    held: str
    update: str
    process: str
    ttl: float


@dataclass(frozen=True)
class Claimed:
    """What a claim found: the document asked for, whether the update was handled already,
    and the process handling it now if that is another one (None: the claim is ours)."""

    doc: Doc | None
    handled: bool
    busy: str | None = None


@dataclass(frozen=True)
class Pace:
    """A message budget: at most `limit` messages in any `period` seconds; after a burst of
    `burst` at once they are spread out (at the pace that alone never exceeds `limit`)."""

    limit: int
    period: float
    burst: int

    @property
    def spacing(self) -> float:
        """Seconds between spread-out messages (0: no spreading)."""
        return self.period / (self.limit - self.burst) if self.burst < self.limit else 0.0


@dataclass(frozen=True)
class Place:
    """A reserved place in a budget: seconds until it (`wait`), until a next place would not
    wait (`ready`), places left in the period (`room`), and processes that reserved in the
    last minute (0: not asked)."""

    wait: float
    ready: float
    room: int
    processes: int = 0


class Store(ABC):
    """Where sessions, settings and deadlines live. Implementations: memory.py, redis.py."""

    @abstractmethod
    async def load(self, key: str, refresh: int | None = None) -> Doc | None:
        """The document at `key`, or None (one round trip); Unreadable for a value that is
        not a document. With `refresh`, it (if any) expires `refresh` seconds from now."""

    @abstractmethod
    async def claim(self, claim: Claim, key: str | None = None) -> Claimed:
        """Unless its update was handled or another process holds it, `claim` is ours from
        now (checked and set atomically); the document at `key` is read in the same round
        trip."""

    @abstractmethod
    async def was_seen(self, seen: str, update: str) -> bool:
        """Whether `update` is in the set `seen` (it was handled)."""

    @abstractmethod
    async def mark_seen(self, seen: Seen) -> bool:
        """Remember an update as handled (one round trip); whether it was not in the set
        before (checked and added in one step: one caller of many gets True)."""

    async def save(
        self,
        key: str,
        data: bytes,
        expected: int,
        ttl: int | None,
        deadline: float | None = None,
        seen: Seen | None = None,
    ) -> int:
        """Write `data` if the stored version equals `expected` (0: key absent); returns the new
        version (never issued before for `key`) and sets the key's time to live in seconds
        (None: no expiry). In the same atomic step, schedules `key` at unix time `deadline`
        (None: unschedules it) and marks `seen` handled. One round trip. Raises Conflict
        otherwise (and marks nothing); ValueError if `seen` has another owner than `key`."""
        same_owner([key] if seen is None else [key, seen.key])
        return await self._checked_save(Write(key, expected, data, ttl), deadline, seen)

    @abstractmethod
    async def _checked_save(self, write: Write, deadline: float | None, seen: Seen | None) -> int:
        """`save`, its owners checked (`write.data` is the document: never None)."""

    @abstractmethod
    async def set_field(self, key: str, name: str, value: str, replace: bool = True) -> str | None:
        """Set the field `name` beside the document at `key` (nothing while there is none;
        without `replace`, a value it has stays) and return the value it had, in one atomic
        step and one round trip. The document's version does not change."""

    async def commit(self, writes: Sequence[Write], entries: Sequence[Entry] = ()) -> list[int]:
        """Every write (and delete) of `writes` if each document's version is its `expected`,
        and the `entries` prepended to their lists, in one atomic step; else Conflict and
        nothing changes. Returns each write's new version (0 for a delete). Every key has the
        same owner (one Cluster slot; else ValueError, as for an entry that keeps none); the
        documents written or deleted leave the deadline index. One round trip."""
        same_owner([w.key for w in writes] + [e.key for e in entries])
        if any(e.keep < 1 for e in entries):
            raise ValueError("keep must be >= 1")
        return await self._checked_commit(writes, entries)

    @abstractmethod
    async def _checked_commit(self, writes: Sequence[Write], entries: Sequence[Entry]) -> list[int]:
        """`commit`, its owners and its entries checked."""

    @abstractmethod
    async def delete(self, key: str, expected: int) -> None:
        """Remove `key` (and its deadline) if its version equals `expected` (ANY_VERSION:
        whatever it holds, an unreadable value too); else Conflict."""

    @abstractmethod
    async def push_history(self, key: str, entry: bytes, keep: int, ttl: int | None = None) -> None:
        """Prepend `entry` to a capped list (the newest `keep` entries stay); the list expires
        `ttl` seconds after its last entry (None: keeps its expiry)."""

    @abstractmethod
    async def history(self, key: str, limit: int) -> list[bytes]:
        """The newest `limit` entries of a capped list, newest first."""

    @abstractmethod
    async def append(
        self, key: str, entry: bytes, keep: int, ttl: int, tag: str = "", drop: str = ""
    ) -> None:
        """Append `entry`, tagged `tag`, to the list `key`, first removing the entries tagged
        `drop` ("": none); the newest `keep` (>= 1) stay; the list expires `ttl` seconds after.
        Tags hold no newline. One atomic step, one round trip."""

    @abstractmethod
    async def take(self, key: str) -> list[bytes]:
        """Every entry of the list `key` (as `append` made it), oldest first, removed in the
        same atomic step (two takers never both get one). One round trip."""

    @abstractmethod
    async def get_setting(self, key: str, field: str, refresh: int | None = None) -> str | None:
        """One field of a settings hash (per-chat or per-user settings, e.g. language); with
        `refresh`, the hash (if any) expires `refresh` seconds from now (one round trip)."""

    @abstractmethod
    async def set_setting(self, key: str, field: str, value: str, ttl: int | None = None) -> None:
        """Set one field; with `ttl`, the hash expires `ttl` seconds from now (one round trip;
        None: keeps its expiry)."""

    @abstractmethod
    async def drop_setting(self, key: str, field: str) -> None:
        """Remove one field (the hash goes with its last)."""

    async def write_marks(
        self, fields: list[tuple[str, str, str]], ttl: int | None = None, seen: Sequence[Seen] = ()
    ) -> None:
        """Set several settings fields, each a (key, field, value), with `set_setting`'s `ttl`,
        and mark the updates `seen` handled, in one round trip where the store can send them
        together."""
        for key, field, value in fields:
            await self.set_setting(key, field, value, ttl)
        for mark in seen:
            await self.mark_seen(mark)

    @abstractmethod
    async def mark_running(self, key: str, game: str) -> None:
        """Count the document at `key` as a running game of `game` until it is deleted (once,
        however often marked): `running` then costs the same with any number of games."""

    @abstractmethod
    async def running(self) -> dict[str, int]:
        """The running games by game, as marked (every count above 0)."""

    @abstractmethod
    async def first_time(self, key: str, ttl: int) -> bool:
        """True the first time `key` is seen within `ttl` seconds (e.g. a one-use button)."""

    @abstractmethod
    async def set_deadline(self, member: str, at: float) -> None:
        """Schedule `member` (e.g. a chat's game key) at unix time `at`, replacing any earlier."""

    @abstractmethod
    async def clear_deadline(self, member: str) -> None: ...

    @abstractmethod
    async def due(self, now: float, limit: int) -> list[str]:
        """Members whose deadline is at or before `now` (they stay until cleared or reset)."""

    @abstractmethod
    async def reserve(
        self, key: str, pace: Pace, now: float, earliest: float = 0.0, who: str = ""
    ) -> Place:
        """Reserve the first place of budget `key` at or after `earliest` seconds from `now`
        (`now`: the clock every process shares), after any pause; `who` (a process) is
        counted among the budget's users. One atomic step, one round trip."""

    @abstractmethod
    async def pause(self, key: str, until: float) -> None:
        """No place of budget `key` before `until` (a platform asked to wait)."""

    async def server_time(self) -> float | None:
        """The store's own clock (Unix seconds), which every process shares; None when the
        store lives in this process (its clock is this process's)."""
        return None

    def watch(self, key: str) -> AbstractAsyncContextManager[asyncio.Queue[int]]:
        """A queue of the new versions of the document at `key` (0: gone), as they are
        written by any process (`chatbot.store.watch`)."""
        return self.watchers.local(key)

    @property
    def watchers(self) -> Watchers:
        """This store's watchers in this process."""
        held: Watchers | None = self.__dict__.get("_watchers")
        if held is None:
            held = self.__dict__["_watchers"] = Watchers()
        return held

    @abstractmethod
    async def close(self) -> None: ...
