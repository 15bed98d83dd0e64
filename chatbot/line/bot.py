"""The LINE adapter: signed webhook bodies in, the runner between, the Messaging API out.

Replies first, pushes last: a message that answers an event goes out with the event's reply
token (free, single use, short-lived), with the messages it carries in the same request; only
messages nothing answers are pushed (a small monthly quota), with a retry key, retried. A token
is used at most once and never later than `LINE_REPLY_WITHIN` seconds after its event happened
(by the event's own timestamp: a redelivered event's token is as old as the event). A webhook
is answered within
`answer_within` seconds whatever LINE's API does (docs/platforms.md).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import aiohttp
from linebot.v3.exceptions import InvalidSignatureError
from linebot.v3.messaging import (
    AsyncApiClient,
    AsyncMessagingApi,
    Configuration,
    PushMessageRequest,
    ReplyMessageRequest,
)
from linebot.v3.messaging.exceptions import ApiException
from linebot.v3.webhook import WebhookParser
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Route

from chatbot import metrics
from chatbot.bodies import TooLarge, bounded_body, too_large
from chatbot.core import buttons as b
from chatbot.core.model import Capabilities, Command, Message, User
from chatbot.core.outbox import Undelivered
from chatbot.core.runner import Runner
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform, Sessions
from chatbot.i18n import negotiate
from chatbot.line.convert import (
    LABEL_CHARS,
    incoming,
    line_id,
    message_object,
    qualify,
    script_language,
    sender_id,
    source_ids,
)
from chatbot.line.liff import ECHO, LineIdentity
from chatbot.page.server import GamePage
from chatbot.settings import Settings

log = logging.getLogger(__name__)
ID_RETRY = 60.0  # seconds between tries to learn the bot's id while LINE was unreachable
TOKENS_KEPT = 10_000  # unused reply tokens remembered
PROFILES_KEPT = 10_000  # names and languages remembered
PROFILE_TTL = 3600.0  # seconds a friend's remembered profile (or a group's name) is trusted
STRANGER_TTL = 60.0  # seconds the name of a member who is not the bot's friend is trusted
LOOKUP_TIMEOUT = 3.0  # seconds a profile, group summary or bot info call may take
EVENT_WINDOW = 300.0  # seconds after its timestamp an event is still handled (then: a replay)
BY_SCRIPT, BY_PROFILE = 1, 2  # how a group's language was told (the better, the higher)
SEND_TIMEOUT = 10.0  # seconds a reply or push may take before it is tried again
RETRY_BACKOFF = (0.5, 2.0, 8.0)  # seconds before each further try of a failed send


class LineBot:
    """One LINE channel served over the core."""

    platform = "line"
    capabilities = Capabilities(
        edits=False,
        popups=False,
        answer_chars=0,
        label_chars=LABEL_CHARS,
        data_bytes=300,
        row_buttons=3,
        message_buttons=13,
        message_chars=5000,
        answers_in_chat=True,
        unasked_free=False,
    )

    runner: Runner  # handed by the bootstrap (`attach`), with its service and sessions
    service: GameService
    sessions: Sessions

    def __init__(self, settings: Settings, monotonic: Callable[[], float] = time.monotonic) -> None:
        """`chatbot.bootstrap.line_bot` builds the runner and hands it over."""
        if not settings.line.channel_secret or not settings.line.channel_access_token:
            raise ValueError("LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN must be set")
        self.settings = settings
        self.monotonic = monotonic
        self.capabilities = replace(self.capabilities, reminders=settings.line.reminders)
        if settings.line.liff_id:  # moves on the game page: no group update is pushed
            if not settings.line.login_channel_id:
                raise ValueError(
                    "LINE_LIFF_ID needs LINE_LOGIN_CHANNEL_ID (its ID tokens' channel)"
                )
            self.capabilities = replace(self.capabilities, hold_unasked=True)
        self.parser = WebhookParser(settings.line.channel_secret)
        host = settings.line.api_base_url.rstrip("/") if settings.line.api_base_url else None
        config = Configuration(host=host, access_token=settings.line.channel_access_token)
        self.client = AsyncApiClient(config)
        self.api = AsyncMessagingApi(self.client)
        self.basic_id: str | None = None  # the bot's "@..." id, for links into its chat
        self._id_asked = -math.inf
        self.page: GamePage | None = None
        self.identity: LineIdentity | None = None
        self._tokens: OrderedDict[str, float] = OrderedDict()  # unused token -> when received
        self._profiles: OrderedDict[str, tuple[float, User]] = OrderedDict()
        self._names: OrderedDict[str, tuple[float, str]] = OrderedDict()  # group -> its name
        self._guesses: OrderedDict[str, tuple[int, str | None]] = OrderedDict()  # languages
        self._named: set[str] = set()  # groups whose name was read for their language
        self._handling: set[asyncio.Task[None]] = set()  # webhooks' events being handled
        self._background: set[asyncio.Future[Any]] = set()
        self.answer_within = settings.line.answer_within  # then the events are handled on
        self.replies = 0
        self.pushes = 0
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # between retries

    def attach(self, runner: Runner) -> None:
        """Take the runner; the game page, where there is one, comes with it."""
        self.runner, self.service, self.sessions = runner, runner.service, runner.service.sessions
        liff, login = self.settings.line.liff_id, self.settings.line.login_channel_id
        if liff and login:
            self.identity = LineIdentity(self, liff, login)
            self.page = GamePage(self.identity, runner)

    @property
    def errors(self) -> list[BaseException]:
        return self.runner.errors

    # --- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the timers and learn the bot's id (for links into its chat); without the
        network it is learnt later, when a link is first needed."""
        self.runner.start()
        await self.learn_id()

    async def learn_id(self) -> None:
        self._id_asked = self.monotonic()
        try:
            info = await self._lookup(self.api.get_bot_info())
            self.basic_id = str(info.basic_id)
        except Exception as exc:  # refused, or LINE unreachable (DNS, connection)
            log.warning("bot info unavailable: %r", exc)

    async def stop(self, close_store: bool = True) -> None:
        """Stop the timers, deliver what is owed, close the connections (the store's too,
        unless it is shared and closed by its owner)."""
        await self.idle()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.runner.stop()
        await self.client.close()
        if self.page is not None:
            await self.page.close()
        if close_store:
            await self.sessions.close()

    # --- platform ports for the core -------------------------------------------------------

    def ports(self) -> Platform:
        return Platform(self.capabilities, self.deep_link, is_member=self.is_member)

    def budget(self) -> None:
        """No per-chat budget: replies are free, pushes are retried."""

    def web_routes(self) -> list[BaseRoute]:
        """The web server's routes of this channel: its webhook (`/line/webhook`), and the
        game page's where there is one."""
        limit = self.settings.max_body

        async def webhook(request: Request) -> PlainTextResponse:
            try:
                raw = await bounded_body(request, limit)
            except TooLarge:
                return too_large()
            except ClientDisconnect:
                return PlainTextResponse("", status_code=400)
            body = raw.decode("utf-8", "replace")
            signature = request.headers.get("x-line-signature")
            if not self.signed(body, signature):
                return PlainTextResponse("bad signature", status_code=400)
            status = await self.webhook(body, signature)
            text = "OK" if status == 200 else "not a webhook body"
            return PlainTextResponse(text, status_code=status)

        routes: list[BaseRoute] = [Route("/line/webhook", webhook, methods=["POST"])]
        return routes + (self.page.routes() if self.page is not None else [])

    def deep_link(self, payload: str) -> str | None:
        """A link that opens the bot's chat with `/start <payload>` typed in: the user's own
        message then earns a free reply. A hand's link opens the game page, where there is
        one."""
        hand = b.chat_from_payload(payload, "h")
        if hand is not None and self.identity is not None:
            return self.identity.url(hand)
        if not self.basic_id:
            return None
        text = quote(f"/start {payload}", safe="")
        return f"https://line.me/R/oaMessage/{quote(self.basic_id, safe='@')}/?{text}"

    async def is_member(self, chat: str, user: str) -> bool:
        try:
            await self._lookup(self._member(line_id(chat), line_id(user)))
        except (ApiException, TimeoutError, aiohttp.ClientError):
            return False
        return True

    async def _member(self, chat: str, user: str) -> Any:
        """A member's profile in a group ("C...") or a multi-person chat ("R...")."""
        if chat.startswith("R"):
            return await self.api.get_room_member_profile(chat, user)
        return await self.api.get_group_member_profile(chat, user)

    # --- webhooks in -----------------------------------------------------------------------

    async def webhook(self, body: str, signature: str | None) -> int:
        """Handle one webhook request: 400 (and nothing touched) when its signature is not
        the channel's, else 200 once every event was handled (their messages are queued), or
        after `answer_within` seconds at most (LINE wants a prompt answer: the events are
        then handled on, in order, after it)."""
        try:
            events = self.parser.parse(body, signature or "")
        except (InvalidSignatureError, ValueError, KeyError, TypeError, RecursionError) as exc:
            log.info("webhook refused: %s", str(exc)[:200])
            return 400
        task = asyncio.create_task(self._events(events))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)
        try:
            await asyncio.wait_for(asyncio.shield(task), self.answer_within)
        except TimeoutError:
            log.info("webhook answered while its %d events are handled", len(events))
        return 200

    async def _events(self, events: list[Any]) -> None:
        for event in events:
            if self._stale(event):
                continue
            try:
                await self.on_event(event)
            except Exception as exc:  # the next events still count
                log.exception("event %s failed", getattr(event, "webhook_event_id", "?"))
                self.runner.errors.append(exc)

    async def idle(self) -> None:
        """Wait until the events of every webhook answered so far have been handled."""
        while self._handling:
            await asyncio.gather(*self._handling, return_exceptions=True)

    def signed(self, body: str, signature: str | None) -> bool:
        """Whether `body` carries the channel's signature."""
        return bool(self.parser.signature_validator.validate(body, signature or ""))

    def _stale(self, event: Any) -> bool:
        """An event older than EVENT_WINDOW by its own timestamp (a signed request captured
        and sent again later) is dropped: within the window, its id makes a copy count once."""
        stamp = getattr(event, "timestamp", None)
        age = self.sessions.clock() - stamp / 1000 if isinstance(stamp, int) else math.inf
        if age <= EVENT_WINDOW:
            return False
        log.warning("event %s dropped: %.0f s old", getattr(event, "webhook_event_id", "?"), age)
        return True

    async def on_event(self, event: Any) -> None:
        if self.basic_id is None and self.monotonic() - self._id_asked > ID_RETRY:
            self._id_asked = self.monotonic()
            self._later(self.learn_id())  # links work once it is known
        token = getattr(event, "reply_token", None)
        if token:  # as old as its event (LINE may deliver an event again, minutes later)
            stamp = getattr(event, "timestamp", None)
            age = self.sessions.clock() - stamp / 1000 if isinstance(stamp, int) else 0.0
            self._tokens[token] = self.monotonic() - max(0.0, age)
            while len(self._tokens) > TOKENS_KEPT:
                self._tokens.popitem(last=False)
        user_id = sender_id(event)
        chat_id = source_ids(event)[0]
        if event.type == "follow" and user_id:  # a friend now: their own profile tells more
            self._profiles.pop(user_id, None)
        user = None
        if user_id:
            try:
                user = await self.profile(user_id, chat_id)
            except Exception as exc:  # LINE answered nonsense: the event still counts
                log.warning("profile of %s unavailable: %r", user_id, exc)
                user = User(qualify(user_id), "?")
        group = chat_id if chat_id and chat_id[:1] in "CR" else None
        language = None
        if group is not None and event.type != "leave":
            try:
                language = await self.group_language(group, user, _text_of(event))
            except Exception as exc:  # the store or LINE unreachable: no guess this time
                log.warning("language of %s unknown: %r", group, exc)
            if user is not None and user.language is None:  # not a friend: as the group
                user = replace(user, language=language)
        text = _text_of(event)
        echo = group is not None and token and self.page is not None and text.startswith(ECHO)
        if echo and await self.runner.delivery.release(qualify(group or ""), token):
            return  # the game page's line after a move: the reply carries what it changed
        # Nothing parked (by any process: the page's word came twice, or its update could not
        # be stored): the page's word asks for the table as it is now.
        inc = incoming(event, user, text if echo else None)
        if inc is None:
            return
        inc = replace(inc, chat_language=language)
        if isinstance(inc, Command) and inc.name == "newgame" and not inc.private:
            inc = replace(inc, chat_title=await self._group_name(line_id(inc.chat)))
        await self.runner.handle(inc)

    def _later(self, call: Awaitable[Any]) -> None:
        """Run `call` after the answer (its task is kept until done)."""
        task = asyncio.ensure_future(call)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _lookup(self, call: Awaitable[Any]) -> Any:
        """A look-up call to LINE's API, bounded by LOOKUP_TIMEOUT (TimeoutError)."""
        return await asyncio.wait_for(call, LOOKUP_TIMEOUT)

    async def group_language(self, group: str, user: User | None, text: str) -> str | None:
        """A group's language as far as it can be told: the first profile language of a
        member who is the bot's friend, else the Thai or Japanese script of its name or of a
        message sent there. Remembered (in the store, for every process)."""
        key = qualify(group)
        guess = self._guesses.get(group)
        if guess is None:
            stored = await self.sessions.chat_setting(key, "guess")
            rank, _, told = (stored or "0:").partition(":")
            guess = (int(rank) if rank.isdigit() else 0, told or None)
        learnt = guess
        if guess[0] < BY_PROFILE and user is not None and user.language:
            learnt = (BY_PROFILE, negotiate(user.language))
        elif guess[0] < BY_SCRIPT:
            code = script_language(text)
            if code is None and group.startswith("C") and group not in self._named:
                self._named.add(group)  # its name is looked at once in this process
                code = script_language(await self._group_name(group))
            if code is not None:
                learnt = (BY_SCRIPT, code)
        if learnt != guess:
            value = f"{learnt[0]}:{learnt[1]}"
            await self.sessions.set_chat_setting(key, "guess", value)
        self._guesses[group] = learnt
        self._guesses.move_to_end(group)
        while len(self._guesses) > PROFILES_KEPT:
            self._guesses.popitem(last=False)
        return learnt[1]

    async def _group_name(self, chat: str) -> str:
        """A group's name (hand messages say which group they belong to); "" when unknown.
        Remembered for PROFILE_TTL."""
        if not chat.startswith("C"):
            return ""
        kept = self._names.get(chat)
        if kept is not None and kept[0] > self.monotonic():
            return kept[1]
        try:
            summary = await self._lookup(self.api.get_group_summary(chat))
            name = str(summary.group_name)
        except ApiException as exc:
            log.info("no summary of %s: %s", chat, exc.status)
            name = ""
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("summary of %s unavailable: %r", chat, exc)
            return kept[1] if kept is not None else ""
        _keep(self._names, chat, (self.monotonic() + PROFILE_TTL, name))
        return name

    async def profile(self, user_id: str, chat: str | None) -> User:
        """The user's name and language: their own profile when they are the bot's friend
        (remembered for PROFILE_TTL), else their name in the group (no language; remembered
        for STRANGER_TTL only: they may add the bot any time). LINE unreachable or slow: what
        was remembered, however old, else "?"."""
        kept = self._profiles.get(user_id)
        if kept is not None and kept[0] > self.monotonic():
            return kept[1]
        try:
            user, ttl = await self._fetch_profile(user_id, chat), PROFILE_TTL
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("profile of %s unavailable: %r", user_id, exc)
            return kept[1] if kept is not None else User(qualify(user_id), "?")
        if user.language is None:
            ttl = STRANGER_TTL
        _keep(self._profiles, user_id, (self.monotonic() + ttl, user))
        return user

    async def _fetch_profile(self, user_id: str, chat: str | None) -> User:
        name, language = "?", None
        try:
            found = await self._lookup(self.api.get_profile(user_id))
            name, language = str(found.display_name), found.language
        except ApiException:
            if chat and chat != user_id:
                try:
                    member = await self._lookup(self._member(chat, user_id))
                    name = str(member.display_name)
                except ApiException as exc:
                    log.info("no profile of %s: %s", user_id, exc.status)
        return User(qualify(user_id), name, language)

    # --- messages out ----------------------------------------------------------------------

    def _take(self, token: object) -> str | None:
        """The token if it was never used and is fresh (`LINE_REPLY_WITHIN` seconds after its
        event); it counts as used from now on."""
        if not isinstance(token, str):
            return None
        issued = self._tokens.pop(token, None)
        if issued is None or self.monotonic() - issued > self.settings.line.reply_within:
            if issued is not None:
                log.info("reply token of %.0f s ago not used", self.monotonic() - issued)
            return None
        return token

    async def send(self, message: Message) -> str | None:
        """Reply with the message's token when it has an unused one, else push (never to a
        user who has not added the bot). The message and those it carries go in one request.
        Undelivered when LINE could not be reached after the retries."""
        body = [message_object(m) for m in (message, *message.also)]
        token = self._take(message.answers)
        if token is None and message.answers is not None and self.capabilities.hold_unasked:
            # Too late to reply: a group's update waits for the next event there (parked), as
            # one that answers nothing; anything else is pushed where LINE allows it.
            self.runner.delivery.post([replace(message, answers=None)])
            return None
        try:
            if token is not None:
                request = ReplyMessageRequest.from_dict({"replyToken": token, "messages": body})
                try:
                    sent = await self._retried(lambda: self.api.reply_message(request))
                    self.replies += 1
                    metrics.SENT.labels(self.platform, "reply").inc()
                    return _first_id(sent)
                except _Gone:  # used by a try whose answer was lost: delivered
                    return None
                except ApiException as exc:  # expired after all: tell them by push instead
                    if exc.status != 400 or "reply token" not in str(exc.body).lower():
                        raise
                    log.info("reply refused (%s): pushing", exc.body)
            if not await self._may_push(message):
                return None
            return await self._push(message.chat, body)
        except ApiException as exc:
            metrics.API_ERRORS.labels(self.platform).inc()
            log.warning("could not deliver to %s: %s %s", message.chat, exc.status, exc.body)
        return None

    async def _may_push(self, message: Message) -> bool:
        """A push goes to a group, or to a user who added the bot (LINE refuses the rest)."""
        to = line_id(message.chat)
        if not to.startswith("U") or await self.sessions.people.reachable(message.chat):
            return True
        log.info("no push to %s: not the bot's friend", to)
        return False

    async def _push(self, chat: str, body: list[dict[str, Any]]) -> str | None:
        """A push, retried with the same retry key: LINE delivers it at most once."""
        request = PushMessageRequest.from_dict({"to": line_id(chat), "messages": body})
        key = str(uuid.uuid4())
        try:
            sent = await self._retried(lambda: self.api.push_message(request, x_line_retry_key=key))
        except _Gone:  # an earlier try went through (its answer was lost)
            sent = None
        self.pushes += 1
        metrics.SENT.labels(self.platform, "push").inc()
        return _first_id(sent)

    async def _retried(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """`call`, tried again with backoff on timeouts, 429 and 5xx; _Gone when a retry
        finds the first try accepted (a used reply token, a retry key seen); Undelivered
        when every try failed."""
        failed: BaseException | None = None
        for attempt, pause in enumerate((*RETRY_BACKOFF, None)):
            try:
                return await asyncio.wait_for(call(), SEND_TIMEOUT)
            except ApiException as exc:
                if failed is not None and (exc.status == 409 or _token_refused(exc)):
                    raise _Gone from exc
                if exc.status != 429 and exc.status < 500:
                    raise
                failed = exc
            except (TimeoutError, aiohttp.ClientError) as exc:
                failed = exc
            metrics.API_ERRORS.labels(self.platform).inc()
            if pause is None:
                break
            log.info("LINE call failed (%r), try %d again in %.1f s", failed, attempt + 2, pause)
            await self.sleep(pause)
        raise Undelivered(repr(failed))


class _Gone(Exception):
    """A retried request that LINE had accepted already."""


def _token_refused(exc: ApiException) -> bool:
    return exc.status == 400 and "reply token" in str(exc.body).lower()


def _keep(cache: OrderedDict[str, Any], key: str, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > PROFILES_KEPT:
        cache.popitem(last=False)


def _text_of(event: Any) -> str:
    """The text of a text message event, else ""."""
    message = getattr(event, "message", None)
    return str(getattr(message, "text", "") or "") if event.type == "message" else ""


def _first_id(sent: Any) -> str | None:
    messages = getattr(sent, "sent_messages", None) or []
    return str(messages[0].id) if messages else None
