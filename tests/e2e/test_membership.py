"""Who is where, on Telegram (issue 34, item 5), as LINE's leave, unfollow and memberJoined:
the bot removed from a group (my_chat_member) ends that group's game and its timers, and
nothing more is sent there; a player who blocked the bot is unreachable, as one who never
opened the private chat, which the group's Start button then says; a person who joins a group
with an open table (chat_member) sees the table. The bot asks Telegram for both updates."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest

from chatbot.bootstrap import telegram_bot
from chatbot.core import buttons as b
from chatbot.games import registry
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import RedisStore
from chatbot.telegram.bot import SECRET_HEADER
from chatbot.telegram.convert import ALLOWED_UPDATES
from chatbot.web import app
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, pointed_at, request
from tests.e2e.helpers import CHAT, GROUP, button, load, open_table

SETTINGS = replace(TEST_SETTINGS, bot_delay=2.0, remind_after=30.0, takeover_after=20.0)
FAR = 10 * 24 * 3600.0  # past every deadline a game could have


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def h(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> AsyncIterator[Harness]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    harness = await Harness(tg, store, SETTINGS, clock).start()
    try:
        yield harness
    finally:
        await harness.stop()
        await store.close()


def calls_naming(tg: FakeTelegram, chat_id: int, since: int) -> list[str]:
    return [c.method for c in tg.calls[since:] if c.params.get("chat_id") == chat_id]


@pytest.mark.parametrize("kicked", [True, False], ids=["kicked", "left"])
async def test_the_bot_removed_from_a_group_ends_its_game_and_timers(
    h: Harness, tg: FakeTelegram, clock: Clock, kicked: bool
) -> None:
    ann, bob = tg.user(61, "Ann"), tg.user(62, "Bob")
    await open_table(h, tg, [ann, bob], computers=1)
    session = await load(h)
    assert session.deadline is not None, "a timer runs (a reminder, or a computer's move)"
    store = h.bot.sessions._store
    assert await store.due(clock.now + FAR, 100), "the store holds the game's deadline"

    since = len(tg.calls)
    await h.feed(tg.bot_removed_update(GROUP, ann, kicked=kicked))

    assert (await h.bot.sessions.load(CHAT))[0] is None, "the game ended"
    assert await store.due(clock.now + FAR, 100) == [], "no timer is left"
    clock.now += FAR
    assert await h.tick() == 0
    await h.bot.runner.delivery.flush()
    assert calls_naming(tg, GROUP, since) == [], "nothing more goes to the group"
    assert not tg.failed_calls(), [(c.method, c.description) for c in tg.failed_calls()]
    history = await h.bot.sessions.history(CHAT, 5)
    assert history, "the stopped game is in the group's history"


async def test_a_player_who_blocked_the_bot_is_named_when_the_table_starts(
    h: Harness, tg: FakeTelegram
) -> None:
    ann, bob = tg.user(71, "Ann"), tg.user(72, "Bob")
    tg.group(GROUP, "Symposium", creator=ann)
    for user in (ann, bob):
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, ann, "/newgame egonomy")
    lobby = tg.last_message(GROUP)
    assert lobby is not None
    await h.press(bob, lobby, button(lobby, b.JOIN))
    lobby = tg.message(GROUP, lobby.message_id)
    assert await h.bot.sessions.people.reachable("tg:72")

    await h.feed(tg.bot_blocked_update(bob))
    assert not await h.bot.sessions.people.reachable("tg:72"), "as an unopened private chat"

    await h.bot.runner.delivery.flush()
    lobby = tg.message(GROUP, lobby.message_id)
    pressed = await h.press(ann, lobby, button(lobby, b.START))
    answer = tg.callback_answer(pressed["callback_query"]["id"])
    assert answer is not None and "Bob" in answer.get("text", ""), answer
    assert answer.get("show_alert"), "shown in the group, to the one who pressed Start"
    assert (await load(h)).phase == "lobby", "the game did not start"

    await h.command(bob["id"], bob, "/start")  # unblocked: Telegram's Restart sends /start
    assert await h.bot.sessions.people.reachable("tg:72")


async def test_someone_joining_a_group_with_an_open_table_sees_it(
    h: Harness, tg: FakeTelegram
) -> None:
    ann, cat = tg.user(81, "Ann"), tg.user(83, "Cat")
    tg.group(GROUP, "Symposium", creator=ann)
    await h.command(GROUP, ann, "/newgame egonomy")
    shown = len(tg.messages_in(GROUP))
    await h.feed(tg.member_joined_update(GROUP, cat))
    await h.bot.runner.delivery.flush()
    after = tg.messages_in(GROUP)
    assert len(after) == shown + 1 and after[-1].from_bot, "the table, again, for the newcomer"
    assert any(d.startswith(b.JOIN) for d in after[-1].callback_data)


def test_the_bot_asks_for_membership_updates() -> None:
    """Polling and the webhook both ask for ALLOWED_UPDATES (the webhook's call is checked
    below); chat_member comes only when named."""
    assert {"my_chat_member", "chat_member"} <= set(ALLOWED_UPDATES)
    assert {"message", "callback_query"} <= set(ALLOWED_UPDATES)


async def test_the_webhook_asks_for_them_and_a_removal_by_webhook_ends_the_game(
    tg: FakeTelegram, clock: Clock
) -> None:
    """Webhook mode reads the update as JSON (not PTB's objects): the same ending."""
    url, secret = "https://bot.example/telegram/webhook", "s3cret"
    settings = pointed_at(tg, SETTINGS, webhook_url=url, webhook_secret=secret)
    bot = telegram_bot(settings, MemoryStore(), registry(), clock, request=request())
    ann, bob = tg.user(91, "Ann"), tg.user(92, "Bob")
    tg.group(GROUP, "Symposium", creator=ann)
    server = app(bot)
    async with server.router.lifespan_context(server):
        (told,) = tg.calls_to("setWebhook")
        assert set(told.params["allowed_updates"]) == set(ALLOWED_UPDATES)
        transport = httpx.ASGITransport(app=server)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:

            async def post(update: dict[str, object]) -> None:
                sent = await client.post(
                    "/telegram/webhook", json=update, headers={SECRET_HEADER: secret}
                )
                assert sent.status_code == 200
                await bot.runner.delivery.flush()

            for user in (ann, bob):
                await post(tg.message_update(user["id"], user, "/start"))
            await post(tg.message_update(GROUP, ann, "/newgame egonomy"))
            lobby = tg.last_message(GROUP)
            assert lobby is not None
            await post(tg.callback_update(bob, lobby, button(lobby, b.JOIN)))
            await post(tg.callback_update(ann, lobby, button(lobby, b.ADD_BOT)))
            lobby = tg.message(GROUP, lobby.message_id)
            await post(tg.callback_update(ann, lobby, button(lobby, b.START)))
            session, _ = await bot.sessions.load(CHAT)
            assert session is not None and session.phase == "playing"
            assert await bot.sessions._store.due(clock.now + FAR, 100), "a timer runs"

            since = len(tg.calls)
            await post(tg.bot_removed_update(GROUP, ann))
            assert (await bot.sessions.load(CHAT))[0] is None
            assert await bot.sessions._store.due(clock.now + FAR, 100) == []
            clock.now += FAR
            assert await bot.runner.tick() == 0
            await bot.runner.delivery.flush()
            assert calls_naming(tg, GROUP, since) == []
