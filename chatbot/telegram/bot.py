"""The Telegram adapter: python-telegram-bot in, the game service in the middle, Bot API out."""

from __future__ import annotations

import asyncio
import contextvars
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from telegram import BotCommand, Update
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    TelegramError,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ContextTypes,
    TypeHandler,
)

from chatbot import metrics
from chatbot.bodies import TooLarge, bounded_body, too_large
from chatbot.core import buttons as b
from chatbot.core.help import COMMANDS
from chatbot.core.model import Answer, Capabilities, Incoming, Message
from chatbot.core.outbox import Budget
from chatbot.core.runner import Runner
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform, Sessions
from chatbot.i18n import available_locales, translator
from chatbot.page.server import GamePage
from chatbot.settings import Settings, bot_api_root
from chatbot.telegram.convert import (
    ALLOWED_UPDATES,
    Fields,
    incoming,
    markup,
    migration,
    qualify,
    telegram_id,
)
from chatbot.telegram.limits import FloodLimiter
from chatbot.telegram.miniapp import TelegramIdentity
from chatbot.telegram.request import AiohttpRequest

log = logging.getLogger(__name__)
JSON = dict[str, Any]
SECRET_HEADER = "x-telegram-bot-api-secret-token"
MEMBER_TTL = 30.0  # seconds a member's status in a group is taken as known
MEMBERS_KEPT = 10_000  # statuses remembered (all forgotten when full)
ADMINS = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})
MEMBERS = ADMINS | {ChatMemberStatus.MEMBER}


_Read = tuple[Incoming | None, tuple[str, str] | None, str | None]  # event, migration, query


@dataclass
class _Held:
    """A press being handled for a webhook request: its first answer, when it comes while
    the request is open, goes back in the HTTP response instead of a call."""

    query: str
    method: JSON | None = None
    open: bool = True


_holding: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("holding", default=None)


