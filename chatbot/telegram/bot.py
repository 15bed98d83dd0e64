"""The Telegram adapter: python-telegram-bot in, the game service in the middle, Bot API out."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
import weakref
from collections.abc import Callable
from typing import Any

from telegram import BotCommand, Update
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ContextTypes,
    TypeHandler,
)
from telegram.request import HTTPXRequest

from chatbot.core.buttons import game_chat
from chatbot.core.help import COMMANDS
from chatbot.core.model import Answer, Message, Reply
from chatbot.core.service import GameService
from chatbot.i18n import available_locales, translator
from chatbot.settings import Settings
from chatbot.store.base import Store
from chatbot.telegram.convert import incoming, markup, qualify, telegram_id
from chatbot.telegram.limits import FloodLimiter

log = logging.getLogger(__name__)


def nodelay_request(**httpx_kwargs: Any) -> HTTPXRequest:
    """HTTP to the Bot API with Nagle's algorithm off (no waiting for delayed ACKs)."""
    return HTTPXRequest(
        connection_pool_size=64,
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        httpx_kwargs=httpx_kwargs or None,
    )


class TelegramBot:
    """Wires a PTB Application to a `GameService` and delivers what the service says."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], float] = time.time,
        **builder_options: Any,
    ) -> None:
        """`clock` (unix seconds) drives the game timers; `builder_options` go to PTB's builder."""
        if not settings.telegram_token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        self.settings = settings
        builder = (
            ApplicationBuilder()
            .token(settings.telegram_token)
            .rate_limiter(FloodLimiter(settings.overall_rate, settings.group_rate, max_retries=3))
            .concurrent_updates(256)
            .post_init(self._started)
            .post_stop(self._stopping)
            .post_shutdown(self._stopped)
        )
        if settings.telegram_base_url:
            base = settings.telegram_base_url.rstrip("/")
            builder = builder.base_url(f"{base}/bot").base_file_url(f"{base}/file/bot")
        builder_options.setdefault("request", nodelay_request())
        builder_options.setdefault("get_updates_request", nodelay_request())
        for name, value in builder_options.items():
            builder = getattr(builder, name)(value)
        self.app: Application[Any, Any, Any, Any, Any, Any] = builder.build()
        self.service = GameService(store, settings, self.deep_link, self.is_admin, clock=clock)
        self.app.add_handler(TypeHandler(Update, self.on_update))
        self.app.add_error_handler(self._on_error)
        self.errors: list[BaseException] = []
        self._ticker: asyncio.Task[None] | None = None
        self._pending: dict[str, Message] = {}
        self._flushers: dict[str, asyncio.Task[None]] = {}
        # One game's updates and timers run one at a time in this process, so its messages
        # are edited in the order its states were saved; other games run concurrently.
        self._games: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # --- platform ports for the service -----------------------------------------------------

    def deep_link(self, payload: str) -> str | None:
        return f"https://t.me/{self.app.bot.username}?start={payload}"

    async def is_admin(self, chat: str, user: str) -> bool:
        try:
            member = await self.app.bot.get_chat_member(telegram_id(chat), telegram_id(user))
        except TelegramError:
            return False
        return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)

    # --- life cycle ------------------------------------------------------------------------

    async def _started(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.register_commands()
        self.start_ticker()

    async def _stopping(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.stop_ticker()  # while the bot can still send the pending table edits

    async def _stopped(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.service.store.close()

    async def register_commands(self) -> None:
        """The command menu in every language (the English one is also the default)."""
        for code in available_locales():
            tr = translator(code)
            commands = [BotCommand(name, tr.gettext(text)) for name, text in COMMANDS]
            await self.app.bot.set_my_commands(commands, language_code=code)
            if code == "en":
                await self.app.bot.set_my_commands(commands)

    def start_ticker(self) -> None:
        if self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_forever())

    async def stop_ticker(self) -> None:
        """Stop the timers; table edits still waiting for their interval are sent now."""
        for task in [self._ticker, *self._flushers.values()]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._ticker = None
        self._flushers.clear()
        pending, self._pending = self._pending, {}
        for message in pending.values():
            try:
                await self.send(message)
            except TelegramError as exc:
                log.warning("pending table edit lost at stop: %s", exc)

    def game_lock(self, chat: str) -> asyncio.Lock:
        lock = self._games.get(chat)
        if lock is None:
            lock = self._games[chat] = asyncio.Lock()
        return lock

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                keys = await self.service.due()
            except Exception as exc:  # keep ticking (e.g. the store is briefly unreachable)
                log.exception("timer tick failed")
                self.errors.append(exc)
                continue
            for key in keys:
                try:
                    async with self.game_lock(key.removeprefix("game:")):
                        await self.deliver(await self.service.timeout(key))
                except Exception as exc:  # keep ticking the other games whatever one did
                    log.exception("timer of %s failed", key)
                    self.errors.append(exc)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if context.error is not None:
            log.error("update failed", exc_info=context.error)
            self.errors.append(context.error)

    # --- updates in, messages out ----------------------------------------------------------

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        migrated = update.message.migrate_from_chat_id if update.message else None
        if migrated and update.effective_chat is not None:  # a group became a supergroup
            await self.moved(migrated, update.effective_chat.id)
            return
        event = incoming(update, self.app.bot.username)
        if event is None:
            return
        async with self.game_lock(game_chat(event.data, event.chat)):
            reply = await self.service.handle(event)
            query = update.callback_query
            if query is not None and reply.answer is None and reply.messages:
                reply.answer = Answer()
            await self._answer(update, reply)
            await self.deliver(reply.messages)

    async def _answer(self, update: Update, reply: Reply) -> None:
        query = update.callback_query
        if query is None or reply.answer is None:
            return
        answer = reply.answer
        try:
            await query.answer(answer.text or None, show_alert=answer.alert, url=answer.url)
        except BadRequest as exc:  # too old, or already answered by a duplicate delivery
            log.info("callback answer refused: %s", exc)

    async def deliver(self, messages: list[Message]) -> None:
        """Send a reply's messages in order; one that Telegram refuses does not stop the rest
        (e.g. a player who deleted their account must not cost the others their hands)."""
        for message in messages:
            if message.coalesce and message.edit and self.settings.table_interval > 0:
                self._coalesce(message)
                continue
            try:
                await self.send(message)
            except TelegramError as exc:
                log.warning("could not deliver to %s: %s", message.chat, exc)

    def _coalesce(self, message: Message) -> None:
        """Table edits: at most one per interval per table message, always the latest state."""
        key = f"{message.chat}/{message.edit}"
        self._pending[key] = message
        if key not in self._flushers:
            self._flushers[key] = asyncio.create_task(self._flush(key))

    async def flush(self) -> None:
        """Wait until every coalesced table edit waiting for its interval has been sent."""
        while self._flushers:
            await asyncio.gather(*self._flushers.values(), return_exceptions=True)

    async def _flush(self, key: str) -> None:
        """Send the pending edit of `key` now, then the newest pending one each interval, until
        an interval passes with nothing new; while this runs, edits of `key` only wait here.

        One flusher per key sends in order, so a newer edit is never overtaken by an older one
        held up (e.g. by a 429); an edit stays pending until sent, so a stop cannot lose it."""
        try:
            while (message := self._pending.get(key)) is not None:
                await self.send(message)
                if self._pending.get(key) is message:
                    del self._pending[key]
                await asyncio.sleep(self.settings.table_interval)
        except Exception as exc:  # the next table update starts a new flusher
            log.exception("table edit failed")
            self.errors.append(exc)
        finally:
            self._flushers.pop(key, None)

    async def send(self, message: Message) -> None:
        """Edit the message in place when it has one, else send it (and remember its slot)."""
        chat_id = telegram_id(message.chat)
        keyboard = markup(message.buttons)
        if message.edit:
            try:
                await self.app.bot.edit_message_text(
                    message.text,
                    chat_id=chat_id,
                    message_id=int(message.edit),
                    parse_mode=ParseMode.HTML,
                    reply_markup=keyboard,
                )
                return
            except ChatMigrated as exc:
                await self.moved(chat_id, exc.new_chat_id)
                return
            except BadRequest as exc:
                if "not modified" in str(exc).lower():
                    return
                log.info("edit failed (%s): sending anew", exc)
        try:
            sent = await self.app.bot.send_message(
                chat_id, message.text, parse_mode=ParseMode.HTML, reply_markup=keyboard
            )
        except Forbidden as exc:
            log.info("cannot write to %s: %s", message.chat, exc)
            return
        except ChatMigrated as exc:  # learnt from a refused send: move, then send there
            await self.moved(chat_id, exc.new_chat_id)
            return
        if message.slot and message.game:
            await self.service.remember(message.game, message.slot, str(sent.message_id))

    async def moved(self, old: int, new: int) -> None:
        """Telegram gave a group a new id (upgraded to a supergroup): its game follows."""
        # No game lock: this may run inside one (a refused send); chat_moved is idempotent.
        await self.deliver(await self.service.chat_moved(qualify(old), qualify(new)))

    def run_polling(self) -> None:
        self.app.run_polling(allowed_updates=["message", "callback_query"])
