"""Computer players: they see only their seat's view, pick legal actions, and the searching
player is stronger than the greedy one."""

from __future__ import annotations

import pytest

from engine.core import Rng
from engine.egonomy import GAME
from engine.egonomy.cards import cards_in_play
from engine.egonomy.players import GreedyPlayer, SearchPlayer, determinize
from engine.egonomy.rules import State


def play(seats: list[object], seed: int, players: int) -> State:
    state, _ = GAME.new_game(players, {"flip": seed % 3 == 0}, seed)
    rng = Rng(seed)
    while not state.over:
        p = state.turn
        legal = GAME.legal_actions(state, p)
        action = seats[p].choose(GAME.view(state, p), legal, rng)  # type: ignore[attr-defined]
        assert action in legal
        state, _ = GAME.apply(state, p, action)
    return state


def test_a_sampled_deal_agrees_with_everything_the_player_sees() -> None:
    for seed in range(40):
        players = 2 + seed % 3
        state, _ = GAME.new_game(players, {}, seed)
        rng = Rng(seed)
        for _ in range(seed % 25):  # somewhere in the first round
            if state.over:
                break
            legal = GAME.legal_actions(state, state.turn)
            state, _ = GAME.apply(state, state.turn, legal[rng.below(len(legal))])
        me = state.turn
        view = GAME.view(state, me)
        sample = determinize(view, Rng(seed + 1))
        assert GAME.view(sample, me) == view, "the same from where the player sits"
        cards = [c for h in sample.hands for c in h] + [c for e in sample.egos for c in e]
        cards += [c for t in sample.tables for c in t] + list(sample.discard)
        cards += [sample.facedown] if sample.facedown >= 0 else []
        assert sorted(cards) == sorted(cards_in_play(players)), "every card exactly once"


@pytest.mark.slow
def test_the_searching_player_beats_the_greedy_one() -> None:
    """Over 20 seeded games (2 and 4 players, half the seats each), search wins most."""
    search, greedy = SearchPlayer(), GreedyPlayer()
    wins = 0
    for seed in range(20):
        players = 2 + seed % 2 * 2
        seats: list[object] = [search if (i + seed) % 2 == 0 else greedy for i in range(players)]
        winner = GAME.result(play(seats, seed, players))[0].player
        wins += seats[winner] is search
    assert wins >= 14, wins


def test_the_cards_seen_taken_are_never_dealt_into_a_hand() -> None:
    """Every card in an ego pile lay face up on a table when it was taken: the view names
    them (not who took which), and the searching player's deals keep them out of the hands."""
    seen_taken = 0
    for seed in range(30):
        players = 2 + seed % 3
        state, _ = GAME.new_game(players, {}, seed)
        rng = Rng(seed)
        for _ in range(4 + seed % 9):
            legal = GAME.legal_actions(state, state.turn)
            after, _ = GAME.apply(state, state.turn, legal[rng.below(len(legal))])
            if after.round != state.round or after.over:
                break
            state = after
        me = state.turn
        view = GAME.view(state, me)
        taken = sorted(c for pile in state.egos for c in pile)
        assert list(view.taken) == taken
        seen_taken += len(taken)
        for n in range(5):
            sample = determinize(view, Rng(n))
            assert not set(taken) & {c for h in sample.hands for c in h}
            assert sorted(c for pile in sample.egos for c in pile) == taken
            assert sample.facedown not in taken
    assert seen_taken > 20, "the positions had cards in ego piles"
