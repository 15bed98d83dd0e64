"""The Redis `Store`: one round trip per load and per compare-and-set write."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from chatbot.settings import Settings
from chatbot.store.base import (
    SEEN_KEEP,
    VERSION_KEEP,
    Conflict,
    Doc,
    Seen,
    Store,
    StoreUnavailable,
)

# A document is one string value b"<version>:<data>", so one GET returns both together. The Lua
# scripts read only the version prefix (GETRANGE) and compare it, as a decimal string, with the
# expected version; check and write are atomic on the server. Sets `version` ("0": absent).
_CURRENT = """
local head = redis.call('GETRANGE', KEYS[1], 0, 20)
local version = '0'
if head ~= '' then version = string.sub(head, 1, string.find(head, ':', 1, true) - 1) end
"""

# KEYS: document, deadlines sorted set, the document's version counter, and optionally a set
# of handled updates. ARGV: expected version, data, ttl seconds or "" (persist), deadline or ""
# (unschedule), member, seconds the counter outlives the document; with the set: the update
# id, its score (unix time), the set's ttl and how many ids it keeps. The new version comes
# from the counter, which survives the document's deletion and expiry, so a version is never
# issued twice for a key. Returns the new version, or 0 when the expected version is stale.
_SAVE = (
    _CURRENT
    + """
if version ~= ARGV[1] then return 0 end
local new = redis.call('INCR', KEYS[3])
if new <= tonumber(version) then
  new = tonumber(version) + 1
  redis.call('SET', KEYS[3], new)
end
local value = tostring(new) .. ':' .. ARGV[2]
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], value)
  redis.call('PERSIST', KEYS[3])
else
  redis.call('SET', KEYS[1], value, 'EX', ARGV[3])
  redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]) + tonumber(ARGV[6]))
end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[5])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
end
if KEYS[4] then
  redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -(tonumber(ARGV[10]) + 1))
  redis.call('EXPIRE', KEYS[4], ARGV[9])
end
return new
"""
)

# KEYS: document, deadlines sorted set, version counter. ARGV: expected version, member,
# seconds the counter outlives the document.
_DELETE = (
    _CURRENT
    + """
if version ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
return 1
"""
)


@contextmanager
def _reachable(what: str) -> Iterator[None]:
    """Any failure to talk to Redis (refused, reset, timed out, loading, read-only replica,
    script error) becomes StoreUnavailable, which the runner answers with a short apology."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"{what}: {exc!r}") from exc


