"""Presses a person needs per Egonomy move through the private hand's buttons, with and without
one button per whole move when the moves under a step are few (`ONE_PRESS` in
chatbot/present/egonomy/choices.py).

Positions come from seeded random self-play games (2–4 players, both flip settings); at each,
the move wanted is drawn uniformly from the legal ones, and the presses are counted from the
top of the choice tree down to the button that plays it. Both settings count the same moves.
Usage: python bench/presses_per_move.py [--positions N]
"""

from __future__ import annotations

import argparse
import importlib
import random
from typing import Any

from chatbot.i18n import translator
from chatbot.present.egonomy import PRESENTER
from engine.egonomy import GAME
from engine.egonomy.rules import encode_action

choices = importlib.import_module("chatbot.present.egonomy.choices")
NAMES = ["Ann", "Bob", "Cid", "Dee"]


def presses(view: Any, legal: list[Any], target: str, tr: Any) -> int:
    """Presses from the top of the tree to the button that plays `target`."""
    path = ""
    for count in range(1, 11):
        _, options = PRESENTER.hand(view, legal, path, NAMES, tr)
        flat = [o for row in options for o in row if not o.label.startswith("⬅️")]
        if any(o.act == target for o in flat):
            return count
        path = next(
            o.nav for o in flat if o.nav is not None and reaches(view, legal, o.nav, target, tr)
        )
    raise AssertionError("the tree does not reach the move")


def reaches(view: Any, legal: list[Any], path: str, target: str, tr: Any) -> bool:
    _, options = PRESENTER.hand(view, legal, path, NAMES, tr)
    flat = [o for row in options for o in row if not o.label.startswith("⬅️")]
    return any(o.act == target for o in flat) or any(
        o.nav is not None
        and o.nav != path
        and len(o.nav) > len(path)
        and reaches(view, legal, o.nav, target, tr)
        for o in flat
    )


def main(positions: int) -> None:
    tr = translator("en")
    rng = random.Random(7)
    totals = {0: 0, 8: 0, choices.ONE_PRESS: 0}
    one = 0
    moves = 0
    default = choices.ONE_PRESS
    for i in range(positions):
        state, _ = GAME.new_game(2 + i % 3, {"flip": bool(i % 2)}, seed=i)
        for _ in range(rng.randrange(80)):
            if state.over:
                break
            legal = GAME.legal_actions(state, state.turn)
            state, _ = GAME.apply(state, state.turn, rng.choice(legal))
        if state.over:
            continue
        legal = list(dict.fromkeys(GAME.legal_actions(state, state.turn)))
        view = GAME.view(state, state.turn)
        target = encode_action(rng.choice(legal))
        moves += 1
        for setting in totals:
            setattr(choices, "ONE_PRESS", setting)  # noqa: B010
            got = presses(view, legal, target, tr)
            totals[setting] += got
            if setting == default and got == 1:
                one += 1
        setattr(choices, "ONE_PRESS", default)  # noqa: B010
    print(f"{moves} moves from random positions (the move drawn uniformly from the legal ones)")
    print(f"  step by step (ONE_PRESS=0):        {totals[0] / moves:.2f} presses a move")
    print(f"  one press when ≤8 moves (before):  {totals[8] / moves:.2f} presses a move")
    print(
        f"  one press when ≤{default} moves (now):   {totals[default] / moves:.2f} presses a move"
    )
    print(f"  moves made in one press now:       {one / moves:.0%}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=2000)
    main(parser.parse_args().positions)
