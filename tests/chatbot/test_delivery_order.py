"""A group's messages within its budget (Telegram's 20 a minute): what keeps the game moving
goes first, a spamming member gets one answer, a hidden pick's mark waits for room, and each
game's table is its own message.

The real runner and the real flood limiter share one hand-driven clock; a recording outbox
stands in for the platform's API (the core's port)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from chatbot import bootstrap
from chatbot.core.chatter import CHATTER_PATIENCE, CHATTER_WINDOW
from chatbot.core.model import (
    Button,
    Capabilities,
    Command,
    Message,
    Press,
    User,
    clip,
    units,
)
from chatbot.core.runner import Runner
from chatbot.core.service import GameService
from chatbot.core.session import PLAYING, Seat, Session
from chatbot.core.sessions import Platform, Sessions
from chatbot.core.views import table_slot
from chatbot.games import registry
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from chatbot.telegram.limits import GROUP_PERIOD, FloodLimiter
from tests.clock import Clock
from tests.conftest import make_service

GROUP = "tg:-100"
KEYS = ((Button("1", "M1|1"),),)


class Outbox:
    """Records what was sent or edited, in order; every message gets an id."""

    capabilities = Capabilities()
    platform = "test"

    def __init__(self, limiter: FloodLimiter) -> None:
        self.limiter = limiter
        self.sent: list[Message] = []

    async def send(self, message: Message) -> str | None:
        assert self.limiter.ready(-100) == 0.0, "never sent into a wait"
        self.limiter._wait(-100, "sendMessage")  # (what the adapter's send does)
        self.sent.append(message)
        return message.edit or str(len(self.sent))


class Budget:
    """The Telegram adapter's budget: the flood limiter's window of the group."""

    def __init__(self, limiter: FloodLimiter) -> None:
        self.limiter = limiter

    def ready(self, chat: str) -> float:
        return self.limiter.ready(-100)

    def room(self, chat: str) -> float:
        return self.limiter.room(-100) / 20


RUNNERS: list[tuple[Runner, Clock]] = []


@pytest.fixture(autouse=True)
async def stopped() -> AsyncIterator[None]:
    """Every runner a test started delivers what is left and stops."""
    yield
    while RUNNERS:
        runner, clock = RUNNERS.pop()
        clock.now += 3600
        await runner.stop()


def served(store: MemoryStore, settings: Settings, clock: Clock) -> GameService:
    """The game service on `store`, its shared clock (replies, deadlines) the test's."""
    return bootstrap.service(store, settings, registry(), Platform(), clock=clock)


def started(interval: float = 3.0, burst: int = 20) -> tuple[Runner, Outbox, Clock]:
    clock = Clock(1000.0)
    limiter = FloodLimiter(overall_rate=1e9, group_rate=20, clock=clock, burst=burst)
    outbox = Outbox(limiter)
    store = MemoryStore(clock)  # its marks expire on the same clock
    service = served(store, Settings(table_interval=interval), clock)
    runner = Runner(service, outbox, monotonic=clock, budget=Budget(limiter))
    RUNNERS.append((runner, clock))
    return runner, outbox, clock


async def settled(runner: Runner) -> None:
    for _ in range(20):
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)


async def fill(runner: Runner, outbox: Outbox, n: int) -> None:
    """Spend `n` of the group's 20 a minute on game messages."""
    for i in range(n):
        runner.delivery.post([Message(GROUP, f"news {i}")], confirm=(GROUP, i + 1))
    await settled(runner)
    assert len(outbox.sent) == n


async def test_the_game_goes_before_command_replies_and_a_spammer_gets_one() -> None:
    """A member's 40 /status wait behind the game's table, and are answered once."""
    runner, outbox, clock = started()
    await fill(runner, outbox, 20)  # the minute's budget is spent
    spammer = User("tg:9", "Spam", "en")
    for i in range(40):
        await runner.handle(
            Command(chat=GROUP, private=False, user=spammer, name="status", update_id=f"u{i}")
        )
    table = Message(GROUP, "move 7", KEYS, edit="5", slot="table:1", host=GROUP, coalesce=True)
    runner.delivery.post([table], confirm=(GROUP, 30))
    runner.delivery.post([Message(GROUP, "round over")], confirm=(GROUP, 31))
    await settled(runner)
    assert len(outbox.sent) == 20, "nothing goes into a wait"
    clock.now += GROUP_PERIOD  # the window frees
    runner.delivery.wake()
    await settled(runner)
    texts = [m.text for m in outbox.sent[20:]]
    assert texts[:2] == ["round over", "move 7"], "the game's messages first"
    assert len(texts) == 3 and "No game is running" in texts[2], "one reply for 40 commands"
    for i in range(5):  # asked again within moments: the same answer is not sent again
        await runner.handle(
            Command(chat=GROUP, private=False, user=spammer, name="status", update_id=f"v{i}")
        )
    await settled(runner)
    assert len(outbox.sent) == 23


