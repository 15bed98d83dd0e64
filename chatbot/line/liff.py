"""The hand page: a LIFF app opened from the group's table, where a player sees their hand and
moves, so that a move made there costs no push (docs/platforms.md).

- `GET /liff/hand`: the page (hand.html, hand.js, hand.css beside this module; the LIFF SDK
  from `LINE_LIFF_SDK_URL`).
- `GET /liff/api/hand?game=<group id>`: the page's words, the player's hand (the chat's own
  hand message: its text and buttons) and the group's table, in the player's language.
- `POST /liff/api/move` `{game, data, heard}`: a button of that hand, handled as a press in the
  player's 1:1 chat (the same stamps, checks and refusals), nothing sent to that chat; the
  answer and the hand now. The group's update waits for the page's own message in the group
  (`ECHO`, sent by `liff.sendMessages`: an event with a free reply), unless `heard` is false.
- `POST /liff/api/unheard` `{game}`: the page could not post in the group: its updates go as
  if no page held them.

Every call carries the page's LIFF ID token (`Authorization: Bearer`), checked with LINE's
verify endpoint for the LINE Login channel; its `sub` is the player, who sees only their own
seat of a game they sit in.
"""

from __future__ import annotations

import base64
import html
import logging
import math
import re
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

import aiohttp
import orjson
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from chatbot.bodies import TooLarge, bounded_body
from chatbot.core import buttons as b
from chatbot.core.model import Incoming, Message, Press, User
from chatbot.core.session import BadSession, Session
from chatbot.i18n import N_, Translator, negotiate, translator
from chatbot.line.convert import PREFIX, line_id, plain, qualify

if TYPE_CHECKING:
    from chatbot.core.runner import Runner
    from chatbot.core.service import GameService
    from chatbot.core.sessions import Sessions
    from chatbot.settings import Settings

log = logging.getLogger(__name__)
ECHO = "🃏"  # what the page posts in the group after a move: its reply carries the table
TOKENS_KEPT = 10_000  # verified ID tokens remembered (until they expire), and refused ones
REFUSED_FOR = 24 * 3600.0  # seconds a refused token is remembered at most (its own exp, if read)
CLIENTS_KEPT = 10_000  # clients whose verify calls are counted (the longest idle go first)
VERIFY_TIMEOUT = 5.0  # seconds LINE's verify endpoint may take
BODY_LIMIT = 16_384  # bytes of a page's request read at most (a move is a few dozen)
FILES = {"hand.js": "text/javascript", "hand.css": "text/css"}
JSON = dict[str, Any]
T = TypeVar("T")

# The page's words (translated for the player; the page itself has none of its own).
WORDS = {
    "title": N_("🃏 My hand"),
    "table": N_("🎲 The table"),
    "sending": N_("Sending your move…"),
    "posted": N_("Your move is in: the group sees it now."),
    "unheard": N_("This page cannot post in the group: the bot tells the group itself."),
    "refresh": N_("🔄 Refresh"),
    "failed": N_("Something went wrong on my side: please try again in a moment."),
}
LOADING = N_("Loading your hand…")
UNVERIFIED = N_("Your LINE login could not be checked: open this page again from the group.")
TOO_MANY = N_("Too many logins from here: wait a minute, then open this page again.")
NOT_OURS = N_("This button is no longer in use.")


class Players(Protocol):
    """What the page needs of the LINE bot that serves it."""

    settings: Settings
    sessions: Sessions
    service: GameService
    runner: Runner

    async def profile(self, user_id: str, chat: str | None) -> User: ...


@dataclass(frozen=True)
class Refusal(Exception):
    """A request the page gets a reason for (`status`: the HTTP status; `text`: a msgid, or
    the reason translated already when `translated`)."""

    status: int
    text: str
    translated: bool = False


