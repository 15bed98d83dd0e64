"""Self-play benchmark of the game engines: actions/s, games/s and stored state size.

An action = listing the legal actions of the player to move + applying one of them (picked
uniformly at random as the anchors pick: `legal[int(random() * len(legal))]` with a seeded
`random.Random`), all through the public game API, which is what a searching computer
player's playout does. Setting up each game is timed too.

When RLCard is installed (`pip install rlcard`; not a dependency of the project), the same
number of games with the same player counts run on its UNO in runs interleaved with ours:
its rules alone (`round.get_legal_actions` + `round.proceed_round`, the headline ratio) and
its public `UnoGame.step()` (which also builds the next player's observation) beside it; see
bench/anchors.py. Without it only our figure is printed.
Usage: python bench/engine_selfplay.py [--games N] [--runs 5] [--game egonomy]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine
sys.path.insert(0, str(Path(__file__).resolve().parent))

from anchors import rlcard_rules, rlcard_step  # beside this file

from chatbot.games import registry
from engine.core import GameSpec, OptionValue, Rng, to_json

Run = Callable[[int, int], tuple[int, float]]  # (games, first seed) -> (actions, seconds)
RULES, STEP = "RLCard UNO rules alone", "RLCard UnoGame.step()"


def ours(game_name: str, players: tuple[int, ...]) -> Run:
    """A timed run of `games` random self-play games of our engine: (actions, seconds)."""
    game = registry()[game_name].game
    options = option_sets(game.spec)

    def run(games: int, first: int) -> tuple[int, float]:
        pick = random.Random(12345 + first).random
        actions = 0
        started = time.perf_counter()
        for i in range(first, first + games):
            state: Any
            state, _ = game.new_game(players[i % len(players)], options[i % len(options)], i)
            while not game.is_over(state):
                (player,) = game.to_move(state)[:1]
                legal = game.legal_actions(state, player)
                state, _ = game.apply(state, player, legal[int(pick() * len(legal))])
                actions += 1
        return actions, time.perf_counter() - started

    return run


def option_sets(spec: GameSpec) -> list[dict[str, OptionValue]]:
    """The defaults, then each option at its last choice (flip on, two decks...), with the
    option it needs set too (jump-in with two decks)."""
    sets: list[dict[str, OptionValue]] = [{}]
    for option in spec.options:
        needed = dict([option.needs]) if option.needs else {}
        sets.append({**needed, option.name: option.choices[-1]})
    return sets


def stored_sizes(game_name: str, games: int, players: tuple[int, ...]) -> list[int]:
    """Stored JSON size after 20 random actions of each game (not timed)."""
    game = registry()[game_name].game
    rng = Rng(12345)
    sizes = []
    for i in range(games):
        state: Any
        state, _ = game.new_game(players[i % len(players)], {}, i)
        for _ in range(20):
            if game.is_over(state):
                break
            (player,) = game.to_move(state)[:1]
            legal = game.legal_actions(state, player)
            state, _ = game.apply(state, player, legal[rng.below(len(legal))])
        sizes.append(len(to_json(game, state)))
    return sorted(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--game", default="egonomy", choices=sorted(registry().names))
    args = parser.parse_args()
    spec = registry()[args.game].game.spec
    players = tuple(range(spec.min_players, spec.max_players + 1))
    sides: dict[str, Run] = {args.game: ours(args.game, players)}
    for label, anchor in (
        (RULES, rlcard_rules(lambda i: players[i % len(players)])),
        (STEP, rlcard_step(lambda i: players[i % len(players)])),
    ):
        if anchor is not None:
            sides[label] = anchor
    rates: dict[str, list[float]] = {name: [] for name in sides}
    games_rates: dict[str, list[float]] = {name: [] for name in sides}
    per_game: dict[str, float] = {}
    for _ in range(args.runs):  # interleaved: every side once per run, the same games
        for name, run in sides.items():
            actions, elapsed = run(args.games, 0)
            rates[name].append(actions / elapsed)
            games_rates[name].append(args.games / elapsed)
            per_game[name] = actions / args.games
    print(f"{args.games} random self-play games a run, players {players}, {args.runs} runs")
    print("medians of the runs (min-max):")
    for name in sides:
        r = rates[name]
        print(
            f"  {name:22} actions/s {statistics.median(r):9.0f} ({min(r):.0f}-{max(r):.0f})"
            f"  games/s {statistics.median(games_rates[name]):7.0f}"
            f"  ({per_game[name]:.1f} actions a game)"
        )
    for name in (RULES, STEP):
        if name in sides:
            ratio = statistics.median(rates[args.game]) / statistics.median(rates[name])
            print(f"  ratio {args.game} / {name}: {ratio:.2f}")
    if RULES not in sides:
        print("  (RLCard not installed: no comparison)")
    sizes = stored_sizes(args.game, args.games, players)
    print(f"stored JSON after 20 actions: median {sizes[len(sizes) // 2]} B, max {sizes[-1]} B")


if __name__ == "__main__":
    main()
