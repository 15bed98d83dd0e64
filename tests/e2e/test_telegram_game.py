"""A whole Egonomy game in a Telegram group, through the real python-telegram-bot application,
a real Redis and the fake Bot API server: the players only press buttons."""

from __future__ import annotations

import random

from chatbot.store.redis import RedisStore
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness, hand_message, pick, playable

GROUP = -1001234567890


def lobby_button(message: StoredMessage, op: str) -> str:
    return next(d for d in message.callback_data if d.startswith(op))


async def open_table(h: Harness, tg: FakeTelegram) -> tuple[dict, dict, StoredMessage]:
    """Ann and Bob start the bot privately; Ann opens a table; Bob joins; two computers."""
    ann = tg.user(11, "Ann", language_code="en")
    bob = tg.user(12, "Bob <b>", language_code="en")
    tg.group(GROUP, "Symposium", creator=ann)
    await h.command(ann["id"], ann, "/start")
    await h.command(bob["id"], bob, "/start")
    await h.command(GROUP, ann, "/newgame")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and "Egonomy" in lobby.text
    await h.press(bob, lobby, lobby_button(lobby, "j"))
    for _ in range(2):
        lobby = tg.message(GROUP, lobby.message_id)
        await h.press(ann, lobby, lobby_button(lobby, "b"))
    lobby = tg.message(GROUP, lobby.message_id)
    assert "Ann" in lobby.text and "Bob &lt;b&gt;" in (lobby.html or "")
    await h.press(ann, lobby, lobby_button(lobby, "s"))
    return ann, bob, lobby


async def play_out(h: Harness, tg: FakeTelegram, users: list[dict], seed: int) -> int:
    """Press buttons for the humans and run the computers' timers until the game ends."""
    rng = random.Random(seed)
    presses = 0
    for _ in range(5000):
        session, _ = await h.bot.service.sessions.load(f"tg:{GROUP}")
        if session is None:
            return presses
        if await h.tick():
            continue
        moved = False
        for user in users:
            message = hand_message(tg, user["id"])
            if message is not None and playable(message):
                await h.press(user, message, pick(message, rng))
                presses += 1
                moved = True
                break
        assert moved, "nobody can move and no timer is due"
    raise AssertionError("the game did not end")


async def test_whole_game_two_people_two_computers_by_buttons_only(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """Lobby -> deal -> play to the end with 2 humans and 2 computer players."""
    store = RedisStore.from_url(redis_url, redis_prefix)
    # a clock of its own: the computers' timers are due at once, whatever a heartbeat's clock
    # sync with Redis would have moved (a round trip's error on a busy machine)
    h = await Harness(tg, store, clock=Clock()).start()
    try:
        ann, bob, _ = await open_table(h, tg)
        presses = await play_out(h, tg, [ann, bob], seed=1)
        assert presses > 10
        final = tg.last_message(GROUP)
        assert final is not None and "🏆" in final.text
        assert not tg.failed_calls(), [(c.method, c.description) for c in tg.failed_calls()]
        history = await store.history(f"hist:tg:{GROUP}", 5)
        assert len(history) == 1
        for user in (ann, bob):
            assert tg.sent_to(user["id"]), "each player got a private hand"
        assert len(tg.calls_to("setMyCommands")) >= 3
        # the final results offer the next game: one press opens a new table
        again = next(d for d in final.callback_data if d.startswith("g"))
        await h.press(bob, final, again)
        lobby = tg.last_message(GROUP)
        assert lobby is not None and lobby.message_id != final.message_id
        session, _ = await h.bot.service.sessions.load(f"tg:{GROUP}")
        assert session is not None and session.phase == "lobby"
        assert [s.name for s in session.seats] == ["Bob <b>"], "the presser hosts it"
    finally:
        await h.stop()
