"""The terminal adapter (chatbot/console/play.py): a whole game against computer players.

"python -m chatbot console": the player's hand and numbered choices are shown, a number plays
it, and the game runs to its end.
"""

from __future__ import annotations

from chatbot.console.play import Console


async def test_the_player_is_asked_for_choices_and_the_game_ends() -> None:
    shown: list[str] = []
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return "1"

    console = Console(ask=ask, show=shown.append, lang="en", seed=7)
    await console.setup("egonomy", players=3, flip=False)
    for _ in range(2000):
        if not await console.play():
            break
    else:
        raise AssertionError("the game never ended")
    assert asked, "the player was asked for a choice"
    assert any(line.strip().startswith("1. ") for line in shown), "choices are numbered"
    assert any("Game over!" in line for line in shown)
