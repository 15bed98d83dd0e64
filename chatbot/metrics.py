"""Prometheus metrics of this process, served at `/metrics` by the webhook server.

Adapters name their platform in the `platform` label; the core counts what it handles.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

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
MOVES = Counter("egobot_moves_total", "Game actions applied, by game.", ["game"])


def kind_of(command: str | None, data: str | None, event: str | None) -> str:
    """An update's kind for the `kind` label."""
    if command is not None:
        return "command"
    if data is not None:
        return "press"
    return event or "other"
