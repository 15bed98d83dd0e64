"""How much stronger Egonomy's searching computer player (SearchPlayer, the one the chat seats)
is than the one before it (FlatSearchPlayer), with the same thinking budget a move.

Seeded games, the two players in alternate seats: with 2 players each seed is played twice,
the seats swapped; with 4 players seats alternate and rotate. A game is a win when a
SearchPlayer seat finishes first (even strength: 50%). Prints the games, the wins, the win
rate and its 95% (Wilson) interval, and each side's time and playouts a move.
Usage: python bench/search_strength.py [--games N] [--players 2|4] [--ms MS | --playouts N]
The budget is the chat's (THINK_PLAYOUTS, and THINK_BUDGET seconds at most) unless given; with
--playouts (no clock), every game is reproducible from its seed.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from chatbot.settings import Settings
from engine.core import Budget, Rng
from engine.egonomy import GAME
from engine.egonomy.players import FlatSearchPlayer, SearchPlayer


def play(game: int, players: int, budget: Budget) -> tuple[bool, dict[str, list[float]]]:
    """Game number `game`: whether SearchPlayer won, and each side's seconds a searched move."""
    seed, turn = divmod(game, 2) if players == 2 else (game, game)
    new, old = SearchPlayer(), FlatSearchPlayer()
    seats = [new if (p + turn) % 2 == 0 else old for p in range(players)]
    rngs = [Rng(seed * 16 + p) for p in range(players)]
    times: dict[str, list[float]] = {new.name: [], old.name: []}
    state, _ = GAME.new_game(players, {"flip": seed % 2 == 1}, seed)
    while not state.over:
        p = state.turn
        legal = GAME.legal_actions(state, p)
        t0 = time.perf_counter()
        action = seats[p].choose(GAME.view(state, p), legal, rngs[p], budget)
        if len(legal) > 1:
            times[seats[p].name].append(time.perf_counter() - t0)
        state, _ = GAME.apply(state, p, action)
    winner = GAME.result(state)[0].player
    return seats[winner] is new, times


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(args: argparse.Namespace) -> None:
    if args.playouts:
        budget = Budget(playouts=args.playouts)
        said = f"{args.playouts} playouts a move"
    elif args.ms:
        budget = Budget(seconds=args.ms / 1000, clock=time.perf_counter)
        said = f"{args.ms:g} ms a move"
    else:  # the chat's budget
        chat = Settings()
        budget = Budget(chat.think_playouts, chat.think_budget, time.perf_counter)
        said = f"the chat's budget: {chat.think_playouts} playouts, {chat.think_budget:g} s at most"
    games = range(args.first, args.first + args.games)
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play, games, [args.players] * args.games, [budget] * args.games))
    wins = sum(won for won, _ in results)
    n = len(results)
    low, high = wilson(wins, n)
    print(f"{n} games of {args.players} players, {said}, SearchPlayer against FlatSearchPlayer")
    print(f"  wins {wins}, win rate {wins / n:.1%} (95% interval {low:.1%}–{high:.1%})")
    for name in (SearchPlayer.name, FlatSearchPlayer.name):
        ms = sorted(t * 1000 for _, times in results for t in times[name])
        print(
            f"  {name:12} {len(ms)} searched moves, ms a move median {statistics.median(ms):.2f},"
            f" p99 {ms[int(len(ms) * 0.99)]:.2f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="number of the first game")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--ms", type=float, default=0, help="a budget in milliseconds instead")
    parser.add_argument("--playouts", type=int, default=0, help="a budget in playouts instead")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (processes)")
    run(parser.parse_args())
