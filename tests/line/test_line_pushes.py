"""The pushes that remain (a move made in a 1:1 chat tells the group) cost from a monthly quota:
each is sent with an X-Line-Retry-Key, the same on every retry, so LINE delivers it once;
timeouts and 5xx are retried with backoff; a push that never went through is not recorded as
delivered and goes again after the grace; two processes never both push the same table.
A webhook is answered promptly whatever LINE's API does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.liveness import DELIVERED
from chatbot.core.sessions import OWED_GRACE
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from engine.core import restore
from tests.line.fake_line import FakeLine, bot_settings
from tests.line.test_line_game import buttons, deliver, started, typed

NOW = 1_700_000_000.0


async def no_pause(seconds: float) -> None:
    """Backoff between retries, without waiting (the tests count the tries)."""


@pytest.fixture
async def clocked(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> AsyncIterator[tuple[LineBot, list[float]]]:
    now = [NOW]
    store = RedisStore.from_url(redis_url, redis_prefix)
    lb = line_bot(bot_settings(line), store, registry(), lambda: now[0])
    lb.sleep = no_pause
    await lb.start()
    try:
        yield lb, now
    finally:
        await lb.stop()


async def egonomy_table(bot: LineBot, line: FakeLine) -> tuple[str, dict[str, str]]:
    """A started Egonomy game of Ann and Bob (friends) in a group; the group and who is who."""
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)
    await started(bot, line, group, ann, bob, game="egonomy")
    return group, {qualify(ann): ann, qualify(bob): bob}


async def private_move(bot: LineBot, line: FakeLine, group: str, users: dict[str, str]) -> str:
    """The player to move asks for their hand and makes a move in their 1:1 chat (its table
    update is pushed to the group, once the queue lets it go); who moved."""
    session, _ = await bot.sessions.load(qualify(group))
    assert session is not None
    game = bot.sessions.bundle(session).game
    (seat,) = game.to_move(restore(game, session.state))
    user = users[str(session.seats[seat].user)]
    await deliver(bot, line, line.text(user, user, typed(line.to(group)[-1], "🃏")))
    while not buttons(line.to(user)[-1], b.MOVE):  # steps of the choice, then a move
        await deliver(bot, line, line.postback(user, user, buttons(line.to(user)[-1], b.NAV)[0]))
    event = line.postback(user, user, buttons(line.to(user)[-1], b.MOVE)[0])
    assert await bot.webhook(*line.signed(event)) == 200
    await bot.idle()
    return user


async def test_a_failing_push_is_retried_with_one_retry_key(
    clocked: tuple[LineBot, list[float]], line: FakeLine
) -> None:
    bot, _ = clocked
    group, users = await egonomy_table(bot, line)
    line.failures = [500, 503]  # LINE answers 5xx twice, then takes it
    await private_move(bot, line, group, users)
    await bot.runner.delivery.flush()
    pushes = [s for s in line.pushes if s.chat == group]
    assert len(pushes) == 1 and bot.pushes == 1, "delivered once"
    keys = line.retry_key_of
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1, "the same key on every try"
    assert not bot.errors


async def test_a_push_whose_answer_was_lost_is_not_sent_twice(
    clocked: tuple[LineBot, list[float]], line: FakeLine
) -> None:
    """LINE took the push but its answer was lost (a 500 after delivering): the retry, with
    the same key, is refused as already accepted (409): one message in the group."""
    bot, _ = clocked
    group, users = await egonomy_table(bot, line)
    line.failures = ["lost"]
    await private_move(bot, line, group, users)
    await bot.runner.delivery.flush()
    assert len([s for s in line.pushes if s.chat == group]) == 1
    assert ("/v2/bot/message/push", 409, "The retry key is already accepted") in line.refused
    assert not bot.errors


async def test_a_push_that_never_went_through_goes_again_after_the_grace(
    clocked: tuple[LineBot, list[float]], line: FakeLine
) -> None:
    """Every try failed: the change is not recorded as delivered; after the grace the game's
    timer delivers it again (nothing is lost when a push fails)."""
    bot, now = clocked
    group, users = await egonomy_table(bot, line)
    line.failures = [500] * 4  # the first try and every retry
    await private_move(bot, line, group, users)
    await bot.runner.delivery.flush()
    assert not [s for s in line.pushes if s.chat == group], "nothing got through"
    session, _ = await bot.sessions.load(qualify(group))
    assert session is not None
    sent = await bot.sessions._store.get_setting(keys.ledger(session.chat), DELIVERED)
    assert sent is None or int(sent) < session.change, "not recorded as delivered"
    now[0] += OWED_GRACE + 1
    await bot.runner.tick()
    await bot.runner.delivery.flush()
    (again,) = [s for s in line.pushes if s.chat == group]
    assert buttons(again, b.RULE), "the table as it is now"
    assert not bot.errors


async def test_two_processes_never_push_the_same_table(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> None:
    """Ann moves through one process, Bob (next) through another, while the first process's
    table push still waits for its interval: the newer change's table alone is pushed."""
    settings = bot_settings(line, table_interval=3600)  # a push waits (until stop)
    first, second = (
        line_bot(settings, RedisStore.from_url(redis_url, redis_prefix), registry())
        for _ in range(2)
    )
    await first.start()
    await second.start()
    try:
        group, users = await egonomy_table(first, line)
        await private_move(first, line, group, users)
        await private_move(second, line, group, users)
        assert not [s for s in line.pushes if s.chat == group], "both pushes wait"
    finally:
        await first.stop()  # its push goes now: outdone by the second process's change
        await second.stop()
    (pushed,) = [s for s in line.pushes if s.chat == group]
    assert first.pushes == 0 and second.pushes == 1
    assert buttons(pushed, b.RULE)
    assert not first.errors and not second.errors


