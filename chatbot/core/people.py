"""Who people and chats are to the bot, kept through `Sessions`' settings.

Their languages, their private chats, the games they sit in, and who may host a table.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from chatbot.core.model import Incoming
from chatbot.core.session import LOBBY, BadSession, Session
from chatbot.i18n import negotiate


class Kept(Protocol):
    """What People reads and writes through (the chat's `Sessions`)."""

    platform: Any  # the adapter's ports: is_admin, is_member

    async def load(self, chat: str, follow: bool = True) -> tuple[Session | None, int]: ...

    async def user_setting(self, user: str, name: str, refresh: bool = False) -> str | None: ...

    async def set_user_setting(self, user: str, name: str, value: str) -> None: ...

    async def chat_setting(self, chat: str, name: str, refresh: bool = False) -> str | None: ...


GAMES_KEPT = 30  # the newest chats a user sat down in (a private /language and /stats)


class People:
    """What the bot knows of the people and chats it meets."""

    def __init__(self, sessions: Kept) -> None:
        self.sessions = sessions

    async def games_of(self, user: str) -> list[str]:
        """The chats whose games `user` sat down in lately, newest first."""
        raw = await self.sessions.user_setting(user, "games")
        try:
            chats = json.loads(raw) if raw else []
        except ValueError:
            return []
        return [c for c in chats if isinstance(c, str)] if isinstance(chats, list) else []

    async def open_tables(self, user: str, besides: str) -> list[str]:
        """The chats other than `besides` where a table `user` opened is still open (not yet
        started); those that are not any more are forgotten."""
        raw = await self.sessions.user_setting(user, "opened")
        try:
            chats = json.loads(raw) if raw else []
        except ValueError:
            chats = []
        held = []
        for chat in chats if isinstance(chats, list) else []:
            if not isinstance(chat, str) or chat == besides:
                continue
            try:
                session, _ = await self.sessions.load(chat, follow=False)
            except BadSession:
                continue
            if session is not None and session.phase == LOBBY and session.creator == user:
                held.append(chat)
        if held != chats:
            await self.sessions.set_user_setting(user, "opened", json.dumps(held))
        return held

    async def opened(self, user: str, chat: str, held: list[str]) -> None:
        """Remember that `user` opened a table in `chat` beside those `held` open."""
        await self.sessions.set_user_setting(user, "opened", json.dumps([*held, chat]))

    async def seated(self, user: str, chat: str) -> None:
        """Remember that `user` sits in `chat`'s game (a private /language finds it)."""
        chats = [chat, *(c for c in await self.games_of(user) if c != chat)][:GAMES_KEPT]
        await self.sessions.set_user_setting(user, "games", json.dumps(chats))

    async def reachable(self, user: str) -> bool:
        """Whether the bot may write to `user` privately (they opened the private chat)."""
        return await self.sessions.user_setting(user, "dm") == "1"

    async def set_reachable(self, user: str, reachable: bool) -> None:
        """The person opened (or closed, or blocked) their private chat with the bot."""
        await self.sessions.set_user_setting(user, "dm", "1" if reachable else "0")

    async def user_language(self, user_id: str, code: str | None) -> str:
        """The language a person chose, else the one their platform reports."""
        chosen = await self.sessions.user_setting(user_id, "lang", refresh=True)
        return chosen or negotiate(code)

    async def chat_language(self, inc: Incoming) -> str:
        return await self.known_chat_language(inc) or negotiate(None)

    async def known_chat_language(self, inc: Incoming) -> str | None:
        """The language of the event's chat: chosen for the group, else the platform's guess,
        else the sender's; None when nothing tells (a group the bot just joined)."""
        if inc.private:
            return await self.user_language(inc.user.id, inc.user.language)
        chosen = await self.sessions.chat_setting(inc.chat, "lang", refresh=True)
        code = chosen or inc.chat_language or inc.user.language
        return negotiate(code) if code else None

    async def may_host(self, inc: Incoming, session: Session) -> bool:
        """The player who opened the table, or an admin of the chat."""
        if inc.user.id == session.creator:
            return True
        is_admin = self.sessions.platform.is_admin
        return is_admin is not None and await is_admin(inc.chat, inc.user.id)

    async def is_admin(self, chat: str, user: str) -> bool:
        """Whether `user` administers `chat` (True where the platform cannot tell)."""
        is_admin = self.sessions.platform.is_admin
        return is_admin is None or await is_admin(chat, user)

    async def is_member(self, chat: str, user: str) -> bool:
        """Whether `user` is in `chat` (True where the platform cannot tell)."""
        is_member = self.sessions.platform.is_member
        return is_member is None or await is_member(chat, user)
