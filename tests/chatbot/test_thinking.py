"""Computer players think in worker processes within a budget from the settings."""

from __future__ import annotations

import pytest

from chatbot.bootstrap import thinking_pool
from chatbot.core.thinking import budget
from chatbot.games import registry
from chatbot.settings import Settings
from engine.core import Budget, Rng
from engine.egonomy import GAME as EGONOMY
from engine.egonomy.players import SearchPlayer


def test_the_thinking_budget_is_read_from_the_environment() -> None:
    settings = Settings.from_env({"THINK_BUDGET": "0.25", "THINK_PLAYOUTS": "40"})
    assert (settings.think_budget, settings.think_playouts) == (0.25, 40)
    assert Settings.from_env({}).think_budget == Settings().think_budget
    for name, value in (("THINK_BUDGET", "0"), ("THINK_PLAYOUTS", "-3")):
        with pytest.raises(ValueError, match=f"{name} must be more than 0"):
            Settings.from_env({name: value})


@pytest.mark.parametrize("workers", [0, 1])
async def test_every_games_computer_thinks_within_the_chats_budget(workers: int) -> None:
    """Each hosted game's computer player takes the budget (cheap ones need not use it)."""
    limit = budget(Settings().think_playouts, Settings().think_budget)
    for bundle in registry():
        game = bundle.game
        state, _ = game.new_game(bundle.game.spec.min_players, {}, 7)
        for seat in range(game.spec.min_players):
            legal = game.legal_actions(state, seat)
            if not legal:
                continue
            view = game.view(state, seat)
            action = await thinking_pool(workers).think(bundle.computer, view, legal, Rng(3), limit)
            assert action in legal or (action is None and seat not in game.to_move(state))


async def test_the_budget_reaches_the_thinking_process() -> None:
    """A position where one playout and the default budget choose differently: thought in a
    worker process with a budget of one playout, the choice is the one-playout choice."""
    player, one = SearchPlayer(), Budget(playouts=1)
    for seed in range(200):
        state, _ = EGONOMY.new_game(2, {}, seed)
        view = EGONOMY.view(state, state.turn)
        legal = EGONOMY.legal_actions(state, state.turn)
        quick = player.choose(view, legal, Rng(seed), one)
        if quick != player.choose(view, legal, Rng(seed)):
            break
    else:
        pytest.fail("no position where the budget matters")
    assert await thinking_pool(1).think(player, view, legal, Rng(seed), one) == quick
