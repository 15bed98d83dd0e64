"""An in-process `Store` for the console and quick local runs (no REDIS_URL)."""

from __future__ import annotations

import time
from collections import Counter as Tally
from collections.abc import Callable, Sequence

from chatbot.store.base import (
    ANY_VERSION,
    Claim,
    Claimed,
    Conflict,
    Doc,
    Entry,
    Pace,
    Place,
    Seen,
    Store,
    Write,
    check_field,
)


class MemoryStore(Store):
    """Dicts behaving like `RedisStore`; `clock` (seconds, monotonic) drives the TTLs."""

    # No method awaits, so each call is atomic on the event loop and needs no lock. Expired
    # documents read as absent and are dropped when next touched.

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._docs: dict[str, tuple[Doc, float | None]] = {}
        self._issued: dict[str, int] = {}  # the highest version issued per key (never dropped)
        self._seen: dict[str, float] = {}
        self._handled: dict[str, tuple[dict[str, float], float]] = {}  # set -> (ids, expiry)
        self._lists: dict[str, list[bytes]] = {}
        self._tagged: dict[str, list[tuple[str, bytes]]] = {}  # `append`'s lists, oldest first
        self._settings: dict[str, dict[str, str]] = {}
        self._expiry: dict[str, float] = {}  # lists and settings hashes with a time to live
        self._deadlines: dict[str, float] = {}
        self._running: dict[str, str] = {}  # document key -> its game, while it runs
        self._claims: dict[tuple[str, str], tuple[str, float]] = {}  # -> (process, expiry)
        self._fields: dict[str, dict[str, str]] = {}  # document key -> the fields beside it
        self._budgets: dict[str, _Budget] = {}

    def _live(self, key: str) -> Doc | None:
        """The unexpired document at `key`, dropping it if it has expired."""
        entry = self._docs.get(key)
        if entry is None:
            return None
        doc, expires = entry
        if expires is not None and expires <= self._clock():
            del self._docs[key]
            self._fields.pop(key, None)
            return None
        return doc

    def _read(self, key: str) -> Doc | None:
        """The unexpired document at `key` with the fields beside it (a copy), or None."""
        doc = self._live(key)
        if doc is None:
            return None
        return Doc(doc.version, doc.data, dict(self._fields.get(key, {})))

    def _check(self, key: str, expected: int) -> None:
        """Raise Conflict unless the version at `key` (0 if absent) is `expected`."""
        doc = self._live(key)
        if expected != ANY_VERSION and (doc.version if doc else 0) != expected:
            raise Conflict(key)

    async def load(self, key: str, refresh: int | None = None) -> Doc | None:
        """The document at `key`, or None; with `refresh`, its expiry moves."""
        doc = self._live(key)
        if doc is not None and refresh is not None:
            self._docs[key] = (doc, self._clock() + refresh)
        return self._read(key)

    async def claim(self, claim: Claim, key: str | None = None) -> Claimed:
        """As in Redis: handled, held by another process, or ours from now."""
        doc = None if key is None else self._read(key)
        if await self.was_seen(claim.seen, claim.update):
            return Claimed(doc, True)
        now = self._clock()
        self._claims = {k: v for k, v in self._claims.items() if v[1] > now}
        holder = self._claims.get((claim.held, claim.update))
        if holder is not None and holder[0] != claim.process:
            return Claimed(doc, False, holder[0])
        self._claims[(claim.held, claim.update)] = (claim.process, now + claim.ttl)
        return Claimed(doc, False)

    def _ids(self, seen: str) -> dict[str, float]:
        """The unexpired ids of the set `seen` (id -> when marked), oldest first."""
        entry = self._handled.get(seen)
        if entry is None or entry[1] <= self._clock():
            self._handled.pop(seen, None)
            return {}
        return entry[0]

    async def was_seen(self, seen: str, update: str) -> bool:
        """Whether `update` is in the set `seen`."""
        return update in self._ids(seen)

    async def mark_seen(self, seen: Seen) -> bool:
        """Add the id; ids marked more than `ttl` seconds ago go, then the oldest beyond
        `keep`; the set lives `ttl` more seconds."""
        new = seen.update not in self._ids(seen.key)
        now = self._clock()
        ids = self._ids(seen.key)
        ids.pop(seen.update, None)
        ids[seen.update] = now
        while ids and (len(ids) > seen.keep or next(iter(ids.values())) < now - seen.ttl):
            del ids[next(iter(ids))]
        self._handled[seen.key] = (ids, self._clock() + seen.ttl)
        if seen.held is not None:
            self._claims.pop((seen.held, seen.update), None)
        return new

    async def _checked_save(self, write: Write, deadline: float | None, seen: Seen | None) -> int:
        """Compare-and-set; (re)sets the expiry to `ttl` seconds from now (None: never) and the
        deadline (None: unscheduled); marks `seen`."""
        self._check(write.key, write.expected)
        if seen is not None:
            await self.mark_seen(seen)
        new = self._put(write)
        if deadline is None:
            self._deadlines.pop(write.key, None)
        else:
            self._deadlines[write.key] = deadline
        self.watchers.tell(write.key, new)
        return new

    def _put(self, write: Write) -> int:
        """Write or delete a document whose version was checked; its new version (0: gone)."""
        key = write.key
        if write.data is None:
            self._docs.pop(key, None)
            self._fields.pop(key, None)
            self._running.pop(key, None)
            return 0
        if write.expected == 0:  # a document created anew starts without fields
            self._fields.pop(key, None)
        new = self._issued[key] = max(self._issued.get(key, 0), write.expected) + 1
        expires = None if write.ttl is None else self._clock() + write.ttl
        self._docs[key] = (Doc(new, write.data), expires)
        return new

    async def _checked_commit(self, writes: Sequence[Write], entries: Sequence[Entry]) -> list[int]:
        """Check every expected version, then write, delete and prepend (no await between)."""
        for write in writes:
            self._check(write.key, write.expected)
        versions = []
        for write in writes:
            versions.append(self._put(write))
            self._deadlines.pop(write.key, None)
            self.watchers.tell(write.key, versions[-1])
        for entry in entries:
            await self.push_history(entry.key, entry.entry, entry.keep, entry.ttl)
        return versions

    async def delete(self, key: str, expected: int) -> None:
        """Remove `key` if its version is `expected` (0: absent, nothing to do)."""
        self._check(key, expected)
        self._docs.pop(key, None)
        self._fields.pop(key, None)
        self._deadlines.pop(key, None)
        self._running.pop(key, None)
        self.watchers.tell(key, 0)

    async def set_field(self, key: str, name: str, value: str, replace: bool = True) -> str | None:
        """Set a field beside the live document at `key`; the value it had."""
        check_field(name)
        if self._live(key) is None:
            return None
        fields = self._fields.setdefault(key, {})
        before = fields.get(name)
        if replace or before is None:
            fields[name] = value
        return before

    async def mark_running(self, key: str, game: str) -> None:
        self._running.setdefault(key, game)

    async def running(self) -> dict[str, int]:
        return dict(Tally(self._running.values()))

    def _expired(self, key: str) -> None:
        """Drop the list or settings hash `key` if its time to live has passed."""
        if self._expiry.get(key, float("inf")) <= self._clock():
            self._lists.pop(key, None)
            self._tagged.pop(key, None)
            self._settings.pop(key, None)
            del self._expiry[key]

    def _expire(self, key: str, ttl: int | None) -> None:
        if ttl is not None:
            self._expiry[key] = self._clock() + ttl

    async def push_history(self, key: str, entry: bytes, keep: int, ttl: int | None = None) -> None:
        """Prepend `entry`, keeping the newest `keep` (>= 1) entries."""
        if keep < 1:
            raise ValueError(f"keep must be >= 1, not {keep}")
        self._expired(key)
        self._lists[key] = [entry, *self._lists.get(key, [])[: keep - 1]]
        self._expire(key, ttl)

    async def append(
        self, key: str, entry: bytes, keep: int, ttl: int, tag: str = "", drop: str = ""
    ) -> None:
        """Append `entry` after dropping the entries tagged `drop`; the newest `keep` stay."""
        if keep < 1 or "\n" in tag:
            raise ValueError(f"keep must be >= 1 and a tag one line: {keep}, {tag!r}")
        self._expired(key)
        kept = [(t, e) for t, e in self._tagged.get(key, []) if not (drop and t == drop)]
        self._tagged[key] = [*kept, (tag, entry)][-keep:]
        self._expire(key, ttl)

    async def take(self, key: str) -> list[bytes]:
        """Every entry, oldest first, removed."""
        self._expired(key)
        return [entry for _, entry in self._tagged.pop(key, [])]

    async def history(self, key: str, limit: int) -> list[bytes]:
        """The newest `limit` entries, newest first."""
        self._expired(key)
        return self._lists.get(key, [])[: max(limit, 0)]

    async def get_setting(self, key: str, field: str, refresh: int | None = None) -> str | None:
        """One field of the settings hash `key`."""
        self._expired(key)
        if key in self._settings:
            self._expire(key, refresh)
        return self._settings.get(key, {}).get(field)

    async def set_setting(self, key: str, field: str, value: str, ttl: int | None = None) -> None:
        """Set one field of the settings hash `key`."""
        self._expired(key)
        self._settings.setdefault(key, {})[field] = value
        self._expire(key, ttl)

    async def drop_setting(self, key: str, field: str) -> None:
        """Remove one field of the settings hash `key`."""
        self._expired(key)
        fields = self._settings.get(key)
        if fields is not None:
            fields.pop(field, None)
            if not fields:
                del self._settings[key]

    async def first_time(self, key: str, ttl: int) -> bool:
        """True unless `key` was marked within the last `ttl` seconds; marks it if so."""
        now = self._clock()
        if self._seen.get(key, now) > now:
            return False
        self._seen[key] = now + ttl
        return True

    async def set_deadline(self, member: str, at: float) -> None:
        """Schedule `member` at unix time `at`, replacing any earlier deadline."""
        self._deadlines[member] = at

    async def clear_deadline(self, member: str) -> None:
        """Unschedule `member` (no error if absent)."""
        self._deadlines.pop(member, None)

    async def due(self, now: float, limit: int) -> list[str]:
        """Members due at or before `now`, earliest first (ties by name), at most `limit`."""
        ready = sorted((at, member) for member, at in self._deadlines.items() if at <= now)
        return [member for _, member in ready[: max(limit, 0)]]

    async def reserve(
        self, key: str, pace: Pace, now: float, earliest: float = 0.0, who: str = ""
    ) -> Place:
        return self._budgets.setdefault(key, _Budget()).reserve(pace, now, earliest, who)

    async def pause(self, key: str, until: float) -> None:
        budget = self._budgets.setdefault(key, _Budget())
        budget.paused = max(budget.paused, until)

    async def close(self) -> None:
        """Nothing to release."""