class IdTokens:
    """LIFF ID tokens checked with LINE's verify endpoint (`POST /oauth2/v2.1/verify`, the
    LINE Login channel as `client_id`); a verified token is remembered until it expires, a
    refused one until the expiry it claims (a day at most), and each client (its address) may
    make `per_minute` calls to LINE a minute (as many at once), so that strangers' tokens cost
    LINE a bounded number of calls."""

    def __init__(
        self, base_url: str, channel: str, clock: Callable[[], float], per_minute: float = 10.0
    ) -> None:
        self.url = f"{base_url.rstrip('/')}/oauth2/v2.1/verify"
        self.channel = channel
        self.clock = clock
        self.per_minute = per_minute
        self._known: OrderedDict[str, tuple[str, float]] = OrderedDict()  # token -> (sub, exp)
        self._refused: OrderedDict[str, float] = OrderedDict()  # token -> remembered until
        self._calls: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (left, at)
        self._http: aiohttp.ClientSession | None = None

    async def user(self, token: str, client: str = "") -> str:
        """The LINE user id the token was issued to; Refusal (401) for a token LINE refuses
        (forged, expired, for another channel), or (429) when `client` has made its calls."""
        now = self.clock()
        kept = self._known.get(token)
        if kept is not None and kept[1] > now:
            return kept[0]
        if self._refused.get(token, 0.0) > now:
            raise Refusal(401, UNVERIFIED)
        self._spend(client, now)
        try:
            return await self._verified(token)
        except Refusal as refusal:
            if refusal.status == 401:
                claimed = _claimed_exp(token)  # (a forged token's claim: a day at most)
                until = min(now + REFUSED_FOR, claimed) if claimed > now else now + REFUSED_FOR
                _keep(self._refused, token, until)
            raise

    def _spend(self, client: str, now: float) -> None:
        """Count a call to LINE for `client` (a bucket of `per_minute` calls, refilled at
        that rate); Refusal (429) when it is empty."""
        left, at = self._calls.pop(client, (self.per_minute, now))
        left = min(self.per_minute, left + (now - at) * self.per_minute / 60)
        if left < 1:
            self._calls[client] = (left, now)
            log.info("ID token of %s not verified: too many calls", client or "a client")
            raise Refusal(429, TOO_MANY)
        _keep(self._calls, client, (left - 1, now))

    async def _verified(self, token: str) -> str:
        if self._http is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(VERIFY_TIMEOUT))
        form = {"id_token": token, "client_id": self.channel}
        try:
            async with self._http.post(self.url, data=form) as response:
                found = await response.json(content_type=None)
                status = response.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("ID token not verified: %r", exc)
            raise Refusal(503, WORDS["failed"]) from exc
        if not isinstance(found, dict):
            log.warning("ID token not verified: an answer of %s", type(found).__name__)
            raise Refusal(503, WORDS["failed"])
        sub, exp = found.get("sub"), found.get("exp")
        if status != 200 or not isinstance(sub, str) or not isinstance(exp, int | float):
            log.info("ID token refused: %s %s", status, found.get("error_description"))
            raise Refusal(401, UNVERIFIED)
        if found.get("aud") != self.channel or exp <= self.clock():
            raise Refusal(401, UNVERIFIED)
        _keep(self._known, token, (sub, float(exp)))
        return sub

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None


