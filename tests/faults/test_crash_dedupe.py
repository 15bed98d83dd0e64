"""A process cut short in the middle of a press (before its save) leaves the update
unhandled: Telegram's redelivery is handled by another process, once. A save that Redis
applied while the process saw it time out is announced all the same."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeout
from telegram import Update

from chatbot.core.sessions import OWED_GRACE
from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, hand_message
from tests.e2e.helpers import (
    GROUP,
    JSON,
    answer_calls,
    load,
    open_table,
    table_id,
    to_move,
    user_of,
)
from tests.redis_packets import Wire


def hold_loads(client: aioredis.Redis, hold: Callable[[], Awaitable[None]]) -> None:
    """Every pipeline `client` sends (a load: the document and the fields beside it) waits
    for `hold` first."""
    pipeline = client.pipeline

    def held(*args: Any, **kwargs: Any) -> Any:
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute

        async def waiting(*args: Any, **kwargs: Any) -> Any:
            await hold()
            return await execute(*args, **kwargs)

        pipe.execute = waiting  # type: ignore[method-assign]
        return pipe

    client.pipeline = held  # type: ignore[method-assign]


async def move_update(h: Harness, tg: FakeTelegram, users: list[JSON]) -> JSON:
    """A press of a move button by the player to move (navigating their hand to one)."""
    rng = random.Random(11)
    session = await load(h)
    user = user_of(session, to_move(session), users)
    while True:
        hand = hand_message(tg, user["id"])
        assert hand is not None
        moves = [d for d in hand.callback_data if d.startswith("m")]
        if moves:
            return tg.callback_update(user, hand, rng.choice(moves))
        steps = [d for d in hand.callback_data if d.startswith("n")]
        await h.press(user, hand, rng.choice(steps))


async def test_a_press_cut_short_before_its_save_is_handled_on_redelivery(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    clock = Clock()
    client = aioredis.Redis.from_url(redis_url)
    a = await Harness(tg, RedisStore(client, redis_prefix), clock=clock).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix), clock=clock).start()
    a.bot.sessions.in_flight = 0.5  # A's hold on the update it died handling lapses soon
    try:
        users = [tg.user(85, "Gus"), tg.user(86, "Hal")]
        await open_table(a, tg, users)
        before = await load(a)
        update = await move_update(a, tg, users)
        reached = asyncio.Event()

        evalsha = client.evalsha
        saving = a.bot.sessions._store._save.sha  # type: ignore[attr-defined]

        async def dies(*args: Any, **kwargs: Any) -> Any:
            if args[0] != saving:
                return await evalsha(*args, **kwargs)
            reached.set()  # A got as far as its compare-and-set, and dies there
            await asyncio.Event().wait()

        client.evalsha = dies  # type: ignore[method-assign]
        task = asyncio.create_task(a.bot.app.process_update(Update.de_json(update, a.bot.app.bot)))
        await asyncio.wait_for(reached.wait(), 5)
        task.cancel()
        assert (await load(b2)).moves == before.moves
        assert answer_calls(tg, update) == [], "A never answered: Telegram delivers it again"
        await b2.feed(update)
        after = await load(b2)
        assert after.moves == before.moves + 1, "the redelivery was handled"
        assert len(answer_calls(tg, update)) == 1
        sent = len(tg.calls)
        await b2.feed(update)
        assert (await load(b2)).moves == after.moves, "a handled update is ignored"
        assert len(tg.calls) == sent
    finally:
        await b2.stop()
        await b2.bot.sessions._store.close()
        a.bot.errors.clear()
        await a.bot.runner.stop()
        await a.bot.app.shutdown()
        await client.aclose()


async def test_a_move_saved_while_its_save_timed_out_is_announced(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """Redis applies the compare-and-set but answers too late: the process looks again, finds
    its save applied, and answers the press as if nothing had happened (never "I can't reach
    my game storage"); the move is announced at once, and only once."""
    clock = Clock()
    client = aioredis.Redis.from_url(redis_url)
    h = await Harness(tg, RedisStore(client, redis_prefix), clock=clock).start()
    try:
        users = [tg.user(97, "Max"), tg.user(98, "Ned")]
        await open_table(h, tg, users)
        before = await load(h)
        table = int(table_id(before))
        shown = tg.message(GROUP, table).text
        update = await move_update(h, tg, users)
        evalsha = client.evalsha
        saving = h.bot.sessions._store._save.sha  # type: ignore[attr-defined]

        async def late(*args: Any, **kwargs: Any) -> Any:
            result = await evalsha(*args, **kwargs)
            if args[0] != saving:
                return result
            raise RedisTimeout("Timeout reading from socket")

        client.evalsha = late  # type: ignore[method-assign]
        await h.feed(update)
        client.evalsha = evalsha  # type: ignore[method-assign]
        (answer,) = answer_calls(tg, update)
        assert "storage" not in str(answer.params.get("text")), "the move's own answer"
        moved = await load(h)
        assert moved.moves == before.moves + 1, "Redis applied the move, once"
        assert tg.message(GROUP, table).text != shown, "the move is announced"
        next_user = user_of(moved, to_move(moved), users)
        assert hand_message(tg, next_user["id"]) is not None
        sent = len(tg.calls)
        clock.now += OWED_GRACE + 1
        assert await h.tick() == 0, "announced once"
        assert len(tg.calls) == sent
    finally:
        await h.stop()
        await client.aclose()


async def test_a_move_whose_reply_was_lost_and_retried_is_announced(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """The connection breaks after Redis applied the compare-and-set: the client sends it
    again on a new connection and gets a conflict; the press gets its answer and the move is
    announced at once, as if nothing had broken, and only once."""
    clock = Clock()
    store = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, store, clock=clock).start()
    try:
        users = [tg.user(99, "Oz"), tg.user(100, "Pia")]
        await open_table(h, tg, users)
        before = await load(h)
        table = int(table_id(before))
        shown = tg.message(GROUP, table).text
        update = await move_update(h, tg, users)
        broken: list[Connection] = []

        async def lost(conn: Connection, packet: bytes, reply: Any) -> Any:
            if broken:
                return reply
            broken.append(conn)  # Redis applied the save; its reply is lost
            await conn.disconnect(nowait=True)
            raise RedisConnectionError("Connection reset by peer")

        with Wire(store._save.sha.encode(), after=lost):
            await h.feed(update)
        assert broken, "the reply of the save was lost once"
        moved = await load(h)
        assert moved.moves == before.moves + 1
        (answer,) = answer_calls(tg, update)
        text = str(answer.params.get("text"))
        assert text and "storage" not in text, "the presser is told what they did"
        assert tg.message(GROUP, table).text != shown, "the move is announced"
        next_user = user_of(moved, to_move(moved), users)
        assert hand_message(tg, next_user["id"]) is not None
        sent = len(tg.calls)
        clock.now += OWED_GRACE + 1
        assert await h.tick() == 0, "announced once"
        assert len(tg.calls) == sent
    finally:
        await h.stop()
        await store.close()


async def test_a_copy_delivered_while_another_process_handles_the_update_is_recognised(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """Telegram delivers an update again while process A is still handling it (A is slow):
    process B waits for A's claim on it and then finds it handled: one answer, not two."""
    client = aioredis.Redis.from_url(redis_url)
    a = await Harness(tg, RedisStore(client, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(71, "Rae"), tg.user(72, "Sol")]
        await open_table(a, tg, users)
        update = tg.message_update(GROUP, users[0], "/status")
        before = len(tg.sent_to(GROUP))
        inside = asyncio.Event()

        async def slowly() -> None:
            inside.set()  # A holds the update and is loading the game: slowly
            await asyncio.sleep(0.5)

        hold_loads(client, slowly)
        first = asyncio.create_task(a.feed(update))
        await asyncio.wait_for(inside.wait(), 5)
        await b2.feed(update)  # the same update, to another process, while A handles it
        await first
        assert len(tg.sent_to(GROUP)) == before + 1, "answered once"
        await b2.feed(update)
        assert len(tg.sent_to(GROUP)) == before + 1, "and a later copy is ignored"
    finally:
        await b2.stop()
        await b2.bot.sessions._store.close()
        await a.stop()
        await client.aclose()


async def test_a_copy_whose_first_handler_died_holding_it_is_handled_after_the_claim_lapses(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """A claimed the update and died before answering: B's copy waits at most A's claim
    (`in_flight` seconds), then handles it."""
    client = aioredis.Redis.from_url(redis_url)
    a = await Harness(tg, RedisStore(client, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    a.bot.sessions.in_flight = 1.0
    try:
        users = [tg.user(73, "Tam"), tg.user(74, "Uma")]
        await open_table(a, tg, users)
        update = tg.message_update(GROUP, users[0], "/status")
        before = len(tg.sent_to(GROUP))
        inside = asyncio.Event()

        async def dies() -> None:
            inside.set()
            await asyncio.Event().wait()

        hold_loads(client, dies)
        first = asyncio.create_task(a.bot.app.process_update(Update.de_json(update, a.bot.app.bot)))
        await asyncio.wait_for(inside.wait(), 5)
        first.cancel()
        began = asyncio.get_running_loop().time()
        await b2.feed(update)
        waited = asyncio.get_running_loop().time() - began
        assert len(tg.sent_to(GROUP)) == before + 1, "the copy was handled"
        assert 0.5 < waited < 3.0, waited
    finally:
        await b2.stop()
        await b2.bot.sessions._store.close()
        a.bot.errors.clear()
        await a.bot.runner.stop()
        await a.bot.app.shutdown()
        await client.aclose()


async def test_a_step_delivered_again_is_answered_once_by_either_process(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """A step of a choice changes no game: it is recorded as handled with the deliveries (no
    round trip of its own). A copy to the same process is dropped there at once; a copy to
    another process while the record waits holds back until it is written (the claim), and
    one after it finds it handled: one answer, one edit."""
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(83, "Eve"), tg.user(84, "Fay")]
        await open_table(a, tg, users)
        session = await load(a)
        user = user_of(session, to_move(session), users)
        hand = hand_message(tg, user["id"])
        assert hand is not None
        step = next(d for d in hand.callback_data if d.startswith("n"))
        update = tg.callback_update(user, hand, step)
        edits = len(tg.calls_to("editMessageText"))
        await a.feed(update)  # (feed waits for the sends, not for the record)
        await a.feed(update)
        assert len(answer_calls(tg, update)) == 1, "the same process drops its copy"
        # b2 waits for the record
        await asyncio.gather(b2.feed(update), a.bot.runner.delivery.flush())
        assert len(answer_calls(tg, update)) == 1, "the other process, once it is recorded"
        await b2.feed(update)
        assert len(answer_calls(tg, update)) == 1 and answer_calls(tg, update)[0].ok
        assert len(tg.calls_to("editMessageText")) == edits + 1
    finally:
        for h in (a, b2):
            await h.stop()
            await h.bot.sessions._store.close()
