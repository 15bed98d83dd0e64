"""/stats and the standings button: a group's leaderboard per game (computer seats among the
players), a person's own figures across the groups they played in."""

from __future__ import annotations

from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.model import Command, Incoming, Message, Press, User
from chatbot.core.session import Seat
from chatbot.core.standings import TTL, Standings, add_result
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from tests.conftest import make_service

GROUP, OTHER = "tg:-100555", "tg:-100666"
HOST = User("tg:1", "Ann", "en")


def stats(who: User, chat: str, args: str = "") -> Incoming:
    return Command(chat=chat, private=chat == who.id, user=who, name="stats", args=args)


async def test_a_finished_game_shows_in_the_groups_standings_with_its_computer_players() -> None:
    service = make_service(MemoryStore(), Settings(bot_delay=0))
    (empty,) = (await service.handle(stats(HOST, GROUP))).messages
    assert "No finished games here yet" in empty.text
    await service.handle(Command(chat=GROUP, private=False, user=HOST, name="newgame", args="ano"))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None and session.seats == []  # the host has no private chat open
    start = b.encode(b.START, stamp=session.stamp)
    out: list[Message] = list(
        (await service.handle(Press(chat=GROUP, private=False, user=HOST, data=start))).messages
    )
    for _ in range(2000):
        if not (ticked := await service.tick()):
            break
        out += ticked
    results = next(m for m in out if any(x.data == f"{b.STATS}|ano" for r in m.buttons for x in r))
    (board,) = (await service.handle(stats(HOST, GROUP))).messages
    assert "📊 Standings in this chat" in board.text and "Ano" in board.text
    assert board.text.count("🤖") == 2 and "1 game" in board.text and "rating" in board.text
    # the button under the results posts the same board once, then answers privately
    pressed = Press(chat=GROUP, private=False, user=HOST, data=f"{b.STATS}|ano", message="77")
    first = await service.handle(pressed)
    assert [m.text for m in first.messages] == [board.text] and results.chat == GROUP
    again = await service.handle(pressed)
    assert again.messages == [] and again.answer is not None and "1." in again.answer.text


async def test_a_private_stats_gathers_the_persons_figures_from_every_group() -> None:
    store = MemoryStore()
    service = make_service(store, Settings())
    ann, som = Seat("Ann", HOST.id), Seat("Som", bot="sensible")
    for chat, title, places in ((GROUP, "Lyceum", [1, 2]), (OTHER, "Agora", [2, 1])):
        table = add_result(Standings(), "ano", [ann, som], places, 1.0, title)
        await store.save(keys.standings(chat), table.dumps(), 0, TTL)
        await service.sessions.people.seated(HOST.id, chat)
    (mine,) = (await service.handle(stats(HOST, HOST.id))).messages
    assert "📊 Your standings" in mine.text
    assert "Lyceum: place 1 of 2" in mine.text and "Agora: place 2 of 2" in mine.text
    assert mine.text.count("1 game") == 2 and "1 win (100%)" in mine.text
    (nobody,) = (await service.handle(stats(User("tg:9", "Zed"), "tg:9"))).messages
    assert "no results yet" in nobody.text


async def test_stats_of_an_unknown_game_lists_the_games() -> None:
    service = make_service(MemoryStore(), Settings())
    (reply,) = (await service.handle(stats(HOST, GROUP, "chess"))).messages
    assert reply.text.startswith("I know these games")


async def test_a_private_stats_reaches_the_thirty_latest_groups() -> None:
    """Someone who plays in many groups sees their figures from the 30 they sat down in last
    (an older one drops out of the list, never out of its group's standings)."""
    store = MemoryStore()
    service = make_service(store, Settings())
    ann, som = Seat("Ann", HOST.id), Seat("Som", bot="sensible")
    for i in range(31):
        table = add_result(Standings(), "ano", [ann, som], [1, 2], 1.0, f"Club {i}")
        await store.save(keys.standings(f"tg:-200{i}"), table.dumps(), 0, TTL)
        await service.sessions.people.seated(HOST.id, f"tg:-200{i}")
    (mine,) = (await service.handle(stats(HOST, HOST.id))).messages
    assert mine.text.count("place 1 of 2") == 30
    assert "Club 30:" in mine.text and "Club 1:" in mine.text and "Club 0:" not in mine.text


async def test_a_private_stats_fills_one_message_at_most() -> None:
    """Figures in three games of thirty groups are more than a message holds: the newest
    groups' come first, and the rest are counted, not cut mid-line."""
    store = MemoryStore()
    service = make_service(store, Settings())
    ann, som = Seat("Ann", HOST.id), Seat("Som", bot="sensible")
    for i in range(30):
        table = Standings()
        for game in ("ano", "ego", "egonomy"):
            table = add_result(table, game, [ann, som], [1, 2], 1.0, f"Club {i}")
        await store.save(keys.standings(f"tg:-200{i}"), table.dumps(), 0, TTL)
        await service.sessions.people.seated(HOST.id, f"tg:-200{i}")
    (mine,) = (await service.handle(stats(HOST, HOST.id))).messages
    shown = mine.text.count("place 1 of 2")
    assert 10 < shown < 90 and len(mine.text) <= 4096
    assert mine.text.endswith(f"… and {90 - shown} more") and "Club 29:" in mine.text
