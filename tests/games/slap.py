"""Slap: in turn, players flip the top card of a shared deck from their private hand message;
when a multiple of four turns up, anyone but its flipper may slap it on the group's table,
out of turn, until the next flip: the first slap scores a point. The deck is 12 cards."""

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

FLIP, SLAP = "flip", "slap"
DECK = tuple(range(1, 13))


@dataclass(frozen=True)
class State:
    players: int
    turn: int
    deck: tuple[int, ...]
    top: int  # 0: nothing flipped yet
    flipper: int
    open: bool  # the top card may be slapped
    scores: tuple[int, ...]
    over: bool = False


@dataclass(frozen=True)
class Flipped:
    player: int
    card: int


@dataclass(frozen=True)
class Slapped:
    player: int


@dataclass(frozen=True)
class GameEnded:
    signal: ClassVar[str] = Signal.GAME_ENDED
    scores: tuple[int, ...]


EVENT_TYPES: Mapping[str, type] = {c.__name__: c for c in (Flipped, Slapped, GameEnded)}


class Slap:
    spec = GameSpec("slap", 2, 4)
    event_types: Mapping[str, type] = EVENT_TYPES

    def new_game(self, players: int, options: GameOptions, seed: int) -> tuple[State, list[Any]]:
        return State(players, 0, DECK, 0, 0, False, (0,) * players), []

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    def legal_actions(self, state: State, player: int) -> list[str]:
        if state.over:
            return []
        legal = [FLIP] if player == state.turn else []
        if state.open and player != state.flipper:
            legal.append(SLAP)
        return legal

    def apply(self, state: State, player: int, action: str) -> tuple[State, list[Any]]:
        if action not in self.legal_actions(state, player):
            raise IllegalAction("too_late" if action == SLAP else "not_your_turn")
        if action == SLAP:
            scores = list(state.scores)
            scores[player] += 1
            return replace(state, open=False, scores=tuple(scores)), [Slapped(player)]
        card, deck = state.deck[0], state.deck[1:]
        turn = (state.turn + 1) % state.players
        state = replace(state, deck=deck, top=card, flipper=player, open=card % 4 == 0, turn=turn)
        events: list[Any] = [Flipped(player, card)]
        if not deck:
            state = replace(state, over=True, open=False)
            events.append(GameEnded(state.scores))
        return state, events

    def timeout(self, state: State, player: int) -> None:
        return None

    def view(self, state: State, player: int | None) -> State:
        return state

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> tuple[Placing, ...]:
        order = sorted(range(state.players), key=lambda p: -state.scores[p])
        return tuple(
            Placing(p, 1 + sum(s > state.scores[p] for s in state.scores), state.scores[p])
            for p in order
        )

    def encode_action(self, action: str) -> str:
        return action

    def decode_action(self, code: str) -> str:
        if code not in (FLIP, SLAP):
            raise IllegalAction("bad_action")
        return code

    def dump(self, state: State) -> Any:
        return [
            state.players,
            state.turn,
            list(state.deck),
            state.top,
            state.flipper,
            state.open,
            list(state.scores),
            state.over,
        ]

    def load(self, data: Any) -> State:
        players, turn, deck, top, flipper, is_open, scores, over = data
        return State(players, turn, tuple(deck), top, flipper, is_open, tuple(scores), over)


class SlapPresenter(PlainPresenter):
    game = "slap"

    def table(self, view: State, names: Sequence[str], log: Sequence[Any], tr: Translator) -> str:
        return f"Slap: top {view.top}, scores {list(view.scores)}, {names[view.turn]} flips"

    def table_options(
        self, view: State, legal: Sequence[Sequence[str]], names: Sequence[str], tr: Translator
    ) -> Options:
        return ((Option("Slap!", act=SLAP),),) if any(SLAP in x for x in legal) else ()

    def hand(
        self,
        view: State,
        legal: Sequence[str],
        path: str,
        names: Any,
        tr: Translator,
        label_chars: int = 64,
    ) -> tuple[str, Options]:
        if FLIP not in legal:
            return "Wait for your turn.", ()
        return "Your turn: flip!", ((Option("Flip", act=FLIP),),)

    def narrate(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        return str(event)

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        return ("Too late: someone slapped first." if code == "too_late" else code, "general")


class Slapper:
    """Flips when awaited and slaps whenever it can."""

    name = "slapper"

    def choose(
        self, view: State, legal: Sequence[str], rng: Rng, budget: Budget | None = None
    ) -> str | None:
        return SLAP if SLAP in legal else (legal[0] if legal else None)


def bundle() -> Bundle:
    return Bundle(
        Slap(),
        SlapPresenter(),
        rulebook("slap", "Flip in turn; slap a multiple of four first."),
        Slapper(),
        ("Pat", "Kim", "Lee", "Sam"),
    )
