"""A restart of the bot process: every running game continues from Redis.

"After a restart of the bot process, every running game continues from Redis." Process A is
stopped mid-game; process B, a new TelegramBot on the same Redis prefix, finishes the game by
button presses only, editing the table message A posted (its id lives in the session).
"""

from __future__ import annotations

import random
from dataclasses import replace

import orjson

from chatbot.core.session import WAIT_BOT
from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick
from tests.e2e.helpers import (
    CHAT,
    GROUP,
    load,
    open_table,
    play_out,
    real_failures,
    table_id,
    to_move,
    user_of,
    waiting,
)


async def test_process_b_finishes_the_game_process_a_began(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """A deals and plays some moves, stops; B finishes by presses and edits A's table."""
    ann = tg.user(21, "Ann")
    bob = tg.user(22, "Bob")
    users = [ann, bob]
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        await open_table(a, tg, users, computers=1)
        dealt = await load(a)
        rng = random.Random(7)
        for _ in range(100):
            if await a.tick():
                continue
            session = await load(a)
            if session.moves >= dealt.moves + 8:
                break
            user = user_of(session, to_move(session), users)
            message = hand_message(tg, user["id"])
            assert message is not None
            await a.press(user, message, pick(message, rng))
        before = await load(a)
    finally:
        await a.stop()
        await a.bot.service.sessions._store.close()
    assert before.moves >= dealt.moves + 8, "A played moves"
    table_no = int(table_id(before))
    restart = len(tg.calls)

    b = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        resumed = await load(b)
        assert (resumed.moves, resumed.state) == (before.moves, before.state)
        presses = await play_out(b, tg, users, seed=8)
        assert presses > 5, "B's players finished the game by pressing buttons"
        after = tg.calls[restart:]
        edits = [c for c in after if c.method == "editMessageText" and c.params["chat_id"] == GROUP]
        assert edits and edits[0].params["message_id"] == table_no, "B edits A's table message"
        sends = [c for c in after if c.method == "sendMessage" and c.params["chat_id"] == GROUP]
        assert all(c.ok for c in sends)
        first_send = tg.calls.index(sends[0]) if sends else len(tg.calls)
        assert tg.calls.index(edits[0]) < first_send, "no new table before the first edit"
        assert await b.bot.service.sessions._store.load(f"game:{CHAT}") is None, (
            "the game left the store"
        )
        final = tg.last_message(GROUP)
        assert final is not None and "🏆" in final.text, "the game ended with a ranking"
        (entry,) = await b.bot.service.sessions._store.history(f"hist:{CHAT}", 5)
        ranking = orjson.loads(entry)["ranking"]
        assert sorted(r["name"] for r in ranking) == sorted(["Ann", "Bob", "Socrates"])
        assert not real_failures(tg), real_failures(tg)
    finally:
        await b.stop()
        await b.bot.service.sessions._store.close()


async def test_a_computer_move_scheduled_by_a_is_played_by_b(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """ "Computer players move on their own with a short delay": the deadline is in Redis,
    so the computer's move A scheduled is played by B's timer after the restart."""
    clock = Clock()
    settings = replace(TEST_SETTINGS, bot_delay=5.0)
    ann = tg.user(23, "Ann")
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix), settings, clock).start()
    try:
        await open_table(a, tg, [ann], computers=1)
        rng = random.Random(3)
        for _ in range(20):
            session = await load(a)
            if waiting(session) == WAIT_BOT:
                break
            message = hand_message(tg, ann["id"])
            assert message is not None
            await a.press(ann, message, pick(message, rng))
        scheduled = await load(a)
    finally:
        await a.stop()
        await a.bot.service.sessions._store.close()
    assert waiting(scheduled) == WAIT_BOT and scheduled.deadline == clock.now + 5.0
    assert scheduled.seats[to_move(scheduled)].bot, "the computer is to move"
    table_no = int(table_id(scheduled))
    edits_before = len(tg.message(GROUP, table_no).history)

    b = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix), settings, clock).start()
    try:
        clock.now += 4.9
        assert await b.tick() == 0, "not due yet"
        clock.now += 0.2
        assert await b.tick() > 0, "B played the computer's move"
        after = await load(b)
        assert after.moves > scheduled.moves
        assert len(tg.message(GROUP, table_no).history) > edits_before, "the table was edited"
        assert not real_failures(tg), real_failures(tg)
    finally:
        await b.stop()
        await b.bot.service.sessions._store.close()
