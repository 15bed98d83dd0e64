"""The chat core with games of other shapes, through the real Telegram adapter and Redis.

Two games that exist only in the tests are registered beside Egonomy through the same
registry: Pick (everyone picks secretly at once on the group's table, then a reveal) and Slap
(turns from the private hand, and an out-of-turn "Slap!" for every eligible player).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from chatbot.core import buttons as b
from chatbot.core.registry import Registry
from chatbot.core.session import WAIT_BOT, WAIT_REMIND, WAIT_TAKEOVER, Session
from chatbot.games import registry
from engine.core import restore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import TEST_SETTINGS, Harness, two_processes
from tests.e2e.helpers import CHAT, GROUP, JSON, button, real_failures, table_id
from tests.games import pick, slap

GAMES = Registry([*registry(), pick.bundle(), slap.bundle()])
SETTINGS = replace(TEST_SETTINGS, bot_delay=2.0, remind_after=30.0, takeover_after=20.0)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def pair(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two bot processes on one Redis, both hosting the test games."""
    async with two_processes(tg, redis_url, redis_prefix, SETTINGS, clock, GAMES) as pair:
        yield pair


async def open_game(
    h: Harness, tg: FakeTelegram, game: str, humans: list[JSON], computers: int = 0
) -> StoredMessage:
    """The first human opens `game` in GROUP, the others join, computers fill, start."""
    host = humans[0]
    if GROUP not in tg.chats:
        tg.group(GROUP, "Players", creator=host)
    for user in humans:
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, host, f"/newgame {game}")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and lobby.callback_data
    for user in humans[1:]:
        await h.press(user, lobby, button(lobby, b.JOIN))
        lobby = tg.message(GROUP, lobby.message_id)
    for _ in range(computers):
        await h.press(host, lobby, button(lobby, b.ADD_BOT))
        lobby = tg.message(GROUP, lobby.message_id)
    await h.press(host, lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing" and session.game == game
    return table_message(tg, session)


async def load(h: Harness) -> Session:
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None
    return session


def state_of(session: Session) -> Any:
    return restore(GAMES[session.game].game, session.state)


def table_message(tg: FakeTelegram, session: Session) -> StoredMessage:
    return tg.message(GROUP, int(table_id(session)))


def pick_button(table: StoredMessage, n: int) -> str:
    return next(d for d in table.callback_data if d.endswith(f"|p{n}"))


def people(tg: FakeTelegram, *names: str) -> list[JSON]:
    return [tg.user(40 + i, name) for i, name in enumerate(names)]


async def test_simultaneous_picks_by_three_players_are_all_applied(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    """Ann, Bob and Cid press their picks at the same instant on two processes: every pick
    is applied (none is "outdated" by another's), and the reveal follows the last one."""
    a, b2 = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_game(a, tg, "pick", [ann, bob, cid])
    presses = [
        tg.callback_update(user, table, pick_button(table, n))
        for user, n in ((ann, 2), (bob, 3), (cid, 1))
    ]
    await asyncio.gather(*(h.feed(u) for h, u in zip((a, b2, a), presses, strict=True)))
    session = await load(a)
    state = state_of(session)
    assert (state.turn, state.scores) == (2, (2, 3, 1)), "all three picks, then the reveal"
    for update in presses:
        qid = str(update["callback_query"]["id"])
        (answer,) = [
            c for c in tg.calls_to("answerCallbackQuery") if c.params["callback_query_id"] == qid
        ]
        assert answer.params.get("text", "").startswith("You picked"), answer.params
    assert not real_failures(tg), real_failures(tg)


async def test_a_pick_may_change_until_everyone_has_picked(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    a, _ = pair
    ann, bob = people(tg, "Ann", "Bob")
    table = await open_game(a, tg, "pick", [ann, bob])
    await a.press(ann, table, pick_button(table, 1))
    table = tg.message(GROUP, table.message_id)
    await a.press(ann, table, pick_button(table, 3), check=False)
    await a.press(bob, table, pick_button(table, 2), check=False)
    assert state_of(await load(a)).scores == (3, 2)


async def test_a_computer_picks_on_its_own_and_the_people_are_waited_for(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    """A computer and two people pick in one turn: only the computer moves on its own."""
    a, _ = pair
    ann, bob = people(tg, "Ann", "Bob")
    table = await open_game(a, tg, "pick", [ann, bob], computers=1)
    session = await load(a)
    assert session.timers["2"][0] == WAIT_BOT
    assert session.timers["0"][0] == session.timers["1"][0] == WAIT_REMIND
    clock.now += SETTINGS.bot_delay
    await a.tick()
    session = await load(a)
    state = state_of(session)
    assert state.picks[2] == 1 and state.picks[:2] == (0, 0), "only the computer picked"
    assert state.turn == 1 and set(session.timers) == {"0", "1"}
    assert not any("was away" in m.text for m in tg.sent_to(GROUP))
    await a.press(ann, table, pick_button(table, 2), check=False)
    await a.press(bob, table, pick_button(table, 3), check=False)
    assert state_of(await load(a)).turn == 2


async def test_a_reminder_and_a_takeover_hit_only_the_idle_seat(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_game(a, tg, "pick", [ann, bob, cid])
    await a.press(ann, table, pick_button(table, 2))
    await a.press(bob, table, pick_button(table, 3), check=False)
    sent = len(tg.sent_to(GROUP))
    clock.now += SETTINGS.remind_after
    await a.tick()
    reminders = tg.sent_to(GROUP)[sent:]
    assert [m.text.startswith("⏰ Cid") for m in reminders] == [True], [m.text for m in reminders]
    session = await load(a)
    assert session.timers == {"2": [WAIT_TAKEOVER, clock.now + SETTINGS.takeover_after]}
    clock.now += SETTINGS.takeover_after
    await a.tick()
    state = state_of(await load(a))
    assert (state.turn, state.scores) == (2, (2, 3, 0)), "Cid was skipped, the others kept"


async def test_the_out_of_turn_slap_is_offered_to_every_eligible_player_and_the_first_wins(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    a, b2 = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    await open_game(a, tg, "slap", [ann, bob, cid])
    users = [ann, bob, cid]
    for _ in range(4):  # flip until the 4 turns up (cards 1, 2, 3, 4 in order)
        session = await load(a)
        flipper = users[state_of(session).turn]
        hand = next(m for m in reversed(tg.sent_to(flipper["id"])) if m.callback_data)
        await a.press(flipper, hand, hand.callback_data[0], check=False)
    session = await load(a)
    state = state_of(session)
    assert state.open and state.flipper == 0, "Ann flipped the 4"
    table = table_message(tg, session)
    slap_data = next(d for d in table.callback_data if d.endswith("|slap"))
    presses = [tg.callback_update(u, table, slap_data) for u in (bob, cid)]
    await asyncio.gather(a.feed(presses[0]), b2.feed(presses[1]))
    state = state_of(await load(a))
    assert sorted(state.scores) == [0, 0, 1] and state.scores[0] == 0, "one slap counted"
    texts = []
    for update in presses:
        qid = str(update["callback_query"]["id"])
        (call,) = [
            c for c in tg.calls_to("answerCallbackQuery") if c.params["callback_query_id"] == qid
        ]
        texts.append(call.params.get("text", ""))
    assert sorted(texts) == ["", "Too late: someone slapped first."], texts
    table = table_message(tg, await load(a))
    assert not any(d.endswith("|slap") for d in table.callback_data), "the chance is gone"


async def test_a_computer_slaps_out_of_turn(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    a, _ = pair
    (ann,) = people(tg, "Ann")
    await open_game(a, tg, "slap", [ann], computers=2)
    for _ in range(200):
        session = await load(a)
        state = state_of(session)
        if state.over or state.top >= 4:
            break
        if state.turn == 0:
            hand = next(m for m in reversed(tg.sent_to(ann["id"])) if m.callback_data)
            await a.press(ann, hand, hand.callback_data[0], check=False)
        else:
            clock.now += SETTINGS.bot_delay
            await a.tick()
    session = await load(a)
    state = state_of(session)
    assert state.top == 4 and state.flipper == 0 and state.open, "Ann flipped the 4"
    assert session.timers["1"][0] == session.timers["2"][0] == WAIT_BOT, "both may slap"
    clock.now += SETTINGS.bot_delay
    await a.tick()
    scores = state_of(await load(a)).scores
    assert scores[0] == 0 and sum(scores) == 1, "the first computer's slap counted, once"
