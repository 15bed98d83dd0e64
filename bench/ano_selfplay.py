"""Ano random self-play: actions/s and games/s, and in the same run the same figures for
RLCard's UNO (its rules alone: the headline; and its `UnoGame.step()`) when rlcard is
installed, and for OpenSpiel's crazy_eights when open_spiel is (neither is ever a dependency
of the bot: `pip install rlcard open_spiel` to compare; see bench/anchors.py).

What each side times, game after game with the same number of players:
- Ano: `GAME.new_game` (shuffle and deal), then until the game is over: `GAME.legal_actions`
  for the player to move and `GAME.apply` of one of them (new state and events). Ano's
  out-of-turn chances (jump-in, calls, catches) are left aside, as UNO has none; an Ano game
  goes on until one loser is left.
- RLCard, rules alone: `UnoGame(num_players=N)` with its generator seeded, `init_game`
  (deal), then until the game is over: `round.get_legal_actions` and `round.proceed_round`,
  what its `step` does for the rules; beside it the public `get_legal_actions` and `step`
  (which also builds the next player's whole observation).
- OpenSpiel crazy_eights (C++ through pyspiel): its decisions, its chance events played too.
All pick the action the same way: `legal[int(random() * len(legal))]`, `random` a seeded
`random.Random(...).random`. An action = one listing plus
one step. The two sides run in alternating rounds (the machine may be shared), and each figure
is the median over the rounds; the ratios compare Ano's default options with each.
The stored JSON size is measured apart, untimed.
Usage: python bench/ano_selfplay.py [--games N] [--players N] [--rounds N]
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

from anchors import openspiel_crazy_eights, rlcard_rules, rlcard_step  # beside this file

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
    anchors = {
        RULES: rlcard_rules(lambda _: n),
        "RLCard UnoGame.step()": rlcard_step(lambda _: n),
        OPENSPIEL: openspiel_crazy_eights(lambda _: n),
    }
    for label, anchor in anchors.items():
        if anchor is not None:
            sides[label] = (anchor, None)
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
    for label, anchor in anchors.items():
        if anchor is None:
            package = "open_spiel" if label == OPENSPIEL else "rlcard"
            print(f"{label}: not installed (pip install {package})")
            continue
        ratios = [
            a / u
            for a, u in zip(figures["Ano, default options"][0], figures[label][0], strict=True)
        ]
        print(
            f"Ano / {label}, actions/s: {statistics.median(ratios):.2f}x "
            f"(median of the rounds' ratios; rounds {min(ratios):.2f}x-{max(ratios):.2f}x)"
        )


RULES = "RLCard UNO rules alone"
OPENSPIEL = "OpenSpiel crazy_eights"


if __name__ == "__main__":
    main()
