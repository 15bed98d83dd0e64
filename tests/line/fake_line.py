"""A strict local fake of the LINE Messaging API, for end-to-end tests of the LINE adapter.

Only what the bot calls: reply, push, the bot's info, profiles and group member profiles. It
refuses what LINE refuses: a missing or wrong channel access token (401), a reply token that is
unknown, used already or older than `token_life` seconds (400 "Invalid reply token"), more
than 5 messages a request, over-long texts, labels and postback data, more than 13 quick reply
items (400), a push to a user who is not the bot's friend or to a group it is not in (400), a
push whose X-Line-Retry-Key was accepted before (409). It can fail sends on purpose (5xx, or
an answer lost after delivering) and stall its look-ups (a slow API).

It also makes the webhook side: events with fresh reply tokens, and signed bodies
(X-Line-Signature: base64 of the HMAC-SHA256 of the body with the channel secret).

And LINE Login's side of a LIFF app: ID tokens issued to users (`id_token`), checked by
`POST /oauth2/v2.1/verify` as LINE does (400 with an error JSON for a forged or expired token
or one of another channel); `GET /liff-test/sdk.js` serves the tests' stand-in for the LIFF
SDK (tests/line/liff_sdk.js), whose `sendMessages` calls `POST /liff-test/send`: the text
becomes a signed message event in the group, with a fresh reply token, posted to `webhook`.

    async with FakeLine.running() as line:
        ann = line.user("Ann", "en")
        group = line.group(ann)
        body, signature = line.signed(line.text(group, ann, "/newgame"))
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import itertools
import json
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import aiohttp
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from chatbot.settings import LineSettings, Settings
from tests.local_server import LocalServer

JSON = dict[str, Any]
SECRET = "fake-channel-secret-0123456789ab"
ACCESS_TOKEN = "fake-channel-access-token"
BOT_ID = "Ubot00000000000000000000000000000"
BASIC_ID = "@fakebot"
LOGIN_CHANNEL = "1650000000"  # the LINE Login channel of the LIFF app
SDK_FILE = Path(__file__).with_name("liff_sdk.js")
INVALID_TOKEN = "Invalid reply token"


class Refused(Exception):
    def __init__(self, status: int, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.details = status, message, details or []


@dataclass
class Sent:
    """One message the bot delivered: to whom, how (reply or push) and what."""

    chat: str
    via: str  # "reply" or "push"
    message: JSON
    token: str | None = None

    @property
    def text(self) -> str:
        if self.message["type"] == "text":
            return str(self.message["text"])
        return str(self.message.get("altText", ""))

    def actions(self) -> list[JSON]:
        """The message's button actions (Flex buttons and quick reply items)."""
        found: list[JSON] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if node.get("type") == "button" and "action" in node:
                    found.append(node["action"])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(self.message.get("contents"))
        for item in self.message.get("quickReply", {}).get("items", []):
            found.append(item["action"])
        return found

    def data(self) -> list[str]:
        return [a["data"] for a in self.actions() if a.get("type") == "postback"]


@dataclass
class _Token:
    chat: str
    issued: float
    used: bool = False


