"""The registry of game bundles: every game's events and states round-trip exactly, the help
and the lobby know every registered game, and sessions are stored with their schema."""

from __future__ import annotations

import dataclasses
import typing
from types import UnionType
from typing import Any, Union

import orjson
import pytest

from chatbot.core.model import Command, Reply, User
from chatbot.core.registry import Bundle, Registry
from chatbot.core.session import BadSession, Seat, Session
from chatbot.games import registry
from chatbot.store.memory import MemoryStore
from engine.core import BadState, dump_event, load_event, restore, stored
from tests.conftest import make_service
from tests.games import pick, slap

WITH_TEST_GAMES = Registry([*registry(), pick.bundle(), slap.bundle()])
ANN = User("tg:1", "Ann", "en")


def sample(hint: Any, n: int) -> Any:
    """A value of the type `hint` (ints from `n`), nested dataclasses and tuples included."""
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        hints = typing.get_type_hints(hint)
        fields = [f for f in dataclasses.fields(hint) if f.init]
        return hint(**{f.name: sample(hints[f.name], n + i) for i, f in enumerate(fields)})
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(sample(args[0], n + i) for i in range(2))
        return tuple(sample(a, n + i) for i, a in enumerate(args))
    if origin in (Union, UnionType):
        return sample(next(a for a in typing.get_args(hint) if a is not type(None)), n)
    if hint is bool:
        return n % 2 == 1
    if hint is int:
        return n
    if hint is str:
        return f"s{n}"
    raise TypeError(f"no sample for {hint!r}")


@pytest.mark.parametrize("bundle", list(WITH_TEST_GAMES), ids=lambda b: b.name)
def test_every_event_type_survives_dump_and_load_unchanged(bundle: Bundle) -> None:
    types = bundle.game.event_types
    assert types
    for cls in types.values():
        event = sample(cls, 1)
        data = orjson.loads(orjson.dumps(dump_event(event)))  # through JSON, as stored
        assert load_event(types, data) == event, cls.__name__


@pytest.mark.parametrize("bundle", list(WITH_TEST_GAMES), ids=lambda b: b.name)
def test_every_game_state_is_stored_with_its_game_and_version(bundle: Bundle) -> None:
    game = bundle.game
    state, _ = game.new_game(game.spec.min_players, {}, seed=7)
    for _ in range(30):
        if game.is_over(state):
            break
        data = orjson.loads(orjson.dumps(stored(game, state)))
        assert data["g"] == game.spec.name and data["v"] == game.spec.schema
        assert restore(game, data) == state
        player = next(p for p in range(game.spec.min_players) if game.legal_actions(state, p))
        state, _ = game.apply(state, player, game.legal_actions(state, player)[0])
    other = next(b for b in WITH_TEST_GAMES if b.name != bundle.name)
    with pytest.raises(BadState):
        restore(other.game, stored(game, state))
    with pytest.raises(BadState):
        restore(game, {**stored(game, state), "v": game.spec.schema + 1})


def test_a_session_round_trips_and_junk_is_refused_not_crashed_on() -> None:
    session = Session("egonomy", "tg:-1", "tg:1", "th", {"flip": True}, [Seat("Ann", "tg:1")])
    session.stamps, session.timers = [5], {"0": ["remind", 12.5]}
    assert Session.loads(session.dumps()) == session
    for junk in (b"", b"[]", b'{"schema": 99}', b'{"schema": 2, "seats": 3}'):
        with pytest.raises(BadSession):
            Session.loads(junk)


def test_a_session_of_the_first_schema_is_read_with_per_seat_stamps() -> None:
    old = {
        "game": "egonomy",
        "chat": "tg:-1",
        "creator": "tg:1",
        "language": "en",
        "options": {"flip": False, "strict_topics": False},
        "seats": [{"name": "Ann", "user": "tg:1", "language": "en", "bot": None}],
        "phase": "playing",
        "move": 41,
        "seed": 3,
        "state": [1, 2],
        "log": [],
        "messages": {},
        "waiting": "remind",
        "deadline": 10.0,
        "schema": 1,
    }
    session = Session.loads(orjson.dumps(old))
    assert (session.stamp, session.epoch, session.stamps) == (41, 41, [41])
    assert session.state == {"g": "egonomy", "v": 1, "s": [1, 2]}


def only_text(reply: Reply) -> str:
    (message,) = reply.messages
    return message.text


async def test_the_help_and_an_unknown_game_name_list_every_registered_game() -> None:
    service = make_service(MemoryStore(), games=WITH_TEST_GAMES)
    help_text = only_text(
        await service.handle(Command(chat="tg:-1", private=False, user=ANN, name="help"))
    )
    assert all(title in help_text for title in ("Egonomy", "EGO", "Ano", "Pick", "Slap"))
    unknown = await service.handle(
        Command(chat="tg:-1", private=False, user=ANN, name="newgame", args="go")
    )
    assert only_text(unknown) == "I know these games: Egonomy, EGO, Ano, Pick, and Slap."


async def test_rules_offer_a_game_menu_and_a_shared_term_asks_which_game() -> None:
    service = make_service(MemoryStore(), games=WITH_TEST_GAMES)
    menu = (
        await service.handle(Command(chat="tg:1", private=True, user=ANN, name="rules"))
    ).messages[0]
    assert [b.label for row in menu.buttons for b in row] == [
        "Egonomy",
        "EGO",
        "Ano",
        "Pick",
        "Slap",
    ]
    ask = await service.handle(
        Command(chat="tg:1", private=True, user=ANN, name="rule", args="turn")
    )
    (message,) = ask.messages
    assert "several games" in message.text
    labels = [b.label for row in message.buttons for b in row]
    assert labels == ["EGO: Turn", "Ano: A turn", "Pick: Turn", "Slap: Turn"]
    one = await service.handle(
        Command(chat="tg:1", private=True, user=ANN, name="rule", args="momentum")
    )
    assert only_text(one).startswith("<b>Momentum</b>"), "a term of one game is answered"


async def test_a_game_opens_by_name_with_its_own_options() -> None:
    service = make_service(MemoryStore(), games=WITH_TEST_GAMES)
    await service.handle(
        Command(chat="tg:-1", private=False, user=ANN, name="newgame", args="pick")
    )
    session, _ = await service.sessions.load("tg:-1")
    assert session is not None and session.game == "pick" and session.seats[0].user == ANN.id
