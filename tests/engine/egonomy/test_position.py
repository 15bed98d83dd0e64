"""The explicit-position helper used by the rules tests (engine/egonomy/position.py)."""

from __future__ import annotations

import pytest

from engine.core import from_json, seed_state, to_json
from engine.egonomy import GAME
from engine.egonomy.cards import CARDS, MARK_3, NO_MARK, label
from engine.egonomy.position import position
from engine.egonomy.rules import legal_actions

from .helpers import accounted, names, pick


def test_position_puts_each_named_card_where_it_is_named() -> None:
    state = position(
        2,
        ["C1 A2 B3", "A5 A4"],
        tables=["A9 A7 A8", "B5", ""],
        turn=1,
        first=0,
        flipped=(False, True, False),
        egos=["C9", "C7 C8"],
        discard="B1 B2",
        facedown="C4",
        momentum=True,
        flip=True,
        strict=True,
        round=2,
        trophies=[1, 2],
        last_ranking=[1, 0],
        seed=5,
    )
    assert [names(h) for h in state.hands] == ["A2 B3 C1", "A4 A5"]  # sorted like a deal
    assert [names(t) for t in state.tables] == ["A7 A8 A9", "B5", ""]  # in number order
    assert [names(e) for e in state.egos] == ["C9", "C7 C8"]
    assert names(state.discard) == "B1 B2" and label(state.facedown) == "C4"
    assert (state.turn, state.first, state.round, state.momentum) == (1, 0, 2, True)
    assert state.flipped == (False, True, False) and state.flip_mode and state.strict
    assert state.trophies == (1, 2) and state.last_ranking == (1, 0) and not state.over
    assert state.rng == seed_state(5)
    assert len(accounted(state)) == 15  # the cards not named are nowhere


def test_position_takes_distinct_copies_of_repeated_labels() -> None:
    state = position(3, ["A3 B1", "A3 B2", "C1"])
    (first,), (second,) = pick(state.hands[0], "A3"), pick(state.hands[1], "A3")
    assert label(first) == label(second) == "A3" and first != second
    assert {CARDS[first].mark, CARDS[second].mark} == {NO_MARK, MARK_3}


@pytest.mark.parametrize(
    ("players", "hands"),
    [(2, ["A3", "A3"]), (3, ["A3 A3", "A3"]), (3, ["A1", "A1"]), (2, ["A2", "B5"])],
)
def test_position_refuses_cards_not_in_play(players: int, hands: list[str]) -> None:
    """A third A3, a second A1, or (with 2 players) any marked copy is not in play."""
    if hands == ["A2", "B5"]:
        position(players, hands)  # unmarked cards are fine
        with pytest.raises(ValueError):
            position(players, hands, tables=["A2", "", ""])
        return
    with pytest.raises(ValueError):
        position(players, hands)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 3, "hands": ["A1"], "facedown": "B1"},
        {"players": 2, "hands": ["A1"], "facedown": "B1 B2"},
        {"players": 2, "hands": ["A1", "B1", "C1"]},
        {"players": 2, "hands": ["A1"], "egos": ["B1"]},
        {"players": 2, "hands": ["A1"], "tables": ["", ""]},
        {"players": 2, "hands": ["D1"]},
    ],
)
def test_position_refuses_malformed_positions(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        position(**kwargs)  # type: ignore[arg-type]


def test_position_is_a_real_state() -> None:
    state = position(3, ["A1 A2", "B5", "C6"], tables=["A9", "", ""])
    assert from_json(GAME, to_json(GAME, state)) == state
    assert legal_actions(state, 0) and legal_actions(state, 1) == []
    assert position(4).hands == ((), (), (), ()) and position(4).egos == ((), (), (), ())
