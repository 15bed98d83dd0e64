"""Computer players think in worker processes (`ThinkingPool`), each move within a budget.

A search holds the CPU (and Python's lock on the interpreter) for milliseconds, and in a thread
of the bot's process it would delay every press the event loop is answering meanwhile. With
`workers=0` they think in a thread. Each move's thinking is bounded by a budget: playouts and
seconds, the clock read where it thinks.

Each worker is a pool of one process, so that a stuck one is ended alone. A worker still busy
LATE seconds past its move's budget counts as stuck: the other games' moves do not wait for
it, a fresh worker thinks them (up to SPARE more than asked), and the stuck move is abandoned
at its timeout, its process ended.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from engine.core import Budget, Player, Rng

log = logging.getLogger(__name__)

LATE = 0.5  # seconds past its move's budget after which a busy worker counts as stuck
SPARE = 3  # at most this many workers more than asked for, started while others are stuck


def _process() -> ProcessPoolExecutor:
    context = multiprocessing.get_context("forkserver")  # no fork of a threaded process
    return ProcessPoolExecutor(1, mp_context=context)


@dataclass(eq=False)
class _Worker:
    """One thinking process, started on its first move."""

    pool: ProcessPoolExecutor = field(default_factory=_process)
    stuck_at: float | None = None  # busy: when it counts as stuck (monotonic); None: free

    def stuck(self, now: float) -> bool:
        return self.stuck_at is not None and now >= self.stuck_at


def _end(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's process (a stopped one too) and let it go (its pending move fails)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        process.kill()  # (a search holds nothing to save)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(1.0)


def budget(playouts: int | None, seconds: float | None) -> Budget:
    """A move's thinking budget, timed by the monotonic clock of the process that thinks."""
    return Budget(playouts=playouts, seconds=seconds, clock=time.perf_counter)


class ThinkingPool:
    """A bot process's thinking: up to `workers` worker processes (0: a thread), shared by
    every game the process hosts; `shutdown` ends them (`chatbot.bootstrap.thinking_pool` makes
    the process's one and ends it at exit)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._workers: list[_Worker] = []
        self._waiting: list[asyncio.Future[None]] = []  # moves waiting for a worker

    def shutdown(self) -> None:
        """End every thinking process now (a stuck one too): nothing waits for a move."""
        for worker in self._workers:
            _end(worker.pool)
        self._workers.clear()

    async def think(
        self,
        player: Player[Any],
        view: Any,
        legal: list[Any],
        rng: Rng,
        limit: Budget | None = None,
        timeout: float | None = None,
    ) -> Any:
        """The computer player's choice within `limit` (None: the player's own default
        budget); None: it lets an out-of-turn chance go, or it thought longer than `timeout`
        seconds (abandoned: its process is ended; a thread cannot be, it is left)."""
        if self.workers <= 0:
            try:
                async with asyncio.timeout(timeout):
                    return await asyncio.to_thread(player.choose, view, legal, rng, limit)
            except TimeoutError:
                log.warning("%s thought longer than %s s: abandoned", player.name, timeout)
                return None
        seconds = limit.seconds if limit is not None and limit.seconds is not None else 0.0
        worker = await self._claim(seconds + LATE)
        move = worker.pool.submit(player.choose, view, legal, rng, limit)
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.wrap_future(move)
        except TimeoutError:
            log.warning("%s thought longer than %s s: its process is ended", player.name, timeout)
            return None
        except BrokenProcessPool:  # its process died (killed, out of memory): thought here
            log.warning("a thinking process died: its move is thought in a thread")
        finally:
            self._release(worker, move)
        return await asyncio.to_thread(player.choose, view, legal, rng, limit)

    async def _claim(self, late: float) -> _Worker:
        """A free worker for a move that counts as stuck `late` seconds from now. A worker is
        started while fewer than `workers` are free or in time (up to SPARE more); else the
        move waits until one is free, or stuck (and another can be started)."""
        workers = self._workers
        while True:
            now = time.monotonic()
            worker = next((w for w in workers if w.stuck_at is None), None)
            in_time = [w.stuck_at for w in workers if w.stuck_at is not None and now < w.stuck_at]
            room = len(in_time) < self.workers and len(workers) < self.workers + SPARE
            if worker is None and room:
                worker = _Worker()
                workers.append(worker)
            if worker is not None:
                worker.stuck_at = now + late
                return worker
            await self._freed(min(in_time) - now if in_time else None)

    async def _freed(self, within: float | None) -> None:
        """Wait until a worker is released, or for `within` seconds."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            await asyncio.wait([waiter], timeout=within)
        finally:
            self._waiting.remove(waiter)

    def _release(self, worker: _Worker, move: Future[Any]) -> None:
        """The worker is free again; it is ended instead when its move did not end
        (abandoned, cancelled), its process died, or `workers` others are free or in time (it
        was a spare)."""
        now = time.monotonic()
        worker.stuck_at = None
        ended = move.done() and not move.cancelled()
        died = ended and isinstance(move.exception(), BrokenProcessPool)
        others = sum(not w.stuck(now) for w in self._workers if w is not worker)
        if worker in self._workers and (not ended or died or others >= self.workers):
            self._workers.remove(worker)
            _end(worker.pool)
        for waiter in self._waiting:
            if not waiter.done():
                waiter.set_result(None)
