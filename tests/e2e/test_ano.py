"""Ano through the real Telegram application and Redis: a whole 4-player game with two people
pressing their private buttons (and the group's "Caught!") and two computer players."""

from __future__ import annotations

import random

from chatbot.core import buttons as b
from engine.ano import GAME
from engine.ano.rules import FORGOT_CALL, State
from engine.core import restore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, hand_message, pick, playable
from tests.e2e.helpers import CHAT, GROUP, button, table_id

MAX_ROUNDS = 3000


async def state_of(h: Harness) -> State | None:
    """The game's state, or None once the finished game has left the chat."""
    session, _ = await h.bot.sessions.load(CHAT)
    if session is None or session.phase != "playing":
        return None
    state: State = restore(GAME, session.state)
    return state


async def test_a_whole_game_of_ano_with_two_people_and_two_computers(
    tg: FakeTelegram, harness: Harness
) -> None:
    h = harness
    ann, bob = tg.user(51, "Ann"), tg.user(52, "Bob")
    tg.group(GROUP, "Players", creator=ann)
    for user in (ann, bob):
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, ann, "/newgame ano")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and lobby.text.startswith("🎲 Ano")
    await h.press(bob, lobby, button(lobby, b.JOIN))
    for _ in range(2):
        lobby = tg.message(GROUP, lobby.message_id)
        await h.press(ann, lobby, button(lobby, b.ADD_BOT))
    lobby = tg.message(GROUP, lobby.message_id)
    await h.press(ann, lobby, button(lobby, b.START))
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None and session.game == "ano" and session.phase == "playing"
    table = tg.message(GROUP, int(table_id(session)))
    assert "Top card:" in table.text and "Ann: 5 cards" in table.text
    rng = random.Random(5)
    presses = 0
    for _ in range(MAX_ROUNDS):
        state = await state_of(h)
        if state is None or state.over:
            break
        if await h.tick():
            continue
        session, _ = await h.bot.sessions.load(CHAT)
        assert session is not None
        table = tg.message(GROUP, int(table_id(session)))
        caught = [d for d in table.callback_data if "|c" in d] if FORGOT_CALL in state.ano else []
        for user in (ann, bob) if caught else ():  # a forgetter's or a winner's press is refused
            await h.press(user, table, caught[0], check=False)
        pressed = bool(caught) and await state_of(h) != state
        for user in (ann, bob):
            message = hand_message(tg, user["id"])
            if not pressed and message is not None and playable(message):
                await h.press(user, message, pick(message, rng), check=False)
                presses += 1
                pressed = True
        assert pressed, "nobody could act and no computer was due"
    state = await state_of(h)
    assert state is None or state.over, "the game ended"
    assert presses > 10
    final = tg.sent_to(GROUP)[-1].text
    assert "the game is over" in final.lower()
