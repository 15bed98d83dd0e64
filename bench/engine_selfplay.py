"""Self-play benchmark of the game engines: games/s, actions/s and stored state size.

An action = listing the legal actions of the player to move + applying one of them (picked
uniformly at random), which is what a searching computer player's playout does.
Usage: python bench/engine_selfplay.py [--games N] [--game egonomy]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from chatbot.games import registry
from engine.core import Rng, to_json


def selfplay(game_name: str, games: int, players: tuple[int, ...]) -> None:
    game = registry()[game_name].game
    options: list[dict[str, bool | int]] = [{}] + [
        {o.name: o.choices[-1]} for o in game.spec.options
    ]
    rng = Rng(12345)
    actions = 0
    mid_sizes: list[int] = []
    started = time.perf_counter()
    for i in range(games):
        n = players[i % len(players)]
        state: Any
        state, _ = game.new_game(n, options[i % len(options)], seed=i)
        steps = 0
        while not game.is_over(state):
            (player,) = game.to_move(state)[:1]
            legal = game.legal_actions(state, player)
            state, _ = game.apply(state, player, legal[rng.below(len(legal))])
            steps += 1
            if steps == 20:
                mid_sizes.append(len(to_json(game, state)))
        actions += steps
    elapsed = time.perf_counter() - started
    mid_sizes.sort()
    print(f"{game_name}: {games} games, players {players}, options {options}")
    print(f"  games/s    {games / elapsed:10.0f}")
    print(f"  actions/s  {actions / elapsed:10.0f}   ({actions / games:.1f} actions a game)")
    print(
        f"  stored JSON after 20 actions: median {mid_sizes[len(mid_sizes) // 2]} B,"
        f" max {mid_sizes[-1]} B"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--game", default="egonomy", choices=sorted(registry().names))
    args = parser.parse_args()
    spec = registry()[args.game].game.spec
    selfplay(args.game, args.games, tuple(range(spec.min_players, spec.max_players + 1)))


if __name__ == "__main__":
    main()
