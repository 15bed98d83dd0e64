"""Random EGO games, 2-6 players, both values of the refusal option: tokens are conserved,
every game ends, a view never shows another player's pick before the reveal, and a game
replays exactly from (options, seed, actions)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import Rng, from_json, to_json
from engine.ego import GAME
from engine.ego.players import RandomPlayer, ReaderPlayer
from engine.ego.rules import REFUSE, SKIPPED, State

MAX_STEPS = 50_000
TIMEOUT = "timeout"


def total(state: State) -> int:
    return sum(state.tokens) + state.bank + state.removed


def others_changed(state: State, viewer: int) -> State:
    """The same state with every pick but the viewer's changed (made or not stays the same)."""
    guesses = tuple(g if p == viewer or g <= 0 else g % 3 + 1 for p, g in enumerate(state.guesses))
    stakes = tuple(s if p == viewer or s == 0 else 3 - s for p, s in enumerate(state.stakes))
    answer = state.answer if viewer == state.active or not state.answer else state.answer % 3 + 1
    return state._replace(guesses=guesses, stakes=stakes, answer=answer)


def check_views(state: State) -> None:
    for viewer in range(state.players):
        assert GAME.view(state, viewer) == GAME.view(others_changed(state, viewer), viewer)
    public = state._replace(
        guesses=tuple(g if g <= 0 else g % 3 + 1 for g in state.guesses),
        stakes=tuple(3 - s if s else 0 for s in state.stakes),
        answer=state.answer % 3 + 1 if state.answer else 0,
    )
    assert GAME.view(state, None) == GAME.view(public, None)


def random_game(seed: int, players: int, from_bank: bool) -> tuple[State, list[Any]]:
    """People who pick at random, change their minds, refuse now and then and go idle; returns
    the end state and the actions (player, code or TIMEOUT)."""
    rng = Rng(seed)
    options = {"refusal_from_bank": from_bank}
    state, _ = GAME.new_game(players, options, seed)
    start = total(state)
    actions: list[Any] = []
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            return state, actions
        awaited = GAME.to_move(state)
        assert awaited
        movers = [p for p in range(players) if GAME.legal_actions(state, p)]
        roll = rng.below(100)
        if roll < 4:
            player = awaited[rng.below(len(awaited))]
            state, _ = GAME.timeout(state, player)
            actions.append((player, TIMEOUT))
        else:
            player = movers[rng.below(len(movers))] if roll < 30 else awaited[0]
            legal = GAME.legal_actions(state, player)
            if REFUSE in legal and rng.below(10):
                legal = [a for a in legal if a != REFUSE]
            action = legal[rng.below(len(legal))]
            state, _ = GAME.apply(state, player, action)
            actions.append((player, GAME.encode_action(action)))
        assert total(state) == start, "tokens are conserved"
        assert min(state.tokens) >= 0 and state.bank >= 0
        check_views(state)
    raise AssertionError("the game did not end")


def replay(seed: int, players: int, from_bank: bool, actions: list[Any]) -> State:
    state, _ = GAME.new_game(players, {"refusal_from_bank": from_bank}, seed)
    for player, code in actions:
        if code == TIMEOUT:
            state, _ = GAME.timeout(state, player)
        else:
            state, _ = GAME.apply(state, player, GAME.decode_action(code))
    return state


def computer_game(seed: int, players: int, from_bank: bool, blind: bool) -> State:
    """Computer players in every seat (blind ones guess at random)."""
    rng = Rng(seed)
    state, _ = GAME.new_game(players, {"refusal_from_bank": from_bank}, seed)
    start = total(state)
    bots = [RandomPlayer() if blind or p % 2 else ReaderPlayer() for p in range(players)]
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            return state
        player = GAME.to_move(state)[0]
        action = bots[player].choose(
            GAME.view(state, player), GAME.legal_actions(state, player), rng
        )
        assert action is not None
        state, _ = GAME.apply(state, player, action)
        assert total(state) == start
    raise AssertionError("the game did not end")


def run(games: int) -> None:
    for seed in range(games):
        players, from_bank = 2 + seed % 5, bool(seed // 5 % 2)
        end, actions = random_game(seed, players, from_bank)
        assert end.over and end.reason
        assert SKIPPED not in end.guesses
        again = replay(seed, players, from_bank, actions)
        assert to_json(GAME, again) == to_json(GAME, end), "replay is exact"
        assert from_json(GAME, to_json(GAME, end)) == end
        for blind in (True, False):
            assert computer_game(seed, players, from_bank, blind).over


def test_a_few_random_games() -> None:
    run(20)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_thousands_of_random_games() -> None:
    run(1000)