class RedisStore(Store):
    """A `Store` on a redis-py asyncio client (decode_responses must be off); keys get `prefix`."""

    def __init__(self, client: redis.Redis, prefix: str = "egobot:") -> None:
        self._r = client
        self._prefix = prefix
        self._save = client.register_script(_SAVE)
        self._delete = client.register_script(_DELETE)

    @classmethod
    def from_url(
        cls, url: str, prefix: str = "egobot:", settings: Settings | None = None
    ) -> RedisStore:
        """A store on a new client for `url` (e.g. "redis://localhost:6379/0"), with the
        timeouts, retries and health checks of `settings` (default: `Settings()`)."""
        s = settings or Settings()
        # A refused or broken connection (Redis restarting, a pooled connection it closed)
        # is tried again on a new one, so the first command after a restart succeeds. A
        # timeout is not repeated: the command may have run, and a frozen Redis must be
        # reported within `redis_timeout`, not a multiple of it.
        retry = Retry(
            ExponentialWithJitterBackoff(cap=0.5, base=0.05),
            s.redis_retries,
            supported_errors=(RedisConnectionError,),
        )
        client = redis.Redis.from_url(
            url,
            socket_timeout=s.redis_timeout,
            socket_connect_timeout=s.redis_connect_timeout,
            retry=retry,
            health_check_interval=s.redis_health_check,
        )
        return cls(client, prefix)

    @classmethod
    def from_settings(cls, settings: Settings, prefix: str = "egobot:") -> RedisStore:
        """The store at `settings.redis_url`."""
        if not settings.redis_url:
            raise ValueError("REDIS_URL is not set")
        return cls.from_url(settings.redis_url, prefix, settings)

    def _k(self, key: str) -> str:
        return self._prefix + key

    def _counter(self, key: str) -> str:
        """Where the highest version issued for `key` is kept."""
        return self._prefix + "ver:" + key

    async def load(self, key: str) -> Doc | None:
        """The document at `key`, or None (one GET)."""
        with _reachable("load"):
            return self._doc(cast(bytes | None, await self._r.get(self._k(key))))

    @staticmethod
    def _doc(raw: bytes | None) -> Doc | None:
        if raw is None:
            return None
        version, _, data = raw.partition(b":")
        return Doc(int(version), data)

    async def load_once(self, key: str, seen: str, update: str) -> tuple[Doc | None, bool]:
        """GET and ZSCORE pipelined: one round trip."""
        with _reachable("load_once"):
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.get(self._k(key))
                pipe.zscore(self._k(seen), update)
                raw, score = await pipe.execute()
            return self._doc(raw), score is not None

    async def was_seen(self, seen: str, update: str) -> bool:
        """ZSCORE in the set of handled updates."""
        with _reachable("was_seen"):
            return await self._r.zscore(self._k(seen), update) is not None

    async def mark_seen(self, seen: Seen) -> None:
        """ZADD, trim to the newest SEEN_KEEP, EXPIRE: pipelined, one round trip."""
        with _reachable("mark_seen"):
            key = self._k(seen.key)
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.zadd(key, {seen.update: time.time()})
                pipe.zremrangebyrank(key, 0, -(SEEN_KEEP + 1))
                pipe.expire(key, seen.ttl)
                await pipe.execute()

    async def save(
        self,
        key: str,
        data: bytes,
        expected: int,
        ttl: int | None,
        deadline: float | None = None,
        seen: Seen | None = None,
    ) -> int:
        """Compare-and-set `key`, its deadline and `seen` in one EVALSHA; (re)sets its TTL."""
        with _reachable("save"):
            args: list[bytes | str | int | float] = [
                expected,
                data,
                b"" if ttl is None else ttl,
                b"" if deadline is None else repr(deadline).encode(),
                key,
                VERSION_KEEP,
            ]
            keys = [self._k(key), self._k("deadlines"), self._counter(key)]
            if seen is not None:
                keys.append(self._k(seen.key))
                args += [seen.update, repr(time.time()), seen.ttl, SEEN_KEEP]
            new = int(await self._save(keys=keys, args=args))
            if not new:
                raise Conflict(key)
            return new

    async def delete(self, key: str, expected: int) -> None:
        """Remove `key` if its version is `expected` (0: absent, nothing to do); one EVALSHA.
        Its version counter stays for `VERSION_KEEP` seconds."""
        with _reachable("delete"):
            keys = [self._k(key), self._k("deadlines"), self._counter(key)]
            if not await self._delete(keys=keys, args=[expected, key, VERSION_KEEP]):
                raise Conflict(key)

    async def push_history(self, key: str, entry: bytes, keep: int, ttl: int | None = None) -> None:
        """LPUSH, LTRIM to the newest `keep` (>= 1) entries and EXPIRE, pipelined."""
        with _reachable("push_history"):
            if keep < 1:
                raise ValueError(f"keep must be >= 1, not {keep}")
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.lpush(self._k(key), entry)
                pipe.ltrim(self._k(key), 0, keep - 1)
                if ttl is not None:
                    pipe.expire(self._k(key), ttl)
                await pipe.execute()

    async def history(self, key: str, limit: int) -> list[bytes]:
        """The newest `limit` entries, newest first (LRANGE)."""
        with _reachable("history"):
            if limit < 1:
                return []
            return cast(list[bytes], await self._r.lrange(self._k(key), 0, limit - 1))

    async def get_setting(self, key: str, field: str, refresh: int | None = None) -> str | None:
        """One field of the settings hash `key` (HGET; with `refresh`, EXPIRE pipelined)."""
        with _reachable("get_setting"):
            if refresh is None:
                value = cast(bytes | None, await self._r.hget(self._k(key), field))
            else:
                async with self._r.pipeline(transaction=False) as pipe:
                    pipe.hget(self._k(key), field)
                    pipe.expire(self._k(key), refresh)
                    value, _ = await pipe.execute()
            return None if value is None else value.decode()

    async def set_setting(self, key: str, field: str, value: str, ttl: int | None = None) -> None:
        """Set one field of the settings hash `key` (HSET; with `ttl`, EXPIRE pipelined)."""
        with _reachable("set_setting"):
            if ttl is None:
                await self._r.hset(self._k(key), field, value)
                return
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.hset(self._k(key), field, value)
                pipe.expire(self._k(key), ttl)
                await pipe.execute()

    async def first_time(self, key: str, ttl: int) -> bool:
        """SET NX EX: True only for the first caller within `ttl` seconds."""
        with _reachable("first_time"):
            return bool(await self._r.set(self._k(key), b"1", nx=True, ex=ttl))

    async def set_deadline(self, member: str, at: float) -> None:
        """ZADD to the "deadlines" sorted set, replacing any earlier deadline."""
        with _reachable("set_deadline"):
            await self._r.zadd(self._k("deadlines"), {member: at})

    async def clear_deadline(self, member: str) -> None:
        """ZREM from the "deadlines" sorted set."""
        with _reachable("clear_deadline"):
            await self._r.zrem(self._k("deadlines"), member)

    async def due(self, now: float, limit: int) -> list[str]:
        """Members due at or before `now`, earliest first (ties by name), at most `limit`."""
        with _reachable("due"):
            if limit < 1:
                return []
            members = cast(
                list[bytes],
                await self._r.zrangebyscore(self._k("deadlines"), "-inf", now, start=0, num=limit),
            )
            return [member.decode() for member in members]

    async def server_time(self) -> float | None:
        with _reachable("time"):
            seconds, micros = await self._r.time()
        return float(seconds) + micros / 1e6

    async def close(self) -> None:
        """Close the client and its connections."""
        await self._r.aclose()
