"""Prometheus metrics, served at `/metrics` by the webhook server.

Counters and histograms are this process's: adapters name their platform in the `platform`
label; the core counts what it handles (sum them over processes). The games running are
counted in the shared store when scraped, so every process reports the same figure.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter as Tally
from collections.abc import Callable, Iterable

from prometheus_client import Counter, Gauge, Histogram

from chatbot.core.session import PLAYING, BadSession, Session
from chatbot.store.base import Store

log = logging.getLogger(__name__)

UPDATES = Counter(
    "egobot_updates_total", "Updates handled, by platform and kind.", ["platform", "kind"]
)
HANDLING = Histogram(
    "egobot_handling_seconds",
    "Time to handle one update (load, rules, save), by platform.",
    ["platform"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
FAILURES = Counter(
    "egobot_update_failures_total",
    "Updates answered with an apology, by platform and cause (storage, error).",
    ["platform", "cause"],
)
API_ERRORS = Counter(
    "egobot_api_errors_total", "Failed calls to a platform's API, by platform.", ["platform"]
)
SENT = Counter(
    "egobot_messages_sent_total",
    "Messages delivered, by platform and how (reply, push, edit, send).",
    ["platform", "how"],
)
ANSWERS = Counter(
    "egobot_press_answers_total",
    "Presses answered, by platform and how (call: an API call of its own; response: in the "
    "webhook's HTTP response, which saves the call).",
    ["platform", "how"],
)
EDITS_SKIPPED = Counter(
    "egobot_edits_skipped_total",
    "Edits not sent because the pressed message already shows them (a button pressed twice), "
    "by platform.",
    ["platform"],
)
MOVES = Counter("egobot_moves_total", "Game actions applied, by game.", ["game"])


RUNNING = Gauge(
    "egobot_games_running",
    "Games being played now, by game, in the shared store (every process reports the same "
    "figure: aggregate with max, not sum).",
    ["game"],
)
FRESH_FOR = 5.0  # seconds a count of the running games is served again
SCANNED = 100_000  # games with a timer looked at, at most
LOADS_AT_ONCE = 16  # loads in flight while counting


class RunningGames:
    """Counts the games being played, by game, from the store itself, so that any number of
    processes on one store agree. A game being played always waits for someone, who has a
    timer, so it is in the store's deadline index: the count loads the games of that index
    (not every key of the store) and keeps those being played. At most one count every
    `fresh_for` seconds; scrapes in between are served the last one."""

    def __init__(
        self,
        store: Store,
        games: Iterable[str],
        fresh_for: float = FRESH_FOR,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.games = tuple(games)
        self.fresh_for = fresh_for
        self.monotonic = monotonic
        self._counted = -math.inf
        self._counting: asyncio.Task[dict[str, int]] | None = None

    async def count(self) -> dict[str, int]:
        """The games being played now, by game (every hosted game named, 0 included)."""
        keys = await self.store.due(math.inf, SCANNED)
        if len(keys) == SCANNED:
            log.warning("counting running games: only the first %d games with a timer", SCANNED)
        gate = asyncio.Semaphore(LOADS_AT_ONCE)

        async def game_of(key: str) -> str | None:
            async with gate:
                doc = await self.store.load(key)
            if doc is None:
                return None
            try:
                session = Session.loads(doc.data)
            except BadSession:
                return None
            return session.game if session.phase == PLAYING else None

        found = Tally(await asyncio.gather(*(game_of(k) for k in keys)))
        names = self.games + tuple(sorted(g for g in found if g and g not in self.games))
        return {game: found[game] for game in names}

    async def refresh(self) -> None:
        """Set the gauge from a fresh count (or the last one, within `fresh_for`); when the
        store cannot be reached, the gauge is left out rather than left stale."""
        if self.monotonic() - self._counted < self.fresh_for:
            return
        if self._counting is None or self._counting.done():  # concurrent scrapes share one
            self._counting = asyncio.ensure_future(self.count())
        try:
            counts = await asyncio.shield(self._counting)
        except Exception as exc:
            log.warning("could not count the running games: %r", exc)
            RUNNING.clear()
            return
        self._counted = self.monotonic()
        for game, running in counts.items():
            RUNNING.labels(game).set(running)


def kind_of(command: str | None, data: str | None, event: str | None) -> str:
    """An update's kind for the `kind` label."""
    if command is not None:
        return "command"
    if data is not None:
        return "press"
    return event or "other"
