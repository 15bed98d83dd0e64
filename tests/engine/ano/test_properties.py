"""Seeded random Ano games with every option mix and 2-10 players: what Ano's rules keep after
every action. Random players act in turn and out of turn (jump-ins, calls, catches); fumbles
are rare, as they are between people. What every game keeps (codes, JSON, listed actions
applying, the end, the replay) is checked for every game in tests/engine/test_every_game.py.

Quotes come from the Thai rulebook (seed 004) and docs/rulings.md (section Ano)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.ano.players import good_play
from engine.ano.rules import (
    CLEAR,
    DRAW,
    PLAY,
    SPEC,
    SPECIAL_LAST,
    Action,
    State,
    ano_hand,
    apply,
    can_play,
    legal_actions,
    new_game,
    to_move,
)
from engine.ano.view import view
from engine.core import IllegalAction, Rng
from tests.engine.mixes import option_mixes

from .helpers import all_cards_accounted

MAX_ACTIONS = 20_000
MIXES = option_mixes(SPEC)  # 192: 2 decks x 2^6 yes/no options, jump-in with two decks only
Step = tuple[int, Action]


def choose(state: State, rng: Rng) -> Step:
    """A random actor (usually the player to move) and a random legal action; wrong plays
    (fumble option) only now and then."""
    actor = state.turn
    if rng.below(4) == 0:
        others = [p for p in range(state.players) if p != actor and legal_actions(state, p)]
        if others:
            actor = others[rng.below(len(others))]
    legal = legal_actions(state, actor)
    seen = view(state, actor)
    good = [a for a in legal if a.kind != PLAY or good_play(seen, a)]
    pool = legal if rng.below(20) == 0 or not good else good
    return actor, pool[rng.below(len(pool))]


def check_cards_conserved(state: State) -> None:
    """ "ไพ่ป๊อก 1 สำรับ มี Joker หรือไม่มีก็ได้ (ถ้าเป็นไปได้ใช้ไพ่ 2 สำรับรวมกันจะสนุกกว่า)" (one
    deck, with or without jokers, or two): hands, draw pile and discard pile hold exactly the
    chosen deck, through every draw, penalty and reshuffle
    (docs/rulings.md#ano-drawing-what-is-left)."""
    assert all_cards_accounted(state), "a card is missing or in two places"


def check_views_hide_hands(state: State) -> None:
    """Each player sees their own hand and the drawn card in it; the group sees only how many
    cards each player holds."""
    public = view(state, None)
    assert public.hand == () and public.hand_sizes == tuple(map(len, state.hands))
    for p in range(state.players):
        seen = view(state, p)
        assert seen.hand == state.hands[p]
        assert seen.drawn in (-1, *state.hands[p])


def check_finished_players_are_out(state: State) -> None:
    """ "ผู้เล่นที่ไพ่หมดมือก่อนเป็นผู้ชนะ เล่นจนกว่าจะเหลือคนเดียวที่แพ้" (the first to empty their
    hand wins; play goes on to one loser): a finished player holds no card, has no action and
    is never the player to move."""
    for p in state.finished:
        assert not state.hands[p] and legal_actions(state, p) == []
    if not state.over:
        assert to_move(state) == (state.turn,) and state.turn not in state.finished


def check_ano_status_only_on_ano_hands(state: State) -> None:
    """ "เมื่อใดก็ตามที่ผู้เล่นเหลือไพ่ในมือใบเดียวหรือเหลือไพ่ที่ลงครั้งเดียวชนะต้องพูดว่าอีโง่" (one
    card left, or cards that win in one play: say "Ano"): a call owed or forgotten stands only
    on such a hand, never one of special cards when they may not be last
    (docs/rulings.md#ano-calling)."""
    for p in range(state.players):
        if state.ano[p] != CLEAR:
            assert ano_hand(state.hands[p], state.has(SPECIAL_LAST)) and not state.over


def check_draw_only_when_unable(state: State) -> None:
    """ "ถ้าไม่สามารถลงไพ่ให้จั่วไพ่ขึ้นมาจากกองจั่วหนึ่งใบ" (if you cannot play, draw one card):
    the draw is offered exactly when the player to move has drawn nothing and cannot play; no
    drawing by choice (docs/rulings.md#ano-a-turn)."""
    if not state.over:
        legal = legal_actions(state, state.turn)
        assert (Action(DRAW) in legal) == (state.drawn < 0 and not can_play(state, state.turn))


def check_state(state: State) -> None:
    check_cards_conserved(state)
    check_views_hide_hands(state)
    check_finished_players_are_out(state)
    check_ano_status_only_on_ano_hands(state)
    check_draw_only_when_unable(state)


def check_unlisted_refused(state: State) -> None:
    """What is not listed is refused: a play of any single card of any hand (with or without a
    named suit), a draw, a kept card, a call and a catch of seats 0-2. So a card that does not
    fit is never taken without the fumble rule ("กฎเฟอะฟะ"), a draw by choice never
    (docs/rulings.md#ano-a-turn), a catch only of a hand that could win
    (docs/rulings.md#ano-calling)."""
    for p in range(state.players):
        legal = legal_actions(state, p)
        plausible = [Action(PLAY, (c,), s) for c in set(state.hands[p]) for s in (-1, 0)]
        plausible += [Action(k) for k in "dkac"] + [Action("c", target=t) for t in range(3)]
        for action in plausible:
            if action not in legal:
                with pytest.raises(IllegalAction):
                    apply(state, p, action)


def play_game(players: int, options: dict[str, Any], seed: int, *, thorough: bool) -> None:
    """A whole game with Ano's checks after every action (`thorough`: unlisted actions too)."""
    state, _ = new_game(players, options, seed)
    rng = Rng(seed)
    check_state(state)
    for _ in range(MAX_ACTIONS):
        if state.over:
            return
        if thorough:
            check_unlisted_refused(state)
        state, _ = apply(state, *choose(state, rng))
        check_state(state)
    raise AssertionError("the game did not end")


QUICK = [(2 + i % 9, MIXES[i * 37 % len(MIXES)], i) for i in range(24)]


@pytest.mark.parametrize("players,options,seed", QUICK)
def test_random_games_keep_anos_rules(players: int, options: dict[str, Any], seed: int) -> None:
    """24 option mixes over every player count; unlisted actions tried in a third of them."""
    play_game(players, options, seed, thorough=seed % 3 == 0)


@pytest.mark.slow
@pytest.mark.parametrize("players", range(SPEC.min_players, SPEC.max_players + 1))
def test_random_games_every_option_mix(players: int) -> None:
    """Every option mix with every player count (1,728 games); unlisted actions tried in
    some of them."""
    for index, mix in enumerate(MIXES):
        play_game(players, mix, players * 1000 + index, thorough=index % 64 == 0)
