"""The Ano rulings of 2026-12 (RULINGS.md, section Ano, "Rulings of 2026-12"), one test per
ruling, each quoting it; docs/rulings.md#ano states them in the bot's words."""

from __future__ import annotations

import pytest

from engine.ano.events import AnoOwed, Caught, Drew, FalseCatch, Stalled
from engine.ano.rules import (
    CALL,
    CATCH,
    CLEAR,
    DRAW,
    FORGOT_CALL,
    JOKER,
    KEEP,
    OWES,
    PLAY,
    SPEC,
    Action,
    apply,
    legal_actions,
    new_game,
    result,
    timeout,
)
from engine.core import IllegalAction

from .helpers import card, cards, hand, position


def play(codes: str, suit: int = -1, call: bool = False) -> Action:
    return Action(PLAY, cards(codes), suit, call)


def test_a_draw_of_no_card_changes_nothing_a_call_made_still_holds() -> None:
    """ "a draw of no card (an empty pile) changes nothing, so a call already made still
    holds." Ann called with one card left; nothing is left to draw: she owes nothing new, and
    nobody may catch her after the next player acts."""
    state = position(["9D", "2C 5S", "3C 4C"], top="7H", ano=(CLEAR, CLEAR, CLEAR))
    state, events = apply(state, 0, Action(DRAW))
    assert Drew(0, 0, "turn") in events and not any(isinstance(e, AnoOwed) for e in events)
    assert state.ano[0] == CLEAR and Action(CALL) not in legal_actions(state, 0)
    state, _ = apply(state, 1, Action(DRAW))
    assert state.ano[0] == CLEAR
    assert Action(CATCH, target=0) not in legal_actions(state, 2)


def test_a_draw_of_no_card_changes_nothing_a_forgotten_call_can_still_be_caught() -> None:
    """ "a draw of no card (an empty pile) changes nothing" (RULINGS.md, Rulings of 2026-12,
    first bullet; docs/rulings.md#ano-drawing-and-the-call), the other half: Ann goes down to
    9♦ without calling; Bob's draw takes the last card there is, so when her turn comes back
    she draws nothing, and she can still be caught for the call she forgot."""
    state = position(["3H 9D", "2C 5S", "4C 6S"], top="7H")
    state, _ = apply(state, 0, play("3H"))
    assert state.ano[0] == OWES
    state, _ = apply(state, 1, Action(DRAW))  # the discard under 3♥ is reshuffled: 7♥
    assert state.ano[0] == FORGOT_CALL and not state.pile
    state, events = apply(state, 2, Action(DRAW))
    assert Drew(2, 0, "turn") in events
    state, events = apply(state, 0, Action(DRAW))
    assert Drew(0, 0, "turn") in events and state.hands[0] == hand("9D")
    assert state.ano[0] == FORGOT_CALL, "a draw of no card changes nothing"
    assert Action(CATCH, target=0) in legal_actions(state, 1)
    _, events = apply(state, 1, Action(CATCH, target=0))
    assert events[0] == Caught(1, 0, 0)


def test_a_fumble_penalty_of_no_card_changes_nothing_a_forgotten_call_can_be_caught() -> None:
    """ "a draw of no card (an empty pile) changes nothing" (RULINGS.md, Rulings of 2026-12,
    first bullet), for a penalty: with fumble on, Ann, who forgot her call, plays a wrong card
    when nothing is left to draw; the penalty finds no card, and she can still be caught. A
    player who did call keeps her call the same way."""
    for before in (FORGOT_CALL, CLEAR):
        state = position(
            ["9D", "2C 5S", "4C 6S"], top="3H", ano=(before, CLEAR, CLEAR), fumble=True
        )
        state, events = apply(state, 0, play("9D"))
        assert Drew(0, 0, "fumble") in events and state.hands[0] == hand("9D")
        assert state.ano[0] == before, "a penalty of no card changes nothing"
        offered = Action(CATCH, target=0) in legal_actions(state, 1)
        assert offered  # fumble on: a catch is offered against any Ano hand
        _, events = apply(state, 1, Action(CATCH, target=0))
        if before == FORGOT_CALL:
            assert events[0] == Caught(1, 0, 0)
        else:
            assert events[0] == FalseCatch(1, 0, 0)


def test_a_catch_penalty_that_leaves_an_ano_hand_owes_the_call() -> None:
    """ "A player left holding an Ano hand after a draw (or a penalty) owes the call too." Ann
    forgot with 2♥ left; caught (Uno rules: 2 cards) she draws 2♣ 2♦, three 2s that could go
    down at once: she owes "Ano!" again, and forgetting it again can be caught again."""
    state = position(["3H 2H", "5H 9C", "9S 4S"], top="7H", pile="2D 2C", uno_rules=True)
    state, _ = apply(state, 0, play("3H"))
    state, _ = apply(state, 1, play("5H"))
    caught, events = apply(state, 2, Action(CATCH, target=0))
    assert events[0] == Caught(2, 0, 2) and caught.hands[0] == hand("2H 2D 2C")
    assert AnoOwed(0) in events and caught.ano[0] == OWES
    assert Action(CALL) in legal_actions(caught, 0)
    forgot, _ = apply(caught, 2, Action(DRAW))  # the next player acts: the window closes
    assert forgot.ano[0] == FORGOT_CALL and Action(CATCH, target=0) in legal_actions(forgot, 1)


