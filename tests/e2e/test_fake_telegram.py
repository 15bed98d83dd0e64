"""The fake Telegram server, driven by the real python-telegram-bot Bot and Application."""

from __future__ import annotations

import asyncio
import datetime as dtm
import html
import re
from collections.abc import AsyncIterator
from typing import Any, TypeAlias

import httpx
import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)
from telegram.request import HTTPXRequest

from tests.e2e.fake_telegram import FakeTelegram

App: TypeAlias = Application[Any, Any, Any, Any, Any, Any]
GROUP = -4001


def raises(error: type[TelegramError], description: str) -> pytest.RaisesExc[TelegramError]:
    """PTB capitalizes descriptions (drops "Bad Request: "), so compare case-insensitively."""
    return pytest.raises(error, match=f"(?i){re.escape(description)}")


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows]
    )


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram.running() as fake:
        yield fake


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[App]:
    application = (
        ApplicationBuilder()
        .token(tg.token)
        .base_url(tg.base_url)
        .base_file_url(tg.base_file_url)
        .request(HTTPXRequest(httpx_kwargs={"trust_env": False}))
        .get_updates_request(HTTPXRequest(httpx_kwargs={"trust_env": False}))
        .build()
    )
    await application.initialize()
    yield application
    await application.shutdown()


async def feed(app: App, update: dict[str, Any]) -> None:
    await app.process_update(Update.de_json(update, app.bot))


