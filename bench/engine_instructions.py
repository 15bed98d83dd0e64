"""Machine instructions per random self-play action of an engine, counted by valgrind's
callgrind: steadier than seconds on a loaded machine, for comparing two versions of the engine.

The same loop as bench/engine_selfplay.py (list the legal actions through the public game API,
apply one picked at random), run under callgrind for `--games` and for 4 times as many games;
the difference of the two counts over the difference of the actions leaves out start-up.
`--game rlcard-rules` counts RLCard's UNO rules alone and `--game rlcard-step` its
`UnoGame.step()` the same way (bench/anchors.py). Every side picks as the anchors do,
`legal[int(random() * len(legal))]` with a seeded `random.Random`. The games go through the
game's player counts in turn (2-4 for RLCard, as Egonomy's) and its option sets, or all have
`--players` players and the default options with `--defaults` (Ano against RLCard: `--game ano
--players 4 --defaults`, as bench/ano_selfplay.py plays them).
Needs valgrind. Usage: python bench/engine_instructions.py [--games 100] [--game egonomy]
[--players N] [--defaults]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine
sys.path.insert(0, str(Path(__file__).resolve().parent))

from anchors import rlcard_rules, rlcard_step  # beside this file
from engine_selfplay import option_sets

from chatbot.games import registry


def play(game_name: str, games: int, players: int | None, defaults: bool) -> int:
    """Random self-play of `games` games (see the module's docstring); the actions taken."""
    if game_name in ANCHORS:
        anchor = ANCHORS[game_name](lambda i: players or 2 + i % 3)
        if anchor is None:
            raise SystemExit("rlcard is not installed (pip install rlcard)")
        return anchor(games, 0)[0]
    game = registry()[game_name].game
    spec = game.spec
    counts = (players,) if players else tuple(range(spec.min_players, spec.max_players + 1))
    options = [{}] if defaults else option_sets(spec)
    pick = random.Random(0).random
    actions = 0
    for i in range(games):
        state: Any
        state, _ = game.new_game(counts[i % len(counts)], options[i % len(options)], i)
        while not game.is_over(state):
            (player,) = game.to_move(state)[:1]
            legal = game.legal_actions(state, player)
            state, _ = game.apply(state, player, legal[int(pick() * len(legal))])
            actions += 1
    return actions


ANCHORS = {"rlcard-rules": rlcard_rules, "rlcard-step": rlcard_step}


def counted(game_name: str, games: int, more: list[str]) -> tuple[int, int]:
    """(actions, instructions) of one run under callgrind (`more`: the choice of games)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={os.path.join(tmp, 'out')}",
                sys.executable,
                __file__,
                "--play",
                str(games),
                "--game",
                game_name,
                *more,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{run.stderr}")
    return int(run.stdout.split()[-1]), int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--game", default="egonomy", choices=[*sorted(registry().names), *ANCHORS])
    parser.add_argument("--players", type=int, help="every game with this many players")
    parser.add_argument("--defaults", action="store_true", help="the default options only")
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # the counted child run
    args = parser.parse_args()
    if args.play is not None:
        print("actions", play(args.game, args.play, args.players, args.defaults))
        return
    more = [
        *(["--players", str(args.players)] if args.players else []),
        *(["--defaults"] if args.defaults else []),
    ]
    few_actions, few = counted(args.game, args.games, more)
    many_actions, many = counted(args.game, 4 * args.games, more)
    per_action = (many - few) / (many_actions - few_actions)
    print(
        f"{args.game} {' '.join(more)}: {per_action:,.0f} instructions per action "
        f"({many_actions - few_actions} actions of {3 * args.games} games, start-up left out)"
    )


if __name__ == "__main__":
    main()