class TelegramBot:
    """Wires a PTB Application to the runner: Telegram updates in, Bot API calls out."""

    capabilities = Capabilities()  # edits, pop-ups, 64-byte data, 100 buttons a message
    platform = "telegram"

    runner: Runner  # handed by the bootstrap (`attach`), with its service and sessions
    service: GameService
    sessions: Sessions

    def __init__(self, settings: Settings, **builder_options: Any) -> None:
        """`builder_options` go to PTB's builder; `chatbot.bootstrap.telegram_bot` builds the
        runner and hands it over."""
        if not settings.telegram.token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        self.settings = settings
        self.limiter = FloodLimiter(
            settings.telegram.overall_rate, settings.telegram.group_rate, max_retries=3
        )
        # Webhook requests must carry this secret: the one set, else one made now (given to
        # Telegram by `start_webhook`; one process's own, so several processes need one set).
        self.webhook_secret = settings.telegram.webhook_secret or secrets.token_urlsafe(32)
        builder = (
            ApplicationBuilder()
            .token(settings.telegram.token)
            .rate_limiter(self.limiter)
            .concurrent_updates(256)
            .post_init(self._started)
            .post_stop(self._stopping)
            .post_shutdown(self._stopped)
        )
        if settings.telegram.base_url:
            base = bot_api_root(settings.telegram.base_url)
            builder = builder.base_url(f"{base}/bot").base_file_url(f"{base}/file/bot")
        builder_options.setdefault("request", AiohttpRequest())
        builder_options.setdefault("get_updates_request", AiohttpRequest())
        for name, value in builder_options.items():
            builder = getattr(builder, name)(value)
        self.app: Application[Any, Any, Any, Any, Any, Any] = builder.build()
        self._members: dict[tuple[str, str], tuple[str, float]] = {}  # -> (status, when)
        self.page: GamePage | None = None  # the game page (a Mini App), where one is named
        if settings.telegram.webapp_name:  # hands on the page: none sent to private chats
            self.capabilities = replace(self.capabilities, hands_on_page=True)
        self.app.add_handler(TypeHandler(Update, self.on_update))
        self.app.add_error_handler(self._on_error)

    def attach(self, runner: Runner) -> None:
        """Take the runner; the game page, where a Mini App is named, comes with it."""
        self.runner, self.service, self.sessions = runner, runner.service, runner.service.sessions
        # every process behind this bot shares one flood budget, named after the bot's id
        bot_id = (self.settings.telegram.token or "").split(":")[0]
        self.limiter.share(self.sessions.budgets, f"tg{bot_id}")
        tg = self.settings.telegram
        if tg.webapp_name and tg.token:
            clock = self.sessions.clock
            identity = TelegramIdentity(tg.token, tg.webapp_sdk_url, tg.webapp_max_age, clock)
            self.page = GamePage(identity, runner)

    @property
    def errors(self) -> list[BaseException]:
        return self.runner.errors

    # --- platform ports for the core -------------------------------------------------------

    def ports(self) -> Platform:
        return Platform(self.capabilities, self.deep_link, self.is_admin, self.is_member)

    def budget(self) -> Budget:
        """The flood limiter's budget of each chat (`ready`, `room`)."""
        return self

    def deep_link(self, payload: str) -> str | None:
        """A link that opens the bot's chat with /start <payload>; a hand's link opens the
        game page (the Mini App), where one is named."""
        app = self.settings.telegram.webapp_name
        if app and b.chat_from_payload(payload, "h") is not None:
            return f"https://t.me/{self.app.bot.username}/{app}?startapp={payload}"
        return f"https://t.me/{self.app.bot.username}?start={payload}"

    def ready(self, chat: str) -> float:
        """Seconds until a message to `chat` goes without waiting for its flood budget."""
        return self.limiter.ready(telegram_id(chat))

    def room(self, chat: str) -> float:
        """The share of `chat`'s flood budget free now."""
        return self.limiter.room(telegram_id(chat)) / max(1.0, self.settings.telegram.group_rate)

    async def _status(self, chat: str, user: str, enough: frozenset[str]) -> str:
        """`user`'s status in `chat` ("left" when the group does not know them). A status in
        `enough` learnt within MEMBER_TTL seconds is taken as it is; any other is asked again
        (a member just made admin may stop the game at once). A check never waits behind the
        group's messages: the flood limiter counts only messages."""
        key, now = (chat, user), time.monotonic()
        known = self._members.get(key)
        if known is not None and now - known[1] < MEMBER_TTL and known[0] in enough:
            return known[0]
        try:
            member = await self.app.bot.get_chat_member(telegram_id(chat), telegram_id(user))
        except BadRequest:  # not a member the group knows
            status = ChatMemberStatus.LEFT
        else:
            status = member.status
            if getattr(member, "is_member", False):  # restricted, but in the group
                status = ChatMemberStatus.MEMBER
        if len(self._members) >= MEMBERS_KEPT:
            self._members.clear()
        self._members[key] = (status, now)
        return status

    async def is_admin(self, chat: str, user: str) -> bool:
        try:
            return await self._status(chat, user, ADMINS) in ADMINS
        except TelegramError:
            return False

    async def is_member(self, chat: str, user: str) -> bool:
        """Whether `user` is in the group now (when Telegram cannot say, they may join)."""
        try:
            return await self._status(chat, user, MEMBERS) in MEMBERS
        except TelegramError as exc:
            log.warning("membership of %s in %s unknown: %s", user, chat, exc)
            return True

    # --- life cycle ------------------------------------------------------------------------

    async def _started(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.register_commands()
        self.runner.start()

    async def _stopping(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.runner.stop()  # while the bot can still send what is owed

    async def _stopped(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await self.sessions.close()

    async def register_commands(self) -> None:
        """The command menu in every language (the English one is also the default)."""
        for code in available_locales():
            tr = translator(code)
            commands = [BotCommand(name, tr.gettext(text)) for name, text in COMMANDS]
            await self.app.bot.set_my_commands(commands, language_code=code)
            if code == "en":
                await self.app.bot.set_my_commands(commands)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if context.error is not None:
            log.error("update failed", exc_info=context.error)
            self.errors.append(context.error)

    # --- updates in, messages out ----------------------------------------------------------

    async def on_update(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A polled update (PTB made it into objects): handled as its JSON reads."""
        event, moved = self._read(Fields(update))
        await self._handle(
            event, moved, update.callback_query.id if update.callback_query else None
        )

    def _read(self, update: Mapping[str, Any]) -> tuple[Incoming | None, tuple[str, str] | None]:
        """The update's event, or the chats of a group that became a supergroup."""
        moved = migration(update)
        return (None, moved) if moved else (incoming(update, self.app.bot.username), None)

    async def _handle(
        self, event: Incoming | None, moved: tuple[str, str] | None, query: str | None
    ) -> None:
        if moved is not None:
            await self.runner.moved(*moved)
            return
        if event is None:
            return
        answer = await self.runner.handle(event)
        if query is not None and answer is not None:
            await self._answer(query, answer)

    async def _answer(self, query: str, answer: Answer) -> None:
        params: JSON = {"callback_query_id": query}
        if answer.text:
            params["text"] = answer.text
        if answer.alert:
            params["show_alert"] = True
        if answer.url:
            params["url"] = answer.url
        held = _holding.get()  # the open webhook request of this very press, if any
        if held is not None and held.query == query and held.open and held.method is None:
            held.method = {"method": "answerCallbackQuery", **params}
            metrics.ANSWERS.labels(self.platform, "response").inc()
            return
        metrics.ANSWERS.labels(self.platform, "call").inc()
        try:
            await self._call("answerCallbackQuery", params)
        except BadRequest as exc:  # too old, or already answered by a duplicate delivery
            log.info("callback answer refused: %s", exc)
        except TelegramError as exc:
            log.warning("callback answer failed: %s", exc)

    async def send(self, message: Message) -> str | None:
        """Edit the message in place when it names one, else send it; the id of the message
        that shows it (None: not delivered)."""
        params: JSON = {
            "chat_id": telegram_id(message.chat),
            "text": message.text,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup(message.buttons),
        }
        try:
            if message.bare and message.edit:  # the buttons go, the text stays
                try:
                    ids = {"chat_id": params["chat_id"], "message_id": int(message.edit)}
                    await self._call("editMessageReplyMarkup", ids)
                    metrics.SENT.labels(self.platform, "edit").inc()
                except BadRequest as exc:  # bare already, or gone: nothing to take off
                    log.info("could not take the buttons off %s: %s", message.edit, exc)
                return message.edit
            if message.edit:
                try:
                    await self._call("editMessageText", params | {"message_id": int(message.edit)})
                    metrics.SENT.labels(self.platform, "edit").inc()
                    return message.edit
                except BadRequest as exc:
                    if "not modified" in str(exc).lower():
                        return message.edit
                    log.info("edit failed (%s): sending anew", exc)
            sent = await self._call("sendMessage", params)
            metrics.SENT.labels(self.platform, "send").inc()
            return str(sent["message_id"])
        except Forbidden as exc:
            log.info("cannot write to %s: %s", message.chat, exc)
        except ChatMigrated as exc:  # learnt from a refused send or edit: move, send there
            await self.runner.moved(message.chat, qualify(exc.new_chat_id))
        except TelegramError as exc:
            metrics.API_ERRORS.labels(self.platform).inc()
            log.warning("could not deliver to %s: %s", message.chat, exc)
        return None

    async def _call(self, method: str, params: JSON) -> Any:
        """One Bot API call, its result as JSON. The same path as PTB's own methods (the flood
        limiter, errors raised as TelegramError) except that the result is not made into PTB
        objects, which we would not read (in bench/telegram_presses.py that alone took a tenth
        of the bot's processor time)."""
        return await self.app.bot._post(method, params)

    async def reach(
        self,
        attempts: int | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        """Wait until the Bot API answers (getMe): each failure is one log line, retried after
        1, 2, 4 … at most 60 seconds; the last of `attempts` (None: no limit) raises. A token
        Telegram refuses raises InvalidToken at once."""
        delay, tried = 1.0, 0
        while True:
            tried += 1
            try:
                async with self.app.bot:  # initialize (getMe), then release the connections
                    return
            except InvalidToken:
                raise
            except NetworkError as exc:  # TimedOut included
                if attempts is not None and tried >= attempts:
                    raise
                reason = str(exc) or type(exc).__name__
                log.warning("cannot reach Telegram (%s): retrying in %.0f s", reason, delay)
                await sleep(delay)
                delay = min(delay * 2, 60.0)

    # --- webhook mode (served by chatbot.web) -----------------------------------------------

    def web_routes(self) -> list[BaseRoute]:
        """The webhook (`/telegram/webhook`): a request without the secret is refused before
        its body is read; a press's answer rides on the HTTP response."""
        limit = self.settings.max_body

        async def webhook(request: Request) -> Response:
            secret = request.headers.get(SECRET_HEADER)
            if not self.authentic(secret):  # before a byte of the body is read
                return PlainTextResponse("bad secret token", status_code=403)
            try:
                body = await bounded_body(request, limit)
            except TooLarge:
                return too_large()
            except ClientDisconnect:
                return PlainTextResponse("", status_code=400)
            status, method = await self.webhook_response(body, secret)
            if status == 200 and method is not None:  # Telegram calls it: one call saved
                return JSONResponse(method)
            texts = {200: "OK", 400: "not an update", 403: "bad secret token"}
            return PlainTextResponse(texts.get(status, ""), status_code=status)

        routes: list[BaseRoute] = [Route("/telegram/webhook", webhook, methods=["POST"])]
        return routes + (self.page.routes() if self.page is not None else [])

    async def start(self) -> None:
        """Start without polling and tell Telegram where to send updates."""
        await self.reach()
        await self.app.initialize()
        await self.app.start()
        await self._started(self.app)
        url = self.settings.telegram.webhook_url
        if url:
            if not self.settings.telegram.webhook_secret:
                log.warning(
                    "TELEGRAM_WEBHOOK_SECRET is not set: Telegram was given a secret made at "
                    "start-up (set one when several processes serve the webhook)"
                )
            await self.app.bot.set_webhook(
                url,
                secret_token=self.webhook_secret,
                allowed_updates=list(ALLOWED_UPDATES),
            )

    def authentic(self, secret: str | None) -> bool:
        """Whether a webhook request's secret header is the webhook's secret (any bytes)."""
        given = (secret or "").encode("utf-8", "surrogateescape")
        return hmac.compare_digest(given, self.webhook_secret.encode())

    async def webhook(self, body: bytes, secret: str | None) -> int:
        """Handle one webhook request: 403 without the secret (nothing touched), 400 for a
        body that is not an update, else 200 once the update was handled (Telegram redelivers
        an update whose request failed). A press is answered by a call of its own."""
        status, _ = await self._webhook(body, secret, hold=False)
        return status

    async def webhook_response(self, body: bytes, secret: str | None) -> tuple[int, JSON | None]:
        """As `webhook`, and a press's answer, when it is ready before the update was handled
        (the runner answers at once), is not called but returned: the Bot API method for the
        webhook's HTTP response, which saves a call. An answer given after that (never, by
        design) goes by call, and never both."""
        return await self._webhook(body, secret, hold=True)

    async def _webhook(
        self, body: bytes, secret: str | None, hold: bool
    ) -> tuple[int, JSON | None]:
        if not self.authentic(secret):
            return 403, None
        read = self._update(body)
        if read is None:
            return 400, None
        event, moved, query_id = read
        held = _Held(query_id) if hold and query_id is not None else None
        token = _holding.set(held)  # seen by `_answer`, which runs in this task's context
        try:
            await self._handle(event, moved, query_id)
        except Exception as exc:  # as PTB's application does for a handler's failure
            log.error("update failed", exc_info=exc)
            self.errors.append(exc)
        finally:
            if held is not None:
                held.open = False  # from now on an answer is a call
            _holding.reset(token)
        return 200, held.method if held is not None else None

    def _update(self, body: bytes) -> _Read | None:
        """The event of a webhook body read as JSON (PTB's objects would be built only to be
        read once), the chats of a migration and the press's query id; None for anything
        that is not an update (an array, a string, nesting too deep to parse, fields of the
        wrong kind)."""
        try:
            data = _loads(body)
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                return None
            event, moved = self._read(data)
            query = data.get("callback_query")
            return event, moved, None if query is None else str(query["id"])
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None

    async def stop(self, close_store: bool = True) -> None:
        """Deliver what is owed and close (the store too, unless it is shared and closed by
        its owner)."""
        await self.runner.stop()
        await self.app.stop()
        await self.app.shutdown()
        if self.page is not None:
            await self.page.close()
        if close_store:
            await self.sessions.close()

    def run_polling(self, reached: Callable[[], object] = lambda: None) -> None:
        """Wait for the network (`reached` is called once Telegram took the token), then
        poll until stopped (Ctrl-C, SIGTERM)."""
        asyncio.run(self.reach())
        reached()
        self.app.run_polling(allowed_updates=list(ALLOWED_UPDATES))


def _loads(body: bytes) -> Any:
    """A webhook body as JSON: by orjson, or where orjson refuses it (a lone surrogate, a
    number past 64 bits) by the standard library, which decides what is not JSON."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return json.loads(body)
