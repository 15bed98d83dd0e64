"""A Telegram group upgraded to a supergroup gets a new chat id mid-game: the game follows it
and goes on, whether the bot learns it from a refused send or from the service message."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator

import pytest

from chatbot.core import buttons as b
from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, hand_message, pick, playable
from tests.e2e.helpers import table_id

OLD, NEW = -4001, -1004001004001


@pytest.fixture
async def h(tg: FakeTelegram) -> AsyncIterator[Harness]:
    harness = await Harness(tg, MemoryStore()).start()
    yield harness
    await harness.stop()


async def start_game(h: Harness, tg: FakeTelegram) -> list[dict]:
    ann, bob = tg.user(71, "Ann"), tg.user(72, "Bob")
    tg.group(OLD, "Symposium", creator=ann)
    for user in (ann, bob):
        await h.command(user["id"], user, "/start")
    await h.command(OLD, ann, "/newgame")
    lobby = tg.last_message(OLD)
    assert lobby is not None
    await h.press(bob, lobby, next(d for d in lobby.callback_data if d[0] == b.JOIN))
    lobby = tg.message(OLD, lobby.message_id)
    await h.press(ann, lobby, next(d for d in lobby.callback_data if d[0] == b.START))
    return [ann, bob]


async def press_once(h: Harness, tg: FakeTelegram, users: list[dict], rng: random.Random) -> None:
    for user in users:
        message = hand_message(tg, user["id"])
        if message is not None and playable(message):
            await h.press(user, message, pick(message, rng))
            return
    raise AssertionError("nobody can press")


async def test_a_refused_send_moves_the_game_and_old_buttons_keep_working(
    h: Harness, tg: FakeTelegram
) -> None:
    users = await start_game(h, tg)
    before, _ = await h.bot.service.sessions.load(f"tg:{OLD}")
    assert before is not None
    tg.migrate_group(OLD, NEW)
    rng = random.Random(1)
    for _ in range(12):  # private buttons still name the old group
        await press_once(h, tg, users, rng)
    assert await h.bot.service.sessions._store.load(f"game:tg:{OLD}") is None, "the old key is gone"
    after = await h.bot.service.sessions._store.load(f"game:tg:{NEW}")
    assert after is not None
    session, _ = await h.bot.service.sessions.load(f"tg:{NEW}")
    assert session is not None and session.chat == f"tg:{NEW}" and session.moves > before.moves
    table = tg.message(NEW, int(table_id(session)))
    assert "Egonomy" in table.text, "the table goes on in the supergroup"


async def test_the_service_message_of_the_upgrade_moves_the_game(
    h: Harness, tg: FakeTelegram
) -> None:
    await start_game(h, tg)
    tg.migrate_group(OLD, NEW)
    update = {
        "update_id": 9_000_001,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": NEW, "type": "supergroup", "title": "Symposium"},
            "from": tg.users[71].to_dict(),
            "migrate_from_chat_id": OLD,
        },
    }
    await h.feed(update)
    await h.feed({**update, "update_id": 9_000_002})  # delivered twice: nothing more happens
    session, _ = await h.bot.service.sessions.load(f"tg:{NEW}")
    assert session is not None and session.chat == f"tg:{NEW}"
    assert await h.bot.sessions.moved_to(f"tg:{OLD}") == f"tg:{NEW}"
    tables = [m for m in tg.sent_to(NEW) if "Egonomy" in m.text]
    assert len(tables) == 1, "one fresh table in the supergroup"
