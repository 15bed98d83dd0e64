"""How strong EGO's and Ano's computer players (the ones the chat seats) are against simpler
ones: EGO's ReaderPlayer against RandomPlayer, Ano's SensiblePlayer against RandomPlayer.

Seeded games. With 2 players each seed is played twice, the seats swapped (even strength: 50%).
With 4 players one seat is the chat's player and three are the simpler one, the strong seat
moving round the table from seed to seed (even strength: 25%). A game counts as a win when
the chat's player is placed first; a first place shared by k players counts 1/k (EGO: equal
tokens share a place). Every player sees only its own seat's view.

ReaderPlayer reads the answering player's earlier answers; it answers at random itself, and so
does RandomPlayer, so at a table of random answerers there is nothing to read. "ego-habits"
plays the same match with every seat answering by habit, as people do: each seat has a
favourite answer for each kind of card (drawn from its seed) and gives it 7 times in 10, else
answers as its player would. Only the guessing differs between the two sides.

Ano's out-of-turn chances (calling "Ano!", catching a forgetter, jump-in) are offered after
every action to every other player still in the game, in seat order from the player to move,
as the chat offers them to its computer players. Both sides of EGO pick at once each turn.

Prints, for each game and table size: the games, the wins, the win rate with its 95% (Wilson)
interval, and the even-strength rate.
Usage: python bench/players_strength.py [--games N] [--game ego|ano] [--jobs N] [--first SEED]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine.ano import GAME as ANO
from engine.ano.players import RandomPlayer as AnoRandom
from engine.ano.players import SensiblePlayer
from engine.core import Rng
from engine.ego import GAME as EGO
from engine.ego.players import KIND, ReaderPlayer
from engine.ego.players import RandomPlayer as EgoRandom
from engine.ego.rules import Action as EgoAction

OUT_OF_TURN_ROUNDS = 4  # chances offered after one action before the turn player goes on
KINDS = sorted(set(KIND.values()))
HABIT = 7  # in 10: how often a seat answering by habit gives its favourite answer


class Habits:
    """A seat that answers by habit (a favourite answer for each kind of card, `HABIT` times in
    10) and otherwise plays as `inner`."""

    def __init__(self, inner: Any, seed: int) -> None:
        self.inner, self.name = inner, inner.name
        favourite = Rng(seed)
        self.favourite = {kind: 1 + favourite.below(3) for kind in KINDS}

    def choose(self, view: Any, legal: Sequence[Any], rng: Rng, budget: Any = None) -> Any:
        mine = legal and view.me is not None and not view.locked[view.me]
        if mine and view.me == view.active and rng.below(10) < HABIT:
            answer = EgoAction(self.favourite.get(KIND.get(view.card, ""), 1))
            if answer in legal:
                return answer
        return self.inner.choose(view, legal, rng, budget)


def seats(game: int, players: int, strong: Any, weak: Any) -> tuple[list[Any], int]:
    """Game number `game`: its seed and the seats (the strong player's seat rotates)."""
    if players == 2:
        seed, turn = divmod(game, 2)
        return [strong if p == turn else weak for p in range(2)], seed
    return [strong if p == game % players else weak for p in range(players)], game


def share(placings: Sequence[Any], seat: int) -> float:
    """The strong seat's share of first place."""
    first = [p.player for p in placings if p.place == 1]
    return 1 / len(first) if seat in first else 0.0


def ego_game(game: int, players: int, habits: bool = False) -> float:
    table, seed = seats(game, players, ReaderPlayer(), EgoRandom())
    strong = next(p for p, s in enumerate(table) if isinstance(s, ReaderPlayer))
    if habits:
        table = [Habits(s, seed * 16 + p + 1) for p, s in enumerate(table)]
    rngs = [Rng(seed * 16 + p) for p in range(players)]
    state, _ = EGO.new_game(players, {}, seed)
    while not EGO.is_over(state):
        moved = False
        for p in EGO.to_move(state):
            legal = EGO.legal_actions(state, p)
            action = table[p].choose(EGO.view(state, p), legal, rngs[p])
            if action is not None:
                state, _ = EGO.apply(state, p, action)
                moved = True
                break
        if not moved:
            raise RuntimeError(f"EGO game {game}: nobody moved")
    return share(EGO.result(state), strong)


def ano_game(game: int, players: int) -> float:
    table, seed = seats(game, players, SensiblePlayer(), AnoRandom())
    strong = next(p for p, s in enumerate(table) if isinstance(s, SensiblePlayer))
    rngs = [Rng(seed * 16 + p) for p in range(players)]
    state, _ = ANO.new_game(players, {}, seed)
    while not ANO.is_over(state):
        turn = ANO.to_move(state)[0]
        legal = ANO.legal_actions(state, turn)
        action = table[turn].choose(ANO.view(state, turn), legal, rngs[turn]) or legal[0]
        state, _ = ANO.apply(state, turn, action)
        for _ in range(OUT_OF_TURN_ROUNDS):  # calls, catches, jump-ins of the others
            acted = False
            for k in range(1, players):
                p = (turn + k) % players
                if ANO.is_over(state) or p in ANO.to_move(state):
                    continue
                legal = ANO.legal_actions(state, p)
                if legal and (extra := table[p].choose(ANO.view(state, p), legal, rngs[p])):
                    state, _ = ANO.apply(state, p, extra)
                    acted = True
            if not acted:
                break
    return share(ANO.result(state), strong)


def ego_habits_game(game: int, players: int) -> float:
    return ego_game(game, players, habits=True)


GAMES: dict[str, tuple[Callable[[int, int], float], str]] = {
    "ego": (ego_game, "ReaderPlayer against RandomPlayer"),
    "ego-habits": (ego_habits_game, "ReaderPlayer against RandomPlayer, habitual answers"),
    "ano": (ano_game, "SensiblePlayer against RandomPlayer"),
}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(args: argparse.Namespace) -> None:
    names = [args.game] if args.game else list(GAMES)
    with ProcessPoolExecutor(args.jobs) as pool:
        for name in names:
            play, said = GAMES[name]
            for players in (2, 4):
                games = range(args.first, args.first + args.games)
                wins = sum(pool.map(play, games, [players] * args.games, chunksize=50))
                n = args.games
                low, high = wilson(wins, n)
                print(
                    f"{name} {players} players, {said}: {n} games, wins {wins:g}, "
                    f"win rate {wins / n:.1%} (95% interval {low:.1%}–{high:.1%}), "
                    f"even strength {1 / players:.0%}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per table size")
    parser.add_argument("--game", choices=sorted(GAMES), help="one game only")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
