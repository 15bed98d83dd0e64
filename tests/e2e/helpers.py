"""Shared steps of the end-to-end game tests: open a table, find buttons, play, inspect."""

from __future__ import annotations

import copy
import random
from typing import Any

from telegram import Update

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.session import Session
from chatbot.games import registry
from engine.core import restore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness, hand_message, pick, playable

JSON = dict[str, Any]
GROUP = -1001234567890
CHAT = f"tg:{GROUP}"
SEED = 20240611


def button(message: StoredMessage, op: str) -> str:
    """The first button of `message` whose data starts with the op code `op`."""
    return next(d for d in message.callback_data if d.startswith(op))


async def open_table(
    h: Harness, tg: FakeTelegram, humans: list[JSON], computers: int = 0, seed: int = SEED
) -> StoredMessage:
    """The humans start the bot privately, the first opens a table in GROUP, the others join,
    the host adds `computers` computer players and starts; the deal uses `seed`."""
    host = humans[0]
    if GROUP not in tg.chats:
        tg.group(GROUP, "Symposium", creator=host)
    for user in humans:
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, host, "/newgame")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and lobby.callback_data, "the lobby has buttons"
    for user in humans[1:]:
        await h.press(user, lobby, button(lobby, b.JOIN))
        lobby = tg.message(GROUP, lobby.message_id)
    for _ in range(computers):
        await h.press(host, lobby, button(lobby, b.ADD_BOT))
        lobby = tg.message(GROUP, lobby.message_id)
    # the host sees the lobby's last edit (edits merge meanwhile)
    await h.bot.runner.delivery.flush()
    lobby = tg.message(GROUP, lobby.message_id)
    h.bot.sessions.seeds = lambda: seed
    await h.press(host, lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing", "the game began"
    return lobby


async def load(h: Harness) -> Session:
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None, "a game is running"
    return session


GAMES = registry()


def state_of(session: Session) -> Any:
    return restore(GAMES[session.game].game, session.state)


def to_move(session: Session) -> int:
    """The seat whose turn it is (Egonomy is a turn game: exactly one)."""
    (seat,) = GAMES[session.game].game.to_move(state_of(session))
    return seat


def user_of(session: Session, seat: int, users: list[JSON]) -> JSON:
    qualified = session.seats[seat].user
    return next(u for u in users if f"tg:{u['id']}" == qualified)


async def ready_to_move(
    h: Harness, tg: FakeTelegram, user: JSON, rng: random.Random
) -> StoredMessage:
    """Navigate the user's hand message until it offers at least one move button.

    A hand edited by a press that raced a move can show the buttons of a move ago; pressing
    one brings the current hand, as it would for a person."""
    for _ in range(10):
        message = hand_message(tg, user["id"])
        assert message is not None and playable(message), "the player to move has buttons"
        session = await load(h)
        presses = [p for d in message.callback_data if (p := b.decode(d)) is not None]
        seat = session.seat_of(f"tg:{user['id']}")
        assert seat is not None
        if any(p.op in (b.MOVE, b.NAV) and p.stamp != session.stamps[seat] for p in presses):
            await h.press(user, message, message.callback_data[0])
            continue
        if any(d.startswith(b.MOVE) for d in message.callback_data):
            return message
        await h.press(user, message, pick(message, rng))
    raise AssertionError("no move button after 10 steps")


async def play_out(
    h: Harness, tg: FakeTelegram, users: list[JSON], seed: int, limit: int = 5000
) -> int:
    """Press buttons for the humans and run the due timers until the game ends; the presses."""
    rng = random.Random(seed)
    presses = 0
    for _ in range(limit):
        session, _ = await h.bot.sessions.load(CHAT)
        if session is None:
            return presses
        if await h.tick():
            continue
        user = user_of(session, to_move(session), users)
        message = hand_message(tg, user["id"])
        assert message is not None and playable(message), "the player to move has buttons"
        await h.press(user, message, pick(message, rng))
        presses += 1
    raise AssertionError("the game did not end")


async def feed_via_processor(h: Harness, update: JSON) -> None:
    """Deliver an update as the polling loop does: through the per-chat update processor."""
    app = h.bot.app
    parsed = Update.de_json(copy.deepcopy(update), app.bot)
    await app.update_processor.process_update(parsed, app.process_update(parsed))
    assert not h.bot.errors, h.bot.errors


def query_id(update: JSON) -> str:
    return str(update["callback_query"]["id"])


def answer_calls(tg: FakeTelegram, update: JSON) -> list[Any]:
    """Every answerCallbackQuery the bot attempted for this update's query."""
    qid = query_id(update)
    return [
        c
        for c in tg.calls_to("answerCallbackQuery")
        if str(c.params.get("callback_query_id")) == qid
    ]


def sent_callback_data(tg: FakeTelegram) -> list[str]:
    """The callback_data of every button in every request the bot made."""
    out: list[str] = []
    for call in tg.calls:
        markup = call.params.get("reply_markup")
        if isinstance(markup, dict):
            for row in markup.get("inline_keyboard", []):
                out.extend(x["callback_data"] for x in row if "callback_data" in x)
    return out


def real_failures(tg: FakeTelegram) -> list[tuple[str, str | None]]:
    """Failed calls other than "message is not modified" (an edit that had nothing to do)."""
    return [
        (c.method, c.description)
        for c in tg.failed_calls()
        if "not modified" not in (c.description or "")
    ]


def waiting(session: Session) -> str | None:
    """What the game's one running timer waits for (Egonomy: one seat at a time), or None."""
    kinds = {kind for kind, _ in session.timers.values()}
    assert len(kinds) <= 1, session.timers
    return next(iter(kinds), None)


def table_id(session: Session) -> str:
    """The platform id of the group's table message of the session's game."""
    return session.message_ids[views.table_slot(session)]
