"""The LINE adapter end to end: the real line-bot-sdk (its webhook parser and async Messaging
API client) against the local fake LINE server, on a real Redis.

Replies first, pushes last: every player's action is answered with its own reply token, a
token is never used twice, and a whole game's pushes are counted."""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import unquote

from chatbot.core import buttons as b
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from engine.core import restore
from tests.line.fake_line import BASIC_ID, INVALID_TOKEN, FakeLine, Sent

JSON = dict[str, Any]


async def deliver(bot: LineBot, line: FakeLine, event: JSON) -> str | None:
    """Post one signed webhook event, wait for its messages; its reply token."""
    assert await bot.webhook(*line.signed(event)) == 200
    await bot.runner.flush()
    return event.get("replyToken")


def buttons(sent: Sent, op: str) -> list[str]:
    return [d for d in sent.data() if d[:1] == op]


def typed(sent: Sent, label: str) -> str:
    """The text a link button of `sent` types into the bot's chat (LINE's oaMessage link)."""
    (uri,) = [a["uri"] for a in sent.actions() if a["type"] == "uri" and label in a["label"]]
    assert uri.startswith(f"https://line.me/R/oaMessage/{BASIC_ID}/?")
    return unquote(uri.partition("?")[2])


async def test_a_whole_egonomy_game_in_a_line_group(bot: LineBot, line: FakeLine) -> None:
    ann, bob = line.user("Ann", "en"), line.user("Bob", "th")
    group = line.group(ann, bob)
    await deliver(bot, line, line.join(group))
    for user in (ann, bob):  # both add the bot as a friend: their hands can come privately
        token = await deliver(bot, line, line.follow(user))
        assert token and line.answered(token), "a welcome, as a free reply"
    token = await deliver(bot, line, line.text(group, ann, "/newgame"))
    assert token and line.answered(token)
    (join,) = buttons(line.to(group)[-1], b.JOIN)
    token = await deliver(bot, line, line.postback(group, bob, join))
    assert token and line.answered(token)
    lobby = line.to(group)[-1]
    assert "Bob" in lobby.text and lobby.via == "reply"
    (start,) = buttons(lobby, b.START)
    pushes_before = len(line.pushes)
    token = await deliver(bot, line, line.postback(group, ann, start))
    assert token and line.answered(token), "the table answers the Start press"
    assert len(line.pushes) == pushes_before, "hands are asked for, not pushed"

    game_chat = qualify(group)
    rng = random.Random(7)
    actions = unanswered = asked = 0
    for _ in range(2000):
        session, _ = await bot.tables.load(game_chat)
        if session is None:
            break
        if await bot.runner.tick():
            await bot.runner.flush()
            continue
        game = bot.tables.bundle(session).game
        (seat,) = game.to_move(restore(game, session.state))
        user = ann if session.seats[seat].user == qualify(ann) else bob
        mine = line.to(user)[-1] if line.to(user) else None
        if mine is None or not (buttons(mine, b.MOVE) or buttons(mine, b.NAV)):
            # "My hand" on the group's table opens our chat with the request typed in
            request = typed(line.to(group)[-1], "🃏")
            token = await deliver(bot, line, line.text(user, user, request))
            assert token and line.answered(token), "the hand comes as a free reply"
            asked += 1
            continue
        data = rng.choice(buttons(mine, b.MOVE) or buttons(mine, b.NAV))
        token = await deliver(bot, line, line.postback(user, user, data))
        assert token
        unanswered += not line.answered(token)
        actions += 1
    else:
        raise AssertionError("the game did not end")

    assert "🏆" in line.to(group)[-1].text, "the final results in the group"
    # Every action is answered by its own reply token, but the last: the game is over, the
    # results go to the group and the mover's hand has nothing left to show.
    assert unanswered <= 1
    assert not line.refused, line.refused
    assert not bot.errors
    replies, pushes = len(line.replies), len(line.pushes)
    to_group = sum(1 for s in line.pushes if s.chat == group)
    print(
        f"\nLINE Egonomy, 2 players: {actions} actions, {asked} hands asked for, "
        f"{replies} replies, {pushes} pushes ({to_group} to the group)"
    )
    assert bot.replies == replies and bot.pushes == pushes
    assert replies >= actions + asked + 4, "every action, request and lobby step: a reply"
    # A push only tells the group (and so the next player) what a move made in a private chat
    # changed: at most one a move, and never to a player.
    assert pushes == to_group <= actions


async def test_a_forged_or_missing_signature_changes_nothing(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    event = line.text(group, ann, "/newgame")
    body, _ = line.signed(event, secret="not-the-channel-secret")
    assert await bot.webhook(body, line.signed(event)[1][:-4] + "AAA=") == 400
    assert await bot.webhook(body, None) == 400
    assert await bot.webhook(body, "") == 400
    await bot.runner.flush()
    session, _ = await bot.tables.load(qualify(group))
    assert session is None and not line.sent
    assert await bot.webhook(*line.signed(event)) == 200  # the same event, signed: handled
    await bot.runner.flush()
    session, _ = await bot.tables.load(qualify(group))
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
