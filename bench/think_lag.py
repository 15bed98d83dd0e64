"""How long the bot's event loop stalls while computer players think: 8 Egonomy search moves
due at once, each within the chat's thinking budget (THINK_PLAYOUTS, THINK_BUDGET), thought in
a thread of the bot's process or in the worker processes of chatbot/core/thinking.py. A probe
coroutine asks to wake every millisecond and records how late it wakes (the delay a press
arriving then would see); meanwhile a player's `/status` arrives every 2 ms and goes through
the real game service (in-memory store, a game in progress), each timed from its arrival to
the service's reply (a stalled event loop counts). Both sides think the same moves;
`/status` is also timed with nothing thinking.
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

from chatbot.bootstrap import service as game_service
from chatbot.bootstrap import thinking_pool
from chatbot.core import buttons
from chatbot.core.model import Command, Press, User
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform
from chatbot.core.thinking import budget
from chatbot.games import registry
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
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


GROUP = "tg:-100777"
HOST = User("tg:1", "Ann", "en")
SETTINGS = Settings(bot_delay=3600)


async def service_with_a_game() -> GameService:
    """The game service on an in-memory store, a 4-player game of computers started in GROUP
    (they never move: nothing ticks)."""
    service = game_service(MemoryStore(), SETTINGS, registry(), Platform())
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame"))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    await service.handle(
        Press(
            chat=GROUP,
            private=False,
            user=HOST,
            data=buttons.encode(buttons.START, stamp=session.stamp),
        )
    )
    return service


async def status_times(service: GameService, done: asyncio.Event) -> list[float]:
    """Times (ms) of `/status` arriving every 2 ms until `done`, each from its arrival (when
    the event loop should have taken it up) to the reply: a late loop counts."""
    times: list[float] = []
    arrival = time.perf_counter()
    while not done.is_set():
        arrival += 0.002
        await asyncio.sleep(max(0.0, arrival - time.perf_counter()))
        reply = await service.handle(Command(chat=GROUP, private=False, user=HOST, name="status"))
        times.append((time.perf_counter() - arrival) * 1000)
        assert reply.messages, "the table is re-posted"
        arrival = max(arrival, time.perf_counter() - 0.002)  # none queue up behind a stall
    return times


async def round_of(
    moves: list[tuple[Any, list[Any]]], workers: int, service: GameService
) -> tuple[list[float], list[float], float]:
    """Lags (ms) seen by the probe and `/status` times (ms) while the moves are thought at
    once; the wall time (s)."""
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append((time.perf_counter() - asked - 0.001) * 1000)

    player = SearchPlayer()
    limit = budget(SETTINGS.think_playouts, SETTINGS.think_budget)
    task = asyncio.create_task(probe())
    statuses = asyncio.create_task(status_times(service, done))
    began = time.perf_counter()
    await asyncio.gather(
        *(
            thinking_pool(workers).think(player, v, legal, Rng(i), limit)
            for i, (v, legal) in enumerate(moves)
        )
    )
    wall = time.perf_counter() - began
    done.set()
    await task
    return lags, await statuses, wall


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


async def main(rounds: int, workers: int) -> None:
    moves = positions(8 * rounds)
    service = await service_with_a_game()
    await round_of(moves[:8], workers, service)  # start the worker processes before timing
    results: dict[str, tuple[list[float], list[float], list[float]]] = {
        "thread": ([], [], []),
        "processes": ([], [], []),
    }
    idle: list[float] = []
    for r in range(rounds):  # interleaved: both sides see the same machine load
        batch = moves[8 * r : 8 * r + 8]
        for name, w in (("thread", 0), ("processes", workers)):
            lags, statuses, wall = await round_of(batch, w, service)
            results[name][0].extend(lags)
            results[name][1].extend(statuses)
            results[name][2].append(wall)
        quiet = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, quiet.set)
        idle.extend(await status_times(service, quiet))
    cores = os.cpu_count()
    print(
        f"{rounds} rounds of 8 search moves due at once, each within {SETTINGS.think_playouts}"
        f" playouts and {SETTINGS.think_budget:g} s; {cores} cores, {workers} worker(s)"
    )
    for name, (lags, statuses, walls) in results.items():
        print(
            f"  {name:9}  event-loop lag p50 {statistics.median(lags):6.2f} ms"
            f"  p99 {pct(lags, 0.99):6.2f} ms  max {max(lags):6.2f} ms"
            f"   8 moves in {statistics.median(walls) * 1000:6.1f} ms (median)"
        )
        print(
            f"  {'':9}  /status ({len(statuses)}) p50 {statistics.median(statuses):6.2f} ms"
            f"  p99 {pct(statuses, 0.99):6.2f} ms  max {max(statuses):6.2f} ms"
        )
    print(
        f"  nothing thinking: /status ({len(idle)}) p50 {statistics.median(idle):6.2f} ms"
        f"  p99 {pct(idle, 0.99):6.2f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.workers))