async def welcome(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None and update.effective_user is not None
    name = html.escape(update.effective_user.first_name)
    await update.effective_message.reply_text(
        f"Welcome, <b>{name}</b>!",
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard([("Join", "join")]),
    )


async def test_get_me_initializes_the_bot(app: App, tg: FakeTelegram) -> None:
    assert app.bot.username == "egobot_test_bot"
    assert app.bot.id == tg.bot_id
    [call] = tg.calls_to("getMe")
    assert call.ok and call.result["is_bot"] is True


async def test_group_command_is_answered_and_recorded(app: App, tg: FakeTelegram) -> None:
    app.add_handler(CommandHandler("start", welcome))
    alice = tg.user(1001, "Alice <3", "alice")
    group = tg.group(GROUP, "Game night")

    await feed(app, tg.message_update(group, alice, "/start@egobot_test_bot"))
    with pytest.raises(ValueError, match="privacy mode"):  # Telegram would not deliver it
        tg.message_update(group, alice, "/start@some_other_bot")
    tg.set_bot_admin(GROUP)  # an admin bot sees it, and PTB knows it is for another bot
    await feed(app, tg.message_update(group, alice, "/start@some_other_bot"))

    [call] = tg.calls_to("sendMessage")
    assert call.ok and call.params["chat_id"] == GROUP
    assert call.params["reply_markup"] == {
        "inline_keyboard": [[{"text": "Join", "callback_data": "join"}]]
    }
    reply = tg.last_message(GROUP)
    assert reply is not None and reply.from_bot
    assert reply.text == "Welcome, Alice <3!"
    assert reply.html == "Welcome, <b>Alice &lt;3</b>!"
    assert reply.entities == [{"type": "bold", "offset": 9, "length": 8}]
    assert reply.callback_data == ["join"]
    assert [m.text for m in tg.messages_in(GROUP)] == [
        "/start@egobot_test_bot",
        "Welcome, Alice <3!",
        "/start@some_other_bot",
    ]
    assert tg.failed_calls() == []


async def test_callback_query_can_be_answered_only_once(app: App, tg: FakeTelegram) -> None:
    async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query is not None
        await update.callback_query.answer("You joined")

    app.add_handler(CallbackQueryHandler(join))
    alice = tg.user(1001, "Alice")
    tg.group(GROUP, "Game night", creator=alice)
    sent = await app.bot.send_message(
        GROUP, "Who plays?", reply_markup=keyboard([("Join", "join")])
    )

    update = tg.callback_update(alice, sent.to_dict(), "join")
    query_id = update["callback_query"]["id"]
    assert update["callback_query"]["message"]["chat"]["id"] == GROUP
    await feed(app, update)

    [answer] = tg.calls_to("answerCallbackQuery")
    assert answer.ok and answer.params["callback_query_id"] == query_id
    assert tg.callback_answer(query_id) == {"text": "You joined", "show_alert": False, "url": None}
    with raises(BadRequest, "query is too old"):
        await app.bot.answer_callback_query(query_id)
    with raises(BadRequest, "query ID is invalid"):
        await app.bot.answer_callback_query("12345")
    with pytest.raises(ValueError, match="no button"):
        tg.callback_update(alice, sent.to_dict(), "leave")


async def test_callback_data_is_limited_to_64_bytes(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    ok = await app.bot.send_message(GROUP, "pick", reply_markup=keyboard([("a", "x" * 64)]))
    assert tg.message(GROUP, ok.message_id).callback_data == ["x" * 64]

    with raises(BadRequest, "BUTTON_DATA_INVALID"):
        await app.bot.send_message(GROUP, "pick", reply_markup=keyboard([("a", "x" * 65)]))
    with raises(BadRequest, "BUTTON_DATA_INVALID"):  # 22 Thai letters = 66 bytes
        await app.bot.send_message(GROUP, "pick", reply_markup=keyboard([("a", "ก" * 22)]))
    assert len(tg.sent_to(GROUP)) == 1


async def test_keyboard_and_text_limits(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    nine_in_a_row = keyboard([(str(i), str(i)) for i in range(9)])
    with raises(BadRequest, "BUTTONS_TOO_MUCH"):
        await app.bot.send_message(GROUP, "pick", reply_markup=nine_in_a_row)
    too_many = keyboard(*[[(f"{r}{c}", f"{r}{c}") for c in range(8)] for r in range(13)])
    with raises(BadRequest, "reply markup is too long"):
        await app.bot.send_message(GROUP, "pick", reply_markup=too_many)
    ftp = InlineKeyboardMarkup([[InlineKeyboardButton("rules", url="ftp://example.com/rules")]])
    with raises(BadRequest, "Unsupported URL protocol"):
        await app.bot.send_message(GROUP, "rules", reply_markup=ftp)
    with raises(BadRequest, "message text is empty"):
        await app.bot.send_message(GROUP, "   ")
    with raises(BadRequest, "message is too long"):
        await app.bot.send_message(GROUP, "x" * 4097)
    await app.bot.send_message(GROUP, "x" * 4096)
    assert [len(m.text) for m in tg.sent_to(GROUP)] == [4096]


async def test_edit_with_unchanged_content_is_not_modified(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    markup = keyboard([("Draw", "draw")])
    sent = await app.bot.send_message(GROUP, "Round 1", reply_markup=markup)

    with raises(BadRequest, "message is not modified"):
        await app.bot.edit_message_text("Round 1", GROUP, sent.message_id, reply_markup=markup)
    with raises(BadRequest, "message is not modified"):
        await app.bot.edit_message_reply_markup(GROUP, sent.message_id, reply_markup=markup)
    with raises(BadRequest, "message to edit not found"):
        await app.bot.edit_message_text("Round 2", GROUP, sent.message_id + 100)

    # Like Telegram: an edit without reply_markup drops the keyboard.
    edited = await app.bot.edit_message_text("Round 2", GROUP, sent.message_id)
    assert isinstance(edited, type(sent)) and edited.text == "Round 2"
    [current] = tg.messages_in(GROUP)
    assert (current.text, current.reply_markup, current.history) == ("Round 2", None, ["Round 1"])
    assert current.edit_date is not None


async def test_private_chat_needs_start_first(app: App, tg: FakeTelegram) -> None:
    app.add_handler(CommandHandler("start", welcome))
    bob = tg.user(2002, "Bob")
    with raises(Forbidden, "bot can't initiate conversation with a user"):
        await app.bot.send_message(2002, "Your cards: ...")
    with raises(BadRequest, "chat not found"):
        await app.bot.send_message(999, "nobody")

    update = tg.message_update(bob, bob, "/start")
    assert update["message"]["chat"] == {"id": 2002, "first_name": "Bob", "type": "private"}
    await feed(app, update)
    await app.bot.send_message(2002, "Your cards: ...")
    assert [m.text for m in tg.sent_to(2002)] == ["Welcome, Bob!", "Your cards: ..."]

    tg.block_bot(bob)
    with raises(Forbidden, "bot was blocked by the user"):
        await app.bot.send_message(2002, "still there?")


async def test_html_must_be_well_formed(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    for bad_html, reason in [
        ("Player <b>x joined", 'Can\'t find end tag corresponding to start tag "b"'),
        ("Score <3", 'Unsupported start tag "3" at byte offset 6'),
        ("<i>a</b>", 'Unmatched end tag at byte offset 4, expected "</i>", found "</b>"'),
        ("Tom & Jerry", 'Unescaped "&" at byte offset 4; use &amp;'),
        ("<span>hidden</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ]:
        with raises(BadRequest, "can't parse entities"):
            await app.bot.send_message(GROUP, bad_html, parse_mode=ParseMode.HTML)
        assert tg.failed_calls()[-1].description == f"Bad Request: can't parse entities: {reason}"
    assert tg.sent_to(GROUP) == []

    text = f"<b>{html.escape('<b>x & y')}</b> plays <a href='https://t.me/x'>link</a>"
    await app.bot.send_message(GROUP, text, parse_mode=ParseMode.HTML)
    stored = tg.last_message(GROUP)
    assert stored is not None and stored.text == "<b>x & y plays link" and stored.html == text
    assert stored.entities == [
        {"type": "bold", "offset": 0, "length": 8},
        {"type": "text_link", "offset": 15, "length": 4, "url": "https://t.me/x"},
    ]


async def test_markdown_v2_reserved_characters(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    with raises(BadRequest, "Character '.' is reserved"):
        await app.bot.send_message(GROUP, "*Score* 1.5", parse_mode=ParseMode.MARKDOWN_V2)
    await app.bot.send_message(GROUP, r"*Score* 1\.5", parse_mode=ParseMode.MARKDOWN_V2)
    stored = tg.last_message(GROUP)
    assert stored is not None and stored.text == "Score 1.5"
    assert stored.entities == [{"type": "bold", "offset": 0, "length": 5}]


async def test_flood_limit_surfaces_as_retry_after(
    app: App,
    tg: FakeTelegram,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    tg.group(GROUP, "Game night")
    tg.flood_limit(GROUP, max_per_minute=2, retry_after=1)
    await app.bot.send_message(GROUP, "one")
    await app.bot.send_message(GROUP, "two")
    with pytest.raises(RetryAfter) as caught:
        await app.bot.send_message(GROUP, "three")
    assert caught.value.retry_after == dtm.timedelta(seconds=1)
    assert tg.failed_calls()[-1].error_code == 429

    await asyncio.sleep(1.05)  # what a retrying bot does
    await app.bot.send_message(GROUP, "three")
    assert [m.text for m in tg.sent_to(GROUP)] == ["one", "two", "three"]


async def test_the_bots_limit_a_second_counts_every_chat(app: App, tg: FakeTelegram) -> None:
    """The 31st message a second over all chats is refused, as Telegram refuses a bot that
    sends more than about 30 a second; the next second takes messages again."""
    tg.bot_limit(30)
    groups = [GROUP - i for i in range(31)]
    for group in groups:
        tg.group(group, "Game night")
    for group in groups[:30]:
        await app.bot.send_message(group, "hello")
    with pytest.raises(RetryAfter):
        await app.bot.send_message(groups[30], "hello")
    assert tg.failed_calls()[-1].error_code == 429
    await asyncio.sleep(1.05)
    await app.bot.send_message(groups[30], "hello")
    assert len(tg.sent_to(groups[30])) == 1


async def test_polling_delivers_pushed_updates(app: App, tg: FakeTelegram) -> None:
    app.add_handler(CommandHandler("start", welcome))
    alice = tg.user(1001, "Alice")
    group = tg.group(GROUP, "Game night")
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0, timeout=1)
    try:
        tg.push_message(group, alice, "/start")
        call = await tg.wait_for_call("sendMessage", timeout=5)
    finally:
        await app.updater.stop()
        await app.stop()
    assert call.ok and call.params["chat_id"] == GROUP
    assert tg.calls_to("deleteWebhook") and tg.calls_to("getUpdates")
    assert tg.pending_updates == []  # the updater confirmed the update on stop
    assert tg.failed_calls() == []


async def test_second_poller_conflicts_with_a_pending_one(tg: FakeTelegram) -> None:
    url = f"{tg.base_url}{tg.token}/getUpdates"
    async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
        first = asyncio.create_task(client.post(url, data={"timeout": "5"}))
        await asyncio.sleep(0.2)
        second = await client.post(url, data={"timeout": "0"})
        assert second.json() == {"ok": True, "result": []}
        conflict = await first
    assert conflict.status_code == 409
    assert "terminated by other getUpdates request" in conflict.json()["description"]


async def test_unknown_methods_are_404_and_logged(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    with pytest.raises(InvalidToken, match="method not found"):  # what PTB makes of a 404
        await app.bot.send_dice(GROUP)
    [call] = tg.unknown_calls
    assert call.method == "sendDice" and call.error_code == 404
    assert call.description == "Not Found: method not found"


async def test_raw_http_json_and_form_bodies(tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    url = f"{tg.base_url}{tg.token}"
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    async with httpx.AsyncClient(trust_env=False) as client:
        as_json = await client.post(
            f"{url}/sendMessage", json={"chat_id": GROUP, "text": "hi", "reply_markup": markup}
        )
        as_form = await client.post(
            f"{url}/SENDMESSAGE",
            data={"chat_id": str(GROUP), "text": "yo", "disable_notification": "true"},
        )
        wrong_token = await client.post(f"{tg.base_url}123:nope/getMe")
        elsewhere = await client.get(f"http://127.0.0.1:{tg.port}/somewhere")
    body = as_json.json()
    assert body["ok"] is True and body["result"]["reply_markup"] == markup
    assert body["result"]["from"]["username"] == "egobot_test_bot"
    assert as_form.json()["result"]["message_id"] == body["result"]["message_id"] + 1
    assert tg.calls_to("sendMessage")[1].params["disable_notification"] is True
    assert wrong_token.status_code == 401 and wrong_token.json()["ok"] is False
    assert elsewhere.json() == {"ok": False, "error_code": 404, "description": "Not Found"}


async def test_admins_members_and_chat_info(app: App, tg: FakeTelegram) -> None:
    alice, bob, carol = tg.user(1001, "Alice"), tg.user(1002, "Bob"), tg.user(1003, "Carol")
    tg.group(GROUP, "Game night")
    tg.message_update(GROUP, alice, "/new")  # the first writer created the group
    tg.message_update(GROUP, bob, "/join")

    [creator] = await app.bot.get_chat_administrators(GROUP)
    assert creator.status == "creator" and creator.user.id == 1001
    assert (await app.bot.get_chat_member(GROUP, 1002)).status == "member"
    assert (await app.bot.get_chat_member(GROUP, carol["id"])).status == "left"
    tg.set_admins(GROUP, [bob])
    assert (await app.bot.get_chat_member(GROUP, 1002)).status == "administrator"
    chat = await app.bot.get_chat(GROUP)
    assert (chat.id, chat.type, chat.title) == (GROUP, "group", "Game night")


async def test_commands_and_menu_button(app: App, tg: FakeTelegram) -> None:
    assert await app.bot.set_my_commands([("new", "Start a game"), ("join", "Join the game")])
    assert [c.command for c in await app.bot.get_my_commands()] == ["new", "join"]
    assert await app.bot.get_my_commands(language_code="th") == ()
    with raises(BadRequest, "BOT_COMMAND_INVALID"):
        await app.bot.set_my_commands([("New Game", "bad name")])
    assert await app.bot.set_chat_menu_button() is True
    assert await app.bot.delete_my_commands() is True
    assert await app.bot.get_my_commands() == ()
    assert await app.bot.send_chat_action(tg.group(GROUP, "g")["id"], "typing") is True


async def test_privacy_mode_and_deletion(app: App, tg: FakeTelegram) -> None:
    alice = tg.user(1001, "Alice")
    group = tg.group(GROUP, "Game night")
    with pytest.raises(ValueError, match="privacy mode"):
        tg.message_update(group, alice, "I play the red card")
    sent = await app.bot.send_message(GROUP, "Name a card", reply_markup=keyboard([("x", "x")]))
    reply = tg.message_update(group, alice, "red card", reply_to=sent.message_id)
    assert reply["message"]["reply_to_message"]["message_id"] == sent.message_id

    assert await app.bot.delete_message(GROUP, sent.message_id) is True
    with raises(BadRequest, "message to delete not found"):
        await app.bot.delete_message(GROUP, sent.message_id)
    with raises(BadRequest, "message can't be deleted"):  # not admin
        await app.bot.delete_message(GROUP, reply["message"]["message_id"])
    with pytest.raises(ValueError, match="does not exist"):
        tg.callback_update(alice, sent.to_dict(), "x")
    assert [m.text for m in tg.messages_in(GROUP)] == ["red card"]


async def test_migrated_group_raises_chat_migrated(app: App, tg: FakeTelegram) -> None:
    tg.group(GROUP, "Game night")
    tg.migrate_group(GROUP, -1001234567890)
    with pytest.raises(ChatMigrated) as caught:
        await app.bot.send_message(GROUP, "hello")
    assert caught.value.new_chat_id == -1001234567890
    await app.bot.send_message(-1001234567890, "hello")
    assert [m.text for m in tg.sent_to(-1001234567890)] == ["hello"]
