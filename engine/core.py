"""The contract every game meets and every front end (chat, console, computer players) uses.

A game is a module-level object implementing `Game`. State is immutable; `apply` returns a new
state and the events that happened, as data. All randomness comes from a small generator whose
state lives in the game state, so a game is reproducible from (options, seed, actions).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generic, Protocol, TypeVar, Union

import orjson

S = TypeVar("S")
A = TypeVar("A")
A_contra = TypeVar("A_contra")
S_co = TypeVar("S_co", covariant=True)


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


OptionValue = bool | int
Options = Mapping[str, OptionValue]


@dataclass(frozen=True)
class OptionSpec:
    """A lobby option: yes/no (the default `choices`) or one of a few numbers (decks, rounds)."""

    name: str
    default: OptionValue = False
    choices: tuple[OptionValue, ...] = (False, True)
    needs: tuple[str, OptionValue] | None = None  # offered only while that option has that value

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise ValueError(f"option {self.name}: default {self.default!r} not in choices")

    @property
    def yes_no(self) -> bool:
        return set(self.choices) == {False, True} and all(isinstance(c, bool) for c in self.choices)

    def next(self, value: OptionValue) -> OptionValue:
        """The value after `value` when the option's lobby button cycles."""
        at = self.choices.index(value) if value in self.choices else -1
        return self.choices[(at + 1) % len(self.choices)]


@dataclass(frozen=True)
class GameSpec:
    """What the lobby needs to know about a game; `schema` versions its stored state."""

    name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()
    schema: int = 1
    # Each player holds what the others may not see (a hand): False when everything a player
    # knows is on the table or in a secret choice the game reveals (EGO's picks).
    private_hands: bool = True

    def option(self, name: str) -> OptionSpec:
        for option in self.options:
            if option.name == name:
                return option
        raise IllegalAction("unknown_option", option=name)

    def resolve_options(self, given: Options | None = None) -> dict[str, OptionValue]:
        """Defaults overlaid with `given`; unknown names, values not offered, and an option set
        while the option it needs is not (a rule played with two decks only) are refused."""
        known: dict[str, OptionValue] = {o.name: o.default for o in self.options}
        for name, value in (given or {}).items():
            spec = self.option(name)
            if value not in spec.choices or type(value) is not type(spec.default):
                raise IllegalAction("bad_option", option=name, value=value)
            known[name] = value
        for spec in self.options:
            if spec.needs and known[spec.name] != spec.default and not self.offered(spec, known):
                other, value = spec.needs
                raise IllegalAction("option_needs", option=spec.name, needs=other, value=value)
        return known

    def offered(self, option: OptionSpec, values: Options) -> bool:
        """Whether `option` may be set with these option values (what it needs is set)."""
        if option.needs is None:
            return True
        other, value = option.needs
        return values.get(other, self.option(other).default) == value

    def settle(self, values: dict[str, OptionValue]) -> None:
        """Options no longer offered (what they need was changed) go back to their default."""
        for option in self.options:
            if not self.offered(option, values):
                values[option.name] = option.default


class Signal:
    """What an event means to the chat, beyond its text: set as an event class's `signal`.

    The chat core re-sends the table and every hand on ROUND_BEGAN, outdates every button on
    ROUND_BEGAN and TURN_BEGAN, closes the game on GAME_ENDED, and never shows the content of a
    SECRET event to anyone but its player; the table's narration keeps KEY events in view
    longer than routine ones."""

    ROUND_BEGAN = "round_began"
    TURN_BEGAN = "turn_began"  # a new turn of a game whose turns are rounds of choices (EGO)
    GAME_ENDED = "game_ended"
    SECRET = "secret"  # a hidden choice was made (its content must stay private)
    REVEALED = "revealed"  # hidden choices were shown to everyone
    # Changes a player's lot or place (a finish, a catch, a penalty): the table's narration
    # keeps it in view longer than routine lines, so merged updates never drop it.
    KEY = "key"


def signals(events: Sequence[Any]) -> frozenset[str]:
    """The signals of `events` (an event class declares one as `signal: ClassVar[str]`)."""
    return frozenset(s for e in events if (s := getattr(type(e), "signal", None)))


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

    def new_game(self, players: int, options: Options, seed: int) -> tuple[S, list[Any]]:
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

    def timeout(self, state: S, player: int) -> tuple[S, list[Any]] | None:
        """What happens when a person awaited in `to_move` does not act in time (e.g. EGO
        skips their guess): the new state and events, or None to let the game's computer
        player act for them. Never offered as a button."""
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


