"""Shared helpers for the Egonomy tests: name cards by label, play and refuse actions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from engine.core import IllegalAction, to_json
from engine.egonomy import GAME
from engine.egonomy.cards import cards_in_play, label
from engine.egonomy.events import Event
from engine.egonomy.rules import LISTEN, NO_TABLE, Action, State, apply, legal_actions

Key = tuple[str, int, tuple[str, ...]]


def names(cards: Iterable[int]) -> str:
    """Labels of cards, e.g. "A1 A2 B3"."""
    return " ".join(label(c) for c in cards)


def pick(pool: Sequence[int], text: str) -> tuple[int, ...]:
    """The cards of `pool` with these labels, in the order named (each copy used once)."""
    left = list(pool)
    out: list[int] = []
    for word in text.split():
        card = next(c for c in left if label(c) == word)
        left.remove(card)
        out.append(card)
    return tuple(out)


def action(state: State, kind: str, table: int = NO_TABLE, text: str = "") -> Action:
    """An action of the player to move, its cards named by label (listen: from the table)."""
    pool = state.tables[table] if kind == LISTEN else state.hands[state.turn]
    return Action(kind, table, pick(pool, text))


def play(
    state: State, kind: str, table: int = NO_TABLE, text: str = ""
) -> tuple[State, list[Event]]:
    """The player to move takes this action; it must be one of the listed legal actions."""
    act = action(state, kind, table, text)
    assert key(act) in keys(legal_actions(state, state.turn)), f"{act} not listed as legal"
    return apply(state, state.turn, act)


def key(act: Action) -> Key:
    """What makes actions the same move: copies of a card and the order of cards do not."""
    return act.kind, act.table, tuple(sorted(label(c) for c in act.cards))


def keys(actions: Iterable[Action]) -> set[Key]:
    return {key(a) for a in actions}


def refused(state: State, act: Action, code: str, player: int | None = None) -> None:
    """apply refuses `act` with `code`, changes nothing, and the action is not listed."""
    who = state.turn if player is None else player
    before = to_json(GAME, state)
    with pytest.raises(IllegalAction) as info:
        apply(state, who, act)
    assert info.value.code == code
    assert to_json(GAME, state) == before
    assert key(act) not in keys(legal_actions(state, who))


def accounted(state: State) -> list[int]:
    """Every card in hands, on tables, in ego piles, in the discard pile and set aside."""
    cards = [c for pile in (*state.hands, *state.tables, *state.egos) for c in pile]
    cards += state.discard
    if state.facedown >= 0:
        cards.append(state.facedown)
    return sorted(cards)


def all_cards_accounted(state: State) -> bool:
    """Each card in play for this player count lies in exactly one place."""
    return accounted(state) == sorted(cards_in_play(state.players))
