"""A terminal game of Egonomy against computer players (the no-token default)."""

from __future__ import annotations

import random

from engine.core import Rng
from engine.egonomy import GAME
from engine.egonomy.cards import TOPIC_LETTERS, label
from engine.egonomy.players import GreedyPlayer
from engine.egonomy.rules import Action


def _describe(action: Action) -> str:
    cards = " ".join(label(c) for c in action.cards)
    table = "" if action.table < 0 else f" table {TOPIC_LETTERS[action.table]}"
    names = {"b": "babble", "c": "cut off", "a": "argue", "l": "listen", "g": "let go", "f": "flip"}
    return f"{names[action.kind]} {cards}{table}".replace("  ", " ")


def play(game: str, players: int, flip: bool, seed: int | None, watch: bool) -> int:
    seed = random.randrange(1 << 30) if seed is None else seed
    state, _ = GAME.new_game(players, {"flip": flip}, seed)
    bot, rng = GreedyPlayer(), Rng(seed)
    human = None if watch else 0
    while not state.over:
        p = state.turn
        legal = GAME.legal_actions(state, p)
        view = GAME.view(state, p)
        if p == human:
            print("tables:", [" ".join(label(c) for c in t) or "-" for t in state.tables])
            print("your hand:", " ".join(label(c) for c in view.hand))
            for i, a in enumerate(legal):
                print(f"  {i}: {_describe(a)}")
            choice = input("> ").strip()
            if not choice.isdigit() or int(choice) >= len(legal):
                print("pick a number from the list")
                continue
            action = legal[int(choice)]
        else:
            action = bot.choose(view, legal, rng)
        state, events = GAME.apply(state, p, action)
        print(f"player {p}: {_describe(action)}")
        for e in events:
            print("  ", e)
    print("final:", GAME.result(state))
    return 0
