"""Telegram's flood limits, kept cheaply: a window per group, and one over all chats.

Telegram allows a bot about 30 requests a second over all chats and about 20 messages (edits
count) a minute in one group. Only messages (sends and edits) take a place in a group's window:
`getChatMember`, `getChat` and the like never wait behind a group's messages. Requests queue for
their turn instead of failing; a 429 answer pauses only the chat that got it (not every chat, as
a single global pause would) and the request is retried after the time Telegram asked for.
`ready` and `room` let the sender choose what to send when a place frees up, instead of
committing a message early to a long wait.

With several processes behind one bot, the windows and the pauses are one budget for all of
them (`share`: places reserved in the shared store, `chatbot.core.budget`); a process that
cannot reach the store falls back to its own windows at its share of the limits (the limits
divided by the processes that used the budget in the last minute).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from chatbot.core.budget import Budgets
from chatbot.store.base import Pace, StoreUnavailable

log = logging.getLogger(__name__)
Result = bool | dict[str, Any] | list[dict[str, Any]]


# The endpoints that post or change a message: only these count against a group's window.
MESSAGE_METHODS = frozenset(
    {
        "sendMessage", "editMessageText", "editMessageReplyMarkup", "editMessageCaption",
        "editMessageMedia", "sendPhoto", "sendDocument", "sendSticker", "sendAnimation",
        "copyMessage", "forwardMessage", "sendMediaGroup", "sendPoll", "sendDice",
    }
)  # fmt: skip
GROUP_PERIOD = 61.0  # Telegram counts a group's messages per minute; a second of slack for
# requests that reach it later than planned (network, event loop)
BOT_PERIOD = 1.1  # and the bot's requests per second: a tenth of a second of slack


class Window:
    """At most `limit` requests in any `period` seconds: each request gets the first moment
    when the request `limit` places before it is a full period old. Requests are also spread
    out (a token bucket of `burst` refilled at (limit - burst) a period, which alone never
    exceeds `limit` in any period): a busy group gets a message every few seconds instead of
    its whole minute in the first seconds and then a long silence."""

    def __init__(
        self, limit: float, period: float, clock: Callable[[], float], burst: int = 3
    ) -> None:
        self.limit = max(1, int(limit))
        self.period = period
        self.clock = clock
        self.slots: deque[float] = deque(maxlen=self.limit)  # the latest reserved moments
        self.burst = max(1, min(burst, self.limit))  # `limit`: no spreading
        self.spacing = period / (self.limit - self.burst) if self.burst < self.limit else 0.0
        self.free_at = -math.inf  # the spreading: when a burst of `burst` would be whole again

    def _spread(self, now: float) -> float:
        """The first moment the spreading lets a request go (a microsecond's rounding is now)."""
        at = self.free_at - (self.burst - 1) * self.spacing
        return at if at > now + 1e-6 else now

    def ready(self) -> float:
        """Seconds until a request would not wait (nothing is reserved)."""
        now = self.clock()
        at = self._spread(now)
        if len(self.slots) == self.limit:
            at = max(at, self.slots[0] + self.period)
        return max(0.0, at - now)

    def room(self) -> int:
        """Requests that could go now without waiting."""
        since = self.clock() - self.period
        return self.limit - sum(1 for at in self.slots if at > since)

    def reserve(self, earliest: float = 0.0) -> float:
        """Take a place for one request that cannot go before `earliest` seconds from now;
        the seconds it must wait for its turn."""
        now = self.clock()
        at = max(now + earliest, self._spread(now))
        if len(self.slots) == self.limit:
            at = max(at, self.slots[0] + self.period)
        self.slots.append(at)
        self.free_at = max(self.free_at, at) + self.spacing
        return at - now


class FloodLimiter(BaseRateLimiter[int]):
    """Throttles requests that name a chat; retries a 429 after Telegram's `retry_after`."""

    def __init__(
        self,
        overall_rate: float = 30.0,
        group_rate: float = 20.0,
        max_retries: int = 3,
        clock: Callable[[], float] = time.monotonic,
        burst: int = 3,
    ) -> None:
        self.overall_rate = overall_rate
        self.burst = burst  # a group's messages at once before they are spread out
        self.group_rate = group_rate
        self.max_retries = max_retries
        self.clock = clock
        self.overall = Window(overall_rate, BOT_PERIOD, clock, int(overall_rate))  # unspread
        self.groups: dict[int | str, Window] = {}
        self.paused: dict[int | str, float] = {}  # chat -> until when (after a 429)
        self.shared: Budgets | None = None  # the budget every process shares (`share`)
        self.name = ""  # the bot's budget in `shared`
        self.processes = 1  # processes seen using the shared budget (the fallback's divisor)
        self.known: dict[int | str, tuple[float, int]] = {}  # group -> (ready at, room), shared

    def share(self, budgets: Budgets, name: str) -> None:
        """Keep the bot's budget in `budgets` (named `name`, e.g. the bot's id), shared with
        every process behind the same bot."""
        self.shared, self.name = budgets, name

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def _window(self, chat: int | str) -> Window | None:
        """The chat's message window (groups, supergroups and channels; None for a person);
        with a shared budget, this process's share of it (used when the store is out of
        reach)."""
        if not _group(chat):
            return None
        window = self.groups.get(chat)
        rate = self.group_rate / self.processes
        if window is None or window.limit != max(1, int(rate)):
            window = Window(rate, GROUP_PERIOD, self.clock, self.burst)
            self.groups[chat] = window
        return window

    async def _shared_wait(self, chat: int | str, endpoint: str) -> float | None:
        """Reserve the request's places in the shared budget: the bot's rate, and for a
        message to a group the group's window; the seconds to wait (None: the store is out
        of reach)."""
        assert self.shared is not None
        overall = int(self.overall_rate)
        try:
            place = await self.shared.reserve(
                self.name, Pace(overall, BOT_PERIOD, overall), 0, True
            )
            self.processes = max(1, place.processes)
            wait = place.wait
            if endpoint in MESSAGE_METHODS and _group(chat):
                pace = Pace(int(self.group_rate), GROUP_PERIOD, self.burst)
                place = await self.shared.reserve(f"{self.name}/{chat}", pace, wait)
                self.known[chat] = (self.clock() + place.ready, place.room)
                wait = place.wait
        except StoreUnavailable as exc:
            log.warning("the shared flood budget is out of reach (%r): this process's share", exc)
            return None
        return max(wait, self.paused.get(chat, 0.0) - self.clock())

    def _wait(self, chat: int | str, endpoint: str) -> float:
        wait = max(self.overall.reserve(), self.paused.get(chat, 0.0) - self.clock())
        if endpoint in MESSAGE_METHODS and (window := self._window(chat)) is not None:
            wait = window.reserve(wait)
        return wait

    def ready(self, chat: int | str) -> float:
        """Seconds until a message to `chat` would go without waiting for its window (or a
        pause after a 429); nothing is reserved. With a shared budget: as the store said at
        this process's last message there."""
        now = self.clock()
        paused = self.paused.get(chat, 0.0) - now
        if self.shared is not None and chat in self.known:
            return max(0.0, paused, self.known[chat][0] - now)
        window = self._window(chat)
        return max(0.0, paused, window.ready() if window is not None else 0.0)

    def room(self, chat: int | str) -> int:
        """Messages `chat` could get now without waiting (a person: the group limit)."""
        if self.shared is not None and chat in self.known:
            ready_at, room = self.known[chat]
            return room if ready_at > self.clock() - GROUP_PERIOD else int(self.group_rate)
        window = self._window(chat)
        return window.room() if window is not None else int(self.group_rate)

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
                wait = None if self.shared is None else await self._shared_wait(chat, endpoint)
                if wait is None:
                    wait = self._wait(chat, endpoint)
                if wait > 0:
                    await asyncio.sleep(wait)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == retries or chat is None:
                    raise
                pause = _seconds(exc.retry_after) + 0.1
                self.paused[chat] = max(self.paused.get(chat, 0.0), self.clock() + pause)
                log.info("429 in %s: retrying %s in %.1f s", chat, endpoint, pause)
                if self.shared is not None and _group(chat):  # every process waits
                    with contextlib.suppress(StoreUnavailable):
                        await self.shared.pause(f"{self.name}/{chat}", pause)
        raise AssertionError("unreachable")


def _group(chat: int | str) -> bool:
    """Whether `chat` is a group, a supergroup or a channel (an @username, or an id below 0)."""
    return isinstance(chat, str) or chat < 0


def _seconds(duration: object) -> float:
    """`RetryAfter.retry_after` in seconds (a timedelta under PTB_TIMEDELTA, else a number)."""
    if isinstance(duration, dtm.timedelta):
        return duration.total_seconds()
    return float(duration)  # type: ignore[arg-type]
