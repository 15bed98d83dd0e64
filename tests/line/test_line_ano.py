"""Ano in a LINE group, end to end with the real line-bot-sdk against the fake LINE server: two
people (their hands in their 1:1 chats, asked for with the table's link) and two computers play
a whole game; every action is answered by its own free reply, and the pushes (a small monthly
quota) are counted: only a move made in a 1:1 chat costs one, to tell the group."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core.session import WAIT_BOT
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from engine.ano.rules import FORGOT_CALL, OWES, State
from engine.core import restore
from tests.clock import Skipping
from tests.line.fake_line import FakeLine, bot_settings
from tests.line.test_line_game import buttons, deliver, typed

CALL = "|a"  # the end of the data of a hand's "Ano!" button
INTERVAL = 3.0  # as in production: a group's table update waits this long for newer ones


@pytest.fixture
async def ano_bot(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[LineBot]:
    """A LINE bot whose group table updates wait an interval for newer ones (as they do in
    production): a person's move and the computers' answers go out as one push. Its clock
    skips the interval once the computers have answered (`delivered`)."""
    # a computer thinks in a thread: no process pool starting mid-game
    settings = bot_settings(line, table_interval=INTERVAL, think_workers=0)
    store = RedisStore.from_url(redis_url, redis_prefix)
    lb = line_bot(settings, store, registry(), monotonic=Skipping())
    await lb.start()
    try:
        yield lb
    finally:
        await lb.stop()


async def test_a_whole_ano_game_in_a_line_group(ano_bot: LineBot, line: FakeLine) -> None:
    bot = ano_bot
    ann, bob = line.user("Ann", "en"), line.user("Bob", "th")
    people = [ann, bob]
    group = line.group(ann, bob)
    await deliver(bot, line, line.join(group))
    for user in people:
        token = await deliver(bot, line, line.follow(user))
        assert token and line.answered(token)
    token = await deliver(bot, line, line.text(group, ann, "/newgame ano"))
    assert token and line.answered(token)
    (join,) = buttons(line.to(group)[-1], b.JOIN)
    assert await deliver(bot, line, line.postback(group, bob, join))
    for _ in range(2):
        (add,) = buttons(line.to(group)[-1], b.ADD_BOT)
        assert await deliver(bot, line, line.postback(group, ann, add))
    bot.sessions.seeds = lambda: 1
    (start,) = buttons(line.to(group)[-1], b.START)
    token = await deliver(bot, line, line.postback(group, ann, start))
    assert token and line.answered(token) and not line.pushes

    chat, rng = qualify(group), random.Random(1)
    counts = dict.fromkeys(("moves by people", "calls", "catches", "asked", "computer"), 0)
    for _ in range(3000):
        session, _ = await bot.sessions.load(chat)
        if session is None:
            break
        if moved := await computers(bot, chat):  # a computer's chance out of turn
            counts["computer"] += moved
            await delivered(bot)
            continue
        game = bot.sessions.bundle(session).game
        state: State = restore(game, session.state)
        seat_of = {qualify(u): u for u in people}
        humans = [(s, seat_of[p.user]) for s, p in enumerate(session.seats) if p.user]
        forgot = [s for s, status in enumerate(state.ano) if status == FORGOT_CALL]
        catchers = [u for s, u in humans if forgot and s not in forgot + list(state.finished)]
        if catchers:  # "Caught!" on the group's table, answered in the group
            table = next(m for m in reversed(line.to(group)) if buttons(m, b.GROUP_MOVE))
            caught = next(d for d in buttons(table, b.GROUP_MOVE) if d.endswith(f"|c{forgot[0]}"))
            user, event = catchers[0], line.postback(group, catchers[0], caught)
            counts["catches"] += 1
        else:
            (user,) = [u for s, u in humans if s == state.turn]  # computers were ticked above
            mine = line.to(user)[-1] if line.to(user) else None
            moves = [d for d in buttons(mine, b.MOVE) if not d.endswith(CALL)] if mine else []
            options = moves or (buttons(mine, b.NAV) if mine else [])
            if options:
                event = line.postback(user, user, rng.choice(options))
            else:  # the table's "My hand" opens the 1:1 chat with the request typed in
                event = line.text(user, user, typed(line.to(group)[-1], "🃏"))
                counts["asked"] += 1
        assert await bot.webhook(*line.signed(event)) == 200
        assert await answered(line, event), "handled, and answered by its own reply"
        after, _ = await bot.sessions.load(chat)
        if event["source"]["type"] == "user" and "postback" in event:
            counts["moves by people"] += after is None or after.moves != session.moves
        if user == ann and after is not None and restore(game, after.state).ano[0] == OWES:
            # Ann says "Ano!" at once, with her play (Bob always forgets)
            (call,) = [d for d in buttons(line.to(ann)[-1], b.MOVE) if d.endswith(CALL)]
            event = line.postback(ann, ann, call)
            assert await bot.webhook(*line.signed(event)) == 200
            assert await answered(line, event)
            counts["calls"] += 1
        counts["computer"] += await computers(bot, chat)  # due at once: they ride along
        await delivered(bot)
    else:
        raise AssertionError("the game did not end")

    replies, pushes = len(line.replies), len(line.pushes)
    print(f"\nLINE Ano, 2 people and 2 computers: {counts}, {replies} replies, {pushes} pushes")
    assert "Ano: the game is over." in line.to(group)[-1].text
    assert not line.refused, line.refused
    assert not bot.errors
    assert bot.replies == replies and bot.pushes == pushes
    assert all(s.chat == group for s in line.pushes), "never a push to a player"
    assert counts["moves by people"] > 10 and counts["computer"] > 10
    # Only a move made in a 1:1 chat needs a push, to tell the group; "Ano!" said at once
    # rides along with it, and a catch is pressed in the group itself.
    assert pushes <= counts["moves by people"]


async def delivered(bot: LineBot) -> None:
    """Deliver what waits: the table update's interval is over (its clock skips it)."""
    assert isinstance(bot.runner.monotonic, Skipping)
    bot.runner.monotonic.advance(INTERVAL)
    bot.runner.delivery.wake()
    await bot.runner.delivery.flush()


async def answered(line: FakeLine, event: dict[str, object]) -> bool:
    """Whether the event's reply token answered it, waiting a moment for the delivery."""
    for _ in range(200):
        if line.answered(str(event["replyToken"])):
            return True
        await asyncio.sleep(0.005)
    return False


async def computers(bot: LineBot, chat: str) -> int:
    """Tick while a computer is due (each acts as soon as the last change is saved); how many
    ticks moved one."""
    moved = 0
    for _ in range(100):
        session, _ = await bot.sessions.load(chat)
        due = session is not None and any(
            kind == WAIT_BOT and at <= bot.sessions.clock() for kind, at in session.timers.values()
        )
        if not due:
            return moved
        moved += bool(await bot.runner.tick())
        await asyncio.sleep(0.001)
    raise AssertionError("the computers kept acting")
