"""The lobby in a Telegram group: joining with the deep link (a bot cannot open a private chat
by itself), the plain Join button, computer seats, options, and who may start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlparse

import pytest

from chatbot.core import buttons as b
from chatbot.i18n import translator
from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness
from tests.e2e.helpers import GROUP, button, load


@pytest.fixture
async def h(tg: FakeTelegram) -> AsyncIterator[Harness]:
    harness = await Harness(tg, MemoryStore()).start()
    yield harness
    await harness.stop()


async def lobby_of(h: Harness, tg: FakeTelegram) -> StoredMessage:
    ann = tg.user(61, "Ann")
    tg.group(GROUP, "Symposium", creator=ann)
    await h.command(ann["id"], ann, "/start")
    await h.command(GROUP, ann, "/newgame")
    lobby = tg.last_message(GROUP)
    assert lobby is not None
    return lobby


def deep_link(lobby: StoredMessage) -> str:
    return next(x["url"] for x in lobby.buttons if "url" in x)


async def test_the_deep_link_opens_the_private_chat_and_joins_in_one_tap(
    h: Harness, tg: FakeTelegram
) -> None:
    lobby = await lobby_of(h, tg)
    link = urlparse(deep_link(lobby))
    assert link.netloc == "t.me" and link.path == f"/{tg.bot_username}"
    payload = parse_qs(link.query)["start"][0]
    carol = tg.user(63, "Carol")  # in the group, but has never talked to the bot
    tg.chats[GROUP].member_ids.add(carol["id"])
    await h.command(carol["id"], carol, f"/start {payload}")
    assert tg.last_message(carol["id"]).text == "You joined the table."  # type: ignore[union-attr]
    assert "Carol" in tg.message(GROUP, lobby.message_id).text, "the lobby shows her"
    session = await load(h)
    assert [s.name for s in session.seats] == ["Ann", "Carol"]


async def test_the_plain_join_button_sends_a_newcomer_to_the_private_chat_first(
    h: Harness, tg: FakeTelegram
) -> None:
    lobby = await lobby_of(h, tg)
    dave = tg.user(64, "Dave")
    update = await h.press(dave, lobby, button(lobby, b.JOIN))
    answer = tg.callback_answer(update["callback_query"]["id"])
    assert answer is not None and answer["url"] == deep_link(lobby)
    assert answer["text"] == "Open a private chat with me first: your hand goes there."
    assert [s.name for s in (await load(h)).seats] == ["Ann"], "not seated yet"
    await h.command(dave["id"], dave, "/start")  # now he talks to the bot
    update = await h.press(dave, lobby, button(tg.message(GROUP, lobby.message_id), b.JOIN))
    assert [s.name for s in (await load(h)).seats] == ["Ann", "Dave"]


async def test_only_the_host_starts_and_changes_options(h: Harness, tg: FakeTelegram) -> None:
    lobby = await lobby_of(h, tg)
    eve = tg.user(65, "Eve")
    await h.command(eve["id"], eve, "/start")
    await h.press(eve, lobby, button(lobby, b.JOIN))
    lobby = tg.message(GROUP, lobby.message_id)
    for op in (b.START, b.OPTION):
        update = await h.press(eve, lobby, button(lobby, op))
        answer = tg.callback_answer(update["callback_query"]["id"])
        assert answer is not None and "Only the host" in answer["text"]
    session = await load(h)
    assert session.phase == "lobby" and not any(session.options.values())


async def test_starting_alone_fills_the_table_with_a_computer(h: Harness, tg: FakeTelegram) -> None:
    """Egonomy needs 2 players: the host alone gets a computer opponent."""
    lobby = await lobby_of(h, tg)
    ann = tg.users[61].to_dict()
    await h.press(ann, lobby, button(lobby, b.OPTION))  # flip-table mode on
    lobby = tg.message(GROUP, lobby.message_id)
    assert "✅" in lobby.text
    await h.press(ann, lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing" and session.options["flip"]
    assert [bool(s.bot) for s in session.seats] == [False, True]


@pytest.mark.parametrize("lang", ["th", "ja", "en"])
async def test_a_person_holds_only_a_few_tables_open_at_once(
    h: Harness, tg: FakeTelegram, lang: str
) -> None:
    """Ann opens tables in as many groups as OPEN_TABLES allows; the next /newgame is
    answered why (in the group's language) and opens nothing; once one of hers starts or is
    stopped, she may open another. Someone else is not held by her tables."""
    cap = h.bot.sessions.settings.open_tables
    ann, bob = tg.user(71, "Ann", language_code=lang), tg.user(72, "Bob", language_code=lang)
    await h.command(ann["id"], ann, "/start")
    groups = [GROUP - n for n in range(cap + 2)]
    for group in groups:
        tg.group(group, f"G{group}", creator=ann)
        tg.chats[group].member_ids.add(bob["id"])
    for group in groups[:cap]:
        await h.command(group, ann, "/newgame")
        assert tg.last_message(group).callback_data, "a lobby"  # type: ignore[union-attr]
    extra = groups[cap]
    await h.command(extra, ann, "/newgame")
    refused = tg.last_message(extra)
    assert refused is not None and not refused.callback_data
    tr = translator(lang)
    expected = tr.nt(
        "You have a table open in another chat already: start it there, or end it "
        "with /stop, before opening another.",
        "You have tables open in {n} other chats already: start one there, or end "
        "it with /stop, before opening another.",
        cap,
    )
    assert refused.text == expected and "/stop" in expected
    assert lang == "en" or not expected.startswith("You have"), "translated"
    assert (await h.bot.sessions.load(f"tg:{extra}"))[0] is None, "nothing opened"

    await h.command(groups[cap + 1], bob, "/newgame")  # Bob's own first table
    assert tg.last_message(groups[cap + 1]).callback_data  # type: ignore[union-attr]

    await h.command(groups[0], ann, "/stop")  # one of hers ends: room for another
    await h.command(extra, ann, "/newgame")
    assert tg.last_message(extra).callback_data, "a lobby"  # type: ignore[union-attr]
    await h.command(groups[1], ann, "/newgame")  # her table there is open still
    already = tr.gettext("A game is already open in this chat: /status shows it, /stop ends it.")
    assert tg.last_message(groups[1]).text == already  # type: ignore[union-attr]