@dataclass
class FakeLine:
    secret: str = SECRET
    access_token: str = ACCESS_TOKEN
    token_life: float = 60.0
    clock: Callable[[], float] = time.monotonic
    friends: dict[str, JSON] = field(default_factory=dict)  # user id -> profile
    users: dict[str, JSON] = field(default_factory=dict)
    groups: dict[str, set[str]] = field(default_factory=dict)  # group id -> member ids
    group_names: dict[str, str] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # (path, status, why)
    calls: list[str] = field(default_factory=list)
    tokens: dict[str, _Token] = field(default_factory=dict)
    port: int = 0
    # Failures to play, for the next pushes (`reply_failures`: replies): an HTTP status LINE
    # answers instead (nothing delivered), or "lost": delivered, but answered 500.
    failures: list[int | str] = field(default_factory=list)
    reply_failures: list[int | str] = field(default_factory=list)
    retry_keys: dict[str, JSON] = field(default_factory=dict)  # accepted key -> its answer
    retry_key_of: list[str | None] = field(default_factory=list)  # each push's X-Line-Retry-Key
    # While set and not released, the look-ups (bot info, profiles, group summary) wait for it:
    # LINE's API slow or stalled.
    stall: asyncio.Event | None = None
    id_tokens: dict[str, JSON] = field(default_factory=dict)  # issued ID token -> its claims
    webhook: str | None = None  # the bot's webhook URL, for the messages a LIFF page sends
    page_sent: list[tuple[str, str, str]] = field(default_factory=list)  # (group, user, text)

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)
        self._local: LocalServer | None = None

    # --- the world -------------------------------------------------------------------------

    def user(self, name: str, language: str | None = None, friend: bool = True) -> str:
        """A LINE user (by default the bot's friend); their id."""
        uid = f"U{next(self._ids):032x}"
        profile = {"userId": uid, "displayName": name}
        if language:
            profile["language"] = language
        self.users[uid] = profile
        if friend:
            self.friends[uid] = profile
        return uid

    def group(self, *members: str, room: bool = False, name: str = "Picnic") -> str:
        """A group ("C...") or a multi-person chat ("R...") with these members."""
        gid = f"{'R' if room else 'C'}{next(self._ids):032x}"
        self.groups[gid] = set(members)
        self.group_names[gid] = name
        return gid

    def id_token(self, user: str, channel: str = LOGIN_CHANNEL, life: float = 3600.0) -> str:
        """An ID token LINE Login issued to `user` for a LIFF app of `channel`, valid for
        `life` seconds (negative: expired already)."""
        token = f"idt.{next(self._ids):016x}.{base64.urlsafe_b64encode(os.urandom(12)).decode()}"
        now = int(time.time())
        self.id_tokens[token] = {
            "iss": "https://access.line.me",
            "sub": user,
            "aud": channel,
            "exp": now + int(life),
            "iat": now,
            "amr": ["linesso"],
            "name": self.users[user]["displayName"],
        }
        return token

    @property
    def replies(self) -> list[Sent]:
        return [s for s in self.sent if s.via == "reply"]

    @property
    def pushes(self) -> list[Sent]:
        return [s for s in self.sent if s.via == "push"]

    def to(self, chat: str) -> list[Sent]:
        return [s for s in self.sent if s.chat == chat]

    def answered(self, token: str) -> bool:
        return self.tokens[token].used

    # --- webhook events and bodies ---------------------------------------------------------

    def _event(
        self, kind: str, chat: str, user: str | None, token: bool = True, **more: Any
    ) -> JSON:
        if chat[0] in "CR":
            kind_of = "group" if chat[0] == "C" else "room"
            source: JSON = {"type": kind_of, f"{kind_of}Id": chat}
            if user:
                source["userId"] = user
        else:
            source = {"type": "user", "userId": chat}
        event: JSON = {
            "type": kind,
            "mode": "active",
            "timestamp": int(time.time() * 1000),
            "source": source,
            "webhookEventId": f"01FAKE{next(self._ids):020d}",
            "deliveryContext": {"isRedelivery": False},
            **more,
        }
        if token:
            reply = f"rt{next(self._ids):030x}"
            self.tokens[reply] = _Token(chat, self.clock())
            event["replyToken"] = reply
        return event

    def text(self, chat: str, user: str, text: str) -> JSON:
        message = {"id": str(next(self._ids)), "type": "text", "text": text, "quoteToken": "q"}
        return self._event("message", chat, user, message=message)

    def postback(self, chat: str, user: str, data: str) -> JSON:
        return self._event("postback", chat, user, postback={"data": data})

    def follow(self, user: str) -> JSON:
        self.friends[user] = self.users[user]
        return self._event("follow", user, user, follow={"isUnblocked": False})

    def unfollow(self, user: str) -> JSON:
        self.friends.pop(user, None)
        return self._event("unfollow", user, user, token=False)

    def join(self, group: str) -> JSON:
        return self._event("join", group, None)

    def leave(self, group: str) -> JSON:
        return self._event("leave", group, None, token=False)

    def member_joined(self, group: str, user: str) -> JSON:
        self.groups[group].add(user)
        joined = {"members": [{"type": "user", "userId": user}]}
        return self._event("memberJoined", group, None, joined=joined)

    def signed(self, *events: JSON, secret: str | None = None) -> tuple[str, str]:
        """A webhook body holding `events` and its X-Line-Signature."""
        body = json.dumps({"destination": BOT_ID, "events": list(events)})
        return body, signature(body, secret or self.secret)

    # --- the API ---------------------------------------------------------------------------

    def asgi_app(self) -> Starlette:
        routes = [
            Route("/v2/bot/message/reply", self._reply, methods=["POST"]),
            Route("/v2/bot/message/push", self._push, methods=["POST"]),
            Route("/v2/bot/info", self._info, methods=["GET"]),
            Route("/v2/bot/profile/{user}", self._profile, methods=["GET"]),
            Route("/v2/bot/group/{group}/member/{user}", self._member, methods=["GET"]),
            Route("/v2/bot/group/{group}/summary", self._summary, methods=["GET"]),
            Route("/v2/bot/room/{group}/member/{user}", self._member, methods=["GET"]),
            Route("/oauth2/v2.1/verify", self._verify, methods=["POST"]),
            Route("/liff-test/sdk.js", self._sdk, methods=["GET"]),
            Route("/liff-test/send", self._page_send, methods=["POST"]),
        ]
        return Starlette(routes=routes)

    async def _call(self, request: Request, act: Callable[[JSON], JSON]) -> JSONResponse:
        path = request.url.path
        self.calls.append(path)
        try:
            if request.headers.get("authorization") != f"Bearer {self.access_token}":
                raise Refused(401, "Authentication failed. Confirm that the access token is valid.")
            body: JSON = {}
            if request.method == "POST":
                try:
                    body = json.loads(await request.body())
                except ValueError:
                    raise Refused(400, "The request body has 1 error(s)") from None
            return JSONResponse(act({**body, **request.path_params}))
        except Refused as exc:
            self.refused.append((path, exc.status, exc.message))
            content: JSON = {"message": exc.message}
            if exc.details:
                content["details"] = [{"message": d, "property": "messages"} for d in exc.details]
            return JSONResponse(content, status_code=exc.status)

    @staticmethod
    def _failing(failures: list[int | str]) -> int | str | None:
        return failures.pop(0) if failures else None

    async def _reply(self, request: Request) -> JSONResponse:
        def act(body: JSON) -> JSON:
            failure = self._failing(self.reply_failures)
            if isinstance(failure, int):
                raise Refused(failure, "Internal server error")
            token = self.tokens.get(str(body.get("replyToken")))
            if token is None or token.used or self.clock() - token.issued > self.token_life:
                raise Refused(400, INVALID_TOKEN)
            messages = _checked(body.get("messages"))
            token.used = True
            answer = self._deliver(token.chat, "reply", messages, str(body["replyToken"]))
            if failure == "lost":
                raise Refused(500, "Internal server error")
            return answer

        return await self._call(request, act)

    async def _push(self, request: Request) -> JSONResponse:
        key = request.headers.get("x-line-retry-key")
        self.retry_key_of.append(key)

        def act(body: JSON) -> JSON:
            failure = self._failing(self.failures)
            if isinstance(failure, int):
                raise Refused(failure, "Internal server error")
            if key is not None and key in self.retry_keys:
                raise Refused(409, "The retry key is already accepted")
            to = str(body.get("to"))
            if to in self.groups:
                pass
            elif to in self.users:
                if to not in self.friends:
                    raise Refused(400, "Failed to send messages")
            else:
                raise Refused(400, "The property, 'to', in the request body is invalid")
            answer = self._deliver(to, "push", _checked(body.get("messages")))
            if key is not None:
                self.retry_keys[key] = answer
            if failure == "lost":
                raise Refused(500, "Internal server error")
            return answer

        return await self._call(request, act)

    async def _stalled(self) -> None:
        if self.stall is not None:
            await self.stall.wait()

    def _deliver(self, chat: str, via: str, messages: list[JSON], token: str | None = None) -> JSON:
        out = []
        for message in messages:
            self.sent.append(Sent(chat, via, message, token))
            out.append({"id": str(next(self._ids)), "quoteToken": "q"})
        return {"sentMessages": out}

    async def _info(self, request: Request) -> JSONResponse:
        await self._stalled()
        info = {
            "userId": BOT_ID,
            "basicId": BASIC_ID,
            "displayName": "Game bot",
            "chatMode": "bot",
            "markAsReadMode": "auto",
        }
        return await self._call(request, lambda body: info)

    async def _profile(self, request: Request) -> JSONResponse:
        await self._stalled()

        def act(body: JSON) -> JSON:
            profile = self.friends.get(str(body["user"]))
            if profile is None:
                raise Refused(404, "Not found")
            return profile

        return await self._call(request, act)

    async def _member(self, request: Request) -> JSONResponse:
        await self._stalled()
        room = request.url.path.startswith("/v2/bot/room/")

        def act(body: JSON) -> JSON:
            user, group = str(body["user"]), str(body["group"])
            if group[:1] != ("R" if room else "C") or user not in self.groups.get(group, set()):
                raise Refused(404, "Not found")
            return {"userId": user, "displayName": self.users[user]["displayName"]}

        return await self._call(request, act)

    async def _summary(self, request: Request) -> JSONResponse:
        await self._stalled()

        def act(body: JSON) -> JSON:
            group = str(body["group"])
            if not group.startswith("C") or group not in self.groups:
                raise Refused(404, "Not found")
            return {"groupId": group, "groupName": self.group_names[group], "pictureUrl": ""}

        return await self._call(request, act)

    async def _verify(self, request: Request) -> JSONResponse:
        """LINE Login's ID token check: the claims, or 400 with LINE's error JSON."""
        self.calls.append(request.url.path)
        form = dict(parse_qsl((await request.body()).decode()))
        claims = self.id_tokens.get(form.get("id_token", ""))
        why = None
        if claims is None:
            why = "Invalid IdToken."
        elif claims["exp"] <= time.time():
            why = "IdToken expired."
        elif claims["aud"] != form.get("client_id"):
            why = "Invalid IdToken Audience."
        if why is not None:
            self.refused.append((request.url.path, 400, why))
            error = {"error": "invalid_request", "error_description": why}
            return JSONResponse(error, status_code=400)
        return JSONResponse(claims)

    async def _sdk(self, request: Request) -> Response:
        return Response(SDK_FILE.read_text("utf-8"), media_type="text/javascript")

    async def _page_send(self, request: Request) -> JSONResponse:
        """`liff.sendMessages` in a group: each text becomes the user's message event there,
        with a fresh reply token, signed and posted to the bot's webhook (as LINE does)."""
        cors = {"access-control-allow-origin": "*"}
        body = json.loads(await request.body())
        claims = self.id_tokens.get(str(body.get("idToken")))
        group = str(body.get("chat"))
        if claims is None or group not in self.groups or claims["sub"] not in self.groups[group]:
            return JSONResponse({"message": "not allowed"}, status_code=403, headers=cors)
        events = []
        for message in body.get("messages", []):
            self.page_sent.append((group, claims["sub"], message["text"]))
            events.append(self.text(group, claims["sub"], message["text"]))
        payload, signed = self.signed(*events)
        assert self.webhook is not None, "the bot's webhook URL"
        headers = {"x-line-signature": signed, "content-type": "application/json"}
        async with (
            aiohttp.ClientSession() as http,
            http.post(self.webhook, data=payload, headers=headers) as response,
        ):
            status = response.status
        return JSONResponse({"webhook": status}, headers=cors)

    # --- serving ---------------------------------------------------------------------------

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[FakeLine]:
        fake = cls(**kwargs)
        await fake.start()
        try:
            yield fake
        finally:
            await fake.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Serve on 127.0.0.1 on a free port, as a task of the running event loop."""
        self._local = LocalServer(self.asgi_app(), "the fake LINE server")
        self.port = await self._local.start()

    async def stop(self) -> None:
        if self._local is not None:
            await self._local.stop()
            self._local = None


def signature(body: str, secret: str) -> str:
    """LINE's X-Line-Signature of a webhook body."""
    digest = hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def _checked(messages: Any) -> list[JSON]:
    """The messages of a request, refused (400) where LINE refuses them."""
    if not isinstance(messages, list) or not 1 <= len(messages) <= 5:
        raise Refused(400, "The request body has 1 error(s)", ["Size must be between 1 and 5"])
    problems: list[str] = []
    for message in messages:
        kind = message.get("type")
        if kind == "text":
            if not 1 <= len(message.get("text", "")) <= 5000:
                problems.append("text: length must be between 1 and 5000")
        elif kind == "flex":
            if not 1 <= len(message.get("altText", "")) <= 1500:
                problems.append("altText: length must be between 1 and 1500")
            if len(json.dumps(message["contents"])) > 30_000:
                problems.append("contents: a bubble over 30 KB")
        else:
            problems.append(f"type {kind!r} not used by this fake")
        items = message.get("quickReply", {}).get("items", [])
        if len(items) > 13:
            problems.append("quickReply.items: size must be between 0 and 13")
        for action in Sent("", "", message).actions():
            label = action.get("label", "")
            if not 1 <= len(label) <= 20:
                problems.append(f"action.label: length must be between 1 and 20: {label!r}")
            if action.get("type") == "postback" and not 1 <= len(action["data"].encode()) <= 300:
                problems.append("action.data: size must be between 1 and 300")
            if action.get("type") == "uri" and not action.get("uri", "").startswith("https://"):
                problems.append("action.uri: must be https")
    if problems:
        raise Refused(400, "The request body has 1 error(s)", problems)
    return messages