class HandPage:
    """The hand page and its API, for one LINE bot."""

    def __init__(self, bot: Players, liff_id: str, channel: str) -> None:
        self.bot = bot
        self.liff_id = liff_id
        base = bot.settings.line.api_base_url or "https://api.line.me"
        per_minute = bot.settings.line.liff_verify_per_minute
        self.tokens = IdTokens(base, channel, bot.sessions.clock, per_minute)
        folder = resources.files(__package__ or "chatbot.line")
        self.page = (folder / "hand.html").read_text("utf-8")
        self.files = {name: (folder / name).read_text("utf-8") for name in FILES}
        sdk = urlsplit(bot.settings.line.liff_sdk_url)
        self.policy = page_policy(f"{sdk.scheme}://{sdk.netloc}")

    def url(self, chat: str) -> str:
        """The LIFF URL that opens the page for the game of `chat` (LINE passes its query on
        to the page)."""
        return f"https://liff.line.me/{self.liff_id}?game={line_id(chat)}"

    def routes(self) -> list[Route]:
        return [
            Route("/liff/hand", self.hand_page, methods=["GET"]),
            Route("/liff/static/{name}", self.static, methods=["GET"]),
            Route("/liff/api/hand", self.hand, methods=["GET"]),
            Route("/liff/api/move", self.move, methods=["POST"]),
            Route("/liff/api/unheard", self.unheard, methods=["POST"]),
        ]

    # --- the page --------------------------------------------------------------------------

    async def hand_page(self, request: Request) -> HTMLResponse:
        tr = translator(_accepted(request))
        filled = {
            "{{lang}}": tr.locale,
            "{{liff_id}}": html.escape(self.liff_id),
            "{{sdk}}": html.escape(self.bot.settings.line.liff_sdk_url),
            "{{loading}}": html.escape(tr.gettext(LOADING)),
        }
        page = self.page
        for mark, value in filled.items():
            page = page.replace(mark, value)
        headers = {"cache-control": "no-store", "content-security-policy": self.policy}
        return HTMLResponse(page, headers=headers)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in FILES:
            return Response("not found", status_code=404)
        return Response(self.files[name], media_type=FILES[name])

    # --- the API ---------------------------------------------------------------------------

    async def hand(self, request: Request) -> JSONResponse:
        try:
            user, chat = await self._player(request, request.query_params.get("game"))
            session = await self._session(chat)
            tr = await self._translator(user, session)
            shown = self._shown_of(await self.bot.service.moves.hand_of(_asking(user), chat))
            return JSONResponse({"words": _words(tr), **shown})
        except Refusal as refusal:
            return await self._refused(request, refusal)

    async def move(self, request: Request) -> JSONResponse:
        try:
            body = await _body(request)
            user, chat = await self._player(request, body.get("game"))
            data, heard = body.get("data"), body.get("heard") is not False
            if not isinstance(data, str):
                raise Refusal(400, NOT_OURS)
            update = f"{PREFIX}page:{uuid.uuid4().hex}"
            inc = Press(
                chat=user.id,
                private=True,
                user=user,
                data=data,
                update_id=update,
                aside=True,
                unheard=not heard,
            )
            code = inc.code
            if code is None or code.op not in (b.MOVE, b.NAV) or code.fields[:1] != (chat,):
                raise Refusal(400, NOT_OURS)
            before = await self._moves(chat)
            answer = await self.bot.runner.handle(inc)
            session = await self._session(chat)  # the game after it
            after = math.inf if session is None else session.moves
            tr = await self._translator(user, session)
            told = [answer.text] if answer is not None and answer.text else []
            if after == math.inf:  # the game is over: what the chat would have said
                told += [m.text for m in answer.shown] if answer is not None else []
                shown: JSON = {"hand": None, "table": ""}
            else:
                shown = self._shown_of(await self.bot.service.moves.hand_of(_asking(user), chat))
            steps = [m for m in answer.shown if m.buttons] if answer else []
            if code.op == b.NAV and steps and after == before:  # a step of a choice
                shown["hand"] = _message(steps[-1])
            said = "\n".join(plain(text) for text in told)
            moved = after != before
            return JSONResponse({"words": _words(tr), "said": said, "moved": moved, **shown})
        except Refusal as refusal:
            return await self._refused(request, refusal)

    async def unheard(self, request: Request) -> JSONResponse:
        try:
            body = await _body(request)
            user, chat = await self._player(request, body.get("game"))
            tr = await self._translator(user, await self._session(chat))
            if isinstance(await self.bot.service.moves.hand_of(_asking(user), chat), str):
                raise Refusal(403, N_("You are not playing in this game."))
            await self.bot.runner.delivery.release(chat, None)
            return JSONResponse({"said": tr.gettext(WORDS["unheard"])})
        except Refusal as refusal:
            return await self._refused(request, refusal)

    async def _player(self, request: Request, game: Any) -> tuple[User, str]:
        """The verified user and the game's chat, or Refusal."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refusal(401, UNVERIFIED)
        client = request.client.host if request.client is not None else ""
        sub = await self.tokens.user(token.strip(), client)
        if not isinstance(game, str) or not re.fullmatch(r"[CR][0-9a-f]{1,64}", game):
            raise Refusal(400, N_("No game is running here."))
        return await self.bot.profile(sub, game), qualify(game)

    @staticmethod
    def _shown_of(got: tuple[Message, Message] | str) -> JSON:
        """The user's hand and the table (Refusal 403 when there is none for them)."""
        if isinstance(got, str):
            raise Refusal(403, got, translated=True)
        hand, table = got
        return {"hand": _message(hand), "table": plain(table.text), "echo": ECHO}

    async def _moves(self, chat: str) -> float:
        """The game's count of moves (infinite once it is over and gone)."""
        session, _ = await self.bot.sessions.load(chat)
        return math.inf if session is None else session.moves

    async def _session(self, chat: str) -> Session | None:
        """The game of `chat` (None: gone, or unreadable)."""
        try:
            return (await self.bot.sessions.load(chat))[0]
        except BadSession:
            return None

    async def _translator(self, user: User, session: Session | None) -> Translator:
        """The words of the user's seat in `session` (its hand's language), else of the
        user."""
        seat = session.seat_of(user.id) if session is not None else None
        if session is not None and seat is not None:
            return translator(session.seats[seat].language)
        return translator(await self.bot.sessions.people.user_language(user.id, user.language))

    async def _refused(self, request: Request, refusal: Refusal) -> JSONResponse:
        """The reason, in the player's language when it was told with it, else in the
        browser's."""
        tr = translator(_accepted(request))
        text = refusal.text if refusal.translated else tr.gettext(refusal.text)
        return JSONResponse({"error": text, "words": _words(tr)}, status_code=refusal.status)

    async def close(self) -> None:
        await self.tokens.close()


