"""Telegram's flood limits: windows of messages and a 429 that pauses only its own chat."""

from __future__ import annotations

import datetime as dtm
import itertools
from typing import Any

import pytest
from telegram.error import RetryAfter

from chatbot.telegram.limits import GROUP_PERIOD, FloodLimiter, Window
from tests.clock import Clock


def test_the_bots_rate_never_exceeds_30_in_any_second() -> None:
    """The bot's 30 messages a second over all chats: a burst of 30 goes at once, and no second
    (with a tenth of slack for the way to Telegram) ever holds more, however they are asked
    for (a leaky bucket let a second burst drain through within the same second)."""
    clock = Clock(1000.0)
    limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
    moments = []
    for i in range(200):
        moments.append(clock() + limiter._wait(10_000 + i, "sendMessage"))
        if i >= 29:  # after a burst of 30 at once, asked for now and then
            clock.now += 0.4 if i % 50 == 0 else 0.01
    assert moments[:30] == [1000.0] * 30
    moments.sort()
    most = max(sum(1 for m in moments[k:] if m < at + 1.1) for k, at in enumerate(moments))
    assert most == 30


def test_private_chats_only_count_against_the_overall_limit() -> None:
    clock = Clock(1000.0)
    limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
    send = "sendMessage"
    assert [limiter._wait(-100, send) for _ in range(3)] == [0.0] * 3
    assert limiter._wait(-100, send) > 0, "the 4th message of a burst in one group waits"
    assert [limiter._wait(12345, send) for _ in range(20)] == [0.0] * 20, "a person does not"
    assert limiter._wait(-200, send) == 0.0, "nor another group"


def test_only_messages_wait_for_a_groups_window() -> None:
    """A group's 20 a minute counts messages (sends and edits): a membership check asked
    when the window is full goes at once, and takes no place in it."""
    clock = Clock(1000.0)
    limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
    for _ in range(10):
        limiter._wait(-100, "sendMessage")
        clock.now += 3.0
        limiter._wait(-100, "editMessageText")
        clock.now += 3.0
    assert limiter.room(-100) == 0 and limiter.ready(-100) > 0
    assert limiter._wait(-100, "getChatMember") == 0.0
    assert limiter._wait(-100, "getChat") == 0.0
    assert limiter.room(-100) == 0, "the checks took no place"
    assert limiter._wait(-100, "editMessageText") > 0, "an edit is a message: it waits"


def test_ready_and_room_say_when_a_group_may_get_its_next_message() -> None:
    clock = Clock(1000.0)
    limiter = FloodLimiter(overall_rate=30, group_rate=20, clock=clock)
    assert limiter.ready(-100) == 0.0 and limiter.room(-100) == 20
    for _ in range(3):  # a burst
        assert limiter._wait(-100, "sendMessage") == 0.0
    assert limiter.room(-100) == 17
    spacing = limiter.ready(-100)
    assert spacing == pytest.approx(GROUP_PERIOD / 17), "then one every 61/17 s"
    clock.now += spacing
    assert limiter.ready(-100) == 0.0
    assert limiter.room(555) == 20 and limiter.ready(555) == 0.0, "a person: no window"


async def test_a_429_pauses_only_its_chat_and_the_request_is_retried() -> None:
    clock = Clock(1000.0)
    limiter = FloodLimiter(clock=clock)
    calls: list[int] = []

    async def flaky(**kw: Any) -> bool:
        calls.append(len(calls))
        if len(calls) == 1:
            raise RetryAfter(dtm.timedelta(seconds=0))
        return True

    assert await limiter.process_request(flaky, (), {}, "sendMessage", {"chat_id": -1}, None)
    assert calls == [0, 1], "retried once"
    assert -1 in limiter.paused and 5 not in limiter.paused


async def test_a_429_after_the_last_retry_is_raised() -> None:
    limiter = FloodLimiter(max_retries=1, clock=Clock(1000.0))

    async def always(**kw: Any) -> bool:
        raise RetryAfter(dtm.timedelta(seconds=0))

    with pytest.raises(RetryAfter):
        await limiter.process_request(always, (), {}, "sendMessage", {"chat_id": 7}, None)


def test_a_group_window_never_allows_more_than_its_limit_in_any_minute() -> None:
    """No 60-second window ever holds more than 20 (a bucket would allow 40), and a busy
    minute is spread out: 3 at once, then one every 60/17 s, never a long silence."""
    clock = Clock(1000.0)
    window = Window(20, 60.0, clock)
    sent = []
    for _ in range(60):
        sent.append(clock.now + window.reserve())
        clock.now += 0.5
    for i, at in enumerate(sent):
        assert sum(1 for t in sent[i:] if t - at < 60.0) <= 20
    assert sent[2] == sent[0] + 1.0, "a burst of 3 goes as it comes"
    gaps = [b - a for a, b in itertools.pairwise(sent[3:])]
    assert max(gaps) <= 60.0 / 17 + 1e-9, "then one every 3.5 s: no long silence"


def test_with_the_window_full_a_message_waits_for_the_first_to_age_out() -> None:
    clock = Clock(1000.0)
    window = Window(20, 60.0, clock, burst=20)  # no spreading: the window alone
    waits = [window.reserve() for _ in range(21)]
    assert waits[:20] == [0.0] * 20 and waits[20] == pytest.approx(60.0)
