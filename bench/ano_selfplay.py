"""Ano random self-play: actions/s and games/s, and in the same run the same figures for
RLCard's UNO game object when rlcard is installed (it is never a dependency of the bot:
`pip install rlcard` to compare).

An action = listing the legal actions of the player to move + applying one picked uniformly
at random (Ano's out-of-turn chances are left aside, as UNO has none).
Usage: python bench/ano_selfplay.py [--games N] [--players N]
"""

from __future__ import annotations

import argparse
import importlib
import random
import time
from typing import Any

from engine.ano import GAME
from engine.ano.rules import State
from engine.core import Rng, to_json


def ano(games: int, players: int, options: dict[str, Any]) -> tuple[float, float, list[int]]:
    """(actions/s, games/s, stored sizes after 20 actions)."""
    rng = Rng(12345)
    actions = 0
    sizes: list[int] = []
    started = time.perf_counter()
    for i in range(games):
        state: State
        state, _ = GAME.new_game(players, options, seed=i)
        steps = 0
        while not state.over:
            player = state.turn
            legal = GAME.legal_actions(state, player)
            state, _ = GAME.apply(state, player, legal[rng.below(len(legal))])
            steps += 1
            if steps == 20:
                sizes.append(len(to_json(GAME, state)))
        actions += steps
    elapsed = time.perf_counter() - started
    return actions / elapsed, games / elapsed, sorted(sizes)


def rlcard_uno(games: int, players: int) -> tuple[float, float] | None:
    """RLCard's UnoGame: init_game, get_legal_actions, step with a random legal action."""
    try:  # optional: imported by name, so that neither is needed to type-check the bot
        np = importlib.import_module("numpy")
        uno_game = importlib.import_module("rlcard.games.uno.game")
    except ImportError:
        return None
    pick = random.Random(12345)
    actions = 0
    started = time.perf_counter()
    for i in range(games):
        game = uno_game.UnoGame(num_players=players)
        game.np_random = np.random.RandomState(i)
        game.init_game()
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[pick.randrange(len(legal))])
            actions += 1
    elapsed = time.perf_counter() - started
    return actions / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    n, games = args.players, args.games
    for label, options in (
        ("default options", {}),
        ("two decks, jump-in, points", {"decks": 2, "jump_in": True, "points": True}),
    ):
        steps, rate, sizes = ano(games, n, options)
        print(f"Ano, {n} players, {label}: {games} games")
        print(f"  actions/s  {steps:10.0f}")
        print(f"  games/s    {rate:10.1f}")
        print(f"  stored JSON after 20 actions: median {sizes[len(sizes) // 2]} B")
        if not options:
            base = steps
    uno = rlcard_uno(games, n)
    if uno is None:
        print("RLCard UNO: rlcard is not installed (pip install rlcard)")
        return
    print(f"RLCard UnoGame, {n} players: {games} games")
    print(f"  actions/s  {uno[0]:10.0f}")
    print(f"  games/s    {uno[1]:10.1f}")
    print(f"Ano / RLCard actions/s: {base / uno[0]:.2f}x")


if __name__ == "__main__":
    main()
