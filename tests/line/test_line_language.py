"""The players' language on LINE. A group speaks the first profile language known among its
members (a member who added the bot), else the Thai or Japanese script of its name or of what
is written there; else the join greeting asks, in every language, with a button for each. A
member who has not added the bot is spoken to in the group's language; once they add it, their
own profile's language is theirs, and their seat follows it. No English in a Thai or Japanese
group unless someone chose it."""

from __future__ import annotations

import json

from chatbot.core import buttons as b
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify, script_language
from tests.line.fake_line import FakeLine
from tests.line.test_line_game import buttons, deliver

GREETINGS = {"en": "I host card games", "th": "บอทนี้จัดเกม", "ja": "カードゲームを主催"}


def test_the_script_of_a_text_tells_thai_from_japanese() -> None:
    assert script_language("ก๊วนเพื่อนซี้") == "th"
    assert script_language("ゲーム部") == "ja" and script_language("遊ぼう！") == "ja"
    assert script_language("Picnic") is None and script_language("麻将") is None  # kanji alone


async def test_a_thai_named_group_is_greeted_in_thai(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", friend=False)  # no profile language known
    group = line.group(ann, name="ก๊วนเพื่อนซี้")
    await deliver(bot, line, line.join(group))
    greeting = line.to(group)[-1].text
    assert GREETINGS["th"] in greeting and "I host" not in greeting
    await deliver(bot, line, line.text(group, ann, "/newgame ego"))
    lobby = line.to(group)[-1]
    assert "EGO" in lobby.text and "Players" not in lobby.text, lobby.text


async def test_an_unknown_group_is_asked_in_every_language(bot: LineBot, line: FakeLine) -> None:
    ann = line.user("Ann", friend=False)
    group = line.group(ann, name="Picnic")
    await deliver(bot, line, line.join(group))
    greeting = line.to(group)[-1]
    said = json.dumps(greeting.message, ensure_ascii=False)  # (its altText is cut short)
    assert all(text in said for text in GREETINGS.values()), said
    labels = {a["label"]: a["data"] for a in greeting.actions()}
    assert set(labels) == {"English", "ไทย", "日本語"}
    token = await deliver(bot, line, line.postback(group, ann, labels["日本語"]))
    assert token and line.answered(token)
    await deliver(bot, line, line.text(group, ann, "/help"))
    assert GREETINGS["ja"] in line.to(group)[-1].text and "I host" not in line.to(group)[-1].text


async def test_a_group_speaks_its_first_known_members_language(
    bot: LineBot, line: FakeLine
) -> None:
    """Cid has not added the bot; Ann (Japanese) has: the group is Japanese, Cid's refusal
    in the group is Japanese too."""
    ann, cid = line.user("Ann", "ja"), line.user("Cid", friend=False)
    group = line.group(ann, cid, name="Picnic")
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame"))
    lobby = line.to(group)[-1]
    assert "Players" not in lobby.text and "プレイヤー" in lobby.text, lobby.text
    (join,) = buttons(lobby, b.JOIN)
    await deliver(bot, line, line.postback(group, cid, join))  # Egonomy: a 1:1 chat first
    said = line.to(group)[-1]
    assert said.text.startswith("Cid：") and said.via == "reply", said.text  # (Japanese colon)
    assert said.text.isascii() is False and "private chat" not in said.text, said.text


async def test_a_seat_follows_its_players_language_once_they_add_the_bot(
    bot: LineBot, line: FakeLine
) -> None:
    """Bob joins a Thai group's EGO table before adding the bot: his seat speaks Thai (the
    group's language, never English); he adds the bot (his profile says Japanese): his seat
    speaks Japanese from then on, though his name in the group was looked up a moment ago."""
    ann, bob = line.user("Ann", "th"), line.user("Bob", "ja", friend=False)
    group = line.group(ann, bob)
    await deliver(bot, line, line.follow(ann))
    await deliver(bot, line, line.text(group, ann, "/newgame ego"))
    (join,) = buttons(line.to(group)[-1], b.JOIN)
    await deliver(bot, line, line.postback(group, bob, join))
    session, _ = await bot.sessions.load(qualify(group))
    assert session is not None
    assert session.language == "th"
    assert [s.language for s in session.seats] == ["th", "th"]
    token = await deliver(bot, line, line.follow(bob))
    assert token and line.answered(token)
    assert GREETINGS["ja"] in line.to(bob)[-1].text, "the welcome in his own language"
    session, _ = await bot.sessions.load(qualify(group))
    assert session is not None and [s.language for s in session.seats] == ["th", "ja"]


async def test_a_group_written_in_thai_is_spoken_to_in_thai(bot: LineBot, line: FakeLine) -> None:
    """Nobody's language is known and the group's name says nothing; what they write there
    is Thai."""
    ann = line.user("Ann", friend=False)
    group = line.group(ann, name="Picnic")
    await deliver(bot, line, line.text(group, ann, "เล่นเกมกันไหม"))  # not a command: no answer
    await deliver(bot, line, line.text(group, ann, "/help"))
    assert GREETINGS["th"] in line.to(group)[-1].text
