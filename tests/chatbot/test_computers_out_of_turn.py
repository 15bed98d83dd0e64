"""A computer player takes a chance that its own action opened: in Ano with two players, the
window to catch the other player's forgotten "Ano!" opens with one's own play (RULINGS.md,
Ano), so a computer must be able to act right after its own move."""

from __future__ import annotations

import random

from chatbot.core import buttons as b
from chatbot.core.model import Command, Press, Reply, User
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from engine.ano import GAME
from engine.ano.events import Caught
from engine.core import load_event, restore
from tests.conftest import make_service

ANN = User("tg:7", "Ann", "en")
GROUP = "tg:-7"


def data_of(reply: Reply, op: str) -> str:
    return next(
        button.data
        for message in reply.messages
        for row in message.buttons
        for button in row
        if button.data and button.data.startswith(op)
    )


async def caught_in_a_game(seed: int) -> int:
    """How often the computer caught Ann, who never calls "Ano!", in one two-player game."""
    clock = [1000.0]
    service = make_service(MemoryStore(), Settings(bot_delay=0.0, remind_after=10**6))
    service.sessions.clock = lambda: clock[0]
    service.sessions.seeds = lambda: seed
    await service.handle(Command(chat=ANN.id, private=True, user=ANN, name="start"))
    lobby = await service.handle(
        Command(chat=GROUP, private=False, user=ANN, name="newgame", args="ano")
    )
    await service.handle(Press(chat=GROUP, private=False, user=ANN, data=data_of(lobby, b.ADD_BOT)))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and len(session.seats) == 2
    await service.handle(
        Press(chat=GROUP, private=False, user=ANN, data=b.encode(b.START, stamp=session.stamp))
    )
    rng, caught = random.Random(seed), 0
    for _ in range(3000):
        session, _ = await service.sessions.load(GROUP)
        if session is None:
            return caught
        recent = session.log[len(session.log) - session.recent :] if session.recent else []
        events = [load_event(GAME.event_types, raw) for raw in recent]
        caught += sum(isinstance(e, Caught) and e.player == 0 for e in events)
        clock[0] += 1
        if await service.tick():
            continue
        state = restore(GAME, session.state)
        legal = GAME.legal_actions(state, 0)
        forgetful = [a for a in legal if a.kind not in "ac" and not a.call]  # never calls
        if 0 not in GAME.to_move(state) or not forgetful:
            continue
        code = GAME.encode_action(rng.choice(forgetful))
        press = b.encode(b.MOVE, GROUP, code, stamp=session.stamps[0])
        await service.handle(Press(chat=ANN.id, private=True, user=ANN, data=press))
    raise AssertionError("the game did not end")


async def test_a_computer_catches_a_forgotten_call_in_a_two_player_game() -> None:
    caught = [await caught_in_a_game(seed) for seed in range(6)]
    assert sum(caught) > 0, caught
