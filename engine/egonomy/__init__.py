"""Egonomy (2-4 players): the game object that meets engine.core.Game."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from engine.core import GameSpec, Options, Placing
from engine.egonomy import rules
from engine.egonomy.events import EVENT_TYPES, Event
from engine.egonomy.rules import Action, State
from engine.egonomy.view import View, view


class Egonomy:
    """Egonomy's rules behind the common game contract."""

    spec: GameSpec = rules.SPEC
    event_types: Mapping[str, type] = EVENT_TYPES

    def new_game(self, players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
        return rules.new_game(players, options, seed)

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    # the hot calls of every playout go straight to the rules, without a method in between
    legal_actions = staticmethod(rules.legal_actions)
    apply = staticmethod(rules.apply)
    is_over = staticmethod(attrgetter("over"))

    def timeout(self, state: State, player: int) -> None:
        """An idle player's turn is taken by a computer player."""
        return None

    def view(self, state: State, player: int | None) -> View:
        return view(state, player)

    def result(self, state: State) -> tuple[Placing, ...]:
        return rules.result(state)

    def encode_action(self, action: Action) -> str:
        return rules.encode_action(action)

    def decode_action(self, code: str) -> Action:
        return rules.decode_action(code)

    def dump(self, state: State) -> Any:
        return rules.dump(state)

    def load(self, data: Any) -> State:
        return rules.load(data)


GAME = Egonomy()
