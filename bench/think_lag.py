"""How long the bot's event loop stalls while computer players think: 8 Egonomy search moves
due at once, thought in a thread of the bot's process or in the worker processes of
chatbot/core/thinking.py. A probe coroutine asks to wake every millisecond and records how
late it wakes (the delay a press arriving then would see). Both sides think the same moves.
Usage: python bench/think_lag.py [--rounds N] [--workers W]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from typing import Any

from chatbot.core.thinking import think
from engine.core import Rng
from engine.egonomy import GAME
from engine.egonomy.players import SearchPlayer


def positions(count: int) -> list[tuple[Any, list[Any]]]:
    rng = random.Random(3)
    out: list[tuple[Any, list[Any]]] = []
    while len(out) < count:
        state, _ = GAME.new_game(4, {}, seed=rng.randrange(10**6))
        for _ in range(rng.randrange(5, 40)):
            legal = GAME.legal_actions(state, state.turn)
            nxt, _ = GAME.apply(state, state.turn, rng.choice(legal))
            if nxt.over:
                break
            state = nxt
        if not state.over:
            out.append((GAME.view(state, state.turn), GAME.legal_actions(state, state.turn)))
    return out


async def round_of(moves: list[tuple[Any, list[Any]]], workers: int) -> tuple[list[float], float]:
    """Lags (ms) seen by the probe while the moves are thought at once; the wall time (s)."""
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append((time.perf_counter() - asked - 0.001) * 1000)

    player = SearchPlayer()
    task = asyncio.create_task(probe())
    began = time.perf_counter()
    await asyncio.gather(
        *(think(player, v, legal, Rng(i), workers) for i, (v, legal) in enumerate(moves))
    )
    wall = time.perf_counter() - began
    done.set()
    await task
    return lags, wall


async def main(rounds: int, workers: int) -> None:
    moves = positions(8 * rounds)
    await round_of(moves[:8], workers)  # start the worker processes before timing
    results: dict[str, tuple[list[float], list[float]]] = {
        "thread": ([], []),
        "processes": ([], []),
    }
    for r in range(rounds):  # interleaved: both sides see the same machine load
        batch = moves[8 * r : 8 * r + 8]
        for name, w in (("thread", 0), ("processes", workers)):
            lags, wall = await round_of(batch, w)
            results[name][0].extend(lags)
            results[name][1].append(wall)
    cores = os.cpu_count()
    print(f"{rounds} rounds of 8 search moves due at once; {cores} cores, {workers} worker(s)")
    for name, (lags, walls) in results.items():
        lags.sort()
        p99 = lags[int(len(lags) * 0.99) - 1]
        print(
            f"  {name:9}  event-loop lag p50 {statistics.median(lags):6.2f} ms"
            f"  p99 {p99:6.2f} ms  max {lags[-1]:6.2f} ms"
            f"   8 moves in {statistics.median(walls) * 1000:6.1f} ms (median)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.workers))