async def test_a_members_burst_of_commands_gets_one_reply() -> None:
    """A member sending commands within seconds of each other (whatever they are) gets one
    reply for the burst; another member gets their own; a new burst after a pause, a new
    reply."""
    runner, outbox, clock = started(interval=0.0)
    member, other = User("tg:8", "Ann", "en"), User("tg:9", "Bob", "en")
    for i in range(40):  # a second a command, mixed: one burst
        command = ("status", "help", "rules", "stats", "verify")[i % 5]
        await runner.handle(
            Command(chat=GROUP, private=False, user=member, name=command, update_id=f"c{i}")
        )
        clock.now += 1.0
        runner.delivery.wake()
        await settled(runner)
    assert len(outbox.sent) == 1, [m.text[:30] for m in outbox.sent]
    await runner.handle(Command(chat=GROUP, private=False, user=other, name="status"))
    await settled(runner)
    assert len(outbox.sent) == 2, "another member's ask is their own"
    clock.now += CHATTER_WINDOW
    await runner.handle(Command(chat=GROUP, private=False, user=member, name="rules"))
    await settled(runner)
    assert len(outbox.sent) == 3, "after a pause, a new burst"


async def test_a_burst_spread_over_two_processes_gets_one_reply() -> None:
    """Behind one bot each process sees part of a member's burst (updates spread over them);
    the burst still gets one reply: it is marked in the shared store as it goes."""
    clock = Clock(1000.0)
    store = MemoryStore(clock)
    limiter = FloodLimiter(overall_rate=1e9, group_rate=20, clock=clock, burst=20)
    outbox = Outbox(limiter)
    runners = []
    for _ in range(2):
        service = served(store, Settings(table_interval=0.0), clock)
        runners.append(Runner(service, outbox, monotonic=clock, budget=Budget(limiter)))
        RUNNERS.append((runners[-1], clock))
    member = User("tg:8", "Ann", "en")
    for i in range(20):
        command = Command(
            chat=GROUP,
            private=False,
            user=member,
            name=("status", "help")[i % 2],
            update_id=f"c{i}",
        )
        await runners[i % 2].handle(command)
        clock.now += 1.0
        for runner in runners:
            runner.delivery.wake()
        await settled(runners[0])
    assert len(outbox.sent) == 1, [m.text[:30] for m in outbox.sent]


async def test_without_budget_to_spare_a_reply_waits_its_patience() -> None:
    runner, outbox, clock = started(interval=0.0)
    await fill(runner, outbox, 16)  # 4 of 20 left: under a quarter
    await runner.handle(Command(chat=GROUP, private=False, user=User("tg:8", "Ann"), name="status"))
    await settled(runner)
    assert len(outbox.sent) == 16, "the last places are kept for the game"
    clock.now += CHATTER_PATIENCE
    await asyncio.sleep(1.2)  # the runner looks again within a second
    await settled(runner)
    assert len(outbox.sent) == 17 and "No game is running" in outbox.sent[-1].text


async def test_a_busy_game_still_answers_a_command_after_its_patience() -> None:
    """A game with a table edit due at every place of the group's budget (its places spread
    out, one every 3 s; a move every 3 s) does not starve a member's command: its reply goes
    once it has waited CHATTER_PATIENCE, and the game's edits go on after it."""
    runner, outbox, clock = started(interval=3.0, burst=1)
    await runner.handle(Command(chat=GROUP, private=False, user=User("tg:8", "Ann"), name="help"))
    for step in range(int(CHATTER_PATIENCE / 3) + 6):
        move = Message(GROUP, f"move {step}", KEYS, edit="5", slot="table:1", host=GROUP)
        runner.delivery.post([replace(move, coalesce=True)], confirm=(GROUP, 100 + step))
        runner.delivery.wake()
        await settled(runner)
        clock.now += 3.0
    texts = [m.text for m in outbox.sent]
    replies = [t for t in texts if not t.startswith("move")]
    assert len(replies) == 1, texts
    assert texts.index(replies[0]) < len(texts) - 2, "the game's edits go on after it"