class NewGame(Protocol[S_co]):
    """`Game.new_game` as a function (callers name its arguments)."""

    def __call__(self, players: int, options: Options, seed: int) -> tuple[S_co, list[Any]]: ...


@dataclass
class RulesGame(Generic[S, A]):
    """A `Game` made of a rules module's functions: each engine package's GAME. The calls go
    straight to them (no method in between: playouts make millions)."""

    spec: GameSpec
    event_types: Mapping[str, type]
    new_game: NewGame[S]
    to_move: Callable[[S], tuple[int, ...]]
    legal_actions: Callable[[S, int], list[A]]
    apply: Callable[[S, int, A], tuple[S, list[Any]]]
    timeout: Callable[[S, int], tuple[S, list[Any]] | None]
    view: Callable[[S, int | None], Any]
    is_over: Callable[[S], bool]
    result: Callable[[S], tuple[Placing, ...]]
    encode_action: Callable[[A], str]
    decode_action: Callable[[str], A]
    dump: Callable[[S], Any]
    load: Callable[[Any], S]

    @classmethod
    def of(cls, rules: Any, event_types: Mapping[str, type], view: Any) -> RulesGame[Any, Any]:
        """The game made of a rules module's functions of these names (`SPEC`, `new_game`,
        `to_move`, `legal_actions`, `apply`, `timeout`, `is_over`, `result`,
        `encode_action`, `decode_action`, `dump`, `load`), its event types and its view."""
        return cls(
            spec=rules.SPEC,
            event_types=event_types,
            view=view,
            **{name: getattr(rules, name) for name in _RULES_FUNCTIONS},
        )


_RULES_FUNCTIONS = (
    "new_game", "to_move", "legal_actions", "apply", "timeout", "is_over", "result",
    "encode_action", "decode_action", "dump", "load",
)  # fmt: skip
_MASK = 0xFFFFFFFFFFFFFFFF
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


