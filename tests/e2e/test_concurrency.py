"""Simultaneous presses on one game, across two bot processes sharing a real Redis.

"Every change a compare-and-set (Lua), so two button presses at the same instant never lose an
update or apply a move twice." "Concurrency against real Redis (final state equals a serial
replay, no press applied twice; a duplicate delivery of the same update is ignored)."

Two Harness instances on one Redis prefix are two bot processes. Presses go in through
asyncio.gather, some through PTB's per-chat update processor (as polling delivers them), some
straight to the application (as concurrent webhook workers would).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from engine.core import stored
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness, hand_message
from tests.e2e.helpers import (
    GAMES,
    GROUP,
    JSON,
    answer_calls,
    feed_via_processor,
    load,
    open_table,
    query_id,
    ready_to_move,
    real_failures,
    state_of,
    table_id,
    to_move,
    user_of,
)

Processes = tuple[Harness, Harness]
PATIENT = Settings(redis_timeout=15.0, redis_connect_timeout=15.0)


@pytest.fixture
async def processes(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> AsyncIterator[Processes]:
    """Two bot processes on the same Redis prefix, each with its own client and PTB app. Their
    Redis may take its time (a race of 20 presses opens many connections at once, and a busy
    machine is no outage: tests/faults times those)."""
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix, PATIENT)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix, PATIENT)).start()
    try:
        yield a, b2
    finally:
        for h in (a, b2):
            await h.stop()
            await h.bot.service.sessions._store.close()


async def two_players(tg: FakeTelegram, a: Harness) -> list[JSON]:
    ann = tg.user(31, "Ann")
    bob = tg.user(32, "Bob")
    await open_table(a, tg, [ann, bob])
    return [ann, bob]


async def race(processes: Processes, updates: list[JSON]) -> None:
    """Deliver every update at the same instant, alternating processes and delivery paths.

    First each process opens enough Redis connections, as a busy bot has: else the first
    press would finish on an open connection while the others still connect."""
    for h in processes:
        await asyncio.gather(*(h.bot.service.sessions._store.load("warm") for _ in updates))

    async def deliver(i: int, update: JSON) -> None:
        h = processes[i % 2]
        if (i // 2) % 2:
            await feed_via_processor(h, update)
        else:
            await h.feed(update)

    await asyncio.gather(*(deliver(i, u) for i, u in enumerate(updates)))


def applied_once(session: Session, seat: int, code: str) -> Any:
    """The stored state after `seat` plays `code` once in `session`."""
    game = GAMES[session.game].game
    state, _ = game.apply(state_of(session), seat, game.decode_action(code))
    return stored(game, state)


def answers(tg: FakeTelegram, updates: list[JSON]) -> list[str]:
    """The one answer text of each update's query (asserting there was exactly one)."""
    texts = []
    for update in updates:
        calls = answer_calls(tg, update)
        assert len(calls) == 1 and calls[0].ok, (update, [(c.ok, c.params) for c in calls])
        answer = tg.callback_answer(query_id(update))
        assert answer is not None
        texts.append(answer["text"])
    return texts


def code_of(data: str) -> str:
    return data.rsplit("|", 1)[1]


async def test_one_button_pressed_20_times_at_once_is_applied_once(
    tg: FakeTelegram, processes: Processes
) -> None:
    """The same move button, pressed 20 times by its player across both processes: the move
    counter advances by one and the state is the prior state with that action applied once."""
    a, _ = processes
    users = await two_players(tg, a)
    rng = random.Random(1)
    prior = await load(a)
    seat = to_move(prior)
    user = user_of(prior, seat, users)
    message = await ready_to_move(a, tg, user, rng)
    prior = await load(a)
    data = next(d for d in message.callback_data if d.startswith(b.MOVE))
    table = tg.message(GROUP, int(table_id(prior)))
    table_edits = len(table.history)
    group_messages = len(tg.sent_to(GROUP))

    updates = [tg.callback_update(user, message, data) for _ in range(20)]
    await race(processes, updates)

    after = await load(a)
    assert after.moves == prior.moves + 1
    assert after.state == applied_once(prior, seat, code_of(data))
    texts = answers(tg, updates)
    assert texts.count("") == 1, "exactly one press was accepted"
    refusals = {
        "That button is outdated: here is your current hand.",
        "This button is no longer in use.",
    }
    assert {t.partition("\n")[0] for t in texts} - {""} <= refusals, texts
    assert len(table.history) == table_edits + 1, "one table edit for one move"
    assert tg.sent_to(GROUP)[group_messages:] == [], "no announcement, let alone two"
    assert not real_failures(tg), real_failures(tg)