async def test_a_hidden_picks_mark_waits_for_room_and_rides_on_the_next_update() -> None:
    runner, outbox, clock = started(interval=0.0)
    await fill(runner, outbox, 17)  # 3 of 20 left: under a quarter
    mark = Message(GROUP, "Ann ✅", KEYS, edit="5", slot="table:1", host=GROUP, coalesce=True)
    runner.delivery.post([replace(mark, minor=True)])
    await settled(runner)
    assert len(outbox.sent) == 17, "a mark alone does not spend the last places"
    reveal = Message(GROUP, "Reveal!", (), edit="5", slot="table:1", host=GROUP, coalesce=True)
    runner.delivery.post([reveal], confirm=(GROUP, 50))
    await settled(runner)
    assert [m.text for m in outbox.sent[17:]] == ["Reveal!"], "one edit carries both"
    runner.delivery.post([replace(mark, minor=True, text="Bob ✅")])
    await settled(runner)
    assert len(outbox.sent) == 18
    clock.now += GROUP_PERIOD  # the budget is free again
    await asyncio.sleep(1.2)  # the runner looks at the budget again within a second
    await settled(runner)
    assert outbox.sent[-1].text == "Bob ✅"


async def test_a_finished_table_loses_its_buttons_before_anything_else_goes() -> None:
    runner, outbox, clock = started()
    await fill(runner, outbox, 20)
    final = Message(GROUP, "Reveal!", (), edit="3", slot="table:1", host=GROUP, coalesce=True)
    fresh = Message(GROUP, "Turn 2", KEYS, slot="table:1", host=GROUP)
    runner.delivery.post([final, fresh], confirm=(GROUP, 60))
    clock.now += GROUP_PERIOD
    runner.delivery.wake()
    await settled(runner)
    assert [m.text for m in outbox.sent[20:]] == ["Reveal!", "Turn 2"]


async def test_a_new_games_table_never_edits_the_last_games_message() -> None:
    runner, outbox, _ = started(interval=0.0)
    old = Message(GROUP, "game 1", KEYS, slot="table:11", host=GROUP)
    runner.delivery.post([old], confirm=(GROUP, 1))
    await settled(runner)
    update = Message(GROUP, "game 2, move 1", KEYS, slot="table:22", host=GROUP, coalesce=True)
    runner.delivery.post([update], confirm=(GROUP, 2))
    await settled(runner)
    assert outbox.sent[-1].edit is None, "sent anew, not an edit of game 1's table"


def test_pop_ups_are_cut_by_utf16_units() -> None:
    """Telegram counts a pop-up's 200 in UTF-16 units: an emoji outside the BMP is two."""
    text = "🃏" * 150
    assert units(text) == 300
    cut = clip(text, 200)
    assert units(cut) <= 200 and cut.endswith("…") and cut.startswith("🃏")
    assert clip("สวัสดี", 200) == "สวัสดี"


async def test_the_runner_cuts_every_pop_up_to_the_platforms_limit() -> None:
    """Whatever the desk answers, the pop-up fits (here a platform of 20 units a pop-up)."""
    service = make_service(platform=Platform(Capabilities(answer_chars=20)))
    outbox = Outbox(FloodLimiter())
    outbox.capabilities = Capabilities(answer_chars=20)
    runner = Runner(service, outbox)
    press = Press(
        chat=GROUP, private=False, user=User("tg:7", "Ann", "en"), data="M5|1", update_id="p1"
    )
    answer = await runner.handle(press)
    assert answer is not None and answer.text.endswith("…")
    assert units(answer.text) <= 20 and answer.text.startswith("No game")


async def test_a_mark_waits_three_intervals_after_the_tables_last_edit() -> None:
    """A hidden pick's mark does not spend a message while the turn may end any moment."""
    runner, outbox, clock = started(interval=3.0)
    table = Message(GROUP, "Turn 1", KEYS, edit="7", slot="table:1", host=GROUP, coalesce=True)
    runner.delivery.post([table], confirm=(GROUP, 1))
    await settled(runner)
    runner.delivery.post([replace(table, text="Turn 1 · Ann ✅", minor=True)])
    clock.now += 6.0
    runner.delivery.wake()
    await settled(runner)
    assert [m.text for m in outbox.sent] == ["Turn 1"], "two intervals: not yet"
    clock.now += 3.0
    runner.delivery.wake()
    await settled(runner)
    assert outbox.sent[-1].text == "Turn 1 · Ann ✅", "three intervals: the mark goes"


async def playing(sessions: Sessions, change: int) -> Session:
    """A running game in GROUP saved at `change` (what another process would have saved)."""
    session = Session("ego", GROUP, "tg:1", "en", {}, [Seat("Ann", "tg:1")])
    session.phase, session.change = PLAYING, change
    await sessions.save(session, 0)
    return session


