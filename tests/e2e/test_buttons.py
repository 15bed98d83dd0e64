"""Button safety and group commands, through the real PTB application and the fake Bot API.

"Button data compact (≤ 64 bytes), carries the game version; a press on an outdated message,
by a non-player, or out of turn gets a clear private answer and changes nothing." "Names
escaped." "/stop ends it" (host or admin); "/status shows it"; finished games leave their
result in a small per-chat history.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import orjson
import pytest
from prometheus_client import REGISTRY

from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness, hand_message
from tests.e2e.helpers import (
    CHAT,
    GROUP,
    JSON,
    load,
    open_table,
    play_out,
    query_id,
    ready_to_move,
    real_failures,
    sent_callback_data,
    table_id,
    to_move,
    user_of,
)

OUTDATED = "That button is outdated: here is your current hand."
NO_LONGER = "This button is no longer in use."


@pytest.fixture
async def h(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Harness]:
    harness = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix)).start()
    try:
        yield harness
    finally:
        await harness.stop()
        await harness.bot.service.sessions._store.close()


async def two_players(h: Harness, tg: FakeTelegram) -> list[JSON]:
    ann = tg.user(41, "Ann")
    bob = tg.user(42, "Bob")
    tg.user(43, "Carl")
    await open_table(h, tg, [ann, bob])
    return [ann, bob]


async def answered(
    h: Harness, tg: FakeTelegram, user: JSON, message: StoredMessage, data: str
) -> JSON:
    """Press (the button need not be on the message now) and return the private answer."""
    update = tg.callback_update(user, message, data, check=False)
    await h.feed(update)
    answer = tg.callback_answer(query_id(update))
    assert answer is not None, "every press is answered"
    return answer


def mover_step(
    tg: FakeTelegram, session: Session, users: list[JSON]
) -> tuple[JSON, StoredMessage, str]:
    """The player to move, their hand message, and a step of a choice on it."""
    user = user_of(session, to_move(session), users)
    hand = hand_message(tg, user["id"])
    assert hand is not None
    return user, hand, next(d for d in hand.callback_data if d[0] == b.NAV)


def unchanged(before: Session, after: Session) -> bool:
    return (after.moves, after.state, after.log) == (before.moves, before.state, before.log)


async def move_until(h: Harness, tg: FakeTelegram, users: list[JSON], seat: int) -> None:
    """The players press moves until it is `seat`'s turn."""
    rng = random.Random(5)
    for _ in range(50):
        session = await load(h)
        if to_move(session) == seat:
            return
        user = user_of(session, to_move(session), users)
        message = await ready_to_move(h, tg, user, rng)
        await h.press(user, message, next(d for d in message.callback_data if d[0] == b.MOVE))
    raise AssertionError(f"seat {seat} never got the turn")


async def test_a_press_on_an_outdated_hand_is_refused_privately(
    h: Harness, tg: FakeTelegram
) -> None:
    """A button of an earlier move: a private answer, no change, and the pressed message is
    edited to the player's current hand (their choices when they may act)."""
    users = await two_players(h, tg)
    session = await load(h)
    seat = to_move(session)
    user = user_of(session, seat, users)
    hand = await ready_to_move(h, tg, user, random.Random(1))
    old = [d for d in hand.callback_data if d[0] == b.MOVE]
    await h.press(user, hand, old[0])
    await move_until(h, tg, users, 1 - seat)  # now the other player's turn
    before = await load(h)
    group = len(tg.sent_to(GROUP))

    answer = await answered(h, tg, user, hand, old[-1])
    assert answer["text"].startswith(OUTDATED) and not answer["show_alert"]
    assert unchanged(before, await load(h))
    assert len(tg.sent_to(GROUP)) == group
    assert hand.callback_data == [], "not their turn: the hand, without buttons"

    await move_until(h, tg, users, seat)  # the player's turn again
    await h.press(user, hand, old[0], check=False)  # outdated again: now with choices
    await h.press(user, hand, next(d for d in hand.callback_data if d[0] == b.NAV))
    before = await load(h)
    edits, step = len(hand.history), hand.text
    answer = await answered(h, tg, user, hand, old[-1])
    assert answer["text"].startswith(OUTDATED) and not answer["show_alert"]
    assert unchanged(before, await load(h))
    assert len(hand.history) == edits + 1 and hand.text != step, "the same message, edited"
    moves = [b.decode(d) for d in hand.callback_data]
    seat = before.seat_of(f"tg:{user['id']}")
    assert seat is not None
    assert moves and all(p is not None and p.stamp == before.stamps[seat] for p in moves)


