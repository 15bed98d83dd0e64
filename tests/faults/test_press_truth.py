"""Every redelivered press is answered with the truth (issue 38, item 1), two bot processes on
one real Redis: a process that saved a move and died before answering (its heartbeat still
fresh), or that stalled at its save while Redis applied it, leaves the press to the process
that gets Telegram's copy, which says "That press was already counted." with the move's news;
the stalled process, when it wakes, says nothing more (one answer in all), and the move is
applied and announced once."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from chatbot.store.redis import RedisStore
from chatbot.telegram.convert import incoming
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness
from tests.e2e.helpers import GROUP, answer_calls, load, open_table, table_id
from tests.faults.test_crash_dedupe import move_update

COUNTED = "That press was already counted."


def texts(tg: FakeTelegram, update: dict[str, Any]) -> list[str]:
    return [str(c.params.get("text", "")) for c in answer_calls(tg, update)]


async def test_a_move_saved_by_a_process_that_died_before_answering_is_told_by_the_next(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """(Its heartbeat has not lapsed yet when the copy comes: before, the copy was answered
    with nothing, as if the live process would answer it.)"""
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(601, "Ann"), tg.user(602, "Bob")]
        await open_table(a, tg, users)
        before = await load(a)
        update = await move_update(a, tg, users)
        inc = incoming(update, a.bot.app.bot.username)
        assert inc is not None
        reply = await a.bot.service.handle(inc)  # saved; A dies before it answers or sends
        assert reply.answer is not None and (await load(a)).moves == before.moves + 1
        assert await a.bot.sessions.liveness.alive(a.bot.sessions.process), "its heartbeat is fresh"
        await b2.feed(update)  # Telegram delivers the press again, to B
        (said,) = texts(tg, update)
        assert said.startswith(COUNTED), said
        assert (await load(b2)).moves == before.moves + 1, "applied once"
    finally:
        await a.stop()
        await b2.stop()


async def test_a_process_frozen_at_its_save_does_not_answer_a_press_another_answered(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    client = aioredis.Redis.from_url(redis_url)
    a = await Harness(tg, RedisStore(client, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(603, "Cid"), tg.user(604, "Dee")]
        await open_table(a, tg, users)
        before = await load(a)
        table = int(table_id(before))
        shown = tg.message(GROUP, table).text
        update = await move_update(a, tg, users)
        saving = a.bot.sessions._store._save.sha  # type: ignore[attr-defined]
        evalsha = client.evalsha
        saved, woken = asyncio.Event(), asyncio.Event()

        async def frozen(*args: Any, **kwargs: Any) -> Any:
            result = await evalsha(*args, **kwargs)
            if args[0] == saving and not woken.is_set():
                saved.set()  # Redis applied the save; the process stops before it reads it
                await woken.wait()
            return result

        client.evalsha = frozen  # type: ignore[method-assign]
        first = asyncio.create_task(a.feed(update))
        await asyncio.wait_for(saved.wait(), 10)
        await b2.feed(update)  # the copy, while A is frozen
        (said,) = texts(tg, update)
        assert said.startswith(COUNTED), said
        woken.set()  # A wakes: its save went through, but B answered the press
        await asyncio.wait_for(first, 10)
        client.evalsha = evalsha  # type: ignore[method-assign]
        assert texts(tg, update) == [said], "one answer in all"
        moved = await load(a)
        assert moved.moves == before.moves + 1, "applied once"
        await a.bot.runner.delivery.flush()
        assert tg.message(GROUP, table).text != shown, "the move is announced"
    finally:
        await a.stop()
        await b2.stop()
        await client.aclose()


async def test_a_copy_of_a_press_answered_at_once_says_nothing(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(605, "Eve"), tg.user(606, "Fay")]
        await open_table(a, tg, users)
        update = await move_update(a, tg, users)
        await a.feed(update)
        await a.bot.runner.delivery.flush()  # (its answer recorded with the ledger)
        answered = texts(tg, update)
        assert len(answered) == 1 and COUNTED not in answered[0]
        await b2.feed(update)
        assert texts(tg, update) == answered, "the copy says nothing"
    finally:
        await a.stop()
        await b2.stop()