def _keep(kept: OrderedDict[str, T], key: str, value: T) -> None:
    """Remember `value` for `key` as the newest, the oldest going past TOKENS_KEPT."""
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > TOKENS_KEPT:
        kept.popitem(last=False)


def _claimed_exp(token: str) -> float:
    """The expiry a JWT says of itself, unverified (0: it says none that can be read)."""
    try:
        payload = token.split(".")[1]
        claims = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        exp = claims.get("exp") if isinstance(claims, dict) else None
        return float(exp) if isinstance(exp, int | float) else 0.0
    except (IndexError, ValueError, TypeError, OverflowError):
        return 0.0


def page_policy(sdk: str) -> str:
    """The page's Content-Security-Policy: its own files, the LIFF SDK from `sdk` (an
    origin), which talks to LINE; nothing inline (the web server adds who may frame it)."""
    line = "https://*.line.me https://*.line-scdn.net"
    return (
        f"default-src 'self'; script-src 'self' {sdk}; connect-src 'self' {sdk} {line}; "
        f"img-src 'self' data: {line}; style-src 'self'; frame-src 'self' {line}; "
        "object-src 'none'; base-uri 'none'; form-action 'self'"
    )


def _asking(user: User) -> Incoming:
    """The user asking for their hand in their own chat."""
    return Incoming(chat=user.id, private=True, user=user)


def _words(tr: Translator) -> dict[str, str]:
    return {key: tr.gettext(msgid) for key, msgid in WORDS.items()}


def _message(message: Message) -> JSON:
    """A hand message for the page: its text (the chat's HTML subset) and its buttons."""
    rows = [[{"label": x.label, "data": x.data} for x in row if x.data] for row in message.buttons]
    return {"text": message.text, "buttons": [row for row in rows if row]}


def _accepted(request: Request) -> str:
    """The browser's first language (negotiated among the bot's)."""
    first = request.headers.get("accept-language", "").split(",")[0].split(";")[0].strip()
    return negotiate(first or None)


async def _body(request: Request) -> JSON:
    """The request's JSON object, read no further than BODY_LIMIT bytes."""
    try:
        body = orjson.loads(await bounded_body(request, BODY_LIMIT))
    except TooLarge:
        raise Refusal(413, NOT_OURS) from None
    except ValueError:
        raise Refusal(400, NOT_OURS) from None
    if not isinstance(body, dict):
        raise Refusal(400, NOT_OURS)
    return body
