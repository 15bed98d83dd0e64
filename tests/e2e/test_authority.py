"""Who may do what: only the host changes a table (computer seats, options, start), only group
members join through the deep link, only an admin or the open table's host changes a group's
language, a private /language follows the player into every game, and a forged help button
pressed on a table leaves the table alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlparse

import pytest

from chatbot.core import buttons as b
from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness, hand_message, playable
from tests.e2e.helpers import CHAT, GROUP, button, load, open_table, play_out, table_id

OTHER_GROUP = -1009876543210


@pytest.fixture
async def h(tg: FakeTelegram) -> AsyncIterator[Harness]:
    harness = await Harness(tg, MemoryStore()).start()
    yield harness
    await harness.stop()


async def lobby(h: Harness, tg: FakeTelegram, *members: int) -> StoredMessage:
    ann = tg.user(61, "Ann")
    tg.group(GROUP, "Symposium", creator=ann, members=list(members))
    await h.command(ann["id"], ann, "/start")
    await h.command(GROUP, ann, "/newgame")
    message = tg.last_message(GROUP)
    assert message is not None
    return message


def answer(tg: FakeTelegram, update: dict) -> str:
    found = tg.callback_answer(update["callback_query"]["id"])
    assert found is not None, "the press was answered"
    return str(found["text"])


async def test_only_the_host_adds_or_removes_computer_seats(h: Harness, tg: FakeTelegram) -> None:
    table = await lobby(h, tg, 66)
    bob = tg.user(66, "Bob")
    await h.command(bob["id"], bob, "/start")
    await h.press(bob, table, button(table, b.JOIN))
    table = tg.message(GROUP, table.message_id)
    update = await h.press(bob, table, button(table, b.ADD_BOT))
    assert "Only the host" in answer(tg, update)
    assert [s.name for s in (await load(h)).seats] == ["Ann", "Bob"], "no computer seat added"


async def test_a_stranger_cannot_join_through_the_deep_link(h: Harness, tg: FakeTelegram) -> None:
    table = await lobby(h, tg)
    link = next(x["url"] for x in table.buttons if "url" in x)
    payload = parse_qs(urlparse(link).query)["start"][0]
    mal = tg.user(67, "Mal")  # not in the group
    await h.command(mal["id"], mal, f"/start {payload}")
    said = tg.last_message(mal["id"])
    assert said is not None and said.text == "Only members of that group can join."
    assert [s.name for s in (await load(h)).seats] == ["Ann"]


async def test_a_stranger_cannot_join_through_the_groups_button(
    h: Harness, tg: FakeTelegram
) -> None:
    """A public group can be read, and its buttons pressed, by someone who is not in it: the
    Join button checks membership as the deep link does."""
    table = await lobby(h, tg)
    mal = tg.user(69, "Mal")
    await h.command(mal["id"], mal, "/start")
    update = tg.callback_update(mal, table, button(table, b.JOIN))
    tg.chats[GROUP].member_ids.discard(mal["id"])  # reading the group, not in it
    await h.feed(update)
    assert answer(tg, update) == "Only members of that group can join."
    assert [s.name for s in (await load(h)).seats] == ["Ann"]


async def test_only_an_admin_or_the_host_changes_the_group_language(
    h: Harness, tg: FakeTelegram
) -> None:
    await lobby(h, tg, 68)
    cid = tg.user(68, "Cid")
    await h.command(GROUP, cid, "/language")
    menu = tg.last_message(GROUP)
    assert menu is not None
    thai = next(d for d in menu.callback_data if d.startswith(b.LANGUAGE) and d.endswith("th"))
    update = await h.press(cid, menu, thai)
    assert answer(tg, update) == (
        "Only a chat admin or the host of the open table can change the group's language."
    )
    assert (await load(h)).language == "en"
    ann = tg.users[61].to_dict()
    await h.press(ann, menu, thai)
    assert (await load(h)).language == "th", "the host may"


async def test_a_private_language_change_reaches_every_game_of_the_player(
    h: Harness, tg: FakeTelegram
) -> None:
    ann, bob = tg.user(61, "Ann"), tg.user(66, "Bob")
    await open_table(h, tg, [ann, bob])
    tg.group(OTHER_GROUP, "Agora", creator=bob, members=[ann["id"]])
    await h.command(OTHER_GROUP, bob, "/newgame")
    other = tg.last_message(OTHER_GROUP)
    assert other is not None
    await h.press(ann, other, button(other, b.JOIN))
    other = tg.message(OTHER_GROUP, other.message_id)
    await h.press(bob, other, button(other, b.START))
    hands = [m.text for m in tg.sent_to(ann["id"])]
    for group in ("Symposium", "Agora"):  # each hand message says which group it is from
        assert any(t.endswith(f"📍 {group}") for t in hands), group
    await h.command(ann["id"], ann, "/language")
    menu = tg.last_message(ann["id"])
    assert menu is not None
    japanese = next(d for d in menu.callback_data if d.endswith("ja"))
    await h.press(ann, menu, japanese)
    for chat in (CHAT, f"tg:{OTHER_GROUP}"):
        session, _ = await h.bot.sessions.load(chat)
        assert session is not None
        seat = session.seat_of(f"tg:{ann['id']}")
        assert seat is not None and session.seats[seat].language == "ja", chat


async def test_a_forged_rule_button_on_the_table_leaves_the_table_alone(
    h: Harness, tg: FakeTelegram
) -> None:
    ann, bob = tg.user(61, "Ann"), tg.user(66, "Bob")
    await open_table(h, tg, [ann, bob])
    session = await load(h)
    table = tg.message(GROUP, int(table_id(session)))
    before = (table.text, table.callback_data)
    for forged in (b.encode(b.RULE, "egonomy", b.OVERVIEW), b.encode(b.LANGUAGE, "c", "th")):
        await h.press(bob, table, forged, check=False)
        table = tg.message(GROUP, table.message_id)
        assert (table.text, table.callback_data) == before, forged


async def test_play_again_opens_one_table_per_results_message(h: Harness, tg: FakeTelegram) -> None:
    ann, bob = tg.user(61, "Ann"), tg.user(66, "Bob")
    await open_table(h, tg, [ann, bob])
    await play_out(h, tg, [ann, bob], seed=5)
    for user in (ann, bob):  # no hand keeps buttons that could only be refused now
        hand = hand_message(tg, user["id"])
        assert hand is None or not playable(hand), user["first_name"]
    results = next(
        m
        for m in reversed(tg.sent_to(GROUP))
        if any(d.startswith(b.AGAIN) for d in m.callback_data)
    )
    again = button(results, b.AGAIN)
    await h.press(bob, results, again)
    assert (await load(h)).phase == "lobby", "a new table is open"
    sent = len(tg.sent_to(GROUP))
    for user in (ann, bob, ann):
        update = await h.press(user, results, again)
        assert answer(tg, update) == "A new table was already opened from these results."
    assert len(tg.sent_to(GROUP)) == sent, "later presses post nothing in the group"
