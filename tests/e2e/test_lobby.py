"""The lobby in a Telegram group: joining with the deep link (a bot cannot open a private chat
by itself), the plain Join button, computer seats, options, and who may start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlparse

import pytest

from chatbot.core import buttons as b
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
