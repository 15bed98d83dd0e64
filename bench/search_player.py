"""Time per move of Egonomy's searching computer player (the one the chat seats).

Every seat of seeded 2-4 player games is the searching player; each of its choices among two or
more legal actions is timed (a single legal action is played without thinking).
Usage: python bench/search_player.py [--games N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.core import Rng
from engine.egonomy import GAME
from engine.egonomy.players import SearchPlayer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=24)
    args = parser.parse_args()
    player = SearchPlayer()
    times: list[float] = []
    started = time.perf_counter()
    for seed in range(args.games):
        state, _ = GAME.new_game(2 + seed % 3, {"flip": seed % 2 == 1}, seed)
        rng = Rng(seed)
        while not state.over:
            p = state.turn
            legal = GAME.legal_actions(state, p)
            if len(legal) > 1:
                t0 = time.perf_counter()
                action = player.choose(GAME.view(state, p), legal, rng)
                times.append(time.perf_counter() - t0)
            else:
                action = legal[0]
            state, _ = GAME.apply(state, p, action)
    total = time.perf_counter() - started
    times.sort()
    ms = [t * 1000 for t in times]
    print(f"{args.games} games, {len(ms)} searched moves, {total:.1f} s in all")
    print(
        f"  ms per move: median {statistics.median(ms):.2f}, p90 {ms[int(len(ms) * 0.9)]:.2f},"
        f" p99 {ms[int(len(ms) * 0.99)]:.2f}, max {ms[-1]:.2f}"
    )


if __name__ == "__main__":
    main()
