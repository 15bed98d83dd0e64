"""Prometheus metrics, served at `/metrics` by the webhook server.

Counters and histograms are this process's: adapters name their platform in the `platform`
label; the core counts what it handles (sum them over processes). The games running are
counted in the shared store (as they start and end), so every process reports the same figure.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from prometheus_client import Counter, Gauge, Histogram

from chatbot.core.model import Command, Incoming, Membership, Press

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
MOVES = Counter(
    "egobot_moves_total",
    "Game actions saved, by game: people's presses and what timers did (computer players, skipped "
    "turns).",
    ["game"],
)
RUNNING = Gauge(
    "egobot_games_running",
    "Games being played now, by game, in the shared store (every process reports the same "
    "figure: aggregate with max, not sum).",
    ["game"],
)


class RunningGames:
    """Counts the games being played, by game, from the store itself, so that any number of
    processes on one store agree: the store counts a game as it starts and as its document
    goes (finished, stopped, expired), so a scrape costs one round trip however many games
    are played."""

    def __init__(
        self, running: Callable[[], Awaitable[dict[str, int]]], games: Iterable[str]
    ) -> None:
        self.running = running  # the store's count (`Sessions.count_running`)
        self.games = tuple(games)

    async def count(self) -> dict[str, int]:
        """The games being played now, by game (every hosted game named, 0 included)."""
        found = await self.running()
        names = self.games + tuple(sorted(g for g in found if g not in self.games))
        return {game: found.get(game, 0) for game in names}

    async def refresh(self) -> None:
        """Set the gauge from a fresh count; when the store cannot be reached, the gauge is
        left out rather than left stale."""
        try:
            counts = await self.count()
        except Exception as exc:
            log.warning("could not count the running games: %r", exc)
            RUNNING.clear()
            return
        for game, running in counts.items():
            RUNNING.labels(game).set(running)


def kind_of(inc: Incoming) -> str:
    """An update's kind for the `kind` label."""
    if isinstance(inc, Command):
        return "command"
    if isinstance(inc, Press):
        return "press"
    return inc.event if isinstance(inc, Membership) else "other"