async def test_a_press_by_a_non_player_gets_a_clear_private_answer(
    h: Harness, tg: FakeTelegram
) -> None:
    users = await two_players(h, tg)
    carl = tg.users[43].to_dict()
    session = await load(h)
    table = tg.message(GROUP, int(table_id(session)))
    peek = next(d for d in table.callback_data if d[0] == b.PEEK)
    answer = await answered(h, tg, carl, table, peek)
    assert answer["text"] == "You are not playing in this game."
    mover = user_of(session, to_move(session), users)
    hand = await ready_to_move(h, tg, mover, random.Random(2))
    move = next(d for d in hand.callback_data if d[0] == b.MOVE)
    before = await load(h)
    answer = await answered(h, tg, carl, table, move)  # the move data, pressed by Carl
    assert answer["text"] == "You are not playing in this game."
    assert unchanged(before, await load(h))


async def test_a_press_out_of_turn_changes_nothing(h: Harness, tg: FakeTelegram) -> None:
    """The player who is not to move presses a move: refused in a pop-up, no change, and no
    private message (being out of turn is not a rule to read up on)."""
    users = await two_players(h, tg)
    session = await load(h)
    mover = user_of(session, to_move(session), users)
    other = user_of(session, 1 - to_move(session), users)
    hand = await ready_to_move(h, tg, mover, random.Random(3))
    move = next(d for d in hand.callback_data if d[0] == b.MOVE)
    before = await load(h)
    own = tg.sent_to(other["id"])[-1]
    sent_before = len(tg.sent_to(other["id"]))
    answer = await answered(h, tg, other, own, move)
    assert answer == {"text": "It's not your turn.", "show_alert": True, "url": None}
    assert unchanged(before, await load(h))
    assert len(tg.sent_to(other["id"])) == sent_before


async def test_a_navigation_press_edits_the_same_message(h: Harness, tg: FakeTelegram) -> None:
    users = await two_players(h, tg)
    session = await load(h)
    user, hand, nav = mover_step(tg, session, users)
    count, edits, text = len(tg.sent_to(user["id"])), len(hand.history), hand.text
    await h.press(user, hand, nav)
    assert len(tg.sent_to(user["id"])) == count, "no new message"
    assert len(hand.history) == edits + 1 and hand.text != text
    assert "Back" in " ".join(hand.button_texts), "the next step, with a way back"
    assert (await load(h)).moves == session.moves, "looking is not moving"


async def test_stop_needs_the_host_or_a_chat_admin(h: Harness, tg: FakeTelegram) -> None:
    users = await two_players(h, tg)
    carl = tg.users[43].to_dict()
    await h.command(GROUP, users[1], "/stop")
    assert "Only the player who opened the game or a chat admin" in tg.last_message(GROUP).text  # type: ignore[union-attr]
    assert await h.bot.service.sessions._store.load(f"game:{CHAT}") is not None, "still running"
    await h.command(GROUP, carl, "/stop")
    assert await h.bot.service.sessions._store.load(f"game:{CHAT}") is not None, (
        "Carl is no admin yet"
    )
    tg.set_admins(GROUP, [carl])
    await h.command(GROUP, carl, "/stop")
    said = tg.last_message(GROUP)
    assert said is not None and said.text.startswith("The game was stopped by Carl.\n\n🔓")
    assert await h.bot.service.sessions._store.load(f"game:{CHAT}") is None
    (entry,) = await h.bot.service.sessions._store.history(f"hist:{CHAT}", 5)
    assert orjson.loads(entry)["stopped"] is True


async def test_status_reposts_the_table_and_later_moves_edit_the_new_one(
    h: Harness, tg: FakeTelegram
) -> None:
    users = await two_players(h, tg)
    session = await load(h)
    old_table = tg.message(GROUP, int(table_id(session)))
    buttons = old_table.callback_data
    await h.command(GROUP, users[1], "/status")
    reposted = tg.last_message(GROUP)
    assert reposted is not None and reposted.message_id != old_table.message_id
    assert reposted.text == old_table.text and reposted.callback_data == buttons
    assert table_id(await load(h)) == str(reposted.message_id)
    # the copy above keeps its text and loses its buttons: a press there could only be refused
    assert old_table.text == reposted.text and not old_table.callback_data
    edits = len(old_table.history)
    user = user_of(session, to_move(session), users)
    hand = await ready_to_move(h, tg, user, random.Random(4))
    await h.press(user, hand, next(d for d in hand.callback_data if d[0] == b.MOVE))
    assert len(reposted.history) == 1 and len(old_table.history) == edits


