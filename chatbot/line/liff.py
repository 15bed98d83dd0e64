"""LINE's side of the game page (`chatbot.page`): the page is a LIFF app opened from the
group's table (its endpoint URL: `<public base>/liff/page`), whose LIFF ID token proves the
player (checked with LINE's verify endpoint for the LINE Login channel; its `sub` is the
player). After a move, the page posts the move itself in the group as its player
(`liff.sendMessages`, the line starting with `ECHO`): the bot's free reply to it carries the
table, so a move costs no push (docs/platforms.md).
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Protocol

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
TOKENS_KEPT = 10_000  # verified ID tokens remembered (until they expire)
VERIFY_TIMEOUT = 5.0  # seconds LINE's verify endpoint may take
ECHO_CHARS = 200  # the page's line in the group, at most (a move's cards are a few dozen)
FAILED = N_("Something went wrong on my side: please try again in a moment.")
UNVERIFIED = N_("Your LINE login could not be checked: open this page again from the group.")


class Players(Protocol):
    """What the page needs of the LINE bot that serves it."""

    settings: Settings
    sessions: Sessions

    async def profile(self, user_id: str, chat: str | None) -> User: ...


class IdTokens:
    """LIFF ID tokens checked with LINE's verify endpoint (`POST /oauth2/v2.1/verify`, the
    LINE Login channel as `client_id`); a verified token is remembered until it expires."""

    def __init__(self, base_url: str, channel: str, clock: Callable[[], float]) -> None:
        self.url = f"{base_url.rstrip('/')}/oauth2/v2.1/verify"
        self.channel = channel
        self.clock = clock
        self._known: OrderedDict[str, tuple[str, float]] = OrderedDict()  # token -> (sub, exp)
        self._http: aiohttp.ClientSession | None = None

    async def user(self, token: str) -> str:
        """The LINE user id the token was issued to; Refusal (401) for a token LINE refuses
        (forged, expired, for another channel)."""
        kept = self._known.get(token)
        if kept is not None and kept[1] > self.clock():
            return kept[0]
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
        self._known[token] = (sub, float(exp))
        while len(self._known) > TOKENS_KEPT:
            self._known.popitem(last=False)
        return sub

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None


class LineIdentity:
    """The game page's LINE side: LIFF ID tokens, group ids as game tokens, the page's line
    in the group after a move."""

    prefix = "/liff"
    glue = "page_line.js"

    def __init__(self, bot: Players, liff_id: str, channel: str) -> None:
        self.bot = bot
        self.liff_id = liff_id
        self.sdk = bot.settings.line.liff_sdk_url
        base = bot.settings.line.api_base_url or "https://api.line.me"
        self.tokens = IdTokens(base, channel, bot.sessions.clock)
        source = (resources.files(__package__ or "chatbot.line") / self.glue).read_text("utf-8")
        self.glue_source = source.replace('"{{liff_id}}"', orjson.dumps(liff_id).decode())

    def url(self, chat: str) -> str:
        """The LIFF URL that opens the page for the game of `chat` (LINE passes its query on
        to the page)."""
        return f"https://liff.line.me/{self.liff_id}?game={line_id(chat)}"

    async def user(self, scheme: str, credential: str, game: str) -> User:
        if scheme.lower() != "bearer":
            raise Refusal(401, UNVERIFIED)
        return await self.bot.profile(await self.tokens.user(credential), game)

    def chat(self, game: str) -> str | None:
        return qualify(game) if re.fullmatch(r"[CR][0-9a-f]{1,64}", game) else None

    def echo(self, said: str) -> str | None:
        return f"{ECHO} {plain(said)}"[:ECHO_CHARS]

    async def close(self) -> None:
        await self.tokens.close()
