"""Not flooding the group, and surviving Telegram's flood control.

"The group is not flooded: one table message edited in place, table edits coalesced per group
(at most one every few seconds, configurable, always showing the latest state) while the
acting player's own private message updates at once." "Sending respects Telegram's rate
limits and retries after a 429."
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from telegram import Update

from chatbot.core import views
from chatbot.core.model import Capabilities
from chatbot.core.session import Session
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import Call, FakeTelegram, StoredMessage
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick
from tests.e2e.helpers import (
    GAMES,
    GROUP,
    JSON,
    load,
    open_table,
    real_failures,
    table_id,
    to_move,
    user_of,
)

COALESCED = replace(TEST_SETTINGS, table_interval=0.3)


@pytest.fixture
async def store(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    yield store
    await store.close()


async def started(tg: FakeTelegram, store: RedisStore, settings: Settings) -> Harness:
    return await Harness(tg, store, settings).start()


async def two_players(h: Harness, tg: FakeTelegram) -> list[JSON]:
    users = [tg.user(61, "Ann"), tg.user(62, "Bob")]
    await open_table(h, tg, users)
    return users


async def play_moves(
    h: Harness, tg: FakeTelegram, users: list[JSON], moves: int, rng: random.Random
) -> None:
    """Press buttons until `moves` moves were made; each mover's hand updates at once."""
    for _ in range(moves):
        session = await load(h)
        user = user_of(session, to_move(session), users)
        hand = hand_message(tg, user["id"])
        assert hand is not None
        while (await load(h)).moves == session.moves:
            edits = len(hand.history)
            await h.press(user, hand, pick(hand, rng))
            assert len(hand.history) == edits + 1, "the player's own message updated at once"


def table_of(tg: FakeTelegram, session: Session) -> StoredMessage:
    return tg.message(GROUP, int(table_id(session)))


def shows(message: StoredMessage, session: Session) -> bool:
    """Whether the table message shows the session's latest state, text and buttons."""
    latest = views.table(session, GAMES[session.game], Capabilities())
    data = [button.data for row in latest.buttons for button in row]
    return message.raw == latest.text and message.callback_data == data


def table_edits(tg: FakeTelegram, message: StoredMessage, since: int) -> list[Call]:
    return [
        c
        for c in tg.calls[since:]
        if c.method == "editMessageText"
        and c.params["chat_id"] == GROUP
        and c.params["message_id"] == message.message_id
    ]


async def settled(h: Harness, tg: FakeTelegram, timeout: float = 8.0) -> Session:
    """Wait until the table shows the latest state and no table edit is pending."""
    deadline = time.monotonic() + timeout
    while True:
        session = await load(h)
        await h.bot.runner.delivery.flush()
        if shows(table_of(tg, session), session) and session.moves == (await load(h)).moves:
            return session
        assert time.monotonic() < deadline, "the table never showed the latest state"
        await asyncio.sleep(0.02)


async def test_sends_and_edits_retry_after_429_and_nothing_is_lost(
    tg: FakeTelegram, store: RedisStore
) -> None:
    h = await started(tg, store, TEST_SETTINGS)
    try:
        users = await two_players(h, tg)
        since = len(tg.calls)
        tg.flood_limit(GROUP, 3, retry_after=1)
        await play_moves(h, tg, users, 7, random.Random(1))
        await h.bot.runner.delivery.flush()  # the table edits wait in their queue, not in the press
        session = await load(h)
        limited = [c for c in tg.calls[since:] if c.error_code == 429]
        assert limited, "the flood limit was hit"
        for call in limited:
            later = tg.calls[tg.calls.index(call) + 1 :]
            retried = [c for c in later if c.method == call.method and c.params == call.params]
            assert retried and retried[0].ok, f"{call.method} was retried and went through"
        assert shows(table_of(tg, session), session)
        assert not [f for f in real_failures(tg) if not f[1] or "Too Many" not in f[1]]
        assert not h.bot.errors
    finally:
        await h.stop()