async def test_racing_presses_equal_a_serial_replay_of_the_accepted_ones(
    tg: FakeTelegram, processes: Processes
) -> None:
    """Move after move, the player to move presses all their move buttons at once, the other
    player presses stale and out-of-turn buttons, and one press is delivered again to the
    other process once handled. The final state is the deal replayed with the accepted
    actions, in order. (An update is marked handled when its handling ends, so that one cut
    short by a crash is handled on redelivery: a copy delivered while the first is still in
    progress may be answered twice, but a move is never applied twice.)"""
    a, _ = processes
    users = await two_players(tg, a)
    rng = random.Random(2)
    start = await load(a)
    accepted: list[tuple[int, str]] = []
    stale: dict[int, tuple[StoredMessage, list[str]]] = {}  # seat -> earlier hand, its buttons
    for step in range(15):
        session = await load(a)
        seat = to_move(session)
        user = user_of(session, seat, users)
        message = await ready_to_move(a, tg, user, rng)
        session = await load(a)
        other = 1 - seat
        other_user = user_of(session, other, users)
        moves = [d for d in message.callback_data if d.startswith(b.MOVE)]
        updates = [tg.callback_update(user, message, d) for d in moves]
        updates += [tg.callback_update(user, message, d) for d in message.callback_data]
        if other in stale:  # buttons of the other's last turn, as a lagging client shows them
            old, data = stale[other]
            updates += [tg.callback_update(other_user, old, d, check=False) for d in data[:3]]
        own = hand_message(tg, other_user["id"]) or tg.sent_to(other_user["id"])[-1]
        stamp = session.stamps[other]
        out_of_turn = b.encode(b.MOVE, session.chat, code_of(moves[0]), stamp=stamp)
        updates.append(tg.callback_update(other_user, own, out_of_turn, check=False))
        rng.shuffle(updates)
        await race(processes, updates)
        await processes[1].feed(updates[0])  # delivered again once handled: ignored

        after = await load(a)
        assert after.moves == session.moves + 1, f"step {step}: exactly one move"
        texts = answers(tg, updates)
        taken = [
            code_of(u["callback_query"]["data"])
            for u, t in zip(updates, texts, strict=True)
            if t == "" and u["callback_query"]["data"].startswith(b.MOVE)
        ]
        assert len(taken) == 1, (step, texts)
        accepted.append((seat, taken[0]))
        stale[seat] = (message, list(message.callback_data))

    final = await load(a)
    game = GAMES[final.game].game
    state, _ = game.new_game(len(final.seats), final.options, final.seed)
    assert final.seed == start.seed
    for seat, code in accepted:
        state, _ = game.apply(state, seat, game.decode_action(code))
    assert stored(game, state) == final.state
    assert final.moves == start.moves + len(accepted)
    assert not real_failures(tg), real_failures(tg)


async def test_a_duplicate_delivery_is_ignored(tg: FakeTelegram, processes: Processes) -> None:
    """The same update delivered twice to one process, and once to each of two processes:
    one state change, one answer, no second message or edit."""
    a, b2 = processes
    users = await two_players(tg, a)
    rng = random.Random(3)

    for twice in ((a, a), (a, b2)):
        session = await load(a)
        user = user_of(session, to_move(session), users)
        message = await ready_to_move(a, tg, user, rng)
        session = await load(a)
        data = next(d for d in message.callback_data if d.startswith(b.MOVE))
        update = tg.callback_update(user, message, data)
        calls = len(tg.calls)
        if twice[0] is twice[1]:
            await twice[0].feed(update)
            handled = len(tg.calls)
            await twice[1].feed(update)
            assert len(tg.calls) == handled, "the second delivery made no call at all"
        else:
            await asyncio.gather(twice[0].feed(update), feed_via_processor(twice[1], update))
        after = await load(a)
        assert after.moves == session.moves + 1, "applied once"
        assert len(answer_calls(tg, update)) == 1, "answered once"
        made = tg.calls[calls:]
        edited = [
            (c.params["chat_id"], c.params["message_id"]) for c in made if "message_id" in c.params
        ]
        assert len(edited) == len(set(edited)), "no message edited twice"
        assert all(c.ok for c in made), [(c.method, c.description) for c in made if not c.ok]

    # A navigation step and a command, delivered twice: nothing happens the second time.
    session = await load(a)
    user = user_of(session, to_move(session), users)
    hand = hand_message(tg, user["id"])
    assert hand is not None
    nav = next(d for d in hand.callback_data if d.startswith(b.NAV))
    update = tg.callback_update(user, hand, nav)
    await a.feed(update)
    calls = len(tg.calls)
    await b2.feed(update)
    assert tg.calls[calls:] == [], "a repeated navigation press is ignored"
    status = tg.message_update(GROUP, users[0], "/status")
    await a.feed(status)
    calls = len(tg.calls)
    await b2.feed(status)
    assert tg.calls[calls:] == [], "a repeated command is ignored"
