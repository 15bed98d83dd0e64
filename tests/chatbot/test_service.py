"""The game service (chatbot/core/service.py, lobby.py) on a MemoryStore: odd button data,
stale lobby messages and a game's end racing another write.

"Button data ... a press on an outdated message gets a clear private answer and changes
nothing"; "a finished game leaves the store; its result joins the chat's history".
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import orjson
import pytest

from chatbot.core import buttons as b
from chatbot.core import keys, views
from chatbot.core.model import Capabilities, Command, Incoming, Message, Press, Reply, User
from chatbot.core.service import GameService
from chatbot.core.session import LOBBY, OVER, Session
from chatbot.core.standings import Standings
from chatbot.core.work import Found, Outcome
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.base import Entry, Write
from chatbot.store.memory import MemoryStore
from engine.core import restore
from tests.conftest import make_service

GROUP = "tg:-100555"
HOST, GUEST = User("tg:1", "Ann", "en"), User("tg:2", "Bob", "en")


@pytest.fixture
def service() -> GameService:
    return make_service(MemoryStore(), Settings(bot_delay=0))


def command(name: str, who: User, chat: str = GROUP, args: str = "") -> Incoming:
    private = chat == who.id
    return Command(chat=chat, private=private, user=who, name=name, args=args)


def press(data: str, who: User, chat: str = GROUP, message: str = "10") -> Incoming:
    return Press(chat=chat, private=chat == who.id, user=who, data=data, message=message)


def data_of(message: Message, op: str) -> str:
    return next(x.data for row in message.buttons for x in row if x.data and x.data[0] == op)


# --- button data this bot never made ------------------------------------------------------


@pytest.mark.parametrize("data", ["m²|tg:-1|b0.1", "n١|tg:-1|b", "s³"])
async def test_non_ascii_digits_in_button_data_are_refused_not_crashed_on(
    service: GameService, data: str
) -> None:
    """int() refuses "²" although str.isdigit() accepts it; such data is simply not ours."""
    assert b.decode(data) is None
    assert b.game_chat(b.decode(data), GROUP) == GROUP
    reply = await service.handle(press(data, HOST))
    assert reply.answer is not None and reply.answer.text == "This button is no longer in use."


# --- the lobby -----------------------------------------------------------------------------


async def test_a_press_on_a_lobby_that_lags_does_what_its_button_said(
    service: GameService,
) -> None:
    """The lobby message on screen missed an edit (a join, the host's own toggle): its buttons
    still mean what they showed. An option button sets the value it offered (pressed twice,
    it stays), Start starts with whoever sits now."""
    for who in (HOST, GUEST):
        await service.handle(command("start", who, chat=who.id))
    opened = await service.handle(command("newgame", HOST))
    await service.sessions.remember(GROUP, views.LOBBY_SLOT, "10")
    stale = opened.messages[0]
    flip = data_of(stale, b.OPTION)  # Egonomy's first option: the flip-table mode, off
    for _ in range(2):  # the second press on the same picture: no flip back
        answer = (await service.handle(press(flip, HOST))).answer
        assert answer is not None and answer.text == "Options changed."
        session, _ = await service.sessions.load(GROUP)
        assert session is not None and session.options["flip"] is True
    await service.handle(press(b.encode(b.JOIN), GUEST))  # its lobby edit never arrives
    started = await service.handle(press(data_of(stale, b.START), HOST))
    assert started.answer is not None and started.answer.text == "The game begins!"
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and [s.name for _, s in session.humans()] == ["Ann", "Bob"]


async def test_start_is_refused_with_the_table_as_it_is_when_someone_left(
    service: GameService,
) -> None:
    """Start promised the seats it showed: when one of them left meanwhile, the host is told
    who sits now (and the lobby is brought up to date), and the next Start begins."""
    for who in (HOST, GUEST):
        await service.handle(command("start", who, chat=who.id))
    await service.handle(command("newgame", HOST))
    await service.sessions.remember(GROUP, views.LOBBY_SLOT, "10")
    joined = await service.handle(press(b.encode(b.JOIN), GUEST))
    (lobby,) = joined.messages
    await service.handle(press(b.encode(b.LEAVE), GUEST))
    refused = await service.handle(press(data_of(lobby, b.START), HOST))
    assert refused.answer is not None
    assert refused.answer.text == "The table changed: now Ann. Press Start again to begin."
    (current,) = refused.messages
    assert current.edit == "10" and "Bob" not in current.text
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and session.phase == LOBBY
    started = await service.handle(press(data_of(current, b.START), HOST))
    assert started.answer is not None and started.answer.text == "The game begins!"


async def test_a_slot_message_id_is_kept_beside_the_session_never_by_saving_it(
    service: GameService,
) -> None:
    """Recording a new lobby or table message's id is no change of the game: the session's
    version stays; every load reads the id; a table opened anew starts without the last one's."""
    for who in (HOST, GUEST):
        await service.handle(command("start", who, chat=who.id))
    await service.handle(command("newgame", HOST))
    _, version = await service.sessions.load(GROUP)
    assert await service.sessions.remember(GROUP, views.LOBBY_SLOT, "10") is None
    assert await service.sessions.remember(GROUP, views.LOBBY_SLOT, "11") == "10"
    session, again = await service.sessions.load(GROUP)
    assert session is not None and session.message_ids == {views.LOBBY_SLOT: "11"}
    assert again == version, "no save"
    joined = await service.handle(press(b.encode(b.JOIN, stamp=session.stamp), GUEST))
    assert [m.edit for m in joined.messages] == ["11"], "the lobby is edited in place"
    await service.handle(command("stop", HOST))
    await service.handle(command("newgame", HOST))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and session.message_ids == {}


async def test_a_session_that_kept_its_message_ids_itself_still_finds_them() -> None:
    """A document an older version wrote holds its slot ids itself: they are read from it (an
    id recorded beside it since wins), and its next save moves them beside it."""
    store = MemoryStore()
    service = make_service(store, Settings(bot_delay=0))
    await service.handle(command("newgame", HOST))
    doc = await store.load(f"game:{GROUP}")
    assert doc is not None
    old = orjson.loads(doc.data) | {"messages": {"lobby": "7", "table:1": "8"}}
    version = await store.save(f"game:{GROUP}", orjson.dumps(old), doc.version, None)
    await service.sessions.remember(GROUP, "table:1", "9")
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and session.message_ids == {"lobby": "7", "table:1": "9"}
    await service.sessions.save(session, version)
    saved = await store.load(f"game:{GROUP}")
    assert saved is not None and "messages" not in orjson.loads(saved.data)
    assert saved.fields == {"lobby": "7", "table:1": "9"}


# --- the end of a game ---------------------------------------------------------------------


class WriteBeforeDelete(MemoryStore):
    """A store where another write (e.g. a player's language choice) lands on a game's key
    just before the game's end removes it."""

    def __init__(self) -> None:
        super().__init__()
        self.service: GameService | None = None
        self.raced = False

    async def commit(self, writes: Sequence[Write], entries: Sequence[Entry] = ()) -> list[int]:
        key = writes[0].key
        doc = await self.load(key)
        if not self.raced and doc is not None and b'"phase":"over"' in doc.data:
            self.raced = True
            assert self.service is not None
            await self.service.sessions.change(key.removeprefix("game:"), _renamed)
        return await super().commit(writes, entries)


async def _renamed(found: Found) -> Outcome[None]:
    """A change of the session that is no move (as a language choice would be)."""
    session = found.session
    assert session is not None
    session.title = "renamed"
    return Outcome(None, save=session)


async def play_computers(service: GameService) -> Reply:
    """An all-computer game: the host opens a table without sitting down and starts it."""
    await service.handle(command("newgame", HOST))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    start = b.encode(b.START, stamp=session.stamp)
    reply = await service.handle(press(start, HOST))
    for _ in range(1000):
        if not await service.tick():
            break
    return reply


async def test_a_finished_game_leaves_the_store_even_when_a_write_races_its_end() -> None:
    store = WriteBeforeDelete()
    service = make_service(store, Settings(bot_delay=0))
    store.service = service
    await play_computers(service)
    assert store.raced, "the write landed between the end's load and delete"
    session, _ = await service.sessions.load(GROUP)
    assert session is None, "the finished game is gone: /newgame may open the next one"
    (entry,) = await store.history(f"hist:{GROUP}", 5)
    assert orjson.loads(entry)["stopped"] is False
    doc = await store.load(keys.standings(GROUP))
    assert doc is not None
    (table,) = Standings.loads(doc.data).games.values()  # type: ignore[union-attr]
    assert all(f.played == 1 for f in table.values()), "counted once, after the retry"


# --- buttons of an earlier game ------------------------------------------------------------


async def start_with_a_computer(service: GameService) -> Session:
    """Ann opens a table, adds a computer player and starts."""
    await service.handle(command("newgame", HOST))
    await service.handle(press(data_of(await lobby_of(service), b.ADD_BOT), HOST))
    await service.handle(press(data_of(await lobby_of(service), b.START), HOST))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and session.phase == "playing"
    return session


async def lobby_of(service: GameService) -> Message:
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    bundle = service.sessions.bundle(session)
    deep_link = service.sessions.platform.deep_link
    return views.lobby(session, bundle, translator("en"), deep_link, Capabilities())


@pytest.mark.parametrize("op", [b.NAV, b.MOVE])
async def test_a_hand_button_of_an_earlier_game_is_refused_in_the_next_one(
    service: GameService, op: str
) -> None:
    """A game stopped (or expired) leaves its hand messages behind; their buttons must not
    count as buttons of the chat's next game, which went through the same lobby steps."""
    seeds = iter([41, 42])
    service.sessions.seeds = lambda: next(seeds)
    await service.handle(command("start", HOST, chat=HOST.id))
    first = await start_with_a_computer(service)
    game = registry()[first.game].game
    state = restore(game, first.state)
    legal = game.legal_actions(state, 0) or game.legal_actions(state, 1)
    field = game.encode_action(legal[0]) if op == b.MOVE else ""
    stale = b.encode(op, GROUP, field, stamp=first.stamps[0])
    await service.handle(command("stop", HOST))

    second = await start_with_a_computer(service)
    reply = await service.handle(press(stale, HOST, chat=HOST.id))
    assert reply.answer is not None
    assert reply.answer.text.startswith("That button is outdated: here is your current hand.")
    after, _ = await service.sessions.load(GROUP)
    assert after is not None and (after.stamps, after.state) == (second.stamps, second.state)


async def test_a_game_whose_end_was_cut_short_does_not_block_a_new_table() -> None:
    """A crash between a game's last save and its removal leaves an ended session behind:
    /newgame clears it instead of answering that a game is already open."""
    service = make_service(MemoryStore(), Settings())
    ended = Session(game="egonomy", chat="tg:-5", creator="tg:1", language="en", options={})
    ended.phase = OVER
    await service.sessions.save(ended, 0)
    host = User("tg:1", "Ann", "en")
    await service.handle(Command(chat="tg:-5", private=False, user=host, name="newgame"))
    session, _ = await service.sessions.load("tg:-5")
    assert session is not None and session.phase == LOBBY


async def test_two_tables_opened_at_the_same_moment_both_get_an_answer() -> None:
    """Two /newgame at once: one lobby opens, the other asker is told a game is open."""

    service = make_service(MemoryStore(), Settings())
    await service.sessions._store.set_setting("user:tg:1", "dm", "1")
    asks = [
        Command(chat="tg:-9", private=False, user=User(f"tg:{n}", f"P{n}", "en"), name="newgame")
        for n in (1, 2)
    ]
    replies = await asyncio.gather(*(service.handle(inc) for inc in asks))
    texts = [m.text for r in replies for m in r.messages]
    assert len(texts) == 2
    assert sum("a new table is open" in t for t in texts) == 1
    assert sum(t.startswith("A game is already open") for t in texts) == 1


async def test_a_command_that_changes_no_game_is_chatter(service: GameService) -> None:
    """A reply that only tells or refuses (/newgame while a table is open, /stats, /verify,
    an unknown command) waits for the game's messages; one that opened or ended a game does
    not."""
    opened = await service.handle(command("newgame", HOST))
    assert not opened.chatter, "a new table is the game's own message"
    for name, args in (("newgame", ""), ("stats", ""), ("verify", "x y"), ("status", "")):
        reply = await service.handle(command(name, GUEST, args=args))
        assert reply.chatter, name
    refused = await service.handle(command("stop", GUEST))  # not the host
    assert refused.chatter and refused.messages
    stopped = await service.handle(command("stop", HOST))
    assert not stopped.chatter
    assert (await service.sessions.load(GROUP))[0] is None


async def test_a_pick_on_a_finished_turns_table_is_told_how_the_turn_ended() -> None:
    """EGO's table lags behind a turn's end (its edit waits for a place in the group's
    budget): a pick pressed on it is refused with what the turn came to, not a bare
    "outdated"."""
    service = make_service(MemoryStore(), Settings(bot_delay=0))
    opened = await service.handle(command("newgame", HOST, args="ego"))
    await service.handle(press(b.encode(b.JOIN), GUEST))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    begun = await service.handle(press(data_of(opened.messages[0], b.START), HOST))
    table = next(m for m in begun.messages if any(data_of_all(m, b.GROUP_MOVE)))
    refuse = next(d for d in data_of_all(table, b.GROUP_MOVE) if d.endswith("|x"))
    refused = await service.handle(press(refuse, HOST))  # the one asked refuses: the turn ends
    assert refused.answer is not None and refused.messages
    late = await service.handle(press(data_of_all(table, b.GROUP_MOVE)[0], HOST))
    assert late.answer is not None and late.answer.text.startswith("That turn is over.")
    told = late.answer.text.split("\n")[1:]
    assert told and all(line.strip() for line in told), "the turn's result follows"


def data_of_all(message: Message, op: str) -> list[str]:
    return [x.data for row in message.buttons for x in row if x.data and x.data[0] == op]
