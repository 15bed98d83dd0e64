"""LINE: "Play again" under a game's results opens one table per results message, as on
Telegram, though a postback does not say which message its button was on: the button's data
names its message (within LINE's 300 bytes)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core.model import Button, Message
from chatbot.core.registry import Registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import message_object, pressed, qualify
from chatbot.store.redis import RedisStore
from tests.games import pick
from tests.line.fake_line import FakeLine, Sent, bot_settings
from tests.line.test_line_game import buttons, deliver

ALREADY = "A new table was already opened from these results."


@pytest.fixture
async def picks(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[LineBot]:
    """A LINE bot hosting the small Pick game (three turns of simultaneous picks)."""
    bot = line_bot(
        bot_settings(line), RedisStore.from_url(redis_url, redis_prefix), Registry([pick.bundle()])
    )
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()


async def play_to_the_end(bot: LineBot, line: FakeLine, group: str, people: list[str]) -> Sent:
    """Open a table, seat everyone, pick 1 every turn until the results; the results message."""
    await deliver(bot, line, line.text(group, people[0], "/newgame"))
    for user in people[1:]:
        (join,) = buttons(line.to(group)[-1], b.JOIN)
        await deliver(bot, line, line.postback(group, user, join))
    (start,) = buttons(line.to(group)[-1], b.START)
    await deliver(bot, line, line.postback(group, people[0], start))
    for _ in range(pick.TURNS):
        for user in people:
            table = next(s for s in reversed(line.to(group)) if buttons(s, b.GROUP_MOVE))
            (one,) = [d for d in buttons(table, b.GROUP_MOVE) if d.endswith("|p1")]
            await deliver(bot, line, line.postback(group, user, one))
    assert (await bot.sessions.load(qualify(group)))[0] is None, "the game is over"
    return next(s for s in reversed(line.to(group)) if buttons(s, b.AGAIN))


async def test_play_again_opens_one_table_per_results_message(
    picks: LineBot, line: FakeLine
) -> None:
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)
    results = await play_to_the_end(picks, line, group, [ann, bob])
    (again,) = buttons(results, b.AGAIN)
    assert len(again.encode()) <= 300 and again.startswith("g|pick|")

    sent = len(line.to(group))
    await deliver(picks, line, line.postback(group, ann, again))
    session, _ = await picks.sessions.load(qualify(group))
    assert session is not None and session.phase == "lobby", "a new table"
    assert buttons(line.to(group)[-1], b.JOIN), "its lobby is in the group"

    await deliver(picks, line, line.postback(group, bob, again))  # the same results, again
    (said,) = line.to(group)[sent + 1 :]
    assert said.via == "reply" and said.text == f"Bob: {ALREADY}"
    assert not picks.errors

    # The next game's results are another message: its button opens a table once more.
    await deliver(picks, line, line.text(group, ann, "/stop"))
    later = await play_to_the_end(picks, line, group, [ann, bob])
    (again_later,) = buttons(later, b.AGAIN)
    assert again_later != again, "each results message has its own id"
    await deliver(picks, line, line.postback(group, bob, again_later))
    session, _ = await picks.sessions.load(qualify(group))
    assert session is not None and session.phase == "lobby" and session.creator == qualify(bob)
    assert ALREADY not in line.to(group)[-1].text


def test_only_one_use_buttons_name_their_message() -> None:
    keyboard = ((Button("🔁", b.encode(b.AGAIN, "ego")), Button("Join", b.encode(b.JOIN))),)
    flex = Sent("C1", "push", message_object(Message("ln:C1", "results", keyboard)))
    again, join = flex.data()
    assert join == "j"
    data, message = pressed(again)
    assert data == "g|ego" and message and again == f"g|ego|{message}"
    other = Sent("C1", "push", message_object(Message("ln:C1", "results", keyboard))).data()[0]
    assert pressed(other)[1] != message, "every message sent gets its own id"
    assert pressed("g|ego") == ("g|ego", None), "a button sent without an id still works"
    assert pressed("j") == ("j", None)
