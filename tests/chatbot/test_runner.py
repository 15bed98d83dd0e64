"""The runner with a platform shaped like LINE: no edits, no pop-ups, 13 buttons a message.

A recording outbox stands in for the platform's API (ours: the core's port, not a mock of
our code); a whole Egonomy game is played through the real service on a real Redis.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import replace

import pytest

from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.liveness import DELIVERED
from chatbot.core.model import Capabilities, Command, Message, Press, User
from chatbot.core.runner import Runner
from chatbot.core.sessions import Platform
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from engine.core import restore
from tests.conftest import make_service
from tests.redis_packets import Packets

LINE_LIKE = Capabilities(
    edits=False, popups=False, answer_chars=0, label_chars=20, message_buttons=13
)
GROUP = "ln:group"


class RecordingOutbox:
    """Keeps every message sent, with an id; refuses what the platform could not do."""

    capabilities = LINE_LIKE
    platform = "test"

    def __init__(self) -> None:
        self.sent: list[tuple[str, Message]] = []

    async def send(self, message: Message) -> str | None:
        assert message.edit is None, "no edits on this platform"
        rows = message.buttons
        assert sum(len(r) for r in rows) <= LINE_LIKE.message_buttons, rows
        assert all(len(x.label) <= LINE_LIKE.label_chars for r in rows for x in r), rows
        message_id = str(len(self.sent) + 1)
        self.sent.append((message_id, message))
        return message_id

    def to(self, chat: str) -> list[tuple[str, Message]]:
        return [(i, m) for i, m in self.sent if m.chat == chat]


async def test_a_whole_egonomy_game_without_edits_or_pop_ups(
    redis_url: str, redis_prefix: str
) -> None:
    store = RedisStore.from_url(redis_url, redis_prefix)
    settings = Settings(bot_delay=0, table_interval=0)
    service = make_service(store, settings, platform=Platform(LINE_LIKE))
    outbox = RecordingOutbox()
    runner = Runner(service, outbox)
    ann, bob = User("ln:ann", "Ann", "en"), User("ln:bob", "Bob", "th")
    try:
        for user in (ann, bob):
            await runner.handle(Command(chat=user.id, private=True, user=user, name="start"))
        await runner.handle(Command(chat=GROUP, private=False, user=ann, name="newgame"))
        await runner.delivery.flush()
        (lobby_id, lobby), *_ = outbox.to(GROUP)
        join = next(x.data for r in lobby.buttons for x in r if x.data == b.JOIN)
        await runner.handle(Press(chat=GROUP, private=False, user=bob, data=join, message=lobby_id))
        await runner.delivery.flush()
        lobby_id, lobby = outbox.to(GROUP)[-1]
        start = next(x.data for r in lobby.buttons for x in r if (x.data or "")[0] == b.START)
        await runner.handle(
            Press(chat=GROUP, private=False, user=ann, data=start, message=lobby_id)
        )
        await runner.delivery.flush()

        table_id, table = outbox.to(GROUP)[-1]
        peek = next(x.data for r in table.buttons for x in r if (x.data or "")[0] == b.PEEK)
        before = len(outbox.to(bob.id))
        answer = await runner.handle(
            Press(chat=GROUP, private=False, user=bob, data=peek, message=table_id)
        )
        await runner.delivery.flush()
        assert answer is not None and answer.text == "", "no pop-up"
        assert len(outbox.to(bob.id)) == before + 1, "the hand came to the private chat"

        rng = random.Random(5)
        group_per_move: Counter[int] = Counter()
        for _ in range(3000):
            session, _ = await service.sessions.load(GROUP)
            if session is None:
                break
            moves = session.moves
            sent = len(outbox.to(GROUP))
            if await runner.tick():
                await runner.delivery.flush()
            else:
                game = service.sessions.bundle(session).game
                (seat,) = game.to_move(restore(game, session.state))
                user = ann if session.seats[seat].user == ann.id else bob
                message_id, hand = _hand(outbox, user)
                choices = [x.data for r in hand.buttons for x in r if x.data]
                moving = [d for d in choices if d[0] == b.MOVE]
                data = rng.choice(moving or choices)
                await runner.handle(
                    Press(chat=user.id, private=True, user=user, data=data, message=message_id)
                )
                await runner.delivery.flush()
            after, _ = await service.sessions.load(GROUP)
            if after is None or after.moves != moves:
                group_per_move[len(outbox.to(GROUP)) - sent] += 1
        else:
            raise AssertionError("the game did not end")
        assert set(group_per_move) <= {0, 1}, f"at most one group message a move: {group_per_move}"
        assert "🏆" in outbox.to(GROUP)[-1][1].text, "the final results"
        assert not runner.errors
    finally:
        await runner.stop()
        await store.close()


def _hand(outbox: RecordingOutbox, user: User) -> tuple[str, Message]:
    """The user's newest private message with game buttons."""
    return next(
        (i, m)
        for i, m in reversed(outbox.to(user.id))
        if any((x.data or " ")[0] in (b.MOVE, b.NAV) for r in m.buttons for x in r)
    )


