"""Redis down, frozen or restarted: every press and command still gets an answer (the
storage message), nothing changes, and the game goes on once Redis is back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY

from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message
from tests.e2e.helpers import GROUP, JSON, answer_calls, load, open_table, to_move, user_of
from tests.faults.conftest import RedisProcess
from tests.faults.test_recovery import move_once

PREFIX = "fault:"
STORAGE = "I can't reach my game storage right now: try again in a moment."
TIMEOUT = 1.0  # the client's Redis timeout in these tests (seconds)


@pytest.fixture
async def bot(tg: FakeTelegram, own_redis: RedisProcess) -> AsyncIterator[Harness]:
    settings = replace(
        TEST_SETTINGS,
        redis_url=own_redis.url,
        redis_timeout=TIMEOUT,
        redis_connect_timeout=TIMEOUT,
    )
    h = await Harness(tg, RedisStore.from_settings(settings, PREFIX), settings).start()
    try:
        yield h
    finally:
        if own_redis.proc is None:
            own_redis.start()
        own_redis.thaw()
        await h.stop()
        await h.bot.sessions._store.close()


def storage_failures() -> float:
    """Updates answered "storage unavailable" so far."""
    labels = {"platform": "telegram", "cause": "storage"}
    return REGISTRY.get_sample_value("egobot_update_failures_total", labels) or 0.0


async def snapshot(url: str) -> dict[bytes, bytes | None]:
    """Every key of the games and their chats with its serialized value: not the claims on
    updates being handled, which lapse by themselves seconds later, nor the process's
    heartbeat, rewritten every few seconds (either made the comparison depend on time)."""
    client = aioredis.Redis.from_url(url)
    try:
        keys = sorted(await client.keys("*"))
        kept = [k for k in keys if b"claims" not in k and b"alive:" not in k]
        return {key: await client.dump(key) for key in kept}
    finally:
        await client.aclose()


def group_texts(tg: FakeTelegram) -> list[str]:
    """The bot's messages in the group, oldest first."""
    return [m.text for m in tg.messages_in(GROUP) if m.from_bot]


async def press_answer(h: Harness, tg: FakeTelegram, user: JSON, data: str) -> str:
    """Press `data` on the user's hand message; the text of the one answer it got."""
    hand = hand_message(tg, user["id"])
    assert hand is not None
    update = tg.callback_update(user, hand, data, check=False)
    await h.feed(update)
    (call,) = answer_calls(tg, update)
    return str(call.params.get("text", ""))


async def test_redis_down_every_press_and_command_is_answered_and_nothing_changes(
    tg: FakeTelegram, bot: Harness, own_redis: RedisProcess
) -> None:
    users = [tg.user(91, "Ann"), tg.user(92, "Bob")]
    await open_table(bot, tg, users)
    session = await load(bot)
    mover = user_of(session, to_move(session), users)
    hand = hand_message(tg, mover["id"])
    assert hand is not None
    # at rest: handled updates recorded, their claims released
    await bot.bot.runner.delivery.flush()
    before = await snapshot(own_redis.url)
    own_redis.kill()
    for data in hand.callback_data:
        assert await press_answer(bot, tg, mover, data) == STORAGE
    commands = ["/status", "/stop", "/newgame", "/help"]
    for text in commands:
        shown = len(group_texts(tg))
        await bot.command(GROUP, users[0], text)
        assert group_texts(tg)[shown:] == [STORAGE], text
    own_redis.start()
    assert await snapshot(own_redis.url) == before, "nothing was changed"
    moves = session.moves
    assert await move_once(bot, tg, users, seed=5) == moves + 1, "the game goes on"


async def test_redis_frozen_past_the_timeout_answers_within_seconds(
    tg: FakeTelegram, bot: Harness, own_redis: RedisProcess
) -> None:
    users = [tg.user(93, "Cai"), tg.user(94, "Dee")]
    await open_table(bot, tg, users)
    session = await load(bot)
    mover = user_of(session, to_move(session), users)
    hand = hand_message(tg, mover["id"])
    assert hand is not None
    own_redis.freeze()
    started = time.monotonic()
    assert await press_answer(bot, tg, mover, hand.callback_data[0]) == STORAGE
    shown = len(group_texts(tg))
    await bot.command(GROUP, users[0], "/status")
    assert group_texts(tg)[shown:] == [STORAGE]
    elapsed = time.monotonic() - started
    assert elapsed < 2 * (2 * TIMEOUT + 0.5), f"two answers took {elapsed:.1f} s"
    own_redis.thaw()
    assert await move_once(bot, tg, users, seed=6) == session.moves + 1


async def test_after_a_restart_no_update_fails(
    tg: FakeTelegram, bot: Harness, own_redis: RedisProcess
) -> None:
    """Pooled connections that Redis closed by restarting are replaced without a failure."""
    users = [tg.user(95, "Eve"), tg.user(96, "Fay")]
    await open_table(bot, tg, users)
    burst = [tg.message_update(GROUP, users[0], "/status") for _ in range(25)]
    await asyncio.gather(*(bot.feed(u) for u in burst))  # several pooled connections
    own_redis.kill()
    own_redis.start()
    shown = len(group_texts(tg))
    failed = storage_failures()
    burst = [tg.message_update(GROUP, users[i % 2], "/status") for i in range(25)]
    await asyncio.gather(*(bot.feed(u) for u in burst))
    answers = group_texts(tg)[shown:]
    assert storage_failures() == failed, "every update reached Redis"
    assert answers and STORAGE not in answers  # (a member's burst gets one reply)
    session = await load(bot)
    assert await move_once(bot, tg, users, seed=7) == session.moves + 1
