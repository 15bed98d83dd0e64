"""Telegram's flood limits, kept cheaply: a window per group, a leaky bucket over all chats.

Telegram allows a bot about 30 requests a second over all chats and about 20 messages (edits
count) a minute in one group. Requests queue for their turn instead of failing; a 429 answer
pauses only the chat that got it (not every chat, as a single global pause would) and the
request is retried after the time Telegram asked for.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)
Result = bool | dict[str, Any] | list[dict[str, Any]]


class Bucket:
    """A leaky bucket holding `capacity` requests that drains over `period` seconds."""

    def __init__(self, capacity: float, period: float, clock: Callable[[], float]) -> None:
        self.capacity = capacity
        self.drain = capacity / period  # requests a second
        self.level = 0.0
        self.clock = clock
        self.at = clock()

    def reserve(self) -> float:
        """Take a place for one request; the seconds it must wait for its turn."""
        now = self.clock()
        self.level = max(0.0, self.level - (now - self.at) * self.drain)
        self.at = now
        self.level += 1.0
        return max(0.0, (self.level - self.capacity) / self.drain)


class Window:
    """At most `limit` requests in any `period` seconds: each request gets the first moment
    when the request `limit` places before it is a full period old."""

    def __init__(self, limit: float, period: float, clock: Callable[[], float]) -> None:
        self.limit = max(1, int(limit))
        self.period = period
        self.clock = clock
        self.slots: deque[float] = deque(maxlen=self.limit)  # the latest reserved moments

    def reserve(self, not_before: float = 0.0) -> float:
        """Take a place for one request that cannot go for `not_before` seconds anyway; the
        seconds it must wait for its turn."""
        now = self.clock()
        at = now + not_before
        if len(self.slots) == self.limit:
            at = max(at, self.slots[0] + self.period)
        self.slots.append(at)
        return at - now


# A group's minute is counted where the messages arrive: a request that leaves late (a busy
# event loop, a slow connection) must not bring the next minute's first request closer.
GROUP_MARGIN = 1.0


class FloodLimiter(BaseRateLimiter[int]):
    """Throttles requests that name a chat; retries a 429 after Telegram's `retry_after`."""

    def __init__(
        self,
        overall_rate: float = 30.0,
        group_rate: float = 20.0,
        max_retries: int = 3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.overall_rate = overall_rate
        self.group_rate = group_rate
        self.max_retries = max_retries
        self.clock = clock
        self.overall = Bucket(overall_rate, 1.0, clock)
        self.groups: dict[int | str, Window] = {}
        self.paused: dict[int | str, float] = {}  # chat -> until when (after a 429)

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def _wait(self, chat: int | str) -> float:
        wait = max(self.overall.reserve(), self.paused.get(chat, 0.0) - self.clock())
        if isinstance(chat, str) or chat < 0:  # groups, supergroups and channels
            bucket = self.groups.get(chat)
            if bucket is None:
                period = 60.0 + GROUP_MARGIN
                bucket = self.groups[chat] = Window(self.group_rate, period, self.clock)
            wait = bucket.reserve(wait)  # the window keeps the moment the request really goes
        return wait

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Result:
        chat = data.get("chat_id")
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            if chat is not None:
                wait = self._wait(chat)
                if wait > 0:
                    await asyncio.sleep(wait)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == retries or chat is None:
                    raise
                pause = exc._retry_after.total_seconds() + 0.1
                self.paused[chat] = max(self.paused.get(chat, 0.0), self.clock() + pause)
                log.info("429 in %s: retrying %s in %.1f s", chat, endpoint, pause)
        raise AssertionError("unreachable")
