"""Commands to a single Redis server straight over pooled connections.

redis-py's client wraps every command in its retry helper, its pool's condition and timeout,
an event a connection release and its response callbacks: about half of a command's
processor time in the store's busiest calls. `Direct` keeps the part that talks to Redis,
redis-py's connection (its socket and its parser), and does the rest itself: the commands'
encoding (`packed`), an idle list, a semaphore for the pool's size, a fresh connection after a
broken one, and no waiting beyond the caller's deadline (the store's `REDIS_TIMEOUT` around
every call).
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Sequence
from typing import Any, cast

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

Command = Sequence[Any]  # a command's name (one word) and arguments


def packed(commands: Sequence[Command]) -> bytes:
    """`commands` in Redis's protocol (RESP), as redis-py's connection would send them (its
    `pack_commands` checks and chunks each argument: about 4 times the processor time). An
    argument is bytes, str (UTF-8), int or float; anything else, a bool included, raises
    TypeError."""
    out = []
    for command in commands:
        out.append(b"*%d\r\n" % len(command))
        for arg in command:
            kind = type(arg)
            if kind is str:
                arg = arg.encode()
            elif kind is int or kind is float:
                arg = repr(arg).encode()
            elif kind is not bytes:
                arg = _other(arg)
            out.append(b"$%d\r\n%b\r\n" % (len(arg), arg))
    return b"".join(out)


def _other(arg: Any) -> bytes:
    """An argument of a subclass of bytes, str, int or float (never a bool), as bytes."""
    if isinstance(arg, (bytes, bytearray, memoryview)):
        return bytes(arg)
    if isinstance(arg, str):
        return str(arg).encode()
    if isinstance(arg, int) and not isinstance(arg, bool):
        return b"%d" % arg
    if isinstance(arg, float):
        return repr(float(arg)).encode()
    raise TypeError(f"a Redis argument cannot be {type(arg).__name__}: {arg!r}")


class Direct:
    """At most `size` connections made by `pool`'s settings (the pool itself is not used
    for them). A command that finds none free waits; one whose connection breaks before its
    reply is sent again, connected anew, up to `retries` times (as redis-py's retry does), and
    the idle connections are closed; a connection idle longer than `idle` seconds is replaced
    by a new one before use (Redis may have closed it)."""

    def __init__(self, pool: ConnectionPool, size: int, retries: int, idle: float) -> None:
        self._pool = pool
        self._free = asyncio.Semaphore(size)
        self._idle: list[tuple[AbstractConnection, float]] = []  # (connection, last used)
        self._retries = max(0, retries)
        self._stale = idle if idle > 0 else math.inf  # 0: never replaced for being idle
        self._closed = False

    async def run(self, commands: Sequence[Command]) -> list[Any]:
        """The replies to `commands`, sent together: one round trip. A reply that is an error
        is raised (the connection is closed: the replies after it are not read)."""
        async with self._free:
            conn = await self._take()
            for attempt in range(self._retries + 1):
                try:
                    await conn.send_packed_command(packed(commands), check_health=False)
                    replies = [await conn.read_response() for _ in commands]
                except RedisConnectionError:  # it closed itself; the next send reconnects
                    await self.close(ending=False)  # the idle ones are likely broken too
                    if attempt == self._retries:
                        raise
                    await asyncio.sleep(random.uniform(0, 0.05 * 2**attempt))
                    continue
                except BaseException:
                    await conn.disconnect(nowait=True)
                    raise
                if self._closed:
                    await conn.disconnect(nowait=True)
                else:
                    self._idle.append((conn, time.monotonic()))
                return replies
        raise AssertionError("unreachable")  # pragma: no cover

    async def script(self, sha: str, body: str, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        """EVALSHA of a script by its digest `sha`; EVAL of its `body` where the server has
        not cached it (a restarted or flushed Redis), which caches it again."""
        try:
            (reply,) = await self.run([("EVALSHA", sha, len(keys), *keys, *args)])
        except NoScriptError:
            (reply,) = await self.run([("EVAL", body, len(keys), *keys, *args)])
        return reply

    async def _take(self) -> AbstractConnection:
        """An idle connection used within `idle` seconds, else a new one (unconnected: it
        connects as it sends)."""
        now = time.monotonic()
        while self._idle:
            conn, used = self._idle.pop()
            if now - used < self._stale:
                return conn
            await conn.disconnect(nowait=True)
        return cast(AbstractConnection, self._pool.make_connection())  # type: ignore[no-untyped-call]

    async def close(self, ending: bool = True) -> None:
        """Close every idle connection; `ending`: and each busy one as its call ends."""
        self._closed = self._closed or ending
        idle, self._idle = self._idle, []
        for conn, _ in idle:
            await conn.disconnect(nowait=True)
