"""What a platform gives the game page: who is asking (its signed identity, checked on the
server) and which chat a page's game token names; nothing of the page trusts the browser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from chatbot.core.model import User
from chatbot.i18n import N_

UNVERIFIED = N_("Your login could not be checked: open this page again from the group.")


@dataclass(frozen=True)
class Refusal(Exception):
    """A request the page gets a reason for (`status`: the HTTP status; `text`: a msgid, or
    the reason translated already when `translated`)."""

    status: int
    text: str
    translated: bool = False


class Identity(Protocol):
    """A platform's side of the game page."""

    prefix: str  # the page's routes: <prefix>/page, <prefix>/static/…, <prefix>/api/…
    sdk: str  # the platform's script for pages (its URL)
    sites: str  # the origins that script talks to (the page's Content-Security-Policy)
    glue: str  # the file name of the adapter's script for the page (beside its module)
    glue_source: str  # that script

    async def user(self, scheme: str, credential: str, game: str, client: str = "") -> User:
        """The person a request's `Authorization: <scheme> <credential>` proves (Refusal 401
        when it proves nothing: forged, expired, for another bot; 429 when `client`, the
        requester's address, asked too often)."""
        ...

    def chat(self, game: str) -> str | None:
        """The chat of a page's game token (None: not a token of this platform)."""
        ...

    def echo(self, said: str) -> str | None:
        """The line a page posts in the group after a move, where the platform lets a page
        post as its user (None: it posts nothing)."""
        ...

    async def close(self) -> None: ...
