"""Every press and command is answered (issue 21, item 6), whatever is stored: a value that is
no document, a game not hosted here or a schema from the future get "This game could not be
read: /stop ends it." in the chat's language, and /stop clears it; an unreadable history
entry is told in /status as a result that could not be read; page data no button makes, a
`/start h…` by someone not at the table and a move delivered again after a process saved it
(its answer lost) are answered."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator, Callable

import orjson
import pytest
import redis.asyncio as aioredis

from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.model import Command, Press, User
from chatbot.core.standings import Standings
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from chatbot.telegram.convert import incoming
from tests.conftest import make_service
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import JSON, Harness, hand_message
from tests.e2e.helpers import (
    CHAT,
    GAMES,
    GROUP,
    answer_calls,
    button,
    load,
    open_table,
    to_move,
    user_of,
)

UNREADABLE = "This game could not be read: /stop ends it."


@pytest.fixture
async def h(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Harness]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    harness = await Harness(tg, store).start()
    try:
        yield harness
    finally:
        await harness.stop()
        await store.close()


def last_text(tg: FakeTelegram, chat: int) -> str:
    message = tg.last_message(chat)
    assert message is not None
    return message.text


def answer_text(tg: FakeTelegram, update: dict[str, object]) -> str:
    (call,) = answer_calls(tg, update)
    return str(call.params.get("text", ""))


@pytest.mark.parametrize("lang", ["th", "ja"])
@pytest.mark.parametrize(
    "stored",
    [
        b"not a document",  # no "version:" prefix
        b"7:{not json",
        b"3:" + orjson.dumps({"schema": 99}),
        "game of a bot that is gone",  # a session of a game not hosted here
    ],
    ids=["no-version", "not-json", "future-schema", "unknown-game"],
)
async def test_an_unreadable_game_is_answered_and_stop_clears_it(
    h: Harness,
    tg: FakeTelegram,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    stored: bytes | str,
    lang: str,
) -> None:
    ann = tg.user(501, "Ann", language_code=lang)
    tg.group(GROUP, "Agora", creator=ann)
    await h.command(ann["id"], ann, "/start")
    await h.command(GROUP, ann, "/newgame")
    lobby = tg.last_message(GROUP)
    assert lobby is not None
    key = redis_prefix + keys.game(CHAT)
    if isinstance(stored, str):  # a readable session naming a game not hosted here
        doc = await h.bot.sessions._store.load(keys.game(CHAT))
        assert doc is not None
        data = orjson.loads(doc.data)
        data["game"] = "chess"
        await redis_client.set(key, f"{doc.version}:".encode() + orjson.dumps(data))
    else:
        await redis_client.set(key, stored)
    expected = translator(lang).gettext(UNREADABLE)
    assert expected != UNREADABLE, "translated"

    await h.command(GROUP, ann, "/status")
    assert last_text(tg, GROUP) == expected
    press = tg.callback_update(ann, lobby, lobby.callback_data[0], check=False)
    await h.feed(press)
    if isinstance(stored, str):  # the lobby is readable: Join answers for itself
        assert answer_text(tg, press), "a press on its buttons is answered"
    else:
        assert answer_text(tg, press) == expected, "a press on its buttons is answered"

    await h.command(GROUP, ann, "/stop")
    assert await redis_client.get(key) is None, "/stop cleared it"
    bob = tg.user(510, "Bob", language_code=lang)  # (Ann's second /newgame: a burst, later)
    await h.command(GROUP, bob, "/newgame")
    assert tg.last_message(GROUP) is not None and tg.last_message(GROUP).callback_data  # type: ignore[union-attr]
    assert not h.bot.errors


@pytest.mark.parametrize("lang", ["th", "ja", "en"])
async def test_an_unreadable_history_entry_is_answered_as_such(
    h: Harness, tg: FakeTelegram, redis_client: aioredis.Redis, redis_prefix: str, lang: str
) -> None:
    ann = tg.user(502, "Ann", language_code=lang)
    tg.group(GROUP, "Agora", creator=ann)
    history = f"{redis_prefix}hist:{CHAT}"
    entry = orjson.dumps({"game": "egonomy", "at": 1, "stopped": True})
    unreadable = [
        b"~~~~",  # not JSON
        b"[1, 2]",  # not an object
        orjson.dumps({"game": ["egonomy"], "at": 1}),  # a game that is no name
        orjson.dumps({"game": "egonomy", "at": 1, "ranking": 7}),  # a ranking that is no list
    ]
    await redis_client.lpush(history, entry, *unreadable)
    await h.command(GROUP, ann, "/status")
    tr = translator(lang)
    lines = last_text(tg, GROUP).split("\n")
    assert lines[0] == tr.gettext("No game is running here. Latest results:")
    could_not = tr.gettext("• (a result that could not be read)")
    assert lang == "en" or could_not != "• (a result that could not be read)", "translated"
    assert lines[1:] == [could_not] * len(unreadable) + [tr.t("• {game}: stopped", game="Egonomy")]
    assert not h.bot.errors


@pytest.mark.parametrize("lang", ["th", "ja", "en"])
@pytest.mark.parametrize("stored", [b"3:~~~~", b"~~~~", b"3:" + orjson.dumps({"games": 7})])
async def test_unreadable_standings_are_answered_as_such(
    h: Harness,
    tg: FakeTelegram,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    stored: bytes,
    lang: str,
) -> None:
    ann = tg.user(505, "Ann", language_code=lang)
    tg.group(GROUP, "Agora", creator=ann)
    await redis_client.set(redis_prefix + keys.standings(CHAT), stored)
    await h.command(GROUP, ann, "/stats")
    expected = translator(lang).gettext(
        "The standings here could not be read: the next game's results start them again."
    )
    assert last_text(tg, GROUP) == expected
    assert not h.bot.errors


async def test_standings_that_are_no_document_start_again_at_a_games_end(
    redis_url: str, redis_client: aioredis.Redis, redis_prefix: str
) -> None:
    """(No version could be compared with it: the game's end removes it and counts anew.)"""
    store = RedisStore.from_url(redis_url, redis_prefix)
    service = make_service(store, Settings(bot_delay=0))
    now = [time.time()]
    service.sessions.clock = lambda: now[0]
    host = User("tg:1", "Host", "en")
    try:
        await redis_client.set(redis_prefix + keys.standings(CHAT), b"~~~~")
        await service.handle(
            Command(chat=CHAT, private=False, user=host, name="newgame", args="ano")
        )
        session, _ = await service.sessions.load(CHAT)
        assert session is not None
        start = b.encode(b.START, stamp=session.stamp)
        await service.handle(Press(chat=CHAT, private=False, user=host, data=start, message="1"))
        for _ in range(2000):  # its computers play, the host's seat is taken over
            if await store.load(keys.game(CHAT)) is None:
                break
            now[0] += 600
            await service.tick()
        else:
            pytest.fail("the game did not end")
        board = await store.load(keys.standings(CHAT))
        assert board is not None
        (table,) = (Standings.loads(board.data).games or {}).values()
        assert all(f.played == 1 for f in table.values())
    finally:
        await store.close()


async def test_page_data_no_button_makes_is_answered(h: Harness, tg: FakeTelegram) -> None:
    users = [tg.user(503, "Ann"), tg.user(504, "Bob")]
    await open_table(h, tg, users)
    session = await load(h)
    user = user_of(session, to_move(session), users)
    hand = hand_message(tg, user["id"])
    assert hand is not None
    step = next(d for d in hand.callback_data if d.startswith(b.NAV))
    for path in ("~~~~", "~x", "~1~2"):
        data = step.rsplit("|", 1)[0] + "|" + path
        press = tg.callback_update(user, hand, data, check=False)
        await h.feed(press)
        assert answer_text(tg, press) == "This button is no longer in use."
    assert (await load(h)).moves == session.moves
    assert not h.bot.errors


async def test_a_hand_link_opened_by_someone_not_at_the_table_is_answered(
    h: Harness, tg: FakeTelegram
) -> None:
    users = [tg.user(505, "Ann"), tg.user(506, "Bob")]
    await open_table(h, tg, users)
    eve = tg.user(507, "Eve")
    await h.command(eve["id"], eve, "/start")
    said = len(tg.sent_to(eve["id"]))
    await h.command(eve["id"], eve, f"/start {b.hand_payload(CHAT)}")
    assert len(tg.sent_to(eve["id"])) == said + 1
    assert last_text(tg, eve["id"]) == "You are not playing in this game."


async def test_a_move_saved_by_a_process_that_never_answered_is_told_what_it_did(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, redis_client: aioredis.Redis
) -> None:
    """Process A saved the move and died before its answer went out; Telegram delivers the
    press again, to B: B says it was counted, and what the game's last change was. (Had A
    been alive, it answered its own press: B says nothing, `tests/e2e/test_concurrency.py`.)"""
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        users = [tg.user(508, "Ann"), tg.user(509, "Bob")]
        await open_table(a, tg, users)
        before = await load(a)
        user = user_of(before, to_move(before), users)
        rng = random.Random(3)
        while True:
            hand = hand_message(tg, user["id"])
            assert hand is not None
            moves = [d for d in hand.callback_data if d.startswith(b.MOVE)]
            if moves:
                break
            await a.press(
                user, hand, rng.choice([d for d in hand.callback_data if d.startswith(b.NAV)])
            )
        update = tg.callback_update(user, hand, rng.choice(moves))
        inc = incoming(update, a.bot.app.bot.username)  # the update as the Bot API sends it
        assert inc is not None
        reply = await a.bot.service.handle(inc)  # saved; A dies before it answers or sends
        assert reply.answer is not None and (await load(a)).moves == before.moves + 1
        assert not answer_calls(tg, update)
        await a.bot.runner.stop()  # its heartbeat stops, and has lapsed when Telegram retries
        await redis_client.delete(f"{redis_prefix}alive:{a.bot.sessions.process}")
        await b2.feed(update)
        text = answer_text(tg, update)
        assert text.startswith("That press was already counted."), text
        assert (await load(b2)).moves == before.moves + 1, "applied once"
    finally:
        await a.stop()
        await b2.stop()


@pytest.mark.parametrize("lang", ["th", "en"])
@pytest.mark.parametrize("phase", ["lobby", "playing"])
async def test_an_option_added_since_a_game_was_saved_takes_its_default(
    h: Harness,
    tg: FakeTelegram,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    phase: str,
    lang: str,
) -> None:
    """A game saved by an older version, before one of its game's options existed (it was
    a KeyError in every view): the option takes its default and the game goes on."""
    users = [tg.user(513, "Ann", language_code=lang), tg.user(514, "Bob", language_code=lang)]
    lobby = await _table(h, tg, users, phase)
    dropped = await _stored_options(h, redis_client, redis_prefix, _drop_last)
    await h.command(GROUP, users[1], "/status")
    assert last_text(tg, GROUP) != translator(lang).gettext(UNREADABLE)
    if phase == "lobby":
        await h.bot.runner.delivery.flush()
        shown = reversed(tg.messages_in(GROUP))
        lobby = next(m for m in shown if any(d.startswith(b.START) for d in m.callback_data))
        await h.press(users[0], lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing", "the game began, or goes on"
    assert session.options[dropped] == GAMES[session.game].game.spec.option(dropped).default
    assert not h.bot.errors


@pytest.mark.parametrize("lang", ["th", "en"])
@pytest.mark.parametrize("phase", ["lobby", "playing"])
async def test_a_game_with_an_option_its_game_no_longer_offers_is_answered_and_anyone_stops_it(
    h: Harness,
    tg: FakeTelegram,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    phase: str,
    lang: str,
) -> None:
    """A stored game whose option has a value its game no longer offers: every press and
    command in the chat is answered that it could not be read, and any member (not only its
    host) ends it with /stop; a new table opens after."""
    users = [tg.user(511, "Ann", language_code=lang), tg.user(512, "Bob", language_code=lang)]
    lobby = await _table(h, tg, users, phase)
    session = await load(h)

    def bad(options: dict[str, object]) -> str:
        name = next(iter(options))
        options[name] = 1000
        return name

    await _stored_options(h, redis_client, redis_prefix, bad)
    expected = translator(lang).gettext(UNREADABLE)
    await h.command(GROUP, users[1], "/status")
    assert last_text(tg, GROUP) == expected
    if phase == "playing":
        user = user_of(session, to_move(session), users)
        hand = hand_message(tg, user["id"])
        assert hand is not None
        press = tg.callback_update(user, hand, hand.callback_data[0], check=False)
    else:
        press = tg.callback_update(users[1], lobby, button(lobby, b.JOIN), check=False)
    await h.feed(press)
    assert answer_text(tg, press) == expected

    await h.command(GROUP, users[1], "/stop")  # Bob did not open it
    assert await redis_client.get(redis_prefix + keys.game(CHAT)) is None, "/stop cleared it"
    await h.command(GROUP, users[1], "/newgame")
    assert tg.last_message(GROUP).callback_data  # type: ignore[union-attr]
    assert not h.bot.errors


async def _table(h: Harness, tg: FakeTelegram, users: list[JSON], phase: str) -> StoredMessage:
    """A game of the default game in GROUP opened by the first of `users` (the second joins),
    started if `phase` is "playing"; its lobby message."""
    if phase == "playing":
        return await open_table(h, tg, users)
    tg.group(GROUP, "Agora", creator=users[0])
    for user in users:
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, users[0], "/newgame")
    lobby = tg.last_message(GROUP)
    assert lobby is not None
    await h.press(users[1], lobby, button(lobby, b.JOIN))
    await h.bot.runner.delivery.flush()  # (edits merge meanwhile)
    return tg.message(GROUP, lobby.message_id)


async def _stored_options(
    h: Harness,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    edit: Callable[[dict[str, object]], str],
) -> str:
    """Change the stored game's options in place with `edit` (as an older version left
    them); the option's name `edit` gives."""
    doc = await h.bot.sessions._store.load(keys.game(CHAT))
    assert doc is not None
    data = orjson.loads(doc.data)
    name = edit(data["options"])
    stored = f"{doc.version}:".encode() + orjson.dumps(data)
    await redis_client.set(redis_prefix + keys.game(CHAT), stored)
    return name


def _drop_last(options: dict[str, object]) -> str:
    return options.popitem()[0]
