"""A chat's game session (lobby, then game) as stored: versioned JSON, one key per chat."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from chatbot.store.base import Unreadable
from engine.core import OptionValue

SESSION_SCHEMA = 2
LOBBY, PLAYING, OVER = "lobby", "playing", "over"
# What a seat's timer does when it runs out.
WAIT_BOT, WAIT_REMIND, WAIT_TAKEOVER = "bot", "remind", "takeover"
TURN_TIMERS = (0, 30, 60, 120, 300)  # a table's choices of seconds for a move (0: standard)


# A stored session that cannot be read (not a document, corrupt, from an unknown schema, of
# a game not hosted here): one kind of error wherever it is found, the store or the core.
BadSession = Unreadable


@dataclass
class Seat:
    """A player: a person (`user` set) or a computer player (`bot` names its strategy)."""

    name: str
    user: str | None = None
    language: str = "en"  # for private messages
    bot: str | None = None


@dataclass
class Session:
    """Freshness is kept per seat: a private button carries its seat's stamp, which changes
    only when that seat acted or its choices changed; a group button carries the epoch, which
    changes when a turn or a round begins. An outdated press is refused, never applied."""

    game: str
    chat: str
    creator: str
    language: str  # for group messages
    options: dict[str, OptionValue]
    seats: list[Seat] = field(default_factory=list)
    phase: str = LOBBY
    stamp: int = 0  # the lobby's buttons: bumped by every lobby change
    epoch: int = 0  # the game's group buttons
    moves: int = 0  # game actions applied so far
    change: int = 0  # saved changes whose messages are owed; the ledger records them delivered
    recent: int = 0  # how many of the last events in `log` the last change made
    owner: str = ""  # the process that owes the last change's messages
    stamps: list[int] = field(default_factory=list)  # per seat
    choice_digests: list[int] = field(default_factory=list)  # per seat: its legal actions, hashed
    seed: int = 0
    salt: int = 0  # with the seed, makes the deal's commitment (chatbot.core.fairness)
    state: Any = None  # the engine state in its stored form (engine.core.stored)
    log: list[Any] = field(default_factory=list)  # the last events, as [type, fields]
    timers: dict[str, list[Any]] = field(default_factory=dict)  # seat -> [WAIT_*, unix time]
    deadline: float | None = None  # the earliest timer (kept with every save)
    title: str = ""  # the group's name, as it was when the table opened
    trail: list[Any] = field(default_factory=list)  # every move: [seat, action code | None]
    turn_timer: int = 0  # seconds a person has for a move (0: the settings' default)
    schema: int = SESSION_SCHEMA
    # Never written in the document (orjson skips `_` attributes): the platform ids of the
    # slot messages (slot -> id), kept beside it (`Sessions.remember`) and read with it.
    _message_ids: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # Ids a document written before they were kept beside it holds: moved there by its
    # next save (`Sessions.save`).
    _unmoved: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def message_ids(self) -> dict[str, str]:
        """The platform ids of the session's slot messages (slot -> id)."""
        return self._message_ids

    def take_unmoved(self) -> dict[str, str]:
        """The ids its document held itself (an older version's), to keep beside it now."""
        unmoved, self._unmoved = self._unmoved, {}
        return unmoved

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
    def loads(cls, raw: bytes, ids: Mapping[str, str] | None = None) -> Session:
        """The stored session with the slot message `ids` kept beside it; BadSession for
        anything unreadable (never a crash loop)."""
        try:
            data = orjson.loads(raw)
            if data.get("schema") == 1:
                data = _from_schema_1(data)
            if data.get("schema") != SESSION_SCHEMA:
                raise BadSession(f"unknown session schema {data.get('schema')!r}")
            if "legal" in data:  # the name of `choice_digests` before 2026-12
                data["choice_digests"] = data.pop("legal")
            data["seats"] = [Seat(**s) for s in data["seats"]]
            inside = data.pop("messages", None) or {}  # where ids were kept before 2026-12
            beside = dict(ids or {})
            unmoved = {slot: i for slot, i in inside.items() if slot not in beside}
            return cls(**data, _message_ids={**inside, **beside}, _unmoved=unmoved)
        except (orjson.JSONDecodeError, TypeError, KeyError, AttributeError, ValueError) as exc:
            raise BadSession(repr(exc)) from exc


def _from_schema_1(data: dict[str, Any]) -> dict[str, Any]:
    """A session saved before freshness was per seat: one move counter for every button."""
    move = data.pop("move")
    data.pop("waiting", None)
    seats = len(data["seats"])
    data.update(
        stamp=move, epoch=move, moves=0, stamps=[move] * seats, choice_digests=[], timers={}
    )
    if data.get("state") is not None:
        data["state"] = {"g": data["game"], "v": 1, "s": data["state"]}
    data["schema"] = SESSION_SCHEMA
    return data
