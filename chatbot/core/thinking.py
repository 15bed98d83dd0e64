"""Computer players think in worker processes: a search holds the CPU (and Python's lock on
the interpreter) for milliseconds, and in a thread of the bot's process it would delay every
press the event loop is answering meanwhile. With `workers=0` they think in a thread. Each
move's thinking is bounded by a budget: playouts and seconds, the clock read where it thinks."""

from __future__ import annotations

import asyncio
import atexit
import logging
import multiprocessing
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from engine.core import Budget, Player, Rng

log = logging.getLogger(__name__)
_pools: dict[int, ProcessPoolExecutor] = {}


def _pool(workers: int) -> Executor:
    """The process pool of this size, started on first use (one per bot process)."""
    pool = _pools.get(workers)
    if pool is None:
        context = multiprocessing.get_context("forkserver")  # no fork of a threaded process
        pool = _pools[workers] = ProcessPoolExecutor(workers, mp_context=context)
    return pool


@atexit.register
def shutdown() -> None:
    """End every thinking process now (a stuck one too): nothing waits for a move at exit."""
    for pool in list(_pools.values()):
        _end(pool)
    _pools.clear()


def _end(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's processes and let it go (its pending moves fail)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(1.0)
        if process.is_alive():
            process.kill()


def budget(playouts: int | None, seconds: float | None) -> Budget:
    """A move's thinking budget, timed by the monotonic clock of the process that thinks."""
    return Budget(playouts=playouts, seconds=seconds, clock=time.perf_counter)


async def think(
    player: Player[Any],
    view: Any,
    legal: list[Any],
    rng: Rng,
    workers: int,
    limit: Budget | None = None,
    timeout: float | None = None,
) -> Any:
    """The computer player's choice within `limit` (None: the player's own default budget);
    None: it lets an out-of-turn chance go, or it thought longer than `timeout` seconds
    (abandoned: its process is ended and replaced; a thread cannot be, it is left)."""
    try:
        async with asyncio.timeout(timeout):
            if workers <= 0:
                return await asyncio.to_thread(player.choose, view, legal, rng, limit)
            return await _in_pool(workers, player, view, legal, rng, limit)
    except TimeoutError:
        log.warning("%s thought longer than %s s: abandoned", player.name, timeout)
        pool = _pools.pop(workers, None)
        if pool is not None:
            _end(pool)
        return None


async def _in_pool(
    workers: int, player: Player[Any], view: Any, legal: list[Any], rng: Rng, limit: Budget | None
) -> Any:
    loop = asyncio.get_running_loop()
    pool = _pool(workers)
    try:
        return await loop.run_in_executor(pool, player.choose, view, legal, rng, limit)
    except BrokenProcessPool:  # a worker died (killed, out of memory, ended): start anew
        log.warning("a thinking process died: the pool starts anew")
        if _pools.get(workers) is pool:
            del _pools[workers]
        return await asyncio.to_thread(player.choose, view, legal, rng, limit)
