"""Random EGO games, 2-6 players, both values of the refusal option: what EGO's rules keep
after every action. What every game keeps (codes, JSON, listed actions applying, the end, the
replay) is checked for every game in tests/engine/test_every_game.py.

Quotes come from the rulebook (seed 002, Estonian, with an English gloss) and
docs/rulings.md (section EGO)."""

from __future__ import annotations

import pytest

from engine.core import Rng
from engine.ego import GAME
from engine.ego.players import RandomPlayer, ReaderPlayer
from engine.ego.rules import BANK_PER_PLAYER, END_REASONS, REFUSE, START_TOKENS, State

MAX_STEPS = 50_000


def check_tokens_conserved(state: State) -> None:
    """ "Iga mängija võtab ka 10 punast panusežetooni ... aseta 10 punast panusežetooni mängija
    kohta žetoonialusele" (each player takes 10 tokens; 10 per player go on the tray): the
    players' tokens, the bank and the tokens a refusal took out of the game
    (docs/rulings.md#ego-refusing) always sum to that; nobody and no bank goes below none
    (docs/rulings.md#ego-payouts-and-the-end)."""
    total = sum(state.tokens) + state.bank + state.removed
    assert total == (START_TOKENS + BANK_PER_PLAYER) * state.players, "tokens are conserved"
    assert min(state.tokens) >= 0 and state.bank >= 0


def others_changed(state: State, viewer: int) -> State:
    """The same state with every pick but the viewer's changed (made or not stays the same)."""
    guesses = tuple(g if p == viewer or g <= 0 else g % 3 + 1 for p, g in enumerate(state.guesses))
    stakes = tuple(s if p == viewer or s == 0 else 3 - s for p, s in enumerate(state.stakes))
    answer = state.answer if viewer == state.active or not state.answer else state.answer % 3 + 1
    return state._replace(guesses=guesses, stakes=stakes, answer=answer)


def check_picks_hidden(state: State) -> None:
    """Nothing is shown before the reveal (docs/rulings.md#ego-changing-a-pick): a player's
    view is the same whatever the others picked, and the group's whatever anyone picked."""
    for viewer in range(state.players):
        assert GAME.view(state, viewer) == GAME.view(others_changed(state, viewer), viewer)
    public = state._replace(
        guesses=tuple(g if g <= 0 else g % 3 + 1 for g in state.guesses),
        stakes=tuple(3 - s if s else 0 for s in state.stakes),
        answer=state.answer % 3 + 1 if state.answer else 0,
    )
    assert GAME.view(state, None) == GAME.view(public, None)


def check_end(state: State) -> None:
    """The game ends for one of its reasons (docs/rulings.md#ego-payouts-and-the-end), with no
    pick left standing."""
    assert state.reason in END_REASONS
    assert not any(state.guesses) and not any(state.stakes) and not state.answer


def random_game(seed: int, players: int, from_bank: bool) -> None:
    """People who pick at random, change their minds, refuse now and then and go idle."""
    rng = Rng(seed)
    state, _ = GAME.new_game(players, {"refusal_from_bank": from_bank}, seed)
    check_tokens_conserved(state)
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            check_end(state)
            return
        awaited = GAME.to_move(state)
        movers = [p for p in range(players) if GAME.legal_actions(state, p)]
        roll = rng.below(100)
        if roll < 4:
            state, _ = GAME.timeout(state, awaited[rng.below(len(awaited))])
        else:
            player = movers[rng.below(len(movers))] if roll < 30 else awaited[0]
            legal = GAME.legal_actions(state, player)
            if REFUSE in legal and rng.below(10):
                legal = [a for a in legal if a != REFUSE]
            state, _ = GAME.apply(state, player, legal[rng.below(len(legal))])
        check_tokens_conserved(state)
        check_picks_hidden(state)
    raise AssertionError("the game did not end")


def computer_game(seed: int, players: int, from_bank: bool) -> None:
    """Computer players in every seat, blind ones (guessing at random) in every other seat:
    tokens are conserved."""
    rng = Rng(seed)
    state, _ = GAME.new_game(players, {"refusal_from_bank": from_bank}, seed)
    bots = [RandomPlayer() if p % 2 else ReaderPlayer() for p in range(players)]
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            check_end(state)
            return
        player = GAME.to_move(state)[0]
        legal = GAME.legal_actions(state, player)
        action = bots[player].choose(GAME.view(state, player), legal, rng)
        assert action in legal
        state, _ = GAME.apply(state, player, action)
        check_tokens_conserved(state)
    raise AssertionError("the game did not end")


def run(games: int) -> None:
    for seed in range(games):
        players, from_bank = 2 + seed % 5, bool(seed // 5 % 2)
        random_game(seed, players, from_bank)
        computer_game(seed, players, from_bank)


def test_a_few_random_games() -> None:
    run(20)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_thousands_of_random_games() -> None:
    run(1000)
