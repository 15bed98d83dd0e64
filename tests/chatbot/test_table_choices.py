"""Choices made in the lobby with one press: a preset of a game's options (Ano: classic, party,
everything) and the table's turn timer, which then paces reminders and take-overs and shows
the time left on the table."""

from __future__ import annotations

from chatbot import bootstrap
from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.model import Capabilities, Command, Message, Press, Reply, User
from chatbot.core.service import GameService
from chatbot.core.session import TURN_TIMERS, WAIT_REMIND, WAIT_TAKEOVER, Session
from chatbot.core.sessions import Platform, Sessions
from chatbot.games import ANO_PRESETS, registry
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from tests.clock import Clock

GROUP = "tg:-100555"
HOST, GUEST = User("tg:1", "Ann", "en"), User("tg:2", "Bob", "en")
GAMES = registry()


def service_at(clock: Clock) -> GameService:
    sessions = Sessions(MemoryStore(), Settings(bot_delay=1.0), GAMES, Platform(), clock=clock)
    return GameService(sessions, bootstrap.thinking_pool(0))


async def lobby_of(service: GameService) -> Session:
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    return session


async def press(service: GameService, who: User, op: str, *fields: str) -> Reply:
    session = await lobby_of(service)
    data = b.encode(op, *fields, stamp=session.stamp)
    return await service.handle(Press(chat=GROUP, private=False, user=who, data=data, message="5"))


def labels(message: Message) -> list[str]:
    return [x.label for row in message.buttons for x in row]


async def test_a_preset_sets_every_option_with_one_press() -> None:
    service = service_at(Clock())
    (lobby,) = (
        await service.handle(
            Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ano")
        )
    ).messages
    assert "✓ 📘 Classic" in labels(lobby), "the defaults are the rulebook's body"
    spec = GAMES["ano"].game.spec
    refused = await press(service, GUEST, b.PRESET, "1")
    assert refused.answer is not None and "Only the host" in refused.answer.text
    assert (await lobby_of(service)).options == spec.resolve_options()
    await press(service, HOST, b.PRESET, "1")
    party = (await lobby_of(service)).options
    assert party == spec.resolve_options(ANO_PRESETS[1].options)
    assert party["decks"] == 2 and party["jump_in"] and not party["points"]
    await press(service, HOST, b.PRESET, "2")
    session = await lobby_of(service)
    everything = session.options
    assert all(everything[o.name] == o.choices[-1] for o in spec.options)
    lobby = views.lobby(session, GAMES["ano"], translator("en"), lambda _: None, Capabilities())
    assert "✓ 🌶️ Everything" in labels(lobby) and "📘 Classic" in labels(lobby)
    unknown = await press(service, HOST, b.PRESET, "9")
    assert unknown.answer is not None and (await lobby_of(service)).options == everything


async def test_the_turn_timer_cycles_through_its_choices() -> None:
    service = service_at(Clock())
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ego"))
    seen = []
    for _ in TURN_TIMERS:
        seen.append((await lobby_of(service)).turn_timer)
        await press(service, HOST, b.TIMER)
    assert seen == list(TURN_TIMERS) and (await lobby_of(service)).turn_timer == 0


async def test_a_table_of_30_seconds_reminds_at_15_and_moves_for_the_player_at_30() -> None:
    clock = Clock()
    service = service_at(clock)
    await service.handle(
        Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ego")
    )  # the host sits
    await press(service, HOST, b.TIMER)
    assert (await lobby_of(service)).turn_timer == 30
    await press(service, HOST, b.ADD_BOT)
    started = await press(service, HOST, b.START)
    session = await lobby_of(service)
    assert session.timers["0"] == [WAIT_REMIND, clock.now + 15.0]
    table = next(m for m in started.messages if (m.slot or "").startswith("table"))
    assert "⏱ Ann: 30 s left" in table.text
    clock.now += 15.0
    reminded = await service.tick()
    assert any("15 seconds left" in m.text for m in reminded)
    assert any(
        (m.slot or "").startswith("table") and "⏱ Ann: 15 s left" in m.text for m in reminded
    )
    assert (await lobby_of(service)).timers["0"] == [WAIT_TAKEOVER, clock.now + 15.0]
    clock.now += 15.0
    await service.tick()
    after = await lobby_of(service)
    assert after.moves > session.moves, "the turn went on without Ann"
    assert after.timers.get("0", [None])[0] != WAIT_TAKEOVER


async def test_without_a_turn_timer_the_settings_pace_the_table() -> None:
    clock = Clock()
    service = service_at(clock)
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ego"))
    await press(service, HOST, b.ADD_BOT)
    started = await press(service, HOST, b.START)
    session = await lobby_of(service)
    assert session.timers["0"] == [WAIT_REMIND, clock.now + Settings().remind_after]
    assert not any("⏱" in m.text for m in started.messages)
