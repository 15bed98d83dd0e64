"""Telegram updates -> neutral `Incoming`; neutral buttons -> Telegram keyboards."""

from __future__ import annotations

from typing import Any

from telegram import Message as TelegramMessage
from telegram import Update
from telegram.constants import ChatType

from chatbot.core.model import Button, Incoming, Keyboard, User, looks

PREFIX = "tg:"


def qualify(telegram_id: int) -> str:
    return f"{PREFIX}{telegram_id}"


def telegram_id(qualified: str) -> int:
    return int(qualified.removeprefix(PREFIX))


def incoming(update: Update, bot_username: str) -> Incoming | None:
    """The neutral event of an update, or None for updates the bot ignores."""
    sender = update.effective_user
    chat = update.effective_chat
    if sender is None or chat is None or sender.is_bot:
        return None
    user = User(qualify(sender.id), sender.full_name, sender.language_code)
    private = chat.type == ChatType.PRIVATE
    update_id = f"{PREFIX}{update.update_id}"
    query = update.callback_query
    if query is not None:
        message = query.message
        return Incoming(
            chat=qualify(chat.id),
            private=private,
            user=user,
            data=query.data or "",
            message=str(message.message_id) if message else None,
            update_id=update_id,
            chat_title=chat.title or "",
            shown=_shown(message) if isinstance(message, TelegramMessage) else None,
        )
    text = update.message.text if update.message else None
    if not text or not text.startswith("/"):
        return None
    head, _, args = text.partition(" ")
    name, _, target = head[1:].partition("@")
    if target and target.lower() != bot_username.lower():
        return None  # a command for another bot in the group
    return Incoming(
        chat=qualify(chat.id),
        private=private,
        user=user,
        command=name.lower(),
        args=args.strip(),
        update_id=update_id,
        chat_title=chat.title or "",
    )


def markup(buttons: Keyboard) -> dict[str, Any] | None:
    """The Bot API's inline keyboard for `buttons`, as JSON (None: no keyboard)."""
    if not buttons:
        return None
    return {
        "inline_keyboard": [
            [
                {"text": b.label, "url": b.url}
                if b.url
                else {"text": b.label, "callback_data": b.data}
                for b in row
            ]
            for row in buttons
        ]
    }


def _shown(message: TelegramMessage) -> int | None:
    """What a pressed message shows now (`looks`), when it is a text message."""
    if message.text is None:
        return None
    rows = message.reply_markup.inline_keyboard if message.reply_markup else ()
    keyboard = tuple(
        tuple(
            Button(b.text, b.callback_data if isinstance(b.callback_data, str) else None, b.url)
            for b in row
        )
        for row in rows
    )
    return looks(message.text, keyboard)
