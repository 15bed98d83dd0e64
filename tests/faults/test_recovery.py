"""A saved move is always announced: a process that dies after its save leaves the change
owed, and another process delivers it once, within seconds; a finished game whose end was
cut short still reaches the history."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from telegram import Update

from chatbot.core.sessions import OWED_GRACE, Platform, Sessions
from chatbot.core.work import Found, Outcome
from chatbot.games import registry
from chatbot.store.base import Conflict
from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick, two_processes
from tests.e2e.helpers import CHAT, GROUP, JSON, load, open_table, table_id, to_move, user_of


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def pair(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> AsyncIterator[tuple[Harness, Harness]]:
    async with two_processes(tg, redis_url, redis_prefix, TEST_SETTINGS, clock) as pair:
        yield pair


async def move_once(h: Harness, tg: FakeTelegram, users: list[JSON], seed: int) -> int:
    """Press until one move is saved; the number of moves made so far."""
    rng = random.Random(seed)
    session = await load(h)
    user = user_of(session, to_move(session), users)
    while (await load(h)).moves == session.moves:
        hand = hand_message(tg, user["id"])
        assert hand is not None
        await h.press(user, hand, pick(hand, rng), check=False)
    return (await load(h)).moves


async def test_a_move_saved_by_a_process_that_died_is_announced_by_another(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    a, b2 = pair
    users = [tg.user(81, "Ann"), tg.user(82, "Bob")]
    await open_table(a, tg, users)
    table_no = int(table_id(await load(a)))
    before = tg.message(GROUP, table_no).text
    tg.hold(GROUP)  # A's sends to the group hang: A dies with the table edit in hand
    session = await load(a)
    user = user_of(session, to_move(session), users)
    rng = random.Random(3)
    while (await load(a)).moves == session.moves:
        hand = hand_message(tg, user["id"])
        assert hand is not None
        update = tg.callback_update(user, hand, pick(hand, rng), check=False)
        await a.bot.app.process_update(Update.de_json(update, a.bot.app.bot))
    moved = await load(a)
    assert tg.message(GROUP, table_no).text == before, "the group has not seen the move"
    tg.let_through()  # A stays hung: only B can deliver now
    clock.now += OWED_GRACE + 1
    assert await b2.tick() >= 1, "B found the change owed and delivered it"
    assert tg.message(GROUP, table_no).text != before, "the table shows the move now"
    next_user = user_of(moved, to_move(moved), users)
    assert hand_message(tg, next_user["id"]) is not None
    clock.now += OWED_GRACE + 1
    assert await b2.tick() == 0, "delivered once, not again"


async def test_a_writer_paused_across_stop_and_newgame_never_overwrites_the_new_table(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    """A (e.g. a computer move) loads the game and pauses; on B the host stops it and opens a
    new table; A's save of the stopped game is refused and the new table stays."""
    a, b2 = pair
    users = [tg.user(83, "Cy"), tg.user(84, "Di")]
    await open_table(a, tg, users)
    paused, version = await a.bot.sessions.load(CHAT)
    assert paused is not None and paused.phase == "playing"
    await b2.command(GROUP, users[0], "/stop")
    await b2.command(GROUP, users[0], "/newgame")
    while (await b2.bot.sessions.load(CHAT))[1] < version:  # lobby changes (e.g. joins)
        await b2.bot.sessions.change(CHAT, resave)
    paused.moves += 1
    with pytest.raises(Conflict):
        await a.bot.sessions.save(paused, version, owed=True)
    now = await load(b2)
    assert now.phase == "lobby", "the new table was not overwritten"


async def resave(found: Found) -> Outcome[None]:
    """Save the session as it is (a change that moves its version on)."""
    return Outcome(None, save=found.session)


async def test_a_process_clock_follows_the_redis_clock(redis_url: str, redis_prefix: str) -> None:
    """Deadlines are compared across processes: each takes Redis's clock (TIME), not its own."""
    store = RedisStore.from_url(redis_url, redis_prefix)
    try:
        sessions = Sessions(store, TEST_SETTINGS, registry(), Platform())
        sessions.liveness.offset = 3600.0  # as if this machine's clock were an hour fast
        await sessions.liveness.heartbeat()
        server = await store.server_time()
        assert server is not None and abs(sessions.clock() - server) < 0.5
        assert abs(sessions.liveness.offset) < 0.5
    finally:
        await store.close()
