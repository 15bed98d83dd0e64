"""The LINE adapter end to end: the real line-bot-sdk (its webhook parser and async Messaging
API client) against the local fake LINE server, on a real Redis.

Replies first, pushes last: every player's action is answered with its own reply token, a
token is never used twice, and a whole game's pushes are counted."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import pytest

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from engine.core import restore
from tests.clock import Clock
from tests.line.fake_line import (
    BASIC_ID,
    INVALID_TOKEN,
    FakeLine,
    Sent,
    bot_settings,
)

JSON = dict[str, Any]


async def deliver(
    bot: LineBot, line: FakeLine, event: JSON, pace: Callable[[], None] = lambda: None
) -> str | None:
    """Post one signed webhook event, wait for its messages (`pace` first lets the bot's
    clock pass a table interval, where the test sets it); its reply token."""
    assert await bot.webhook(*line.signed(event)) == 200
    pace()
    await bot.runner.delivery.flush()
    return event.get("replyToken")


def buttons(sent: Sent, op: str) -> list[str]:
    return [d for d in sent.data() if d[:1] == op]


async def started(
    bot: LineBot,
    line: FakeLine,
    group: str,
    *people: str,
    game: str,
    computers: int = 0,
    friends: bool = True,
) -> None:
    """`game` started in `group` by its first person, the others joined and `computers`
    computer players added; every person a friend of the bot (else the bot was only added to
    the group)."""
    for user in people if friends else ():
        await deliver(bot, line, line.follow(user))
    if not friends:
        await deliver(bot, line, line.join(group))
    await deliver(bot, line, line.text(group, people[0], f"/newgame {game}"))
    for user in people[1:]:
        (join,) = buttons(line.to(group)[-1], b.JOIN)
        await deliver(bot, line, line.postback(group, user, join))
    for _ in range(computers):
        (add,) = buttons(line.to(group)[-1], b.ADD_BOT)
        await deliver(bot, line, line.postback(group, people[0], add))
    (start,) = buttons(line.to(group)[-1], b.START)
    await deliver(bot, line, line.postback(group, people[0], start))


def typed(sent: Sent, label: str) -> str:
    """The text a link button of `sent` types into the bot's chat (LINE's oaMessage link)."""
    (uri,) = [a["uri"] for a in sent.actions() if a["type"] == "uri" and label in a["label"]]
    assert uri.startswith(f"https://line.me/R/oaMessage/{BASIC_ID}/?")
    return unquote(uri.partition("?")[2])


async def play(
    bot: LineBot,
    line: FakeLine,
    computers: int,
    seed: int,
    pace: Callable[[], None] = lambda: None,
) -> dict[str, int]:
    """A whole Egonomy game of Ann and Bob (and `computers`) in a LINE group, pressed through
    signed webhooks; the counts of actions, hand requests, replies and pushes. `pace` is
    called before each wait for the messages (a test clock passes a table interval)."""
    ann, bob = line.user("Ann", "en"), line.user("Bob", "th")
    group = line.group(ann, bob)
    await deliver(bot, line, line.join(group), pace)
    for user in (ann, bob):  # both add the bot as a friend: their hands can come privately
        token = await deliver(bot, line, line.follow(user), pace)
        assert token and line.answered(token), "a welcome, as a free reply"
    token = await deliver(bot, line, line.text(group, ann, "/newgame"), pace)
    assert token and line.answered(token)
    (join,) = buttons(line.to(group)[-1], b.JOIN)
    token = await deliver(bot, line, line.postback(group, bob, join), pace)
    assert token and line.answered(token)
    assert "Bob" in line.to(group)[-1].text and line.to(group)[-1].via == "reply"
    for _ in range(computers):
        (add,) = buttons(line.to(group)[-1], b.ADD_BOT)
        token = await deliver(bot, line, line.postback(group, ann, add), pace)
        assert token and line.answered(token)
    (start,) = buttons(line.to(group)[-1], b.START)
    token = await deliver(bot, line, line.postback(group, ann, start), pace)
    assert token and line.answered(token), "the table answers the Start press"
    assert not line.pushes, "hands are asked for, not pushed"

    game_chat = qualify(group)
    rng = random.Random(seed)
    actions = unanswered = asked = computer = moves = 0
    for _ in range(3000):
        session, _ = await bot.sessions.load(game_chat)
        if session is None:
            break
        if await bot.runner.tick():
            pace()
            await bot.runner.delivery.flush()
            computer += 1
            continue
        game = bot.sessions.bundle(session).game
        (seat,) = game.to_move(restore(game, session.state))
        user = ann if session.seats[seat].user == qualify(ann) else bob
        mine = line.to(user)[-1] if line.to(user) else None
        if mine is None or not (buttons(mine, b.MOVE) or buttons(mine, b.NAV)):
            # "My hand" on the group's table opens our chat with the request typed in
            request = typed(line.to(group)[-1], "🃏")
            token = await deliver(bot, line, line.text(user, user, request), pace)
            assert token and line.answered(token), "the hand comes as a free reply"
            asked += 1
            continue
        data = rng.choice(buttons(mine, b.MOVE) or buttons(mine, b.NAV))
        event = line.postback(user, user, data)
        assert await bot.webhook(*line.signed(event)) == 200
        after, _ = await bot.sessions.load(game_chat)
        moves += after is None or after.moves != session.moves
        while await bot.runner.tick():  # computers' moves, due at once: before the table
            computer += 1  # update went out
        pace()
        await bot.runner.delivery.flush()
        unanswered += not line.answered(event["replyToken"])
        actions += 1
    else:
        raise AssertionError("the game did not end")

    assert "🏆" in line.to(group)[-1].text, "the final results in the group"
    assert any("📍 Picnic" in s.text for s in line.to(ann)), "a hand names its group"
    assert unanswered == 0, "every action is answered by its own reply token"
    assert not line.refused, line.refused
    assert not bot.errors
    assert bot.replies == len(line.replies) and bot.pushes == len(line.pushes)
    to_group = sum(1 for s in line.pushes if s.chat == group)
    assert to_group == len(line.pushes), "never a push to a player"
    return {
        "actions": actions,
        "moves": moves,
        "computer moves": computer,
        "asked": asked,
        "replies": len(line.replies),
        "pushes": len(line.pushes),
    }


async def test_a_whole_egonomy_game_in_a_line_group(bot: LineBot, line: FakeLine) -> None:
    counts = await play(bot, line, computers=0, seed=7)
    print(f"\nLINE Egonomy, 2 people: {counts}")
    assert counts["replies"] >= counts["actions"] + counts["asked"] + 4, "all answered for free"
    # A push only tells the group (and so the next player) what a move made in a private chat
    # changed: at most one an action.
    assert counts["pushes"] <= counts["actions"]


async def test_a_computer_seat_shares_the_tables_push(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> None:
    """With a computer at the table, its move replaces the table update of the person's move
    before that went out: one push for both (at most one table push per interval)."""
    settings = bot_settings(line, table_interval=0.2)
    clock = Clock(0.0)  # the bot's monotonic clock: an interval passes when the test says

    def pace() -> None:
        clock.advance(settings.table_interval)
        lb.runner.delivery.wake()  # (what waits for the interval looks at the clock again)

    store = RedisStore.from_url(redis_url, redis_prefix)
    lb = line_bot(settings, store, registry(), monotonic=clock)
    await lb.start()
    try:
        counts = await play(lb, line, computers=1, seed=11, pace=pace)
    finally:
        await lb.stop()
    print(f"\nLINE Egonomy, 2 people and a computer: {counts}")
    # A person's move in a private chat costs one push; the computer's moves ride along with
    # it, but a round's results (3 rounds) may go out on their own.
    assert counts["computer moves"] > 3
    assert counts["pushes"] <= counts["moves"] + 3


async def test_a_forged_or_missing_signature_changes_nothing(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    event = line.text(group, ann, "/newgame")
    body, _ = line.signed(event, secret="not-the-channel-secret")
    assert await bot.webhook(body, line.signed(event)[1][:-4] + "AAA=") == 400
    assert await bot.webhook(body, None) == 400
    assert await bot.webhook(body, "") == 400
    await bot.runner.delivery.flush()
    session, _ = await bot.sessions.load(qualify(group))
    assert session is None and not line.sent
    assert await bot.webhook(*line.signed(event)) == 200  # the same event, signed: handled
    await bot.runner.delivery.flush()
    session, _ = await bot.sessions.load(qualify(group))
    assert session is not None and line.to(group)[-1].via == "reply"


async def test_a_redelivered_event_never_reuses_its_reply_token(
    bot: LineBot, line: FakeLine
) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    event = line.text(group, ann, "/newgame")
    for _ in range(3):  # LINE redelivers an event it thinks was lost
        redelivered = {**event, "deliveryContext": {"isRedelivery": True}}
        await deliver(bot, line, redelivered)
    assert [s.via for s in line.to(group)] == ["reply"], "handled once"
    assert not line.refused, "the used token was never tried again"


async def test_an_expired_reply_token_is_not_used(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    await deliver(bot, line, line.follow(ann))
    event = line.text(group, ann, "/newgame")
    line.token_life = 0.0  # LINE's minute has passed before the bot answers
    await deliver(bot, line, event)
    assert line.refused == [("/v2/bot/message/reply", 400, INVALID_TOKEN)]
    assert [s.via for s in line.to(group)] == ["push"], "told by push instead"
    assert not bot.errors


async def test_a_press_by_a_stranger_is_answered_in_the_group(bot: LineBot, line: FakeLine) -> None:
    """No pop-ups on LINE: a refused press is answered in its chat, by its free reply, with a
    button that opens the bot's chat."""
    ann, cid = line.user("Ann", "en"), line.user("Cid", "en", friend=False)
    group = line.group(ann, cid)
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame"))
    (join,) = buttons(line.to(group)[-1], b.JOIN)
    token = await deliver(bot, line, line.postback(group, cid, join))
    said = line.to(group)[-1]
    assert token and line.answered(token) and said.via == "reply"
    assert said.text.startswith("Cid: ")
    (link,) = [a for a in said.actions() if a["type"] == "uri"]
    assert link["uri"].startswith("https://line.me/R/oaMessage/")
    assert not line.pushes
    assert not [r for r in line.refused if r[0].startswith("/v2/bot/message")]


