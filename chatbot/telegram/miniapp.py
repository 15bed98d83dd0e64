"""Telegram's side of the game page (`chatbot.page`): the page is a Mini App opened from the
group's table by a direct link, `https://t.me/<bot>/<app>?startapp=<game token>`
(`TELEGRAM_WEBAPP_NAME`; its URL, set with BotFather: `<public base>/webapp/page`). The page
sends the init data Telegram gave it; the server checks it as Telegram documents: the
data-check string (every field but `hash`, sorted, `key=value` lines) signed with HMAC-SHA256
under the key HMAC-SHA256("WebAppData", bot token), and `auth_date` no older than
`TELEGRAM_WEBAPP_MAX_AGE` seconds."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

import orjson

from chatbot.core import buttons as b
from chatbot.core.model import User
from chatbot.page.identity import UNVERIFIED, Refusal
from chatbot.telegram.convert import qualify

GAME_TOKEN = re.compile(r"htg_-?[0-9]{1,20}")  # b.hand_payload of a Telegram group


def init_data_key(token: str) -> bytes:
    """The key that signs a bot's init data: HMAC-SHA256 of the bot token under "WebAppData"."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def checked(init_data: str, key: bytes, max_age: float, now: float) -> dict[str, str]:
    """The fields of init data signed with `key` and made at most `max_age` seconds before
    `now`; Refusal (401) for anything else (forged, for another bot, expired, malformed)."""
    try:
        fields = dict(parse_qsl(init_data, keep_blank_values=True, strict_parsing=True))
    except ValueError:
        raise Refusal(401, UNVERIFIED) from None
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    wanted = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), wanted.encode()):
        raise Refusal(401, UNVERIFIED)
    made = fields.get("auth_date", "")
    if not made.isascii() or not made.isdigit() or not now - max_age <= int(made) <= now + 60:
        raise Refusal(401, UNVERIFIED)
    return fields


def user_of(fields: dict[str, str]) -> User:
    """The person of checked init data (Refusal when it names none)."""
    try:
        person: Any = orjson.loads(fields.get("user", ""))
        uid = person["id"]
        name = str(person.get("first_name") or "?")
    except (ValueError, TypeError, KeyError):
        raise Refusal(401, UNVERIFIED) from None
    if not isinstance(uid, int) or isinstance(uid, bool):
        raise Refusal(401, UNVERIFIED)
    if person.get("last_name"):
        name += " " + str(person["last_name"])
    language = person.get("language_code")
    return User(qualify(uid), name, language if isinstance(language, str) else None)


class TelegramIdentity:
    """The game page's Telegram side: init data, hand payloads as game tokens."""

    prefix = "/webapp"
    glue = "page_telegram.js"
    sites = "https://telegram.org"

    def __init__(self, token: str, sdk: str, max_age: float, clock: Callable[[], float]) -> None:
        self.key = init_data_key(token)
        self.sdk = sdk
        self.max_age = max_age
        self.clock = clock
        folder = resources.files(__package__ or "chatbot.telegram")
        self.glue_source = (folder / self.glue).read_text("utf-8")

    async def user(self, scheme: str, credential: str, game: str, client: str = "") -> User:
        if scheme.lower() != "tma":
            raise Refusal(401, UNVERIFIED)
        return user_of(checked(credential, self.key, self.max_age, self.clock()))

    def chat(self, game: str) -> str | None:
        return b.chat_from_payload(game, "h") if GAME_TOKEN.fullmatch(game) else None

    def echo(self, said: str) -> str | None:
        return None  # a Mini App does not post as its user: the table is edited

    async def close(self) -> None:
        """Nothing to release."""
