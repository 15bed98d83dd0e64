"""Clocks a test moves on: the code under test takes them where it would read the time."""

from __future__ import annotations

import time


class Clock:
    """Stands still at `now` until the test sets it or calls `advance`."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Skipping:
    """`time.monotonic()` plus every wait the test skipped: time still runs (a real wait still
    ends), and a test skips, with `advance`, an interval its behaviour does not depend on."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.skipped

    def advance(self, seconds: float) -> None:
        self.skipped += seconds
