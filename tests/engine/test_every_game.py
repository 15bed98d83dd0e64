"""One property suite over every game: the hosted ones (`chatbot.games.registry()`) and the
games that exist only in the tests, through the `Game` protocol alone. A new game is checked
here the day it is registered; each game's own suite keeps what is particular to it (its rules,
what its views must hide).

Random playouts (random seats, options, actions, and now and then a person's time running out)
check at every step: each listed action applies and its code reads back as itself, an action
not listed for a seat is refused and changes nothing, malformed codes are refused, the state
survives its JSON form, views are pure; at the end: nobody may act, every seat is placed, and
the game replays to the same state from its options, seed and moves.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from chatbot.core.registry import Bundle
from chatbot.games import registry
from engine.core import Budget, IllegalAction, Rng, from_json, to_json
from tests.games import pick, slap

BUNDLES: list[Bundle] = [*registry(), pick.bundle(), slap.bundle()]
MAX_STEPS = 30_000  # every game here ends long before (a game that does not is a failure)
TIMEOUTS = 0.03  # share of steps where an awaited person's time runs out
COMPUTER = 0.7  # share of steps where the game's computer player chooses (random play alone
# may never finish a card game: nobody tries to empty a hand)
THINKING = Budget(playouts=8)  # a computer's thinking in these games: little, reproducible
RANDOM_STEPS = 1_000  # after this many steps only the computer player chooses (random wrong
# plays under a penalty rule can keep a card game going for ever)
GARBAGE = ("", "?", "|", "zz", "-1", "999999", "x" * 40, "é", "0|0|0")


def random_options(bundle: Bundle, rng: random.Random) -> dict[str, Any]:
    """A random mix of the game's options, with those whose need is unmet set back."""
    spec = bundle.game.spec
    chosen = {o.name: rng.choice(o.choices) for o in spec.options}
    spec.settle(chosen)
    return spec.resolve_options(chosen)


def playout(bundle: Bundle, players: int, seed: int) -> None:
    """One random game with every check; raises AssertionError on the first broken one."""
    game, rng = bundle.game, random.Random(seed)
    options = random_options(bundle, rng)
    state, _ = game.new_game(players, options, seed)
    trail: list[tuple[int, Any]] = []
    for step in range(MAX_STEPS):
        check_state(bundle, state, players, rng)
        if game.is_over(state):
            break
        legal = {p: game.legal_actions(state, p) for p in range(players)}
        awaited = [p for p in game.to_move(state) if legal[p]]
        settling = step >= RANDOM_STEPS  # from here on the game's own players finish it
        if awaited and not settling and rng.random() < TIMEOUTS:
            seat = rng.choice(awaited)
            timed_out = game.timeout(state, seat)
            if timed_out is not None:
                state, _ = timed_out
                trail.append((seat, None))
                continue
        movers = [p for p in range(players) if legal[p]]
        assert movers, f"{bundle.name}: nobody may act in a game that is not over"
        seat = rng.choice(awaited if settling and awaited else movers)
        action = None
        if settling or rng.random() < COMPUTER:
            view = game.view(state, seat)
            action = bundle.computer.choose(view, legal[seat], Rng(rng.getrandbits(63)), THINKING)
            assert action is None or action in legal[seat], "the computer chose a listed action"
        if action is None and settling and seat not in awaited:
            continue  # (a computer lets a chance out of turn go)
        if action is None:
            action = rng.choice(legal[seat])
        state, _ = game.apply(state, seat, action)
        trail.append((seat, action))
    else:
        raise AssertionError(f"{bundle.name}: no end after {MAX_STEPS} steps")
    assert all(not game.legal_actions(state, p) for p in range(players)), "acting after the end"
    placings = game.result(state)
    assert sorted(p.player for p in placings) == list(range(players)), placings
    assert all(p.place >= 1 for p in placings)
    assert to_json(game, replay(bundle, players, options, seed, trail)) == to_json(game, state)


def replay(
    bundle: Bundle, players: int, options: dict[str, Any], seed: int, trail: list[tuple[int, Any]]
) -> Any:
    """The state after replaying `trail` (None: that seat's time ran out) from the deal."""
    game = bundle.game
    state, _ = game.new_game(players, options, seed)
    for seat, action in trail:
        if action is None:
            timed_out = game.timeout(state, seat)
            assert timed_out is not None
            state, _ = timed_out
        else:
            state, _ = game.apply(state, seat, action)
    return state


def check_state(bundle: Bundle, state: Any, players: int, rng: random.Random) -> None:
    game = bundle.game
    raw = to_json(game, state)
    assert to_json(game, from_json(game, raw)) == raw, "the state survives its JSON form"
    assert game.load(game.dump(state)) == state
    for viewer in (None, *range(players)):
        assert game.view(state, viewer) == game.view(state, viewer), "a view is pure"
    listed = {p: game.legal_actions(state, p) for p in range(players)}
    for actions in listed.values():
        for action in rng.sample(actions, min(len(actions), 12)):
            code = game.encode_action(action)
            assert code.isascii() and game.decode_action(code) == action, code
    codes = {game.encode_action(a) for actions in listed.values() for a in actions}
    for seat, actions in listed.items():
        mine = {game.encode_action(a) for a in actions}
        for code in rng.sample(sorted(codes - mine), min(len(codes - mine), 4)):
            with pytest.raises(IllegalAction):  # another seat's action, not this one's
                game.apply(state, seat, game.decode_action(code))
    for code in GARBAGE:
        try:
            action = game.decode_action(code)
        except IllegalAction:
            continue
        for seat, actions in listed.items():
            if action not in actions:
                with pytest.raises(IllegalAction):
                    game.apply(state, seat, action)
    assert to_json(game, state) == raw, "a refused action changed nothing"


def seat_counts(bundle: Bundle) -> range:
    spec = bundle.game.spec
    return range(spec.min_players, spec.max_players + 1)


@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_random_games_of_every_game_keep_every_invariant(bundle: Bundle) -> None:
    for players in seat_counts(bundle):
        playout(bundle, players, seed=players)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_many_random_games_of_every_game(bundle: Bundle) -> None:
    for seed in range(10):
        for players in seat_counts(bundle):
            playout(bundle, players, seed=1000 + seed)