def test_a_false_catch_penalty_that_leaves_an_ano_hand_owes_the_call() -> None:
    """ "A player left holding an Ano hand after a draw (or a penalty) owes the call too": the
    false catcher (fumble on) who draws 9♦ 9♠ onto a 9♣ owes the call."""
    state = position(["3H 9D", "2C 5S", "9C"], top="7H", pile="9S 9D", fumble=True)
    state, _ = apply(state, 0, play("3H", call=True))
    after, events = apply(state, 2, Action(CATCH, target=0))
    assert events[0] == FalseCatch(2, 0, 2) and after.hands[2] == hand("9C 9D 9S")
    assert AnoOwed(2) in events and after.ano[2] == OWES


def test_caught_only_against_an_ano_hand_a_caller_only_with_fumble() -> None:
    """ ""Caught!" can be pressed only against a player who holds an Ano hand. With fumble on,
    a catch of a player who did call is a false catch and costs 2; without fumble it is not
    offered." """
    for fumble in (False, True):
        state = position(["3H 9D", "2C 5S", "9C 4S"], top="7H", pile="2D 3D", fumble=fumble)
        state, _ = apply(state, 0, play("3H", call=True))
        state, _ = apply(state, 1, Action(DRAW))  # the next player acts: the window is over
        offered = Action(CATCH, target=0) in legal_actions(state, 2)
        assert offered == fumble
        if fumble:
            _, events = apply(state, 2, Action(CATCH, target=0))
            assert events[0] == FalseCatch(2, 0, 2)
        else:
            with pytest.raises(IllegalAction, match="nothing_to_catch"):
                apply(state, 2, Action(CATCH, target=0))
        assert Action(CATCH, target=1) not in legal_actions(state, 2), "no Ano hand: no button"


def test_jump_in_only_with_two_decks() -> None:
    """ "Jump-in exists only with two decks (the rulebook: "กรณีใช้สองสำรับ"); the lobby offers
    it only then." The engine refuses it with one deck, with its reason."""
    with pytest.raises(IllegalAction) as refused:
        new_game(3, {"jump_in": True}, seed=1)
    assert refused.value.code == "option_needs"
    assert refused.value.params == {"option": "jump_in", "needs": "decks", "value": 2}
    state, _ = new_game(3, {"jump_in": True, "decks": 2}, seed=1)
    assert state.decks == 2
    jump_in = SPEC.option("jump_in")
    assert not SPEC.offered(jump_in, {"decks": 1}) and SPEC.offered(jump_in, {"decks": 2})
    values = SPEC.resolve_options({"decks": 2, "jump_in": True})
    values["decks"] = 1  # the host goes back to one deck in the lobby
    SPEC.settle(values)
    assert values["jump_in"] is False


def test_a_joker_never_jumps_in_and_is_never_a_wrong_jump_in() -> None:
    """ "Jokers never jump in (no button), so they are never a wrong jump-in." With fumble on
    every other card is offered out of turn (a wrong one costs 2), never the joker."""
    state = position(
        ["7H 2C", "JO 3S", "7S 9D"], top="7H", decks=2, jump_in=True, fumble=True, pile="2D 3D"
    )
    offered = [a.cards for a in legal_actions(state, 1) if a.kind == PLAY]
    assert cards("3S") in offered and (JOKER,) not in offered
    with pytest.raises(IllegalAction, match="jump_no_joker"):
        apply(state, 1, Action(PLAY, (JOKER,), 0))


def test_play_drawn_only_the_drawn_card_is_offered_never_a_wrong_group() -> None:
    """ "With "play the drawn card", only the drawn card may still be played after the draw;
    the other cards are not offered, so they are never a wrong card. A wrong group is never
    offered." """
    state = position(["9D 9C 4S", "2C"], top="7H", pile="5H", play_drawn=True, fumble=True)
    drew, _ = apply(state, 0, Action(DRAW))
    assert drew.drawn == card("5H")
    mine = [a for a in legal_actions(drew, 0) if a.kind != CATCH]
    assert mine == [play("5H"), Action(KEEP)]
    with pytest.raises(IllegalAction, match="play_drawn_only"):
        apply(drew, 0, play("9D"))
    fumbling = position(["9D 9C 7S", "2C"], top="7H", fumble=True)
    groups = [a for a in legal_actions(fumbling, 0) if a.kind == PLAY and len(a.cards) > 1]
    assert groups == [], "9♦ 9♣ do not fit 7♥: no group of them, wrong or right"


def test_a_stalled_round_ends_the_game_ranked_by_fewest_cards_or_points() -> None:
    """ "A whole round in which nobody can play or draw ends the game, ranked by fewest cards
    (in points mode by points, fewer first)." Bob holds more cards but fewer points."""
    for points, order in ((False, [0, 1]), (True, [1, 0])):
        state = position(["KS 9D", "2C 3C 4C"], top="7H", points=points)
        state, _ = apply(state, 0, Action(DRAW))
        state, events = apply(state, 1, Action(DRAW))
        assert state.over and Stalled() in events
        assert [p.player for p in result(state)] == order


def test_an_idle_player_who_could_play_does_not_count_towards_the_stall() -> None:
    """ "A whole round in which nobody can play or draw ends the game": a player whose time ran
    out while a card of theirs fitted could play, so the round is not yet one of nobody able
    to play."""
    state = position(["7S 9D", "2C"], top="7H")
    state, _ = timeout(state, 0) or (state, [])
    assert state.idle == 0
    state, events = apply(state, 1, Action(DRAW))
    assert not state.over and Stalled() not in events
    state, _ = apply(state, 0, play("7S"))
    assert not state.over
