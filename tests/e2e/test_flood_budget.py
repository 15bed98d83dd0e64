"""Presses are answered at once even when a group's flood budget is spent.

Telegram allows a bot about 20 messages (edits count) a minute in one group. Four players
press about once a second for three minutes under the default limits: every press is
answered within a second, the group never gets more than its budget in any minute, and the
table ends showing the latest state.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace

import pytest

from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick
from tests.e2e.helpers import GROUP, open_table, to_move, user_of
from tests.e2e.test_rate_limits import shows, table_of

DEFAULTS = Settings()
FLOOD = replace(
    TEST_SETTINGS,
    telegram=replace(
        TEST_SETTINGS.telegram,
        group_rate=DEFAULTS.telegram.group_rate,
        overall_rate=DEFAULTS.telegram.overall_rate,
    ),
    table_interval=DEFAULTS.table_interval,
)
PLAY_SECONDS = 180.0


@pytest.mark.slow
async def test_four_players_pressing_once_a_second_for_three_minutes(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, FLOOD).start()
    try:
        users = [tg.user(60 + i, name) for i, name in enumerate(("Ann", "Bob", "Cid", "Dee"))]
        await open_table(h, tg, users)
        rng = random.Random(11)
        latencies: list[float] = []
        began = time.monotonic()
        while time.monotonic() - began < PLAY_SECONDS:
            tick = time.monotonic()
            session, _ = await h.bot.sessions.load(f"tg:{GROUP}")
            if session is None:
                break  # the game ended
            user = user_of(session, to_move(session), users)
            hand = hand_message(tg, user["id"])
            assert hand is not None
            update = tg.callback_update(user, hand, pick(hand, rng), check=False)
            qid = str(update["callback_query"]["id"])
            pressed_at = time.time()  # the fake stamps its calls with the wall clock
            await h.feed(update)
            (answer,) = [
                c
                for c in tg.calls_to("answerCallbackQuery")
                if c.params["callback_query_id"] == qid
            ]
            latencies.append(answer.at - pressed_at)
            await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
        await h.bot.runner.delivery.flush()
        latencies.sort()
        p99 = latencies[int(len(latencies) * 0.99) - 1]
        assert len(latencies) >= 100 and p99 < 1.0, (len(latencies), p99, latencies[-5:])

        group_calls = sorted(
            c.at
            for c in tg.calls
            if c.method in ("sendMessage", "editMessageText")
            and str(c.params.get("chat_id")) == str(GROUP)
            and c.ok
        )
        for i, at in enumerate(group_calls):
            in_minute = sum(1 for t in group_calls[i:] if t - at < 60.0)
            assert in_minute <= DEFAULTS.telegram.group_rate, (
                f"{in_minute} group messages in a minute"
            )
        session, _ = await h.bot.sessions.load(f"tg:{GROUP}")
        if session is not None:
            assert shows(table_of(tg, session), session), "the table ends current"
        assert not h.bot.errors
    finally:
        await h.stop()
        await store.close()
