"""What reaches Redis: the command of every packet a connection sends (one packet, one round
trip), for tests and benchmarks that count round trips."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis.asyncio.connection import Connection

GREETINGS = (b"HELLO", b"CLIENT")  # what a new connection sends first: not the caller's work


class Packets:
    """While entered, `names` lists the command (the first word) of each packet sent to Redis
    by any connection of this process, in order, new connections' greetings left out."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._original = Connection.send_packed_command

    def __enter__(self) -> Packets:
        original, names = self._original, self.names

        async def counting(
            conn: Any, command: bytes | str | Iterable[bytes], check_health: bool = True
        ) -> None:
            packet = command if isinstance(command, (bytes, str)) else b"".join(command)
            head = packet.split(b"\r\n")[2] if isinstance(packet, bytes) else b""
            if head not in GREETINGS:
                names.append(head.decode())
            await original(conn, command, check_health)

        Connection.send_packed_command = counting  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        Connection.send_packed_command = self._original  # type: ignore[method-assign]
