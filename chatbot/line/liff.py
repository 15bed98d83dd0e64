"""LINE's side of the game page (`chatbot.page`): the page is a LIFF app opened from the
group's table (its endpoint URL: `<public base>/liff/page`), whose LIFF ID token proves the
player (checked with LINE's verify endpoint for the LINE Login channel; its `sub` is the
player). After a move, the page posts the move itself in the group as its player
(`liff.sendMessages`, the line starting with `ECHO`): the bot's free reply to it carries the
table, so a move costs no push (docs/platforms.md).
"""

from __future__ import annotations

import base64
import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Protocol, TypeVar

import aiohttp
import orjson

from chatbot.core.model import User
from chatbot.i18n import N_
from chatbot.line.convert import line_id, plain, qualify
from chatbot.page.identity import Refusal

if TYPE_CHECKING:
    from chatbot.core.sessions import Sessions
    from chatbot.settings import Settings

log = logging.getLogger(__name__)
ECHO = "🃏"  # the start of the page's line in the group after a move: its reply carries the table
TOKENS_KEPT = 10_000  # verified ID tokens remembered (until they expire), and refused ones
REFUSED_FOR = 24 * 3600.0  # seconds a refused token is remembered at most (its own exp, if read)
VERIFY_TIMEOUT = 5.0  # seconds LINE's verify endpoint may take
ECHO_CHARS = 200  # the page's line in the group, at most (a move's cards are a few dozen)
FAILED = N_("Something went wrong on my side: please try again in a moment.")
UNVERIFIED = N_("Your LINE login could not be checked: open this page again from the group.")
TOO_MANY = N_("Too many logins from here: wait a minute, then open this page again.")
T = TypeVar("T")


class Players(Protocol):
    """What the page needs of the LINE bot that serves it."""

    settings: Settings
    sessions: Sessions

    async def profile(self, user_id: str, chat: str | None) -> User: ...


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
            raise Refusal(503, FAILED) from exc
        if not isinstance(found, dict):
            log.warning("ID token not verified: an answer of %s", type(found).__name__)
            raise Refusal(503, FAILED)
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


class LineIdentity:
    """The game page's LINE side: LIFF ID tokens, group ids as game tokens, the page's line
    in the group after a move."""

    prefix = "/liff"
    glue = "page_line.js"
    sites = "https://*.line.me https://*.line-scdn.net"

    def __init__(self, bot: Players, liff_id: str, channel: str) -> None:
        self.bot = bot
        self.liff_id = liff_id
        self.sdk = bot.settings.line.liff_sdk_url
        base = bot.settings.line.api_base_url or "https://api.line.me"
        per_minute = bot.settings.line.liff_verify_per_minute
        self.tokens = IdTokens(base, channel, bot.sessions.clock, per_minute)
        source = (resources.files(__package__ or "chatbot.line") / self.glue).read_text("utf-8")
        self.glue_source = source.replace('"{{liff_id}}"', orjson.dumps(liff_id).decode())

    def url(self, chat: str) -> str:
        """The LIFF URL that opens the page for the game of `chat` (LINE passes its query on
        to the page)."""
        return f"https://liff.line.me/{self.liff_id}?game={line_id(chat)}"

    async def user(self, scheme: str, credential: str, game: str, client: str = "") -> User:
        if scheme.lower() != "bearer" or not credential.strip():
            raise Refusal(401, UNVERIFIED)
        return await self.bot.profile(await self.tokens.user(credential.strip(), client), game)

    def chat(self, game: str) -> str | None:
        return qualify(game) if re.fullmatch(r"[CR][0-9a-f]{1,64}", game) else None

    def echo(self, said: str) -> str | None:
        return f"{ECHO} {plain(said)}"[:ECHO_CHARS]

    async def close(self) -> None:
        await self.tokens.close()
