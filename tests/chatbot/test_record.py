"""A finished game's record: every move as the table saw it, in pages of one message (or one
reply where messages cannot be edited), and nothing the table did not see."""

from __future__ import annotations

import html
import re

from chatbot import bootstrap
from chatbot.__main__ import main
from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.model import Capabilities, Command, Message, Press, User
from chatbot.core.record import Record, lines, pages
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform, Sessions
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore

GROUP, HOST = "tg:-100555", User("tg:1", "Ann", "en")
GUEST = User("tg:2", "Bob", "en")
GAMES = registry()


async def finished(service: GameService, game: str) -> tuple[list[Message], str, list[str]]:
    """An all-computer game played to its end: the group's messages, the record button's
    data, and the private texts sent during the game."""
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args=game))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    start = b.encode(b.START, stamp=session.stamp)
    out = list(
        (await service.handle(Press(chat=GROUP, private=False, user=HOST, data=start))).messages
    )
    for _ in range(3000):
        if not (ticked := await service.tick()):
            break
        out += ticked
    data = next(
        x.data for m in out for r in m.buttons for x in r if x.data and x.data[0] == b.RECORD
    )
    assert data is not None
    return [m for m in out if m.chat == GROUP], data, [m.text for m in out if m.chat != GROUP]


def plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", text))


async def test_a_record_shows_only_what_the_table_saw() -> None:
    service = GameService(
        Sessions(MemoryStore(), Settings(bot_delay=0), GAMES, Platform()),
        bootstrap.thinking_pool(0),
    )
    group, data, _ = await finished(service, "ano")
    seen = "\n".join(plain(m.text) for m in group)
    first = await service.handle(
        Press(chat=GROUP, private=False, user=HOST, data=data, message="50")
    )
    (page,) = first.messages
    assert page.edit is None and page.text.startswith("Page 1 of ")
    total = int(re.search(r"Page 1 of (\d+)", page.text).group(1))  # type: ignore[union-attr]
    texts = [page.text]
    message = page
    while next_data := [x.data for r in message.buttons for x in r if x.label == "▶️"]:
        (message,) = (
            await service.handle(
                Press(chat=GROUP, private=False, user=HOST, data=next_data[0], message="51")
            )
        ).messages
        assert message.edit == "51", "the pages are one message, edited in place"
        texts.append(message.text)
    assert len(texts) == total >= 2
    assert "record's code" in texts[-1] and "python" not in texts[-1], "no terminal command"
    again = await service.handle(
        Press(chat=GROUP, private=False, user=GUEST, data=data, message="50")
    )
    assert again.messages == [], "one record message a game"
    assert again.answer is not None and "already in the chat" in again.answer.text
    told = [plain(line) for t in texts[:-1] for line in t.split("\n\n", 1)[1].splitlines()]
    moves = [re.sub(r"^\d+\. ", "", line) for line in told[3:] if line]
    assert moves, "the moves are there"
    unseen = [line for line in moves if line not in seen]
    assert unseen == [], "every line of the record was shown to the whole table"
    assert "Ano: the game is over." in moves


async def test_a_record_exists_only_once_its_game_is_over() -> None:
    store = MemoryStore()
    service = GameService(
        Sessions(store, Settings(bot_delay=0), GAMES, Platform()), bootstrap.thinking_pool(0)
    )
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ano"))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    await service.handle(
        Press(chat=GROUP, private=False, user=HOST, data=b.encode(b.START, stamp=session.stamp))
    )
    live, _ = await service.sessions.load(GROUP)
    assert live is not None and live.phase == "playing"
    from chatbot.core.render import deal_of_session

    lock = deal_of_session(live, GAMES["ano"]).commitment
    assert await store.load(keys.record(GROUP, lock)) is None
    early = await service.handle(
        Press(chat=GROUP, private=False, user=HOST, data=f"{b.RECORD}|{lock}")
    )
    assert early.messages == [] and early.answer is not None
    assert "no longer kept" in early.answer.text


async def test_where_messages_cannot_be_edited_the_record_is_one_reply() -> None:
    caps = Capabilities(edits=False, message_chars=5000)
    service = GameService(
        Sessions(MemoryStore(), Settings(bot_delay=0), GAMES, Platform(caps)),
        bootstrap.thinking_pool(0),
    )
    _, data, _ = await finished(service, "ano")
    reply = await service.handle(Press(chat=GROUP, private=False, user=HOST, data=data))
    assert 2 <= len(reply.messages) <= 5 and all(
        m.edit is None and not m.buttons for m in reply.messages
    )


async def test_the_terminal_plays_a_record_back(capsys: object) -> None:
    store = MemoryStore()
    service = GameService(
        Sessions(store, Settings(bot_delay=0), GAMES, Platform()), bootstrap.thinking_pool(0)
    )
    _, data, _ = await finished(service, "ano")
    lock = data.split("|")[1]
    doc = await store.load(keys.record(GROUP, lock))
    assert doc is not None
    record = Record.loads(doc.data)
    assert main(["replay", record.code(), "--pace", "0", "--lang", "th"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    expected = [plain(x) for x in lines(record, GAMES, translator("th"))]
    assert out.splitlines() == "\n".join(expected).splitlines()
    assert main(["replay", "not-a-record", "--pace", "0"]) == 1


def test_pages_hold_whole_lines() -> None:
    cut = pages([f"line {i}" for i in range(60)], chars=100, per_page=24)
    assert all(len(p) <= 100 for p in cut) and "\n".join(cut).splitlines() == [
        f"line {i}" for i in range(60)
    ]
