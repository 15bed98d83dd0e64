"""Timers: computer players move on their own; idle people are reminded, then replaced.

"Computer players move on their own with a short delay; a human who does not move within a
configurable time gets a reminder, then a computer player takes the turn for them."
Deadlines are driven by a settable clock given to the bot; `tick()` runs what is due.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import orjson
import pytest
from prometheus_client import REGISTRY

from chatbot.core import buttons as b
from chatbot.core.session import WAIT_BOT, WAIT_REMIND, WAIT_TAKEOVER
from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick
from tests.e2e.helpers import (
    GROUP,
    JSON,
    load,
    open_table,
    real_failures,
    table_id,
    to_move,
    user_of,
    waiting,
)


def moves_counted() -> float:
    """`egobot_moves_total{game="egonomy"}` in this process."""
    return REGISTRY.get_sample_value("egobot_moves_total", {"game": "egonomy"}) or 0.0


SETTINGS = replace(TEST_SETTINGS, bot_delay=2.0, remind_after=30.0, takeover_after=20.0)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def h(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> AsyncIterator[Harness]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    harness = await Harness(tg, store, SETTINGS, clock).start()
    try:
        yield harness
    finally:
        await harness.stop()
        await store.close()


async def test_an_idle_player_is_reminded_then_a_computer_moves_for_them(
    h: Harness, tg: FakeTelegram, clock: Clock
) -> None:
    ann = tg.user(51, "Ann")
    bob = tg.user(52, "Bob")
    users = [ann, bob]
    await open_table(h, tg, users)
    session = await load(h)
    idle = user_of(session, to_move(session), users)
    assert waiting(session) == WAIT_REMIND and session.deadline == clock.now + 30.0
    private = len(tg.sent_to(idle["id"]))

    clock.now += 29.9
    assert await h.tick() == 0, "not yet"
    clock.now += 0.2
    assert await h.tick() == 1
    reminder = tg.last_message(idle["id"])
    assert reminder is not None and len(tg.sent_to(idle["id"])) == private + 1
    assert reminder.text.startswith(
        "⏰ It is your turn! If you do not move in 20 seconds, a computer player will move for you."
    )
    assert any(d[0] in "mn" for d in reminder.callback_data), "the hand comes with the reminder"
    reminded = await load(h)
    assert (reminded.moves, reminded.state) == (session.moves, session.state), "only a reminder"
    assert waiting(reminded) == WAIT_TAKEOVER and reminded.deadline == clock.now + 20.0

    group = len(tg.sent_to(GROUP))
    clock.now += 19.9
    assert await h.tick() == 0, "not yet"
    clock.now += 0.2
    counted = moves_counted()
    assert await h.tick() > 0
    taken = await load(h)
    assert taken.moves == session.moves + 1, "a computer moved for the idle player"
    assert moves_counted() == counted + 1, "the metric counts the timer's move"
    notices = [m.text for m in tg.sent_to(GROUP)[group:]]
    name = idle["first_name"]
    assert f"{name} was away: a computer player moved for them." in notices
    table = tg.message(GROUP, int(table_id(taken)))
    assert table.history, "the table shows the move"
    assert not real_failures(tg), real_failures(tg)


async def test_a_move_in_time_cancels_the_reminder(
    h: Harness, tg: FakeTelegram, clock: Clock
) -> None:
    ann = tg.user(53, "Ann")
    bob = tg.user(54, "Bob")
    users = [ann, bob]
    await open_table(h, tg, users)
    session = await load(h)
    user = user_of(session, to_move(session), users)
    clock.now += 25.0
    hand = hand_message(tg, user["id"])
    assert hand is not None
    rng = random.Random(1)
    while (await load(h)).moves == session.moves:
        await h.press(user, hand, pick(hand, rng))
    moved = await load(h)
    assert moved.deadline == clock.now + 30.0, "the next player gets the full time"
    clock.now += 10.0
    assert await h.tick() == 0, "the mover is not reminded"


async def your_turn(h: Harness, tg: FakeTelegram, user: JSON) -> StoredMessage:
    """Wait (up to 10 s) until the computers have played and the user's hand has buttons."""
    deadline = time.monotonic() + 10
    while True:
        session = await load(h)
        hand = hand_message(tg, user["id"])
        if (
            not any(kind == WAIT_BOT for kind, _ in session.timers.values())
            and hand is not None
            and all(
                b.decode(d).stamp == session.stamps[to_move(session)]  # type: ignore[union-attr]
                for d in hand.callback_data
            )
        ):
            assert session.seats[to_move(session)].user == f"tg:{user['id']}"
            return hand
        assert time.monotonic() < deadline, "the computers did not move"
        await asyncio.sleep(0.01)


async def test_computer_players_move_on_their_own(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """With the bot's own ticker running (no tick() calls), three computer players play
    their turns after a short delay until it is the person's turn again."""
    settings = replace(TEST_SETTINGS, bot_delay=0.05, tick=0.02)
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, settings).start()
    h.bot.runner.start()
    try:
        ann = tg.user(55, "Ann")
        await open_table(h, tg, [ann], computers=3)
        start = await load(h)
        rng = random.Random(2)
        presses = 0
        for _ in range(3):
            hand = await your_turn(h, tg, ann)
            before = (await load(h)).moves
            for _ in range(30):  # a move takes a few presses (steps of a choice)
                if (await load(h)).moves != before:
                    break
                await h.press(ann, hand, pick(hand, rng))
                presses += 1
            else:
                session = await load(h)
                raise AssertionError(f"30 presses, no move: {hand.text!r} {session.timers}")
        await your_turn(h, tg, ann)
        end = await load(h)
        assert end.moves - start.moves > presses, "the computers moved too"
        # Every table the group was shown (edits of one message, or a new message when a round
        # ended meanwhile): the computers' moves are among them.
        shown = [t for m in tg.sent_to(GROUP) for t in (*m.history, m.text) if "🤖" in t]
        assert len(set(shown)) >= 3, "the table showed the computers' moves"
        assert not h.bot.errors and not real_failures(tg), real_failures(tg)
    finally:
        await h.stop()
        await store.close()


async def test_a_session_that_cannot_be_read_does_not_stop_the_other_games_timers(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> None:
    """Keep ticking whatever one game did: a game whose session cannot be read (here saved by
    a newer version) is logged and its deadline dropped, and the games due after it still get
    their turn."""
    settings = replace(SETTINGS, tick=0.02)
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, settings, clock).start()
    try:
        ann = tg.user(56, "Ann")
        await open_table(h, tg, [ann], computers=1)
        session = await load(h)
        newer = orjson.dumps({"schema": 99})
        await store.save("game:tg:-100999", newer, 0, None, clock.now - 100)  # due first
        clock.now += 31.0  # the game's timer is due too (a computer move or a reminder)
        h.bot.runner.start()
        deadline = time.monotonic() + 5
        while (await load(h)).deadline == session.deadline:
            assert time.monotonic() < deadline, "the game's timer never ran"
            await asyncio.sleep(0.01)
        assert "game:tg:-100999" not in await store.due(clock.now, 50), "the poison is gone"
        assert not h.bot.errors
    finally:
        h.bot.errors.clear()
        await h.stop()
        await store.close()