class CostlyOutbox(RecordingOutbox):
    """Like LINE: a message that answers no event costs a push."""

    capabilities = replace(LINE_LIKE, unasked_free=False)


async def test_where_pushes_cost_a_table_update_waits_for_a_newer_one() -> None:
    service = make_service(settings=Settings(table_interval=0.2))
    outbox = CostlyOutbox()
    runner = Runner(service, outbox)
    table = Message(GROUP, "move 1", slot="table", host=GROUP, coalesce=True)
    runner.delivery.post([table])
    await asyncio.sleep(0.05)
    assert not outbox.sent, "held for the interval"
    runner.delivery.post([replace(table, text="move 2")])  # a computer's move meanwhile
    await runner.delivery.flush()
    assert [m.text for _, m in outbox.sent] == ["move 2"], "one message, the newer table"
    answer = Press(chat=GROUP, private=False, user=User("ln:ann", "Ann"), data="x", context="t1")
    runner.delivery.post([replace(table, text="move 3")], answer)
    await asyncio.sleep(0.01)
    assert [m.text for _, m in outbox.sent][-1] == "move 3", "a reply goes at once"
    news = Message(GROUP, "round over\n\nmove 5", slot="table", host=GROUP)
    runner.delivery.post([replace(table, text="move 4")])
    runner.delivery.post([news])  # a newer table with news: the held one is dropped
    await runner.delivery.flush()
    assert [m.text for _, m in outbox.sent][-1:] == ["round over\n\nmove 5"]
    assert len(outbox.sent) == 3


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_deliveries_are_recorded_together_in_one_write(
    redis_prefix: str,
    request: pytest.FixtureRequest,
    cluster: bool,
) -> None:
    """Every change delivered within LEDGER_EVERY is recorded by one pipelined write (on a
    Cluster: the chats' keys lie in different slots), not one write a press."""
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    store = RedisStore.from_url(url, redis_prefix, cluster=cluster)
    service = make_service(store, Settings(table_interval=0))
    runner = Runner(service, RecordingOutbox())
    chats = [f"ln:group{i}" for i in range(6)]
    try:
        await store.set_setting("warm", "up", "1")  # connections opened before counting
        with Packets() as writes:
            for change, chat in enumerate(chats * 2, start=1):
                runner.delivery.post([Message(chat, f"change {change}")], confirm=(chat, change))
            await asyncio.sleep(0.05)  # every message is out, the record waits
        assert not writes.names
        assert await store.get_setting(keys.ledger(chats[0]), DELIVERED) is None
        with Packets() as writes:
            await runner.delivery.flush()
        names = writes.names
        recorded = len(names)
        for i, chat in enumerate(chats):
            assert await store.get_setting(keys.ledger(chat), DELIVERED) == str(len(chats) + i + 1)
        # one pipeline: a single packet, or one per Cluster node holding some of the keys
        assert 1 <= recorded <= (3 if cluster else 1), names
    finally:
        await store.close()


async def test_the_ledger_reads_an_older_versions_record_and_forgets_bared_hands(
    redis_url: str, redis_prefix: str
) -> None:
    """Before the ledger was one hash a chat, the last change delivered was kept in
    `sent:<chat>`: it is still read where the ledger has none. A hand message bared of its
    buttons leaves the ledger (a chat's ledger does not grow with every game it plays)."""
    store = RedisStore.from_url(redis_url, redis_prefix)
    sessions = make_service(store, Settings()).sessions
    try:
        await store.set_setting("sent:ln:g", DELIVERED, "7")
        assert await sessions.liveness.ledger("ln:g", DELIVERED) == "7"
        await sessions.liveness.write_ledger({"ln:g": 8}, {("ln:g", "hand:s:0"): "m1"})
        assert await sessions.liveness.ledger("ln:g", DELIVERED) == "8"
        assert await sessions.liveness.last_message("ln:g", "hand:s:0") == "m1"
        await sessions.liveness.bared("ln:g", "hand:s:0")
        assert await sessions.liveness.last_message("ln:g", "hand:s:0") is None
        assert await store.get_setting(keys.ledger("ln:g"), "hand:s:0") is None
    finally:
        await store.close()


def test_a_platform_whose_buttons_carry_less_than_our_codes_is_refused_at_start() -> None:
    """Every button code is made to fit `buttons.DATA_BYTES`; a platform declaring less
    (`Capabilities.data_bytes`) could not carry them, so it is refused before any game."""
    outbox = RecordingOutbox()
    outbox.capabilities = replace(LINE_LIKE, data_bytes=b.DATA_BYTES - 1)
    with pytest.raises(ValueError, match="carries 63 bytes"):
        Runner(make_service(), outbox)