async def test_a_webhook_is_answered_while_lines_api_stalls(bot: LineBot, line: FakeLine) -> None:
    """Profiles, group summaries and the bot's info wait on LINE's API: the webhook is
    answered (200) all the same, and its event is handled, and answered by its reply token,
    once the API answers."""
    ann = line.user("Ann", "th")
    group = line.group(ann)
    line.stall = asyncio.Event()  # every look-up waits until released
    bot.answer_within = 0.0  # (LINE's second, made nothing: the answer cannot wait)
    event = line.text(group, ann, "/newgame")
    assert await bot.webhook(*line.signed(event)) == 200
    assert not line.answered(event["replyToken"]), "answered before the event was handled"
    line.stall.set()
    await bot.idle()
    await bot.runner.delivery.flush()
    assert line.answered(event["replyToken"])
    assert buttons(line.to(group)[-1], b.JOIN), "the table opened"
    assert not bot.errors


async def test_a_reply_whose_answer_was_lost_is_not_pushed_again(
    clocked: tuple[LineBot, list[float]], line: FakeLine
) -> None:
    """LINE delivered a reply but answered 500: the retry finds its token used, and the
    message counts as delivered (no push of the same answer)."""
    bot, _ = clocked
    ann = line.user("Ann", "en")
    group = line.group(ann)
    line.reply_failures = ["lost"]
    token = await deliver(bot, line, line.text(group, ann, "/newgame"))
    assert token and line.answered(token)
    assert [s.via for s in line.to(group)] == ["reply"], "once, and never pushed"
    assert not bot.errors


async def test_a_waiting_table_update_rides_on_the_next_reply(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> None:
    """Ann's move in her 1:1 chat owes the group its table (a push, waiting its interval for
    newer news); Bob presses 📖 Rules in the group meanwhile: his reply carries the table too,
    and nothing is pushed."""
    settings = bot_settings(line, table_interval=3600)
    lb = line_bot(settings, RedisStore.from_url(redis_url, redis_prefix), registry())
    await lb.start()
    try:
        group, users = await egonomy_table(lb, line)
        mover = await private_move(lb, line, group, users)
        other = next(u for u in users.values() if u != mover)
        (rules,) = buttons(line.to(group)[-1], b.RULE)
        token = await deliver(lb, line, line.postback(group, other, rules))
        answer = [s for s in line.to(group) if s.token == token]
        assert [bool(buttons(s, b.RULE)) for s in answer] == [True, True], "overview, table"
        assert "Which rule" in answer[0].text
        session, _ = await lb.sessions.load(qualify(group))
        assert session is not None
    finally:
        await lb.stop()
    assert not line.pushes, "the table went with the reply"
    assert not lb.errors
    sent = await lb.sessions._store.get_setting(keys.ledger(session.chat), DELIVERED)
    assert sent is not None and int(sent) == session.change, "recorded as delivered"
