"""Ano (Thai Uno with playing cards, 2-10 players): the game object that meets
engine.core.Game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.ano import rules
from engine.ano.events import EVENT_TYPES, Event
from engine.ano.rules import Action, State
from engine.ano.view import View, view
from engine.core import GameSpec, Options, Placing


class Ano:
    """Ano's rules behind the common game contract. Out of turn a player may jump in (option),
    call "Ano!" or catch a player who forgot to: `legal_actions` lists it."""

    spec: GameSpec = rules.SPEC
    event_types: Mapping[str, type] = EVENT_TYPES

    def new_game(self, players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
        return rules.new_game(players, options, seed)

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.turn,)

    # The two calls of every action go straight to the rules (no method of our own between).
    legal_actions = staticmethod(rules.legal_actions)
    apply = staticmethod(rules.apply)

    def timeout(self, state: State, player: int) -> tuple[State, list[Event]] | None:
        """An idle player draws (or keeps the card they drew): see rules.timeout."""
        return rules.timeout(state, player)

    def view(self, state: State, player: int | None) -> View:
        return view(state, player)

    def is_over(self, state: State) -> bool:
        return state.over

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


GAME = Ano()
