"""The contract every game meets and every front end (chat, console, computer players) uses.

A game is a module-level object implementing `Game`. State is immutable; `apply` returns a new
state and the events that happened, as data. All randomness comes from a small generator whose
state lives in the game state, so a game is reproducible from (options, seed, actions).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

SCHEMA_VERSION = 1

S = TypeVar("S")
A = TypeVar("A")
A_contra = TypeVar("A_contra")


class IllegalAction(Exception):
    """An action the rules forbid; `code` names the rule, `params` fill its explanation."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code, params)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return f"{self.code} {self.params}" if self.params else self.code


class BadState(Exception):
    """Stored state that cannot be read (wrong game, unknown schema version, corrupt data)."""


@dataclass(frozen=True)
class OptionSpec:
    """A yes/no lobby option of a game, e.g. Egonomy's flip-table mode."""

    name: str
    default: bool = False


@dataclass(frozen=True)
class GameSpec:
    """What the lobby needs to know about a game."""

    name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()

    def resolve_options(self, given: Mapping[str, bool] | None = None) -> dict[str, bool]:
        """Defaults overlaid with `given`; unknown option names are refused."""
        known = {o.name: o.default for o in self.options}
        for name in given or {}:
            if name not in known:
                raise IllegalAction("unknown_option", option=name)
        known.update(given or {})
        return known


@dataclass(frozen=True)
class Placing:
    """One player's place in a finished game (1 = winner; equal places share)."""

    player: int
    place: int
    score: int


class Game(Protocol[S, A]):
    """The shape of every game. `player` is a seat index 0..n-1."""

    spec: GameSpec
    event_types: Mapping[str, type]  # event class name -> class, for `load_event`

    def new_game(self, players: int, options: Mapping[str, bool], seed: int) -> tuple[S, list[Any]]:
        """A new game and the events of its start (e.g. who begins)."""
        ...

    def to_move(self, state: S) -> tuple[int, ...]:
        """Players whose action is awaited now (one in turn games, several in EGO's secret
        choices). Other players may still have out-of-turn actions: ask `legal_actions`."""
        ...

    def legal_actions(self, state: S, player: int) -> list[A]: ...

    def apply(self, state: S, player: int, action: A) -> tuple[S, list[Any]]:
        """Returns the new state and the events; raises IllegalAction and changes nothing."""
        ...

    def view(self, state: S, player: int | None) -> Any:
        """What `player` may see (None: the public view shown in the group)."""
        ...

    def is_over(self, state: S) -> bool: ...

    def result(self, state: S) -> tuple[Placing, ...]: ...

    def encode_action(self, action: A) -> str:
        """A short ASCII code for button data; `decode_action` reverses it."""
        ...

    def decode_action(self, code: str) -> A:
        """Raises IllegalAction("bad_action") on anything that is not an action code."""
        ...

    def dump(self, state: S) -> Any:
        """The state as plain JSON data (lists, ints, strings)."""
        ...

    def load(self, data: Any) -> S: ...


@dataclass
class Rng:
    """SplitMix64: a tiny, fast generator whose whole state is one 64-bit int (compact JSON)."""

    state: int = field(default=0)

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform int in [0, n)."""
        return self.next() % n

    def shuffled(self, items: Sequence[int]) -> list[int]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def seed_state(seed: int) -> int:
    """Spread any int seed over 64 bits."""
    return Rng(seed & 0xFFFFFFFFFFFFFFFF).next()


def to_json(game: Game[S, A], state: S) -> bytes:
    """Compact stored form: {"g": name, "v": schema version, "s": state}."""
    return orjson.dumps({"g": game.spec.name, "v": SCHEMA_VERSION, "s": game.dump(state)})


def from_json(game: Game[S, A], raw: bytes | str) -> S:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadState(f"not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("g") != game.spec.name:
        raise BadState("stored state belongs to another game")
    if data.get("v") != SCHEMA_VERSION:
        raise BadState(f"unknown schema version {data.get('v')!r}")
    try:
        return game.load(data["s"])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise BadState(f"corrupt state: {exc!r}") from exc


class Player(Protocol[A_contra]):
    """A computer player: sees only what a human in its seat sees."""

    name: str

    def choose(self, view: Any, legal: Sequence[A_contra], rng: Rng) -> A_contra: ...


def dump_event(event: Any) -> list[Any]:
    """An event dataclass as JSON data: [type name, fields]."""
    return [type(event).__name__, dataclasses.asdict(event)]


def load_event(types: Mapping[str, type], data: list[Any]) -> Any:
    """The event dumped by `dump_event` (lists stand where tuples were)."""
    name, fields = data
    return types[name](**fields)
