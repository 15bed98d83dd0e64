"""Issue 36, one budget for all processes: three `python -m chatbot web` processes on one real
redis-server behind one token, every update posted to the next one's webhook, at Telegram's
real limits (20 messages a minute in a group, 30 a second a bot, the bot's own delays). The
fake Bot API refuses the 21st message a minute in a group and the 31st a second (429). People
open each table at human pace (tests/e2e/pace.py: Join, the turn timer, an option, computers,
Start, each 1–2 s after looking at the lobby the group shows) and play whole games of every
game (EGO: a dozen turns), thinking four times faster than the pace bench's people (so the
group's budget is the tighter and the games take minutes), while a member spams /status every
second: no 429 in any game, no lobby press refused, and every game comes to its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.pace import Pace, Scenario, play_tables
from tests.faults.conftest import RedisProcess

# Whole games of Egonomy and Ano with three people (Ano with a computer too); EGO with two people
# and a computer for TURNS turns (a whole game of EGO, until the bank runs out or all but one are
# broke, takes far longer than a test should).
TURNS = 12
GAMES = (
    Scenario("egonomy", 3, 0),
    Scenario("ano", 3, 1),
    Scenario("ego", 2, 1),
)


@pytest.mark.slow  # whole games in real time (a few minutes)
@pytest.mark.timeout(900)
async def test_three_processes_play_whole_games_with_no_429(tmp_path: Path) -> None:
    redis = RedisProcess(tmp_path)  # of its own: the processes keep their keys unprefixed
    redis.start()
    log = tmp_path / "bots.log"
    pace = Pace(
        scenarios=GAMES, limit=600.0, turns=TURNS, processes=3, interval_grace=5.0, think=0.25
    )
    try:
        results = await play_tables(redis.url, pace, log=log)
    finally:
        redis.kill()
    told = [(f.name, f.ended, f.turns, f.done_moves, f.http_429) for f, _ in results]
    for figures, _ in results:
        done = figures.turns >= TURNS if figures.name.startswith("ego ") else figures.ended
        assert done, f"{figures.name}: the game did not end in time: {told}"
        assert figures.http_429 == 0, f"{figures.name}: {figures.http_429} × 429"
        assert figures.lobby_presses >= 4 and not figures.lobby_refused, figures.lobby_refused
        assert figures.done_moves > 0 and len(figures.answers) >= figures.presses
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
