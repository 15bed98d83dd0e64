"""EGO in a LINE group: every pick is a postback on the group's table answered with its own
reply token, no pick is ever shown to the group before the reveal, and a whole game of three
people sends no push at all (pushes come from a small monthly quota)."""

from __future__ import annotations

import json
import random

from chatbot.core import buttons as b
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from engine.core import restore
from engine.ego.rules import State
from tests.line.fake_line import FakeLine
from tests.line.test_line_game import buttons, deliver


async def test_a_whole_ego_game_in_a_line_group_sends_no_push(bot: LineBot, line: FakeLine) -> None:
    people = [line.user(name, "en", friend=False) for name in ("Ann", "Bob", "Cid")]
    group = line.group(*people)
    await deliver(bot, line, line.join(group))
    await deliver(bot, line, line.text(group, people[0], "/newgame ego"))
    for user in people[1:]:
        (join,) = buttons(line.to(group)[-1], b.JOIN)
        token = await deliver(bot, line, line.postback(group, user, join))
        assert token and line.answered(token), "a join needs no private chat in EGO"
    (start,) = buttons(line.to(group)[-1], b.START)
    await deliver(bot, line, line.postback(group, people[0], start))
    chat, rng, picks = qualify(group), random.Random(5), 0
    for _ in range(2000):
        session, _ = await bot.sessions.load(chat)
        if session is None:
            break
        game = bot.sessions.bundle(session).game
        state: State = restore(game, session.state)
        table = next(s for s in reversed(line.to(group)) if buttons(s, b.GROUP_MOVE))
        seat = rng.choice(game.to_move(state))
        if seat == state.active:
            code = str(rng.randint(1, 3))
        else:
            code = (
                f"{rng.randint(1, 3)}b{rng.choice([s for s in (1, 2) if s <= state.tokens[seat]])}"
            )
        (data,) = [d for d in buttons(table, b.GROUP_MOVE) if d.endswith(f"|{code}")]
        user = next(u for u in people if qualify(u) == session.seats[seat].user)
        before = len(line.to(group))
        event = line.postback(group, user, data)
        token = await deliver(bot, line, event)
        assert token and line.answered(token), "every pick is answered by its own reply"
        picks += 1
        for sent in line.to(group)[before:]:  # what the group saw after this pick
            said = json.dumps(sent.message, ensure_ascii=False)
            revealed = "Reveal!" in said
            assert revealed or ("You picked" not in said and "You answered" not in said), said
    else:
        raise AssertionError("the game did not end")
    print(
        f"\nLINE EGO, 3 people: {picks} picks,"
        f" {len(line.replies)} replies, {len(line.pushes)} pushes"
    )
    assert "Game over!" in line.to(group)[-1].text, "the final ranking in the group"
    assert not line.pushes, "a whole EGO game without a push"
    assert all("/profile/" in path for path, _, _ in line.refused), line.refused  # not friends
    assert not bot.errors
