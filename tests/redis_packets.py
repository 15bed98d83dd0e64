"""What reaches Redis: the command of every packet a connection sends (one packet, one round
trip), for tests and benchmarks that count round trips; and hooks on the wire for tests that
break a command's way there or back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from redis.asyncio.connection import Connection

GREETINGS = (b"HELLO", b"CLIENT")  # what a new connection sends first: not the caller's work


class Packets:
    """While entered, `names` lists the command (the first word) of each packet sent to Redis
    by any connection of this process, in order, new connections' greetings left out;
    `shas` the script of each (an EVALSHA's SHA1, else "")."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.shas: list[str] = []
        self._original = Connection.send_packed_command

    def __enter__(self) -> Packets:
        original, names, shas = self._original, self.names, self.shas

        async def counting(
            conn: Any, command: bytes | str | Iterable[bytes], check_health: bool = True
        ) -> None:
            packet = command if isinstance(command, (bytes, str)) else b"".join(command)
            parts = packet.split(b"\r\n", 5) if isinstance(packet, bytes) else []
            head = parts[2] if len(parts) > 2 else b""
            if head not in GREETINGS:
                names.append(head.decode())
                shas.append(parts[4].decode() if head == b"EVALSHA" and len(parts) > 4 else "")
            await original(conn, command, check_health)

        Connection.send_packed_command = counting  # type: ignore[method-assign,assignment]
        return self

    def without(self, *scripts: str) -> list[str]:
        """`names`, leaving out the calls of these scripts (by SHA1)."""
        return [n for n, sha in zip(self.names, self.shas, strict=True) if sha not in scripts]

    def __exit__(self, *exc: object) -> None:
        Connection.send_packed_command = self._original  # type: ignore[method-assign]


class Wire:
    """While entered, every packet a connection of this process sends that contains `match`
    goes through `before(packet)` first, and each reply read for it through `after(packet,
    reply)`, which returns the reply the caller gets (or raises: a lost reply). Hooks on
    redis-py's connection, below any client or store: what Redis got is exactly what was
    sent."""

    def __init__(
        self,
        match: bytes,
        before: Callable[[bytes], Awaitable[None]] | None = None,
        after: Callable[[Connection, bytes, Any], Awaitable[Any]] | None = None,
    ) -> None:
        self._match, self._before, self._after = match, before, after
        self._send, self._read = Connection.send_packed_command, Connection.read_response

    def __enter__(self) -> Wire:
        send, read, match = self._send, self._read, self._match
        before, after = self._before, self._after
        pending: dict[int, bytes] = {}  # connection -> its last matching packet

        async def sending(
            conn: Any, command: bytes | str | Iterable[bytes], check_health: bool = True
        ) -> None:
            packet = command if isinstance(command, (bytes, str)) else b"".join(command)
            packet = packet.encode() if isinstance(packet, str) else packet
            if match in packet:
                if before is not None:
                    await before(packet)
                pending[id(conn)] = packet
            else:
                pending.pop(id(conn), None)
            await send(conn, command, check_health)

        async def reading(conn: Any, *args: Any, **kwargs: Any) -> Any:
            reply = await read(conn, *args, **kwargs)
            packet = pending.get(id(conn))
            if packet is not None and after is not None:
                return await after(conn, packet, reply)
            return reply

        Connection.send_packed_command = sending  # type: ignore[method-assign,assignment]
        Connection.read_response = reading  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        Connection.send_packed_command = self._send  # type: ignore[method-assign]
        Connection.read_response = self._read  # type: ignore[method-assign]
