"""A chat's game session (lobby, then game) as stored: versioned JSON, one key per chat."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

SESSION_SCHEMA = 1
LOBBY, PLAYING, OVER = "lobby", "playing", "over"
# What the session waits for at its deadline.
WAIT_BOT, WAIT_REMIND, WAIT_TAKEOVER = "bot", "remind", "takeover"


@dataclass
class Seat:
    """A player: a person (`user` set) or a computer player (`bot` names its strategy)."""

    name: str
    user: str | None = None
    language: str = "en"  # for private messages
    bot: str | None = None


@dataclass
class Session:
    game: str
    chat: str
    creator: str
    language: str  # for group messages
    options: dict[str, bool]
    seats: list[Seat] = field(default_factory=list)
    phase: str = LOBBY
    move: int = 0  # bumped by every change that outdates buttons (moves, lobby changes)
    seed: int = 0
    state: Any = None  # the engine's dump of the game state
    log: list[Any] = field(default_factory=list)  # the last events, as [type, fields]
    messages: dict[str, str] = field(default_factory=dict)  # slot -> platform message id
    waiting: str | None = None  # WAIT_* : what happens at the deadline
    deadline: float | None = None  # unix time of the next timer (kept with every save)
    schema: int = SESSION_SCHEMA

    def seat_of(self, user: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user == user:
                return i
        return None

    def humans(self) -> list[tuple[int, Seat]]:
        return [(i, s) for i, s in enumerate(self.seats) if s.user is not None]

    def dumps(self) -> bytes:
        return orjson.dumps(self)  # orjson writes dataclasses natively (and fast)

    @classmethod
    def loads(cls, raw: bytes) -> Session:
        data = orjson.loads(raw)
        if data.get("schema") != SESSION_SCHEMA:
            raise ValueError(f"unknown session schema {data.get('schema')!r}")
        data["seats"] = [Seat(**s) for s in data["seats"]]
        return cls(**data)