@pytest.mark.parametrize("reminders", [True, False])
async def test_an_idle_player_is_reminded_by_one_private_push(
    line: FakeLine, redis_url: str, redis_prefix: str, reminders: bool
) -> None:
    """Pushes come from a monthly quota, and LINE counts a push to a group once for every
    member: with LINE_REMINDERS on, an idle player's reminder is their hand pushed to them
    alone (one message), not a word in the group; by default there is none. After the
    take-over time a computer player moves for them."""
    now = [1_700_000_000.0]
    settings = bot_settings(line, remind_after=30.0, takeover_after=20.0, line_reminders=reminders)
    lb = line_bot(
        settings, RedisStore.from_url(redis_url, redis_prefix), registry(), lambda: now[0]
    )
    await lb.start()
    try:
        ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
        group = line.group(ann, bob)
        for user in (ann, bob):
            await deliver(lb, line, line.follow(user))
        await deliver(lb, line, line.text(group, ann, "/newgame"))
        (join,) = buttons(line.to(group)[-1], b.JOIN)
        await deliver(lb, line, line.postback(group, bob, join))
        (start,) = buttons(line.to(group)[-1], b.START)
        await deliver(lb, line, line.postback(group, ann, start))
        session, _ = await lb.sessions.load(qualify(group))
        assert session is not None
        game = lb.sessions.bundle(session).game
        (seat,) = game.to_move(restore(game, session.state))
        idle = ann if session.seats[seat].user == qualify(ann) else bob
        in_group, pushes = len(line.to(group)), len(line.pushes)

        now[0] += 31  # past REMIND_AFTER
        assert await lb.runner.tick() == int(reminders)
        await lb.runner.delivery.flush()
        assert len(line.pushes) == pushes + reminders and len(line.to(group)) == in_group
        if reminders:  # one message
            reminder = line.to(idle)[-1]
            assert reminder.text.startswith("⏰ It is your turn!") and reminder.via == "push"
            assert buttons(reminder, b.MOVE) or buttons(reminder, b.NAV), "with its buttons"
        private = len(line.to(idle))

        now[0] += 21  # past TAKEOVER_AFTER
        await lb.runner.tick()
        await lb.runner.delivery.flush()
        after, _ = await lb.sessions.load(qualify(group))
        assert after is not None and after.moves == session.moves + 1
        told = [s for s in line.to(group) if "was away" in json.dumps(s.message)]
        assert told, "the group is told (in the table's bubble)"
        assert len(line.to(idle)) == private and not lb.errors
    finally:
        await lb.stop()