class _Budget:
    """A message budget's reserved moments, spreading and pause (`reserve.lua`'s state)."""

    def __init__(self) -> None:
        self.moments: list[float] = []  # the newest `limit` reserved moments, in order made
        self.free: float | None = None
        self.paused = 0.0
        self.users: dict[str, float] = {}

    def edge(self, pace: Pace) -> float | None:
        ordered = sorted(self.moments)
        return ordered[-pace.limit] + pace.period if len(ordered) >= pace.limit else None

    def reserve(self, pace: Pace, now: float, earliest: float, who: str) -> Place:
        spacing, burst = pace.spacing, pace.burst
        at = max(now + earliest, self.paused)
        if self.free is not None:
            at = max(at, self.free - (burst - 1) * spacing)
        at = max(at, self.edge(pace) or at)
        self.moments = sorted([*self.moments, at])[-pace.limit :]
        self.free = max(self.free if self.free is not None else at, at) + spacing
        ready = max(now, self.free - (burst - 1) * spacing, self.edge(pace) or now, self.paused)
        room = pace.limit - sum(1 for m in self.moments if m > now - pace.period)
        if who:
            self.users[who] = now
        self.users = {w: t for w, t in self.users.items() if t > now - 60}
        return Place(at - now, ready - now, room, len(self.users) if who else 0)