def bot_settings(line: FakeLine, **overrides: Any) -> Settings:
    """A LINE bot's settings pointed at `line`, as the tests run it: computers move at once,
    table updates go at once, nothing ticks in the background (the tests tick) and a webhook
    is answered once its events were handled (however slow the machine), unless `overrides`
    say otherwise."""
    options: dict[str, Any] = {"bot_delay": 0, "table_interval": 0, "tick": 3600, **overrides}
    line_options = {k[5:]: options.pop(k) for k in list(options) if k.startswith("line_")}
    line_settings = LineSettings(
        channel_secret=SECRET,
        channel_access_token=ACCESS_TOKEN,
        api_base_url=line.base_url,
        answer_within=600.0,
    )
    return Settings(line=replace(line_settings, **line_options), **options)


def liff_settings(line: FakeLine, **overrides: Any) -> Settings:
    """`bot_settings` with the hand page (a LIFF app of the fake's LINE Login channel, its SDK
    the tests' stand-in served by the fake)."""
    options: dict[str, Any] = {
        "line_liff_id": f"{LOGIN_CHANNEL}-HandPage",
        "line_login_channel_id": LOGIN_CHANNEL,
        "line_liff_sdk_url": f"{line.base_url}/liff-test/sdk.js",
        **overrides,
    }
    return bot_settings(line, **options)