async def test_a_mark_that_waited_is_dropped_when_another_process_moved_on() -> None:
    """Bob's mark waits its three intervals in this process; meanwhile another process saved a
    newer change (it revealed the turn and edits the table itself): the mark is dropped, never
    edited over the reveal with the finished turn's buttons."""
    runner, outbox, clock = started(interval=3.0)
    sessions = runner.service.sessions
    session = await playing(sessions, 2)
    table = Message(GROUP, "Turn 1", KEYS, edit="7", slot=table_slot(session), host=GROUP)
    table = replace(table, coalesce=True)
    runner.delivery.post([table], confirm=(GROUP, 1))
    await settled(runner)
    runner.delivery.post([replace(table, text="Turn 1 · Bob ✅", minor=True)], confirm=(GROUP, 2))
    stored, version = await sessions.load(GROUP)
    assert stored is not None
    stored.change = 3  # the other process's reveal
    await sessions.save(stored, version)
    clock.now += 9.0
    runner.delivery.wake()
    await settled(runner)
    assert [m.text for m in outbox.sent] == ["Turn 1"]


async def test_a_table_another_process_posted_meanwhile_is_edited_not_posted_again() -> None:
    """This process drew a table update before the table's message was known (another process
    was posting the game's first table); by the time the update goes, that process recorded
    the message's id beside the game: the update edits it instead of posting a second table.
    An update outdone by another process's newer change is not sent at all."""
    runner, outbox, clock = started(interval=3.0)
    sessions = runner.service.sessions
    session = await playing(sessions, 2)
    await sessions.remember(GROUP, table_slot(session), "41")  # the other process's table
    table = Message(GROUP, "Turn 1 · Ann", KEYS, slot=table_slot(session), host=GROUP)
    runner.delivery.post([replace(table, coalesce=True)], confirm=(GROUP, 2))
    await settled(runner)
    assert [(m.text, m.edit) for m in outbox.sent] == [("Turn 1 · Ann", "41")]
    late = replace(table, text="Turn 1 · Ann, older", coalesce=True)
    runner.delivery.post([late], confirm=(GROUP, 1))  # change 1: outdone by change 2
    clock.now += 3.0
    runner.delivery.wake()
    await settled(runner)
    assert len(outbox.sent) == 1


async def test_a_table_update_drawn_before_the_table_was_posted_waits_for_it() -> None:
    """Another process is still posting the game's first table (its place in the group's
    budget not come yet) when this one's update of it is due: the update waits for that
    message and edits it, so the group never sees the table twice."""
    runner, outbox, _ = started(interval=3.0)
    sessions = runner.service.sessions
    session = await playing(sessions, 2)
    table = Message(GROUP, "Turn 1 · Ann", KEYS, slot=table_slot(session), host=GROUP)
    runner.delivery.post([replace(table, coalesce=True)], confirm=(GROUP, 2))
    await settled(runner)
    await asyncio.sleep(0.6)
    assert outbox.sent == [], "no second table while the first is on its way"
    await sessions.remember(GROUP, table_slot(session), "43")  # the other process posted it
    await asyncio.sleep(0.6)
    await settled(runner)
    assert [(m.text, m.edit) for m in outbox.sent] == [("Turn 1 · Ann", "43")]


async def test_an_edit_that_waited_is_dropped_when_another_process_moved_on() -> None:
    """This process's table edit waited for the group's budget while another process saved a
    newer change (a round's end, say, which it edits in itself): the older edit is dropped, so
    the table never goes back to a state the game has left."""
    runner, outbox, clock = started(interval=3.0)
    sessions = runner.service.sessions
    session = await playing(sessions, 1)
    table = Message(GROUP, "Turn 1", KEYS, edit="7", slot=table_slot(session), host=GROUP)
    runner.delivery.post([replace(table, coalesce=True)], confirm=(GROUP, 1))
    await settled(runner)
    runner.delivery.post([replace(table, text="Turn 1 · Bob", coalesce=True)], confirm=(GROUP, 2))
    stored, version = await sessions.load(GROUP)
    assert stored is not None
    stored.change = 3  # the other process's round end
    await sessions.save(stored, version)
    clock.now += 6.0  # the edit waited two intervals
    runner.delivery.wake()
    await settled(runner)
    assert [m.text for m in outbox.sent] == ["Turn 1"]


async def test_a_reply_of_two_messages_goes_whole() -> None:
    """A command's reply of two messages to the group is one reply: its second message is not
    taken for a second reply to the member's burst."""
    runner, outbox, _ = started(interval=0.0)
    ask = Command(chat=GROUP, private=False, user=User("tg:8", "Ann"), name="rules")
    runner.delivery.post([Message(GROUP, "part 1"), Message(GROUP, "part 2")], ask, chatter=True)
    await settled(runner)
    assert [m.text for m in outbox.sent] == ["part 1", "part 2"]
