"""Ano's computer players: legal, sensible (call Ano, catch forgetters, keep chain cards) and
better than random."""

from __future__ import annotations

from engine.ano import GAME
from engine.ano.players import RandomPlayer, SensiblePlayer
from engine.ano.rules import CALL, CATCH, DRAW, FORGOT_CALL, OWES, PLAY, Action, State, apply
from engine.core import Player, Rng

from .helpers import cards, position


def choose(state: State, seat: int, player: Player[Action] | None = None) -> Action | None:
    player = player or SensiblePlayer()
    return player.choose(GAME.view(state, seat), GAME.legal_actions(state, seat), Rng(1))


def test_calls_ano_with_the_play() -> None:
    state = position(["3H 9D", "2C 5S", "9C"], top="7H")
    action = choose(state, 0)
    assert action is not None and action.call
    assert apply(state, 0, action)[0].ano[0] != OWES


def test_catches_a_forgetter_out_of_turn() -> None:
    state = position(["9D", "2C 5S", "9C 4S"], top="7H", ano=(FORGOT_CALL, 0, 0), turn=1)
    assert choose(state, 2) == Action(CATCH, target=0)
    assert choose(state, 1) == Action(CATCH, target=0)


def test_calls_when_it_owes() -> None:
    state = position(["9D", "2C 5S", "9C 4S"], top="7H", ano=(OWES, 0, 0), turn=1)
    assert choose(state, 0) == Action(CALL)


def test_lets_a_chance_go_out_of_turn_when_it_has_none() -> None:
    state = position(["9D 3S", "2C 5S", "9C 4S"], top="7H", turn=1)
    assert choose(state, 0) is None


def test_keeps_the_joker_and_ends_a_chain_with_a_number() -> None:
    state = position(["JO 7S 4C", "2C 5S 6D 8D"], top="7H")
    assert choose(state, 0) == Action(PLAY, cards("7S"))
    chain = position(["KS 5H JO 2C", "2C 5S 6D"], top="QH", pending=2)
    assert choose(chain, 0) == Action(PLAY, cards("5H"))


def test_draws_only_when_nothing_fits() -> None:
    state = position(["2S 9D 4C", "2C"], top="7H", pile="5D")
    assert choose(state, 0) == Action(DRAW)


def test_sensible_beats_random() -> None:
    """Seat 0 sensible against three random players: it finishes first far more often than
    the one game in four that chance gives."""
    wins = 0
    games = 120
    players: list[Player[Action]] = [SensiblePlayer(), RandomPlayer(), RandomPlayer()]
    players.append(RandomPlayer())
    for seed in range(games):
        state, _ = GAME.new_game(4, {}, seed)
        rng = Rng(seed)
        while not state.over:
            seat = state.turn
            legal = GAME.legal_actions(state, seat)
            action = players[seat].choose(GAME.view(state, seat), legal, rng) or legal[0]
            state, _ = apply(state, seat, action)
        wins += state.finished[0] == 0
    assert wins > games / 2
