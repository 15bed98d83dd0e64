"""Ano random self-play: actions/s and games/s, and in the same run the same figures for
RLCard's UNO game object when rlcard is installed (it is never a dependency of the bot:
`pip install rlcard` to compare).

What each side times, game after game with the same number of players:
- Ano: `GAME.new_game` (shuffle and deal), then until the game is over: `GAME.legal_actions`
  for the player to move and `GAME.apply` of one of them (new state and events). Ano's
  out-of-turn chances (jump-in, calls, catches) are left aside, as UNO has none; an Ano game
  goes on until one loser is left.
- RLCard: `UnoGame(num_players=N)` with its generator seeded, `init_game` (deal), then until
  the game is over: `get_legal_actions` and `step` (which also builds the next player's state).
Both pick the action the same way: `legal[int(random() * len(legal))]`, `random` a seeded
`random.Random(...).random`. An action = one listing plus
one step. The two sides run in alternating rounds (the machine may be shared), and each figure
is the median over the rounds; the ratio compares Ano's default options with RLCard.
The stored JSON size is measured apart, untimed.
Usage: python bench/ano_selfplay.py [--games N] [--players N] [--rounds N]
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.ano import GAME
from engine.ano.rules import State
from engine.core import to_json

Run = Callable[[int, int], tuple[int, float]]  # (games, first seed) -> (actions, seconds)


def ano(players: int, options: dict[str, Any]) -> Run:
    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(first).random
        new_game, legal_actions, apply = GAME.new_game, GAME.legal_actions, GAME.apply
        actions = 0
        started = time.perf_counter()
        for seed in range(first, first + games):
            state: State
            state, _ = new_game(players, options, seed)
            while not state.over:
                player = state.turn
                legal = legal_actions(state, player)
                state, _ = apply(state, player, legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run


def stored_sizes(games: int, players: int, options: dict[str, Any]) -> list[int]:
    """The stored JSON's size after 20 actions of each game (untimed)."""
    pick = random.Random(0)
    sizes = []
    for seed in range(games):
        state, _ = GAME.new_game(players, options, seed)
        for _ in range(20):
            if state.over:
                break
            legal = GAME.legal_actions(state, state.turn)
            state, _ = GAME.apply(state, state.turn, legal[pick.randrange(len(legal))])
        sizes.append(len(to_json(GAME, state)))
    return sorted(sizes)


def rlcard_uno(players: int) -> Run | None:
    """RLCard's UnoGame: init_game, get_legal_actions, step with a random legal action."""
    try:  # optional: imported by name, so that neither is needed to type-check the bot
        np = importlib.import_module("numpy")
        uno_game = importlib.import_module("rlcard.games.uno.game")
    except ImportError:
        return None

    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(first).random
        actions = 0
        started = time.perf_counter()
        for seed in range(first, first + games):
            game = uno_game.UnoGame(num_players=players)
            game.np_random = np.random.RandomState(seed)
            game.init_game()
            while not game.is_over():
                legal = game.get_legal_actions()
                game.step(legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n, rounds = args.players, args.rounds
    per_round = max(1, args.games // rounds)
    games = per_round * rounds
    sides: dict[str, tuple[Run, dict[str, Any] | None]] = {
        "Ano, default options": (ano(n, {}), {}),
        "Ano, two decks, jump-in, points": (
            ano(n, two := {"decks": 2, "jump_in": True, "points": True}),
            two,
        ),
    }
    uno = rlcard_uno(n)
    if uno is not None:
        sides["RLCard UnoGame"] = (uno, None)
    figures: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in sides}
    for r in range(rounds):
        for label, (run, _) in sides.items():
            actions, seconds = run(per_round, r * per_round)
            figures[label][0].append(actions / seconds)
            figures[label][1].append(per_round / seconds)
    print(f"{n} players, {games} games per side in {rounds} alternating rounds (medians)")
    for label, (_, options) in sides.items():
        steps, rate = figures[label]
        print(f"{label}:")
        print(f"  actions/s  {statistics.median(steps):10.0f}")
        print(f"  games/s    {statistics.median(rate):10.1f}")
        if options is not None:
            sizes = stored_sizes(200, n, options)
            print(f"  stored JSON after 20 actions: median {sizes[len(sizes) // 2]} B")
    if uno is None:
        print("RLCard UNO: rlcard is not installed (pip install rlcard)")
        return
    ratios = [
        a / u
        for a, u in zip(
            figures["Ano, default options"][0], figures["RLCard UnoGame"][0], strict=True
        )
    ]
    print(
        f"Ano / RLCard actions/s: {statistics.median(ratios):.2f}x "
        f"(median of the rounds' ratios; rounds {min(ratios):.2f}x-{max(ratios):.2f}x)"
    )


if __name__ == "__main__":
    main()
