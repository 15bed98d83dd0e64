"""The Redis `Store`: one round trip per load and per compare-and-set write."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any, cast

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from chatbot.settings import Settings
from chatbot.store.base import (
    INDEX_KEEP,
    VERSION_KEEP,
    Claim,
    Claimed,
    Conflict,
    Doc,
    Entry,
    Pace,
    Place,
    Seen,
    Store,
    StoreUnavailable,
    Unreadable,
    Write,
    check_field,
    owner_of,
)

log = logging.getLogger(__name__)
Command = Sequence[Any]  # a command's name and arguments, pipelined by `_batch`
SCRIPTS = files(__package__ or "chatbot.store") / "lua"  # the Lua scripts, one a file
# The version counter is a field of the hash beside the document (a game is two keys, not
# three); a counter still in a key of its own (`ver:`, an older version's) is folded in.
VERSION_FIELD = "#version"
_VERSION_KEY = VERSION_FIELD.encode()


def script(name: str) -> str:
    """The Lua script `<name>.lua`, with the helpers every script shares (common.lua)."""
    common = (SCRIPTS / "common.lua").read_text("utf-8")
    return common + "\n" + (SCRIPTS / f"{name}.lua").read_text("utf-8")


def _raise_lost_cancel() -> None:
    """Raise the cancellation of this task that redis-py's `asyncio.wait_for` lost: on
    Python 3.11 a cancel that arrives as the wrapped send completes is dropped, the command
    returns, and a task told to stop would go on (the ticker kept ticking; `Runner.stop`
    waited for ever). The task still counts the request (`cancelling()`)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


SHARDS = 16  # deadline indexes on a Cluster; a chat's keys share its index's slot
PACK_FROM = 200  # bytes: a longer document is stored deflated (a session: 1.4 KB to about 0.7)
_DEFLATED, _AS_IS = b"\x00z", b"\x00="  # NUL never starts a JSON document


def pack(data: bytes) -> bytes:
    """A document as stored: deflated when long (zlib, its fastest level), marked
    so; one that starts with NUL is marked as kept as is; any other is stored unchanged
    (documents written before deflating load as they were)."""
    if len(data) >= PACK_FROM:
        return _DEFLATED + zlib.compress(data, 1)
    return _AS_IS + data if data[:1] == b"\x00" else data


def unpack(stored: bytes) -> bytes:
    """The document `pack` stored."""
    if stored[:2] == _DEFLATED:
        return zlib.decompress(stored[2:])
    return stored[2:] if stored[:2] == _AS_IS else stored


