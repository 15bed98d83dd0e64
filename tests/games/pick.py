"""Pick: every player secretly picks 1, 2 or 3 at the same time, on the group's table; when
all have picked, the picks are revealed and each scores the number picked. Three turns.
A pick may be changed until the last player picks; an idle player is skipped (scores 0)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from chatbot.core.registry import Bundle
from chatbot.i18n import Translator
from chatbot.present.base import Option, Options
from engine.core import Budget, GameSpec, IllegalAction, Placing, Rng, Signal
from engine.core import Options as GameOptions
from tests.games.common import PlainPresenter, rulebook

TURNS = 3
SKIPPED = -1


@dataclass(frozen=True)
class State:
    players: int
    turn: int
    picks: tuple[int, ...]  # 0: not yet, SKIPPED: timed out
    scores: tuple[int, ...]
    over: bool = False


@dataclass(frozen=True)
class Picked:
    signal: ClassVar[str] = Signal.SECRET
    player: int


@dataclass(frozen=True)
class Revealed:
    signal: ClassVar[str] = Signal.REVEALED
    picks: tuple[int, ...]


@dataclass(frozen=True)
class TurnStarted:
    signal: ClassVar[str] = Signal.TURN_BEGAN
    turn: int


@dataclass(frozen=True)
class GameEnded:
    signal: ClassVar[str] = Signal.GAME_ENDED
    scores: tuple[int, ...]


EVENT_TYPES: Mapping[str, type] = {
    c.__name__: c for c in (Picked, Revealed, TurnStarted, GameEnded)
}


class Pick:
    spec = GameSpec("pick", 2, 6, private_hands=False)
    event_types: Mapping[str, type] = EVENT_TYPES

    def new_game(self, players: int, options: GameOptions, seed: int) -> tuple[State, list[Any]]:
        return State(players, 1, (0,) * players, (0,) * players), [TurnStarted(1)]

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if state.over else tuple(p for p, x in enumerate(state.picks) if x == 0)

    def legal_actions(self, state: State, player: int) -> list[int]:
        return [] if state.over or state.picks[player] == SKIPPED else [1, 2, 3]

    def apply(self, state: State, player: int, action: int) -> tuple[State, list[Any]]:
        if action not in self.legal_actions(state, player):
            raise IllegalAction("bad_action")
        picks = (*state.picks[:player], action, *state.picks[player + 1 :])
        return self._settle(replace(state, picks=picks), [Picked(player)])

    def timeout(self, state: State, player: int) -> tuple[State, list[Any]]:
        picks = (*state.picks[:player], SKIPPED, *state.picks[player + 1 :])
        return self._settle(replace(state, picks=picks), [])

    def _settle(self, state: State, events: list[Any]) -> tuple[State, list[Any]]:
        if 0 in state.picks:
            return state, events
        scores = tuple(s + max(x, 0) for s, x in zip(state.scores, state.picks, strict=True))
        events.append(Revealed(state.picks))
        if state.turn == TURNS:
            return replace(state, scores=scores, over=True), [*events, GameEnded(scores)]
        turn = state.turn + 1
        fresh = replace(state, turn=turn, picks=(0,) * state.players, scores=scores)
        return fresh, [*events, TurnStarted(turn)]

    def view(self, state: State, player: int | None) -> Any:
        hidden = tuple(
            x if state.over or p == player else (x != 0) for p, x in enumerate(state.picks)
        )
        return replace(state, picks=hidden)

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> tuple[Placing, ...]:
        order = sorted(range(state.players), key=lambda p: -state.scores[p])
        return tuple(
            Placing(p, 1 + sum(s > state.scores[p] for s in state.scores), state.scores[p])
            for p in order
        )

    def encode_action(self, action: int) -> str:
        return f"p{action}"

    def decode_action(self, code: str) -> int:
        if code not in ("p1", "p2", "p3"):
            raise IllegalAction("bad_action")
        return int(code[1])

    def dump(self, state: State) -> Any:
        return [state.players, state.turn, list(state.picks), list(state.scores), state.over]

    def load(self, data: Any) -> State:
        players, turn, picks, scores, over = data
        return State(players, turn, tuple(picks), tuple(scores), over)


class PickPresenter(PlainPresenter):
    game = "pick"

    def table(self, view: State, names: Sequence[str], log: Sequence[Any], tr: Translator) -> str:
        marks = ", ".join(
            f"{n}{' ✅' if x else ''}" for n, x in zip(names, view.picks, strict=True)
        )
        return f"Pick, turn {view.turn}: {marks}"

    def table_options(
        self, view: State, legal: Sequence[Sequence[int]], names: Sequence[str], tr: Translator
    ) -> Options:
        if not any(legal):
            return ()
        return (tuple(Option(str(n), act=f"p{n}") for n in (1, 2, 3)),)

    def hand(
        self, view: Any, legal: Any, path: str, names: Any, tr: Translator, label_chars: int = 64
    ) -> Any:
        return "", ()

    def narrate(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        if isinstance(event, Revealed):
            return "Revealed: " + ", ".join(map(str, event.picks))
        return None

    def confirm(self, view: State, action: int, tr: Translator, before: Any = None) -> str:
        return f"You picked {action} 🤫"


class FirstPick:
    """Picks 1 (it is asked only while its pick is awaited)."""

    name = "first"

    def choose(
        self, view: State, legal: Sequence[int], rng: Rng, budget: Budget | None = None
    ) -> int | None:
        return legal[0]


def bundle() -> Bundle:
    return Bundle(
        Pick(),
        PickPresenter(),
        rulebook("pick", "Everyone picks 1, 2 or 3 at once."),
        FirstPick(),
        ("Pat", "Kim", "Lee", "Sam", "Max", "Uma"),
    )
