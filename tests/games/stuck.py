"""Stuck: the game of Pick with a computer player that never finishes thinking (a worker
process stopped, a search gone wrong). It writes its process id to `marker` first."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from chatbot.core.registry import Bundle
from engine.core import Budget, GameSpec, Rng
from tests.games import pick
from tests.games.common import rulebook


class StuckGame(pick.Pick):
    spec = GameSpec("stuck", 2, 6, private_hands=False)


class StuckPresenter(pick.PickPresenter):
    game = "stuck"


class NeverDone:
    """Thinks for ever."""

    name = "never"

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def choose(
        self, view: pick.State, legal: Sequence[int], rng: Rng, budget: Budget | None = None
    ) -> int | None:
        written = f"{self.marker}.{os.getpid()}"
        with open(written, "w") as out:
            out.write(str(os.getpid()))
        os.replace(written, self.marker)  # (whole: a reader never sees it half written)
        while True:
            time.sleep(1)


def bundle(marker: str) -> Bundle:
    return Bundle(
        StuckGame(),
        StuckPresenter(),
        rulebook("stuck", "Everyone picks 1, 2 or 3 at once."),
        NeverDone(marker),
        ("Pat", "Kim"),
    )