async def test_table_edits_are_coalesced_and_show_the_latest_state(
    tg: FakeTelegram, store: RedisStore
) -> None:
    h = await started(tg, store, COALESCED)
    try:
        users = await two_players(h, tg)
        start = await load(h)
        table = table_of(tg, start)
        since, began = len(tg.calls), time.monotonic()
        await play_moves(h, tg, users, 10, random.Random(2))
        session = await settled(h, tg)
        took = time.monotonic() - began
        assert table_id(session) == table_id(start), "still the same table"
        made = session.moves - start.moves
        edits = table_edits(tg, table, since)
        assert 1 <= len(edits) < made, (len(edits), made)
        assert len(edits) <= 1 + took / COALESCED.table_interval, "at most one per interval"
        assert (
            edits[-1].params["text"]
            == views.table(session, GAMES[session.game], Capabilities()).text
        ), "the last edit is latest"
    finally:
        await h.stop()


async def test_coalesced_edits_under_flood_control_end_at_the_latest_state(
    tg: FakeTelegram, store: RedisStore
) -> None:
    """A table edit held up by a 429 is never overtaken by an older one."""
    h = await started(tg, store, COALESCED)
    try:
        users = await two_players(h, tg)
        since = len(tg.calls)
        tg.flood_limit(GROUP, 1, retry_after=1)
        await play_moves(h, tg, users, 20, random.Random(3))
        await settled(h, tg)
        assert any(c.error_code == 429 for c in tg.calls[since:]), "the flood limit was hit"
        assert not h.bot.errors
    finally:
        await h.stop()


async def test_a_pending_table_edit_is_sent_when_the_bot_stops(
    tg: FakeTelegram, store: RedisStore
) -> None:
    h = await started(tg, store, TEST_SETTINGS)
    users = await two_players(h, tg)
    # from here on a table edit waits 30 s for the one before it (the lobby's went at once)
    delivery = h.bot.runner.delivery
    delivery.settings = replace(delivery.settings, table_interval=30.0)
    await play_moves(h, tg, users, 3, random.Random(4))
    session = await load(h)
    assert not shows(table_of(tg, session), session), "the latest table edit is pending"
    await h.stop()
    assert shows(table_of(tg, session), session), "the latest state reached the group"


async def test_a_membership_check_never_waits_behind_the_groups_messages(
    tg: FakeTelegram, store: RedisStore
) -> None:
    """Telegram's 20 a minute counts a group's messages: with the minute spent, a non-host's
    /stop is checked (getChatMember) at once, and the game's presses are answered at once."""
    limited = replace(
        TEST_SETTINGS, telegram=replace(TEST_SETTINGS.telegram, group_rate=20.0, overall_rate=30.0)
    )
    h = await started(tg, store, limited)
    try:
        users = await two_players(h, tg)
        carl = tg.user(63, "Carl")
        tg.set_admins(GROUP, [])
        for _ in range(20):  # the group's minute is spent (as 20 sends reserve it)
            await h.bot.limiter._shared_wait(GROUP, "sendMessage")
        assert h.bot.limiter.room(GROUP) == 0 and h.bot.limiter.ready(GROUP) > 30
        before = len(tg.calls_to("getChatMember"))
        began = time.time()
        update = tg.message_update(GROUP, carl, "/stop")
        await h.bot.app.process_update(Update.de_json(update, h.bot.app.bot))
        (check,) = tg.calls_to("getChatMember")[before:]
        assert check.at - began < 1.0, "asked at once"
        session = await load(h)
        user = user_of(session, to_move(session), users)
        hand = hand_message(tg, user["id"])
        assert hand is not None
        update = tg.callback_update(user, hand, pick(hand, random.Random(1)))
        began = time.monotonic()
        await h.bot.app.process_update(Update.de_json(update, h.bot.app.bot))
        assert time.monotonic() - began < 1.0, "the press is answered at once"
        assert tg.callback_answer(update["callback_query"]["id"]) is not None
    finally:
        h.bot.limiter.groups.clear()  # as if the minute had passed: what waits goes now
        h.bot.runner.delivery.wake()
        await h.stop()