@dataclass
class Rng:
    """SplitMix64: a tiny, fast generator whose whole state is one 64-bit int (compact JSON)."""

    state: int = field(default=0)

    def next(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform int in [0, n)."""
        return self.next() % n

    def shuffled(self, items: Sequence[int]) -> list[int]:
        """A Fisher-Yates shuffle: for i from the top down, item i swaps with `below(i + 1)`."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.next() % (i + 1)  # below(i + 1), one call fewer (a deal shuffles 40 cards)
            out[i], out[j] = out[j], out[i]
        return out


NT = TypeVar("NT", bound=tuple[Any, ...])


def replaced(state: NT, changes: Mapping[str, Any]) -> NT:
    """A named tuple's `_replace(**changes)`, done cheaper (a game's new state each action)."""
    cls = type(state)
    index = _FIELD_INDEX.get(cls)
    if index is None:
        names = cls._fields  # type: ignore[attr-defined]
        index = _FIELD_INDEX[cls] = {name: i for i, name in enumerate(names)}
    values = [*state]
    for name, value in changes.items():
        values[index[name]] = value
    return tuple.__new__(cls, values)


_FIELD_INDEX: dict[type, dict[str, int]] = {}  # by named tuple class, its fields' places


def with_item(seq: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`seq` with item `index` replaced by `value` (a seat's or a table's entry in a state)."""
    out = list(seq)
    out[index] = value
    return tuple(out)


def without(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    """`hand` less `cards` (one copy of a card for each); refused ("card_not_in_hand") unless
    it holds them all."""
    rest = list(hand)
    try:
        for c in cards:
            rest.remove(c)
    except ValueError:
        raise IllegalAction("card_not_in_hand") from None
    return tuple(rest)


def seed_state(seed: int) -> int:
    """Spread any int seed over 64 bits."""
    return Rng(seed & 0xFFFFFFFFFFFFFFFF).next()


def stored(game: Game[S, A], state: S) -> dict[str, Any]:
    """The stored form of a state: {"g": game name, "v": the game's schema version, "s": data}."""
    return {"g": game.spec.name, "v": game.spec.schema, "s": game.dump(state)}


def restore(game: Game[S, A], data: Any) -> S:
    """The state `stored` wrote; BadState for another game, another version or corrupt data."""
    if not isinstance(data, dict) or data.get("g") != game.spec.name:
        raise BadState("stored state belongs to another game")
    if data.get("v") != game.spec.schema:
        raise BadState(f"unknown schema version {data.get('v')!r}")
    try:
        return game.load(data["s"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise BadState(f"corrupt state: {exc!r}") from exc


def to_json(game: Game[S, A], state: S) -> bytes:
    """`stored` as compact JSON."""
    return orjson.dumps(stored(game, state))


def from_json(game: Game[S, A], raw: bytes | str) -> S:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadState(f"not JSON: {exc}") from exc
    return restore(game, data)


@dataclass(frozen=True)
class Budget:
    """How much a computer player may think about one move: at most `playouts` simulated
    continuations, and at most `seconds` by `clock` (any function giving seconds, passed in by
    the caller: the engine reads no clock of its own). Either may be None: no limit there.
    Given as playouts alone, a choice is reproducible from the rng."""

    playouts: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("a budget needs playouts or seconds")
        if (self.playouts is not None and self.playouts < 1) or (
            self.seconds is not None and not self.seconds > 0
        ):
            raise ValueError("a budget must allow some thinking")
        if self.seconds is not None and self.clock is None:
            raise ValueError("a budget in seconds needs a clock")

    def start(self) -> Callable[[int], float]:
        """Starts the clock; the result gives, from the playouts done, the share of the budget
        used (1 or more: spent)."""
        limit, seconds, clock = self.playouts, self.seconds, self.clock
        if seconds is None or clock is None:
            return lambda done: done / limit  # type: ignore[operator]
        began = clock()
        if limit is None:
            return lambda done: (clock() - began) / seconds
        return lambda done: max(done / limit, (clock() - began) / seconds)


class Player(Protocol[A_contra]):
    """A computer player: sees only what a human in its seat sees. Out of turn (when its seat
    is not in `to_move`) it may return None: it lets the chance go. `budget` bounds its
    thinking (None: the player's own reproducible default); a cheap player may ignore it."""

    name: str

    def choose(
        self, view: Any, legal: Sequence[A_contra], rng: Rng, budget: Budget | None = None
    ) -> A_contra | None: ...


def quick_init(cls: type) -> None:
    """Give the frozen dataclass `cls` an __init__ that fills the instance's __dict__ in one
    step (the generated one sets each field through object.__setattr__: a few times slower,
    and an engine makes an event or two per action). Same fields, order, names and defaults."""
    found = dataclasses.fields(cls)
    if not found:
        return
    scope: dict[str, object] = {"_set": object.__setattr__}
    params = []
    for f in found:
        if f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: no default factory here")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            scope[f"_{f.name}"] = f.default
            params.append(f"{f.name}=_{f.name}")
    body = ", ".join(f"{f.name!r}: {f.name}" for f in found)
    source = f"def __init__(self, {', '.join(params)}):\n    _set(self, '__dict__', {{{body}}})\n"
    exec(source, scope)  # a fixed text built from the field names above
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[misc]


def dump_event(event: Any) -> list[Any]:
    """An event dataclass as JSON data: [type name, fields]."""
    return [type(event).__name__, dataclasses.asdict(event)]


def load_event(types: Mapping[str, type], data: list[Any]) -> Any:
    """The event dumped by `dump_event`, equal to the original: nested event dataclasses and
    tuples are rebuilt from the fields' type hints."""
    name, fields = data
    return _builder(types[name])(fields)


def _identity(value: Any) -> Any:
    return value


@cache
def _builder(hint: Any) -> Callable[[Any], Any]:
    """What turns JSON data (or None) into the type `hint` names: dataclasses, tuples, unions
    of them; worked out once a type."""
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        cls = hint
        fields: dict[str, Callable[[Any], Any]] | None = None  # on first use: a hint may recur

        def build(value: Any) -> Any:
            nonlocal fields
            if value is None:
                return None
            if fields is None:
                fields = {k: _builder(h) for k, h in typing.get_type_hints(cls).items()}
            return cls(**{k: fields[k](v) for k, v in value.items()})

        return build
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            each = _builder(args[0])
            return lambda value: None if value is None else tuple(each(v) for v in value)
        parts = [_builder(a) for a in args]
        return lambda value: (
            None if value is None else tuple(f(v) for f, v in zip(parts, value, strict=True))
        )
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(options) == 1:
            return _builder(options[0])
    return _identity
