"""Other projects' card-game engines, timed the way bench/engine_selfplay.py and
bench/ano_selfplay.py time ours: each `Run` plays `games` random games, seeded from `first`,
and returns (actions, seconds). Neither RLCard nor OpenSpiel is a dependency of the bot: each
factory returns None when its package is not installed (`pip install rlcard open_spiel`).

- `rlcard_rules`: RLCard's UNO rules alone, the same calls its `UnoGame` makes for an action
  (`round.get_legal_actions` + `round.proceed_round`), and nothing else: the fair comparison
  with our `legal_actions` + `apply`.
- `rlcard_step`: RLCard's public `UnoGame` API (`get_legal_actions` + `step`); `step` also
  builds the next player's whole observation, which our engines' `apply` does not.
- `openspiel_crazy_eights`: OpenSpiel's `crazy_eights` (C++, driven from Python through
  pyspiel), the closest anchor to Ano: `legal_actions` + `apply_action` for each decision; its
  chance events (the deal, each card drawn) are sampled and applied too, and timed, but only
  the players' decisions count as actions.
Every side picks `legal[int(random() * len(legal))]` with a seeded `random.Random`.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from typing import Any

Run = Callable[[int, int], tuple[int, float]]  # (games, first seed) -> (actions, seconds)
Players = Callable[[int], int]  # game number -> players


def _uno() -> tuple[Any, Any] | None:
    try:  # imported by name, so that neither is needed to type-check the bot
        np = importlib.import_module("numpy")
        return np, importlib.import_module("rlcard.games.uno.game").UnoGame
    except ImportError:
        return None


def rlcard_rules(players: Players) -> Run | None:
    """RLCard's UNO round: get_legal_actions + proceed_round (the rules alone)."""
    found = _uno()
    if found is None:
        return None
    np, uno_game = found

    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(first).random
        actions = 0
        started = time.perf_counter()
        for seed in range(first, first + games):
            game = uno_game(num_players=players(seed))
            game.np_random = np.random.RandomState(seed)
            game.init_game()
            round_, seats = game.round, game.players
            legal_actions, proceed = round_.get_legal_actions, round_.proceed_round
            while not round_.is_over:
                legal = legal_actions(seats, round_.current_player)
                proceed(seats, legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run


def rlcard_step(players: Players) -> Run | None:
    """RLCard's UnoGame: get_legal_actions + step (which also builds an observation)."""
    found = _uno()
    if found is None:
        return None
    np, uno_game = found

    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(first).random
        actions = 0
        started = time.perf_counter()
        for seed in range(first, first + games):
            game = uno_game(num_players=players(seed))
            game.np_random = np.random.RandomState(seed)
            game.init_game()
            while not game.is_over():
                legal = game.get_legal_actions()
                game.step(legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run


def openspiel_crazy_eights(players: Players) -> Run | None:
    """OpenSpiel's crazy_eights: its players' decisions counted, its chance events played."""
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        return None
    loaded: dict[int, Any] = {}

    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(first).random
        actions = 0
        started = time.perf_counter()
        for seed in range(first, first + games):
            n = players(seed)
            if n not in loaded:
                loaded[n] = pyspiel.load_game("crazy_eights", {"players": n})
            state = loaded[n].new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()  # uniform: a deal, a draw
                    state.apply_action(outcomes[int(pick() * len(outcomes))][0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run
