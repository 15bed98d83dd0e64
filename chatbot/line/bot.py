"""The LINE adapter: signed webhook bodies in, the runner between, the Messaging API out.

Replies first, pushes last: a message that answers an event goes out with the event's reply
token (free, single use, short-lived); only messages nothing answers are pushed (a small
monthly quota). A token is used at most once and never after `REPLY_WITHIN` seconds.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import quote

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

from chatbot import metrics
from chatbot.core.model import Capabilities, Message, User
from chatbot.core.registry import Registry
from chatbot.core.runner import Runner
from chatbot.core.service import GameService
from chatbot.core.tables import Platform, Tables
from chatbot.line.convert import (
    LABEL_CHARS,
    incoming,
    line_id,
    message_object,
    qualify,
    sender_id,
    source_ids,
)
from chatbot.settings import Settings
from chatbot.store.base import Store

log = logging.getLogger(__name__)
ID_RETRY = 60.0  # seconds between tries to learn the bot's id while LINE was unreachable
REPLY_WITHIN = 50.0  # seconds a reply token is trusted (LINE keeps it about a minute)
TOKENS_KEPT = 10_000  # unused reply tokens remembered
PROFILES_KEPT = 10_000  # names and languages remembered
PROFILE_TTL = 3600.0  # seconds a remembered name is trusted
EVENT_WINDOW = 300.0  # seconds after its timestamp an event is still handled (then: a replay)


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

    def __init__(
        self,
        settings: Settings,
        store: Store,
        games: Registry,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if not settings.line_channel_secret or not settings.line_channel_access_token:
            raise ValueError("LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN must be set")
        self.settings = settings
        self.monotonic = monotonic
        self.parser = WebhookParser(settings.line_channel_secret)
        host = settings.line_api_base_url.rstrip("/") if settings.line_api_base_url else None
        config = Configuration(host=host, access_token=settings.line_channel_access_token)
        self.client = AsyncApiClient(config)
        self.api = AsyncMessagingApi(self.client)
        self.basic_id: str | None = None  # the bot's "@..." id, for links into its chat
        self._id_asked = -math.inf
        platform = Platform(self.capabilities, self.deep_link, is_member=self.is_member)
        self.tables = Tables(store, settings, games, platform, clock=clock)
        self.service = GameService(self.tables)
        self.runner = Runner(self.service, self, monotonic=monotonic)
        self._tokens: OrderedDict[str, float] = OrderedDict()  # unused token -> when received
        self._profiles: OrderedDict[str, tuple[float, User]] = OrderedDict()
        self.replies = 0
        self.pushes = 0

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
            info = await self.api.get_bot_info()
            self.basic_id = str(info.basic_id)
        except Exception as exc:  # refused, or LINE unreachable (DNS, connection)
            log.warning("bot info unavailable: %r", exc)

    async def stop(self, close_store: bool = True) -> None:
        """Stop the timers, deliver what is owed, close the connections (the store's too,
        unless it is shared and closed by its owner)."""
        await self.runner.stop()
        await self.client.close()
        if close_store:
            await self.tables.store.close()

    # --- platform ports for the core -------------------------------------------------------

    def deep_link(self, payload: str) -> str | None:
        """A link that opens the bot's chat with `/start <payload>` typed in: the user's own
        message then earns a free reply."""
        if not self.basic_id:
            return None
        text = quote(f"/start {payload}", safe="")
        return f"https://line.me/R/oaMessage/{quote(self.basic_id, safe='@')}/?{text}"

    async def is_member(self, chat: str, user: str) -> bool:
        try:
            await self._member(line_id(chat), line_id(user))
        except ApiException:
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
        the channel's, else 200 once every event was handled (their messages are queued)."""
        try:
            events = self.parser.parse(body, signature or "")
        except (InvalidSignatureError, ValueError, KeyError, TypeError, RecursionError) as exc:
            log.info("webhook refused: %s", str(exc)[:200])
            return 400
        for event in events:
            if self._stale(event):
                continue
            await self.on_event(event)
        return 200

    def signed(self, body: str, signature: str | None) -> bool:
        """Whether `body` carries the channel's signature."""
        return bool(self.parser.signature_validator.validate(body, signature or ""))

    def _stale(self, event: Any) -> bool:
        """An event older than EVENT_WINDOW by its own timestamp (a signed request captured
        and sent again later) is dropped: within the window, its id makes a copy count once."""
        stamp = getattr(event, "timestamp", None)
        age = self.tables.clock() - stamp / 1000 if isinstance(stamp, int) else math.inf
        if age <= EVENT_WINDOW:
            return False
        log.warning("event %s dropped: %.0f s old", getattr(event, "webhook_event_id", "?"), age)
        return True

    async def on_event(self, event: Any) -> None:
        if self.basic_id is None and self.monotonic() - self._id_asked > ID_RETRY:
            await self.learn_id()
        token = getattr(event, "reply_token", None)
        if token:
            self._tokens[token] = self.monotonic()
            while len(self._tokens) > TOKENS_KEPT:
                self._tokens.popitem(last=False)
        user_id = sender_id(event)
        user = None
        if user_id:
            try:
                user = await self.profile(user_id, source_ids(event)[0])
            except Exception as exc:  # the API unreachable: the event still counts
                log.warning("profile of %s unavailable: %r", user_id, exc)
                user = User(qualify(user_id), "?")
        inc = incoming(event, user)
        if inc is not None and inc.command == "newgame" and not inc.private:
            inc = replace(inc, chat_title=await self._group_name(line_id(inc.chat)))
        if inc is not None:
            await self.runner.handle(inc)

    async def _group_name(self, chat: str) -> str:
        """A group's name (hand messages say which group they belong to); "" when unknown."""
        if not chat.startswith("C"):
            return ""
        try:
            summary = await self.api.get_group_summary(chat)
        except ApiException as exc:
            log.info("no summary of %s: %s", chat, exc.status)
            return ""
        return str(summary.group_name)

    async def profile(self, user_id: str, chat: str | None) -> User:
        """The user's name and language (their profile when they are the bot's friend, else
        their name in the group), remembered for a while."""
        kept = self._profiles.get(user_id)
        if kept is not None and kept[0] > self.monotonic():
            return kept[1]
        name, language = "?", None
        try:
            found = await self.api.get_profile(user_id)
            name, language = str(found.display_name), found.language
        except ApiException:
            if chat and chat != user_id:
                try:
                    member = await self._member(chat, user_id)
                    name = str(member.display_name)
                except ApiException as exc:
                    log.info("no profile of %s: %s", user_id, exc.status)
        user = User(qualify(user_id), name, language)
        self._profiles[user_id] = (self.monotonic() + PROFILE_TTL, user)
        self._profiles.move_to_end(user_id)
        while len(self._profiles) > PROFILES_KEPT:
            self._profiles.popitem(last=False)
        return user

    # --- messages out ----------------------------------------------------------------------

    def _take(self, token: str | None) -> str | None:
        """The token if it was never used and is fresh; it counts as used from now on."""
        if token is None:
            return None
        received = self._tokens.pop(token, None)
        if received is None or self.monotonic() - received > REPLY_WITHIN:
            return None
        return token

    async def send(self, message: Message) -> str | None:
        """Reply with the message's token when it has an unused one, else push."""
        body = [message_object(message)]
        token = self._take(message.reply_token)
        try:
            if token is not None:
                try:
                    request = ReplyMessageRequest.from_dict({"replyToken": token, "messages": body})
                    sent = await self.api.reply_message(request)
                    self.replies += 1
                    metrics.SENT.labels(self.platform, "reply").inc()
                    return _first_id(sent)
                except ApiException as exc:  # expired after all: tell them by push instead
                    if exc.status != 400 or "reply token" not in str(exc.body).lower():
                        raise
                    log.info("reply refused (%s): pushing", exc.body)
            request = PushMessageRequest.from_dict({"to": line_id(message.chat), "messages": body})
            sent = await self.api.push_message(request)
            self.pushes += 1
            metrics.SENT.labels(self.platform, "push").inc()
            return _first_id(sent)
        except ApiException as exc:
            metrics.API_ERRORS.labels(self.platform).inc()
            log.warning("could not deliver to %s: %s %s", message.chat, exc.status, exc.body)
        return None


def _first_id(sent: Any) -> str | None:
    messages = getattr(sent, "sent_messages", None) or []
    return str(messages[0].id) if messages else None
