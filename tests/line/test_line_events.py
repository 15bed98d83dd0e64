"""LINE's membership events through the adapter: friends added and blocked, people arriving in
a group, the bot joining and being removed."""

from __future__ import annotations

from chatbot.core import buttons as b
from chatbot.core.model import Button, Message
from chatbot.line.bot import LineBot
from chatbot.line.convert import message_object, plain, qualify
from tests.line.fake_line import FakeLine
from tests.line.test_line_game import buttons, deliver


async def test_joining_a_group_says_hello_with_its_free_reply(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    token = await deliver(bot, line, line.join(group))
    assert token and line.answered(token)
    assert "/newgame" in line.to(group)[-1].text
    assert not line.pushes


async def test_follow_and_unfollow_open_and_close_the_private_chat(
    bot: LineBot, line: FakeLine
) -> None:
    ann = line.user("Ann", "en", friend=False)
    assert not await bot.sessions.people.reachable(qualify(ann))
    await deliver(bot, line, line.follow(ann))
    assert await bot.sessions.people.reachable(qualify(ann))
    await deliver(bot, line, line.unfollow(ann))
    assert not await bot.sessions.people.reachable(qualify(ann)), (
        "blocked: nothing is sent privately"
    )


async def test_newcomers_see_an_open_table(bot: LineBot, line: FakeLine) -> None:
    ann, cid = line.user("Ann", "en"), line.user("Cid", "ja")
    group = line.group(ann)
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame"))
    before = len(line.to(group))
    token = await deliver(bot, line, line.member_joined(group, cid))
    assert token and line.answered(token)
    assert len(line.to(group)) == before + 1 and buttons(line.to(group)[-1], b.JOIN)
    assert not line.pushes


async def test_removing_the_bot_ends_the_game_there(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame"))
    assert (await bot.sessions.load(qualify(group)))[0] is not None
    sent = len(line.sent)
    await deliver(bot, line, line.leave(group))
    assert (await bot.sessions.load(qualify(group)))[0] is None
    assert len(line.sent) == sent, "nothing can be said in a group the bot has left"


def test_messages_are_plain_text_or_flex_within_line_limits() -> None:
    assert plain("<b>Ann</b> &amp; <i>Bob</i> <code>x</code>") == "Ann & Bob x"
    assert message_object(Message("ln:U1", "hi")) == {"type": "text", "text": "hi"}
    long = Button("A label far longer than twenty characters", "m1|c|x")
    flex = message_object(
        Message("ln:C1", "<b>table</b>", ((long, Button("Go", url="https://x")),))
    )
    assert flex["type"] == "flex" and flex["altText"] == "table"
    row = flex["contents"]["footer"]["contents"][0]["contents"]
    assert [x["action"]["type"] for x in row] == ["postback", "uri"]
    assert len(row[0]["action"]["label"]) == 20 and row[0]["action"]["data"] == "m1|c|x"


async def test_asking_for_a_hand_without_a_seat_is_answered_for_free(
    bot: LineBot, line: FakeLine
) -> None:
    ann, cid = line.user("Ann", "en"), line.user("Cid", "en")
    group = line.group(ann, cid)
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame"))
    (start,) = buttons(line.to(group)[-1], b.START)
    await deliver(bot, line, line.postback(group, ann, start))
    request = f"/start {b.hand_payload(qualify(group))}"
    token = await deliver(bot, line, line.text(cid, cid, request))
    assert token and line.answered(token)
    assert line.to(cid)[-1].text == "You are not playing in this game."
    token = await deliver(bot, line, line.text(ann, ann, request))
    assert token and line.answered(token) and line.to(ann)[-1].text.startswith("Your hand")
    assert not [s for s in line.pushes if s.chat in (ann, cid)]


async def test_a_multi_person_chat_plays_like_a_group(bot: LineBot, line: FakeLine) -> None:
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    room = line.group(ann, bob, room=True)
    for user in (ann, bob):
        await deliver(bot, line, line.follow(user))
    await deliver(bot, line, line.text(room, ann, "/newgame"))
    assert line.to(room)[-1].via == "reply"
    joining = f"/start {b.deep_link_payload(qualify(room))}"  # the lobby's private-chat link
    token = await deliver(bot, line, line.text(bob, bob, joining))
    assert token and line.answered(token)
    session, _ = await bot.sessions.load(qualify(room))
    assert session is not None and session.seat_of(qualify(bob)) is not None, "a member joined"
