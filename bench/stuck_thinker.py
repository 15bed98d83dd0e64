"""How long other games' computer moves take while one move's thinking is stuck (issue 21,
item 4), with the worker processes of chatbot/core/thinking.py (`--workers`, 1 as on 2
cores). Egonomy search moves within the chat's budget (THINK_PLAYOUTS, THINK_BUDGET) are
asked one after another, `--gap` seconds apart, first with nothing stuck, then while a move
of a player that never answers (tests/games/stuck.py) holds a worker until THINK_TIMEOUT.
Each move is timed from its asking to its choice (waiting for a worker included); the
stuck move from its asking to its abandonment.
Usage: python bench/stuck_thinker.py [--moves N] [--gap S] [--workers W] [--timeout S]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from think_lag import SETTINGS, positions  # beside this file

from chatbot.bootstrap import thinking_pool
from chatbot.core import thinking
from chatbot.core.thinking import budget
from engine.core import Rng
from engine.egonomy.players import SearchPlayer
from tests.games.stuck import NeverDone


async def moves_timed(moves: list[tuple[Any, list[Any]]], gap: float, workers: int) -> list[float]:
    """Seconds from asking to choice of each move, asked `gap` seconds apart."""
    player, times = SearchPlayer(), []
    limit = budget(SETTINGS.think_playouts, SETTINGS.think_budget)
    for i, (view, legal) in enumerate(moves):
        asked = time.perf_counter()
        think = thinking_pool(workers).think
        action = await think(player, view, legal, Rng(i), limit, SETTINGS.think_timeout)
        times.append(time.perf_counter() - asked)
        assert action in legal
        await asyncio.sleep(gap)
    return times


async def main(count: int, gap: float, workers: int, timeout: float) -> None:
    moves = positions(count)
    await moves_timed(moves[:2], 0, workers)  # the worker processes started before timing
    calm = await moves_timed(moves, gap, workers)
    stuck_view = moves[0][0]

    async def stuck_move(marker: str) -> float:
        asked = time.perf_counter()
        limit = budget(SETTINGS.think_playouts, SETTINGS.think_budget)
        legal = moves[0][1]
        await thinking_pool(workers).think(
            NeverDone(marker), stuck_view, legal, Rng(0), limit, timeout
        )
        return time.perf_counter() - asked

    with tempfile.TemporaryDirectory() as scratch:
        stuck = asyncio.create_task(stuck_move(str(Path(scratch) / "pid")))
        await asyncio.sleep(0)  # it takes a worker first
        beside = await moves_timed(moves, gap, workers)
        abandoned = await stuck
    thinking_pool(workers).shutdown()
    print(
        f"{count} Egonomy search moves, {gap:g} s apart, each within {SETTINGS.think_playouts}"
        f" playouts and {SETTINGS.think_budget:g} s; {workers} worker(s), LATE"
        f" {thinking.LATE:g} s, THINK_TIMEOUT {timeout:g} s"
    )
    for name, times in (("nothing stuck", calm), ("a move stuck", beside)):
        ms = [t * 1000 for t in times]
        print(
            f"  {name:13}  first {ms[0]:6.0f} ms  median {statistics.median(ms):6.0f} ms"
            f"  max {max(ms):6.0f} ms  (asking to choice)"
        )
    print(f"  the stuck move abandoned after {abandoned:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--gap", type=float, default=0.3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=SETTINGS.think_timeout)
    args = parser.parse_args()
    asyncio.run(main(args.moves, args.gap, args.workers, args.timeout))