class RedisStore(Store):
    """A `Store` on a redis-py asyncio client (decode_responses must be off); keys get `prefix`.

    On a single server the keys are `<prefix><key>` and deadlines live in one sorted set,
    `<prefix>deadlines`. On a Redis Cluster (`cluster`) every key of an owner (see
    `owner_of`) carries its shard's hash tag, `<prefix>{s<n>}<key>`, n = CRC-32 of the owner
    modulo SHARDS, and each shard has its own deadline index `<prefix>{s<n>}deadlines`: a
    save, its version counter, its set of handled updates and its deadline share one slot,
    so every script and pipeline stays within a slot. The ticker reads every shard's index.
    """

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        prefix: str = "egobot:",
        cluster: bool = False,
        deadline: float | None = None,
    ) -> None:
        """`deadline`: seconds a store call may take in all (a wait for a free connection
        included) before it fails as unavailable; None: the client's own timeouts alone."""
        self._r = client
        self._deadline = deadline
        self._prefix = prefix
        self._shards = SHARDS if cluster else 1
        self._cluster = cluster
        self._ready = False  # the client knows the cluster's map (a single server: always)
        self._starting = asyncio.Lock()
        self._save = client.register_script(script("save"))
        self._seen = script("seen")  # sent by EVAL in pipelines (a Cluster's runs no EVALSHA)
        self._delete = client.register_script(script("delete"))
        self._mark_running = client.register_script(script("mark_running"))
        self._schedule = client.register_script(script("schedule"))
        self._claim = client.register_script(script("claim"))
        self._commit = client.register_script(script("commit"))
        self._set_field = client.register_script(script("set_field"))
        self._append = client.register_script(script("append"))
        self._take = client.register_script(script("take"))
        self._reserve = client.register_script(script("reserve"))
        self._pause = client.register_script(script("pause"))
        self._pubsub: Any = None  # the announcements' subscription (`watch`)
        self._hearing: asyncio.Task[None] | None = None

    @classmethod
    def from_url(
        cls,
        url: str,
        prefix: str = "egobot:",
        settings: Settings | None = None,
        cluster: bool | None = None,
    ) -> RedisStore:
        """A store on a new client for `url` (e.g. "redis://localhost:6379/0", or any node
        of a Cluster), with the timeouts, retries, health checks and Cluster mode of
        `settings` (default: `Settings()`; `cluster` overrides its `redis_cluster`)."""
        s = settings or Settings()
        cluster = s.redis_cluster if cluster is None else cluster
        # A refused or broken connection (Redis restarting, a pooled connection it closed)
        # is tried again on a new one, so the first command after a restart succeeds. A
        # timeout is not repeated on a single server: the command may have run, and a frozen
        # Redis must be reported within `redis_timeout`, not a multiple of it. (The Cluster
        # client also tries a timed-out command again, after refreshing its map of slots.)
        retry = Retry(
            ExponentialWithJitterBackoff(cap=0.5, base=0.05),
            s.redis_retries,
            supported_errors=(RedisConnectionError,),
        )
        options: dict[str, Any] = {
            "socket_timeout": s.redis_timeout,
            "socket_connect_timeout": s.redis_connect_timeout,
            "retry": retry,
            "health_check_interval": s.redis_health_check,
        }
        if cluster:
            return cls(RedisCluster.from_url(url, **options), prefix, cluster=True)
        # At most `redis_pool_size` connections; under load a command waits for a free one
        # (redis-py's default pool would refuse it: "storage unavailable" while Redis is up).
        # The wait and the command share one deadline, `redis_timeout` (`_reachable`): a
        # frozen Redis is still reported within it, however many commands queue. The
        # connections need no socket timeout of their own (redis-py would wrap every read
        # in `asyncio.wait_for`).
        options["socket_timeout"] = None
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=s.redis_pool_size, timeout=s.redis_timeout, **options
        )
        return cls(redis.Redis.from_pool(pool), prefix, deadline=s.redis_timeout)

    @classmethod
    def from_settings(cls, settings: Settings, prefix: str = "egobot:") -> RedisStore:
        """The store at `settings.redis_url`."""
        if not settings.redis_url:
            raise ValueError("REDIS_URL is not set")
        return cls.from_url(settings.redis_url, prefix, settings)

    @asynccontextmanager
    async def _reachable(self, what: str) -> AsyncIterator[None]:
        """Any failure to talk to Redis (refused, reset, timed out, loading, read-only
        replica, script error, past the deadline) becomes StoreUnavailable, which the runner
        answers with a short apology. A Cluster client first learns the cluster's map, once
        (commands racing on a client that has not yet can break each other's new
        connections)."""
        try:
            async with asyncio.timeout(self._deadline):  # TimeoutError, an OSError, past it
                if not self._ready:
                    async with self._starting:
                        if not self._ready and isinstance(self._r, RedisCluster):
                            await self._r.initialize()
                        self._ready = True
                yield
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"{what}: {exc!r}") from exc
        _raise_lost_cancel()

    async def _script(self, script: Any, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """A registered script's reply (EVALSHA; EVAL where Redis has not cached it)."""
        return await script(keys=keys, args=args)

    async def _batch(self, commands: Sequence[Command]) -> list[Any]:
        """The replies to `commands`, pipelined: one round trip (one a Cluster node)."""
        async with self._r.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return await pipe.execute()

    def _tag(self, owner: str) -> str:
        """The hash tag of `owner`'s shard ("" on a single server)."""
        if not self._cluster:
            return ""
        return f"{{s{zlib.crc32(owner.encode()) % self._shards}}}"

    def name(self, key: str) -> str:
        """The Redis key that holds `key`."""
        return self._prefix + self._tag(owner_of(key)) + key

    def _legacy_counter(self, key: str) -> str:
        """Where an older version kept the highest version issued for `key`."""
        return self._prefix + self._tag(owner_of(key)) + "ver:" + key

    def _fields(self, key: str) -> str:
        """Where the fields beside the document at `key` are kept."""
        return self._prefix + self._tag(owner_of(key)) + "fields:" + key

    def _expiries(self, held: str) -> str:
        """The sorted set of the expiries of the claims in the hash `held` (same owner)."""
        kind, _, owner = held.partition(":")
        return self.name(f"{kind}-at:{owner}")

    def _budget_state(self, key: str) -> str:
        """The hash beside a budget's reserved moments (same owner: one Cluster slot)."""
        kind, _, owner = key.partition(":")
        return self.name(f"{kind}-state:{owner}")

    def index(self, member: str) -> str:
        """The Redis key of the deadline index that schedules `member`."""
        return self._prefix + self._tag(owner_of(member)) + "deadlines"

    def _indexes(self) -> list[str]:
        if not self._cluster:
            return [self._prefix + "deadlines"]
        return [f"{self._prefix}{{s{n}}}deadlines" for n in range(self._shards)]

    async def load(self, key: str, refresh: int | None = None) -> Doc | None:
        """The document at `key`, or None: GET (with `refresh`, GETEX and the fields' EXPIRE)
        and HGETALL of its fields, pipelined (one round trip: one slot)."""
        name, fields = self.name(key), self._fields(key)
        commands: list[Command] = [("GET", name)]
        if refresh is not None:
            commands = [("GETEX", name, "EX", refresh), ("EXPIRE", fields, refresh + VERSION_KEEP)]
        async with self._reachable("load"):
            got = await self._batch([*commands, ("HGETALL", fields)])
            return self._doc(got[0], got[-1])

    @staticmethod
    def _doc(raw: bytes | None, fields: dict[bytes, bytes] | list[bytes]) -> Doc | None:
        """The document of a stored value and its fields (a hash, or HGETALL's flat list as a
        script returns it)."""
        if raw is None:
            return None
        version, colon, data = raw.partition(b":")
        if not (colon and version.isdigit()):
            raise Unreadable(f"not a document: {raw[:20]!r}")
        if isinstance(fields, list):
            fields = dict(zip(fields[::2], fields[1::2], strict=True))
        try:
            named = {k.decode(): v.decode() for k, v in fields.items() if k != _VERSION_KEY}
            return Doc(int(version), unpack(data), named)
        except zlib.error as exc:
            raise Unreadable(f"a deflated document that does not inflate: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise Unreadable(f"a field that is no text: {exc}") from exc

    async def claim(self, claim: Claim, key: str | None = None) -> Claimed:
        """One EVALSHA: the check against handled and held updates, the claim, the load."""
        async with self._reachable("claim"):
            keys = [self.name(claim.seen), self.name(claim.held), self._expiries(claim.held)]
            keys += [] if key is None else [self.name(key), self._fields(key)]
            args: list[str | int] = [claim.update, claim.process, max(1, round(claim.ttl * 1000))]
            raw, handled, busy, fields = await self._script(self._claim, keys, args)
            doc = self._doc(raw, fields)
            return Claimed(doc, bool(handled), None if busy is None else busy.decode())

    async def was_seen(self, seen: str, update: str) -> bool:
        """ZSCORE in the set of handled updates."""
        async with self._reachable("was_seen"):
            return await self._r.zscore(self.name(seen), update) is not None

    async def mark_seen(self, seen: Seen) -> bool:
        """Add, trim, expire: one script, one round trip; whether the id is new there."""
        async with self._reachable("mark_seen"):
            (new,) = await self._batch([self._mark(seen)])
            return bool(new)

    def _mark(self, seen: Seen) -> Command:
        """The update marked handled and its claim released, as the save script does (EVAL:
        a Cluster's pipeline runs no registered script; Redis caches it by its digest)."""
        keys = [self.name(seen.key)]
        if seen.held is not None:
            keys += [self.name(seen.held), self._expiries(seen.held)]
        return ("EVAL", self._seen, len(keys), *keys, seen.update, seen.ttl, seen.keep)

    async def _checked_save(self, write: Write, deadline: float | None, seen: Seen | None) -> int:
        """Compare-and-set the document, its deadline and `seen` in one EVALSHA; (re)sets its
        TTL and keeps its deadline index at least as long."""
        key, data, expected, ttl = write.key, write.data, write.expected, write.ttl
        assert data is not None  # (`save` always writes a document)
        async with self._reachable("save"):
            args: list[bytes | str | int | float] = [
                expected,
                pack(data),
                b"" if ttl is None else ttl,
                b"" if deadline is None else repr(deadline).encode(),
                key,
                VERSION_KEEP,
                max(ttl or 0, INDEX_KEEP),
            ]
            keys = [self.name(key), self.index(key), self._legacy_counter(key), self._fields(key)]
            if seen is not None:
                keys.append(self.name(seen.key))
                args += [seen.update, seen.ttl, seen.keep]
                if seen.held is not None:
                    keys += [self.name(seen.held), self._expiries(seen.held)]
            new = int(await self._script(self._save, keys, args))
            if not new:
                raise Conflict(key)
            return new

    async def _checked_commit(self, writes: Sequence[Write], entries: Sequence[Entry]) -> list[int]:
        """Every write, delete and list entry in one EVALSHA (one slot: one owner)."""
        if not writes:
            raise ValueError("a commit needs a document")
        keys: list[str] = []
        args: list[bytes | str | int] = [len(writes), len(entries), VERSION_KEEP]
        for w in writes:
            keys += [self.name(w.key), self._legacy_counter(w.key), self._fields(w.key)]
            op, data = ("d", b"") if w.data is None else ("w", w.data)
            args += [w.expected, op, data, b"" if w.ttl is None else w.ttl, w.key]
        keys += [self.index(writes[0].key), *self._running_keys(writes[0].key)]
        for e in entries:
            keys.append(self.name(e.key))
            args += [e.entry, e.keep, b"" if e.ttl is None else e.ttl]
        async with self._reachable("commit"):
            raw = cast(list[int], await self._script(self._commit, keys, args))
        if not raw[0]:
            raise Conflict(writes[0].key)
        return [int(v) for v in raw[1:]]

    async def delete(self, key: str, expected: int) -> None:
        """Remove `key` if its version is `expected` (0: absent, nothing to do); one EVALSHA.
        Its version counter stays for `VERSION_KEEP` seconds."""
        async with self._reachable("delete"):
            keys = [
                self.name(key),
                self.index(key),
                self._legacy_counter(key),
                *self._running_keys(key),
            ]
            keys.append(self._fields(key))
            if not await self._script(self._delete, keys, [expected, key, VERSION_KEEP]):
                raise Conflict(key)

    async def set_field(self, key: str, name: str, value: str, replace: bool = True) -> str | None:
        """HGET and HSET beside the document, with its time to live: one EVALSHA."""
        check_field(name)
        async with self._reachable("set_field"):
            keys = [self.name(key), self._fields(key)]
            args = [name, value, "1" if replace else "0", VERSION_KEEP * 1000]
            before = await self._script(self._set_field, keys, args)
            return None if before is None else cast(bytes, before).decode()

    def _running_keys(self, key: str) -> list[str]:
        """The hashes of the running games of `key`'s shard: document -> game, game -> count."""
        tag = self._prefix + self._tag(owner_of(key))
        return [tag + "running", tag + "running-count"]

    async def mark_running(self, key: str, game: str) -> None:
        """One EVALSHA (the hashes kept at least INDEX_KEEP seconds)."""
        async with self._reachable("mark_running"):
            args: list[str | int] = [key, game, INDEX_KEEP]
            await self._script(self._mark_running, self._running_keys(key), args)

    async def running(self) -> dict[str, int]:
        """HGETALL of every shard's counts, pipelined: one round trip, whatever the games."""
        tags = (
            [self._prefix]
            if not self._cluster
            else [f"{self._prefix}{{s{n}}}" for n in range(self._shards)]
        )
        async with self._reachable("running"), self._r.pipeline(transaction=False) as pipe:
            for tag in tags:
                pipe.hgetall(tag + "running-count")
            found = cast(list[dict[bytes, bytes]], await pipe.execute())
        counts: dict[str, int] = {}
        for shard in found:
            for game, n in shard.items():
                counts[game.decode()] = counts.get(game.decode(), 0) + int(n)
        return {game: n for game, n in counts.items() if n > 0}

    async def push_history(self, key: str, entry: bytes, keep: int, ttl: int | None = None) -> None:
        """LPUSH, LTRIM to the newest `keep` (>= 1) entries and EXPIRE, pipelined."""
        async with self._reachable("push_history"):
            if keep < 1:
                raise ValueError(f"keep must be >= 1, not {keep}")
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.lpush(self.name(key), entry)
                pipe.ltrim(self.name(key), 0, keep - 1)
                if ttl is not None:
                    pipe.expire(self.name(key), ttl)
                await pipe.execute()

    async def append(
        self, key: str, entry: bytes, keep: int, ttl: int, tag: str = "", drop: str = ""
    ) -> None:
        """One EVALSHA: the entries tagged `drop` removed, RPUSH, LTRIM, EXPIRE."""
        if keep < 1 or "\n" in tag:
            raise ValueError(f"keep must be >= 1 and a tag one line: {keep}, {tag!r}")
        async with self._reachable("append"):
            stored = tag.encode() + b"\n" + entry
            await self._script(self._append, [self.name(key)], [stored, drop, keep, ttl])

    async def take(self, key: str) -> list[bytes]:
        """One EVALSHA: LRANGE and DEL."""
        async with self._reachable("take"):
            stored = cast(list[bytes], await self._script(self._take, [self.name(key)], []))
        return [entry.partition(b"\n")[2] for entry in stored]

    async def reserve(
        self, key: str, pace: Pace, now: float, earliest: float = 0.0, who: str = ""
    ) -> Place:
        """One EVALSHA (reserve.lua)."""
        keys = [self.name(key), self._budget_state(key)]
        args = [now, earliest, pace.limit, pace.period, pace.spacing, pace.burst, who]
        async with self._reachable("reserve"):
            wait, ready, room, users = await self._script(self._reserve, keys, args)
        return Place(float(wait), float(ready), int(room), int(users))

    async def pause(self, key: str, until: float) -> None:
        """One EVALSHA (pause.lua)."""
        async with self._reachable("pause"):
            await self._script(self._pause, [self._budget_state(key)], [until, 3600])

    async def history(self, key: str, limit: int) -> list[bytes]:
        """The newest `limit` entries, newest first (LRANGE)."""
        async with self._reachable("history"):
            if limit < 1:
                return []
            return cast(list[bytes], await self._r.lrange(self.name(key), 0, limit - 1))

    async def get_setting(self, key: str, field: str, refresh: int | None = None) -> str | None:
        """One field of the settings hash `key` (HGET; with `refresh`, EXPIRE pipelined)."""
        name = self.name(key)
        commands: list[Command] = [("HGET", name, field)]
        if refresh is not None:
            commands.append(("EXPIRE", name, refresh))
        async with self._reachable("get_setting"):
            value = (await self._batch(commands))[0]
            return None if value is None else cast(bytes, value).decode()

    async def set_setting(self, key: str, field: str, value: str, ttl: int | None = None) -> None:
        """Set one field of the settings hash `key` (HSET; with `ttl`, EXPIRE pipelined)."""
        name = self.name(key)
        commands: list[Command] = [("HSET", name, field, value)]
        if ttl is not None:
            commands.append(("EXPIRE", name, ttl))
        async with self._reachable("set_setting"):
            await self._batch(commands)

    async def drop_setting(self, key: str, field: str) -> None:
        """HDEL."""
        async with self._reachable("drop_setting"):
            await self._batch([("HDEL", self.name(key), field)])

    async def write_marks(
        self, fields: list[tuple[str, str, str]], ttl: int | None = None, seen: Sequence[Seen] = ()
    ) -> None:
        """HSET (and EXPIRE) of every field and `mark_seen`'s commands for every update,
        pipelined: one round trip (a Cluster sends one batch to each node that holds some of
        the keys, together)."""
        if not fields and not seen:
            return
        commands: list[Command] = []
        for key, field, value in fields:
            commands.append(("HSET", self.name(key), field, value))
            if ttl is not None:
                commands.append(("EXPIRE", self.name(key), ttl))
        commands += [self._mark(m) for m in seen]
        async with self._reachable("record"):
            await self._batch(commands)

    async def first_time(self, key: str, ttl: int) -> bool:
        """SET NX EX: True only for the first caller within `ttl` seconds."""
        async with self._reachable("first_time"):
            return bool(await self._r.set(self.name(key), b"1", nx=True, ex=ttl))

    async def set_deadline(self, member: str, at: float) -> None:
        """ZADD to the member's deadline index, replacing any earlier deadline (one EVALSHA,
        which keeps the index for at least INDEX_KEEP seconds)."""
        async with self._reachable("set_deadline"):
            args: list[str | int] = [member, repr(at), INDEX_KEEP]
            await self._script(self._schedule, [self.index(member)], args)

    async def clear_deadline(self, member: str) -> None:
        """ZREM from the member's deadline index (one EVALSHA)."""
        async with self._reachable("clear_deadline"):
            await self._script(self._schedule, [self.index(member)], [member, b"", INDEX_KEEP])

    async def due(self, now: float, limit: int) -> list[str]:
        """Members due at or before `now`, earliest first (ties by name), at most `limit`.
        With several indexes (a Cluster) each shard's earliest come first, then each shard's
        second, and so on: a shard full of due deadlines cannot starve the others. One
        pipeline (a round trip per Cluster node, sent together)."""
        async with self._reachable("due"):
            if limit < 1:
                return []
            indexes = self._indexes()
            async with self._r.pipeline(transaction=False) as pipe:
                for index in indexes:
                    pipe.zrangebyscore(index, "-inf", now, start=0, num=limit, withscores=True)
                shards = cast(list[list[tuple[bytes, float]]], await pipe.execute())
            taken: list[tuple[float, bytes]] = []
            for rank in range(limit):
                row = sorted((s[rank][1], s[rank][0]) for s in shards if rank < len(s))
                if not row:
                    break
                taken += row[: limit - len(taken)]
                if len(taken) >= limit:
                    break
            return [member.decode() for _, member in sorted(taken)]

    async def server_time(self) -> float | None:
        async with self._reachable("time"):
            seconds, micros = await self._r.time()
        return float(seconds) + micros / 1e6

    @asynccontextmanager
    async def watch(self, key: str) -> AsyncIterator[asyncio.Queue[int]]:
        """A queue of the versions written to `key` by any process: one subscription a
        process (one connection), its channels added and dropped as watchers come and go.
        (On a Cluster: only this process's writes; the pages poll as well.)"""
        channel = self.name(key)
        queue, first = self.watchers.add(channel)
        try:
            if first and not self._cluster:
                await self._subscribe(channel)
            yield queue
        finally:
            if self.watchers.drop(channel, queue) and self._pubsub is not None:
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(channel)

    async def _subscribe(self, channel: str) -> None:
        """Subscribe (the connection and its reader made on the first)."""
        if self._pubsub is None:
            assert isinstance(self._r, redis.Redis)
            self._pubsub = self._r.pubsub(ignore_subscribe_messages=True)
        async with self._reachable("subscribe"):
            await self._pubsub.subscribe(channel)
        if self._hearing is None or self._hearing.done():
            self._hearing = asyncio.create_task(self._hear(self._pubsub))

    async def _hear(self, pubsub: Any) -> None:
        """Hand every announcement to this process's watchers (until closed); a broken
        connection is subscribed again to every channel still watched."""
        while True:
            try:
                message = await pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                log.warning("announcements unavailable: %r", exc)
                await asyncio.sleep(1.0)
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
                    if self.watchers.channels:
                        await pubsub.subscribe(*self.watchers.channels)
                continue
            if message is None:
                if not pubsub.subscribed:
                    await asyncio.sleep(0.2)
                continue
            if message.get("type") == "message":
                channel, data = message["channel"], message["data"]
                with contextlib.suppress(ValueError):
                    self.watchers.tell(channel.decode(), int(data))

    async def close(self) -> None:
        """Close the client and its connections."""
        if self._hearing is not None:
            self._hearing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._hearing
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
        await self._r.aclose()
