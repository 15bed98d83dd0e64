"""A computer player's thinking budget: playouts (reproducible) or seconds by a clock the
caller passes in (here a fake one, so nothing depends on the machine's speed)."""

from __future__ import annotations

import pytest

from engine.core import Budget, Rng
from engine.egonomy import GAME
from engine.egonomy.players import FlatSearchPlayer, SearchPlayer
from engine.egonomy.rules import Action
from engine.egonomy.view import View


class TickingClock:
    """A clock that advances one second at each reading; counts its readings."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings)


def busy_position(seed: int = 5) -> tuple[View, list[Action]]:
    """A 2-player position with many legal actions (worth thinking about)."""
    state, _ = GAME.new_game(2, {}, seed)
    rng = Rng(seed)
    while True:
        legal = GAME.legal_actions(state, state.turn)
        if len(legal) >= 8:
            return GAME.view(state, state.turn), legal
        state, _ = GAME.apply(state, state.turn, legal[rng.below(len(legal))])


def test_a_budget_tells_the_share_used() -> None:
    assert Budget(playouts=10).start()(5) == 0.5
    clock = TickingClock()
    used = Budget(seconds=4, clock=clock).start()  # started at 1
    assert used(0) == 0.25  # read at 2
    assert Budget(playouts=10, seconds=100, clock=TickingClock()).start()(10) == 1.0
    for wrong in ({}, {"seconds": 1.0}, {"playouts": 0}, {"seconds": 0.0, "clock": clock}):
        with pytest.raises(ValueError):
            Budget(**wrong)  # type: ignore[arg-type]


@pytest.mark.parametrize("player", [SearchPlayer(), FlatSearchPlayer()], ids=lambda p: p.name)
def test_a_searching_player_stops_when_its_seconds_are_spent(
    player: SearchPlayer | FlatSearchPlayer,
) -> None:
    """It reads the clock after each playout and returns its best so far once the budget is
    spent: 3.5 seconds of a clock ticking a second a reading last a handful of readings."""
    view, legal = busy_position()
    short, long = TickingClock(), TickingClock()
    action = player.choose(view, legal, Rng(1), Budget(seconds=3.5, clock=short))
    assert action in legal
    assert short.readings <= 6
    assert player.choose(view, legal, Rng(1), Budget(seconds=200, clock=long)) in legal
    assert long.readings > 100, "a longer budget is thought on"


@pytest.mark.parametrize("player", [SearchPlayer(), FlatSearchPlayer()], ids=lambda p: p.name)
def test_a_budget_in_playouts_gives_the_same_choice_from_the_same_seed(
    player: SearchPlayer | FlatSearchPlayer,
) -> None:
    for seed in range(8):
        view, legal = busy_position(seed)
        first = player.choose(view, legal, Rng(seed), Budget(playouts=30))
        assert player.choose(view, legal, Rng(seed), Budget(playouts=30)) == first
        assert player.choose(view, legal, Rng(seed)) in legal  # its own default budget
