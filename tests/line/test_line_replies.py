"""Every press and command in a LINE group is answered by its own reply token, in that group
(free): refusals name the presser, the table's 📖 Rules shows the overview there, a secret
pick is never said there; EGO with computer players costs no push (they pick at once, so the
last person's pick carries the reveal); no push ever goes to someone who did not add the bot."""

from __future__ import annotations

import json
import random

import pytest

from chatbot.core import buttons as b
from chatbot.core.model import Message
from chatbot.core.outbox import REPLY_MESSAGES, bundled
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from engine.core import restore
from tests.line.fake_line import FakeLine
from tests.line.test_line_game import buttons, deliver, started


async def ego_table(
    bot: LineBot, line: FakeLine, people: list[str], computers: int
) -> tuple[str, str]:
    """An EGO game of `people` and `computers` started in a new group; (group, its chat)."""
    group = line.group(*people)
    await started(bot, line, group, *people, game="ego", computers=computers, friends=False)
    return group, qualify(group)


@pytest.mark.slow  # a whole game of about 5,000 random presses
async def test_ego_with_computers_costs_no_push(bot: LineBot, line: FakeLine) -> None:
    """Two people (one has added the bot, one has not) and two computers play a whole game,
    pressing any pick at random: the pick that is not theirs to make is refused in the group,
    naming them; every press is answered by its own reply; not one push."""
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en", friend=False)
    await deliver(bot, line, line.follow(ann))
    group, chat = await ego_table(bot, line, [ann, bob], computers=2)
    rng, presses, refused = random.Random(3), 0, 0
    for _ in range(3000):
        session, _ = await bot.sessions.load(chat)
        if session is None:
            break
        assert not await bot.runner.tick(), "no computer waits for a timer"
        game = bot.sessions.bundle(session).game
        awaited = [s for s in game.to_move(restore(game, session.state)) if session.seats[s].user]
        seat = rng.choice(awaited)
        user = ann if session.seats[seat].user == qualify(ann) else bob
        table = next(s for s in reversed(line.to(group)) if buttons(s, b.GROUP_MOVE))
        before = len(line.to(group))
        token = await deliver(
            bot, line, line.postback(group, user, rng.choice(buttons(table, b.GROUP_MOVE)))
        )
        assert token and line.answered(token), "every press is answered by its own reply"
        presses += 1
        after = line.to(group)[before:]
        said = [json.dumps(s.message, ensure_ascii=False) for s in after]
        assert not any("You picked" in s or "You answered" in s for s in said), said
        name = "Ann" if user == ann else "Bob"
        refused += any(s.text.startswith(f"{name}: ") for s in after)
    else:
        raise AssertionError("the game did not end")
    print(f"\nLINE EGO, 2 people and 2 computers: {presses} presses, {refused} refused")
    last = json.dumps(line.to(group)[-1].message, ensure_ascii=False)  # (a long text is cut)
    assert "Game over!" in last
    assert refused > 0, "some random picks were refused, in the group"
    assert not line.pushes, "no push at all"
    assert not [r for r in line.refused if r[0].startswith("/v2/bot/message")], line.refused
    assert not bot.errors


async def test_the_tables_rules_button_is_answered_in_the_group(
    bot: LineBot, line: FakeLine
) -> None:
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en", friend=False)
    group, _ = await ego_table(bot, line, [ann, bob], computers=0)
    table = line.to(group)[-1]
    (rules,) = buttons(table, b.RULE)
    for _ in range(10):
        token = await deliver(bot, line, line.postback(group, bob, rules))
        assert token and line.answered(token)
        overview = line.to(group)[-1]
        assert overview.via == "reply" and "Which rule" in overview.text
        section = next(d for d in buttons(overview, b.RULE) if not d.endswith(b.OVERVIEW))
        token = await deliver(bot, line, line.postback(group, bob, section))
        assert token and line.answered(token) and line.to(group)[-1].via == "reply"
    assert not line.pushes, "10 presses of Rules, no push"
    assert not bot.errors


async def test_no_push_to_someone_who_has_not_added_the_bot(bot: LineBot, line: FakeLine) -> None:
    """A message owed privately to a user who is not the bot's friend is not pushed (LINE
    would refuse it): the bot does not even try."""
    cid = line.user("Cid", "en", friend=False)
    bot.runner.delivery.post([Message(qualify(cid), "Your hand")])
    await bot.runner.delivery.flush()
    assert not line.sent and "/v2/bot/message/push" not in line.calls
    assert not bot.errors


def test_the_messages_of_one_answer_go_in_one_reply() -> None:
    """Up to five messages answer an event with one reply token (LINE's limit); a further
    one keeps the token (it is pushed if the reply is used)."""
    messages = [
        Message("ln:C1", f"table {i}", buttons=(), answers="t", slot="s", coalesce=True)
        for i in range(REPLY_MESSAGES + 1)
    ]
    first, extra = bundled([*messages, Message("ln:U1", "private", answers=None)])[:2]
    assert [m.text for m in (first, *first.also)] == [f"table {i}" for i in range(5)]
    assert extra.text == "table 5" and not first.coalesce, "a reply never coalesces"