async def test_markup_in_names_breaks_nothing_and_status_shows_the_result(
    h: Harness, tg: FakeTelegram
) -> None:
    """Players named `<b>x</b>` and `*_[` play a whole game: every text is valid HTML (the
    fake refuses malformed HTML), the names show literally, and afterwards /status shows the
    result from the history. Every button's data the bot ever sent is at most 64 bytes."""
    tag = tg.user(44, "<b>x</b>")
    stars = tg.user(45, "*_[")
    users = [tag, stars]
    lobby = await open_table(h, tg, users, computers=1)
    assert "<b>x</b>" in lobby.text and "*_[" in lobby.text
    session = await load(h)
    table = tg.message(GROUP, int(table_id(session)))
    assert "<b>x</b>" in table.text and "&lt;b&gt;x&lt;/b&gt;" in (table.html or "")
    await play_out(h, tg, users, seed=9)
    final = tg.last_message(GROUP)
    assert final is not None and "🏆" in final.text
    assert "<b>x</b>" in final.text or "*_[" in final.text

    await h.command(GROUP, stars, "/status")
    status = tg.last_message(GROUP)
    assert status is not None and status.text.startswith("No game is running here. Latest results:")
    (entry,) = await h.bot.service.sessions._store.history(f"hist:{CHAT}", 5)
    ranking = orjson.loads(entry)["ranking"]
    stored_names = sorted((r["name"], r["bot"]) for r in ranking)
    assert stored_names == sorted([("<b>x</b>", False), ("*_[", False), ("Socrates", True)])
    line = next(x for x in status.text.splitlines() if x.startswith("• Egonomy: "))
    assert all(r["name"] in line for r in ranking), status.text

    assert not real_failures(tg), real_failures(tg)
    data = sent_callback_data(tg)
    assert data and all(len(d.encode()) <= b.DATA_BYTES for d in data)
    assert max(len(d.encode()) for d in data) > 20, "the game's long buttons were checked"


async def test_the_next_player_is_notified_by_a_new_message(h: Harness, tg: FakeTelegram) -> None:
    """Edits notify nobody: when the turn passes, the actor's pressed message is edited in
    place (no buttons left) and the next player gets a new private message with choices."""
    users = await two_players(h, tg)
    rng = random.Random(8)
    for _ in range(20):  # until a move passes the turn (not a momentum extra action)
        session = await load(h)
        seat = to_move(session)
        actor, other = user_of(session, seat, users), user_of(session, 1 - seat, users)
        hand = await ready_to_move(h, tg, actor, rng)
        sent_actor, sent_other = len(tg.sent_to(actor["id"])), len(tg.sent_to(other["id"]))
        await h.press(actor, hand, next(d for d in hand.callback_data if d[0] == b.MOVE))
        if to_move(await load(h)) != seat:
            break
    else:
        raise AssertionError("the turn never passed")
    assert len(tg.sent_to(actor["id"])) == sent_actor, "the actor's message was edited"
    assert tg.message(actor["id"], hand.message_id).callback_data == []
    assert len(tg.sent_to(other["id"])) == sent_other + 1, "a new message for the next player"
    turn = tg.last_message(other["id"])
    assert turn is not None and any(d[0] in "mn" for d in turn.callback_data)


def edits_skipped() -> float:
    return REGISTRY.get_sample_value("egobot_edits_skipped_total", {"platform": "telegram"}) or 0.0


async def test_a_button_pressed_twice_edits_its_message_once(h: Harness, tg: FakeTelegram) -> None:
    """A double click: both presses carry the message as it was before the first one. The
    second would edit the message into what the first made it show ("message is not
    modified"): no call is made, and the second press is still answered."""
    users = await two_players(h, tg)
    user, hand, nav = mover_step(tg, await load(h), users)
    first, second = (tg.callback_update(user, hand, nav) for _ in range(2))
    edits, skipped = len(tg.calls_to("editMessageText")), edits_skipped()
    await h.feed(first)
    shown = hand.text
    await h.feed(second)
    assert len(tg.calls_to("editMessageText")) == edits + 1, "one edit for two presses"
    assert edits_skipped() == skipped + 1, "counted for the self-hoster's dashboard"
    assert tg.callback_answer(query_id(second)) is not None, "the second press is answered"
    assert hand.text == shown and not real_failures(tg) and not tg.failed_calls()

    move = next(d for d in hand.callback_data if d[0] == b.MOVE)  # a move, clicked twice
    first, second = (tg.callback_update(user, hand, move) for _ in range(2))
    await h.feed(first)
    edits, shown = len(tg.calls_to("editMessageText")), hand.text
    await h.feed(second)  # outdated now: "here is your current hand", which it shows already
    answer = tg.callback_answer(query_id(second))
    assert answer is not None and answer["text"].startswith(OUTDATED)
    assert len(tg.calls_to("editMessageText")) == edits and hand.text == shown
    assert not tg.failed_calls(), "no edit refused as not modified"

    await h.press(user, hand, move, check=False)  # pressed again later: the platform says
    assert len(tg.calls_to("editMessageText")) == edits, "it shows the current hand already"
    assert not tg.failed_calls()
