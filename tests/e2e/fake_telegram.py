"""A strict local fake of the Telegram Bot API, for end-to-end tests.

The fake is a Starlette app served by uvicorn on 127.0.0.1 inside the test's event loop. A real
python-telegram-bot ``Application`` talks to it over HTTP exactly as it would talk to
api.telegram.org, and the fake answers the way Telegram does, including Telegram's own error
descriptions for the mistakes a bot can make (callback data over 64 bytes, malformed HTML,
editing a message without changing it, writing to a user who never started the bot, ...).

    async with FakeTelegram.running() as tg:
        app = tg.application_builder().build()  # or ApplicationBuilder().base_url(tg.base_url)...
        app.add_handler(CommandHandler("start", start))
        await app.initialize()
        alice = tg.user(1001, "Alice")
        group = tg.group(-100200, "Game night", creator=alice)
        await app.process_update(Update.de_json(tg.message_update(group, alice, "/start"), app.bot))
        assert tg.last_message(group["id"]).text == "Welcome!"

Updates can also be delivered through long polling: ``tg.push_update(update)`` queues an update
for ``getUpdates``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
import time
import traceback
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.local_server import LocalServer

if TYPE_CHECKING:
    from telegram.ext import ApplicationBuilder

JSON = dict[str, Any]

DEFAULT_TOKEN = "7000000001:AAFakeTokenForEndToEndTests-0123456789"
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"
CONFLICT_POLL = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance "
    "is running"
)
# getUpdates hands out every update type except these unless allowed_updates names them.
_NOT_DEFAULT_UPDATES = {"chat_member", "message_reaction", "message_reaction_count"}
_CHAT_ACTIONS = {
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note",
    "upload_video_note",
}  # fmt: skip


class ApiError(Exception):
    """An error answer: ``{"ok": false, "error_code": code, "description": ...}``."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad(description: str, parameters: JSON | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {description}", parameters)


class _ClientGone(Exception):
    """The client closed the connection of a pending long poll."""


# --------------------------------------------------------------------------------------------
# Text: parse modes, entities, lengths (Telegram counts offsets in UTF-16 code units)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(src: str, index: int) -> int:
    return len(src[:index].encode("utf-8"))


class _EntityError(Exception):
    pass


class _Out:
    """Plain text being produced by a parser, with its UTF-16 length."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def text(self) -> str:
        return "".join(self.parts)


_HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "span": "spoiler", "tg-spoiler": "spoiler", "a": "text_link", "code": "code", "pre": "pre",
    "blockquote": "blockquote", "tg-emoji": "custom_emoji",
}  # fmt: skip
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]*);")
_ATTR_RE = re.compile(
    r"""([A-Za-z][A-Za-z0-9_-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?"""
)


def _decode_entity(src: str, i: int) -> tuple[str, int]:
    """Decode the HTML entity at src[i] == "&"; strict: a bare "&" is an error."""
    m = _ENTITY_RE.match(src, i)
    if m is None:
        raise _EntityError(f'Unescaped "&" at byte offset {_byte_offset(src, i)}; use &amp;')
    body = m.group(1)
    if body.startswith("#"):
        code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
        if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise _EntityError(f"Invalid HTML entity at byte offset {_byte_offset(src, i)}")
        return chr(code), m.end()
    if body not in _NAMED_ENTITIES:
        raise _EntityError(
            f'Unsupported HTML entity "&{body};" at byte offset {_byte_offset(src, i)}'
        )
    return _NAMED_ENTITIES[body], m.end()


@dataclass
class _Open:
    tag: str
    attrs: dict[str, str]
    start: int  # UTF-16 offset in the plain text


def parse_html(src: str) -> tuple[str, list[JSON]]:
    """Telegram's HTML parse mode: plain text + entities, or _EntityError like the server."""
    out, stack, entities = _Out(), list[_Open](), list[JSON]()
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if ch == "&":
            decoded, i = _decode_entity(src, i)
            out.add(decoded)
            continue
        if ch != "<":
            out.add(ch)
            i += 1
            continue
        at = _byte_offset(src, i)
        if src.startswith("</", i):
            j = src.find(">", i)
            if j < 0:
                raise _EntityError(f"Unclosed end tag at byte offset {at}")
            name = src[i + 2 : j].strip().lower()
            if not stack:
                raise _EntityError(f"Unexpected end tag at byte offset {at}")
            top = stack.pop()
            if name != top.tag:
                raise _EntityError(
                    f'Unmatched end tag at byte offset {at}, expected "</{top.tag}>", '
                    f'found "</{name}>"'
                )
            _close_html_entity(top, out.pos, stack, entities)
            i = j + 1
            continue
        j = i + 1
        while j < n and not src[j].isspace() and src[j] not in ">/":
            j += 1
        name = src[i + 1 : j].lower()
        if name not in _HTML_TAGS:
            raise _EntityError(f'Unsupported start tag "{name}" at byte offset {at}')
        attrs: dict[str, str] = {}
        while True:
            while j < n and src[j].isspace():
                j += 1
            if j < n and src[j] == ">":
                j += 1
                break
            m = _ATTR_RE.match(src, j)
            if j >= n or m is None:
                raise _EntityError(f"Unclosed start tag at byte offset {at}")
            value = next((g for g in m.groups()[1:] if g is not None), "")
            attrs[m.group(1).lower()] = _ENTITY_RE.sub(
                lambda e: _decode_entity(e.group(0), 0)[0], value
            )
            j = m.end()
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise _EntityError(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
        if name == "tg-emoji" and not attrs.get("emoji-id"):
            raise _EntityError(f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {at}')
        stack.append(_Open(name, attrs, out.pos))
        i = j
    if stack:
        raise _EntityError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    return out.text(), entities


def _close_html_entity(top: _Open, end: int, stack: list[_Open], entities: list[JSON]) -> None:
    if top.tag == "code" and stack and stack[-1].tag == "pre":  # <pre><code class=language-x>
        language = top.attrs.get("class", "")
        if language.startswith("language-"):
            stack[-1].attrs["language"] = language.removeprefix("language-")
        return
    if end <= top.start:
        return
    entity: JSON = {"type": _HTML_TAGS[top.tag], "offset": top.start, "length": end - top.start}
    if top.tag == "a":
        if not top.attrs.get("href"):
            return
        entity["url"] = top.attrs["href"]
    elif top.tag == "pre" and top.attrs.get("language"):
        entity["language"] = top.attrs["language"]
    elif top.tag == "blockquote" and "expandable" in top.attrs:
        entity["type"] = "expandable_blockquote"
    elif top.tag == "tg-emoji":
        entity["custom_emoji_id"] = top.attrs["emoji-id"]
    entities.append(entity)


_MDV2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MDV2_NAMES = {
    "bold": "Bold", "italic": "Italic", "underline": "Underline", "strikethrough": "Strikethrough",
    "spoiler": "Spoiler", "code": "Code", "pre": "Pre", "text_link": "TextUrl",
}  # fmt: skip


def parse_markdown_v2(src: str) -> tuple[str, list[JSON]]:
    """MarkdownV2: reserved characters must be escaped; entities must be closed."""
    out, entities = _Out(), list[JSON]()
    stack: list[tuple[str, int, int, str]] = []  # (type, start, byte offset, language)
    quote_start: int | None = None
    i, n = 0, len(src)

    def close(kind: str, extra: JSON | None = None) -> None:
        _, start, _, language = stack.pop()
        if out.pos > start:
            entity: JSON = {"type": kind, "offset": start, "length": out.pos - start}
            if language:
                entity["language"] = language
            entities.append({**entity, **(extra or {})})

    def toggle(kind: str) -> None:
        if stack and stack[-1][0] == kind:
            close(kind)
        elif any(entry[0] == kind for entry in stack):
            raise _EntityError(
                f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset "
                f"{next(e[2] for e in stack if e[0] == kind)}"
            )
        else:
            stack.append((kind, out.pos, _byte_offset(src, i), ""))

    while i < n:
        c = src[i]
        if c == "\\" and i + 1 < n and 0 < ord(src[i + 1]) <= 126:
            out.add(src[i + 1])
            i += 2
            continue
        if stack and stack[-1][0] in ("code", "pre"):
            if c == "`" and stack[-1][0] == "code":
                close("code")
                i += 1
            elif c == "`" and src.startswith("```", i):
                close("pre")
                i += 3
            elif c == "`":
                raise _EntityError(
                    "Character '`' is reserved and must be escaped with the preceding '\\'"
                )
            else:
                out.add(c)
                i += 1
            continue
        if c == "\n" and quote_start is not None and not src.startswith(">", i + 1):
            if out.pos > quote_start:
                entities.append(
                    {"type": "blockquote", "offset": quote_start, "length": out.pos - quote_start}
                )
            quote_start = None
        if c not in _MDV2_RESERVED:
            out.add(c)
            i += 1
            continue
        if c == "*" or c == "~":
            toggle("bold" if c == "*" else "strikethrough")
            i += 1
        elif c == "_" and src.startswith("__", i):
            toggle("underline")
            i += 2
        elif c == "_":
            toggle("italic")
            i += 1
        elif c == "|" and src.startswith("||", i):
            toggle("spoiler")
            i += 2
        elif c == "`" and src.startswith("```", i):
            end_of_line = src.find("\n", i + 3)
            language = src[i + 3 : end_of_line] if end_of_line >= 0 else ""
            if language and re.fullmatch(r"[\w+#.-]+", language):
                stack.append(("pre", out.pos, _byte_offset(src, i), language))
                i = end_of_line + 1
            else:
                stack.append(("pre", out.pos, _byte_offset(src, i), ""))
                i += 3
        elif c == "`":
            stack.append(("code", out.pos, _byte_offset(src, i), ""))
            i += 1
        elif c == "[":
            stack.append(("text_link", out.pos, _byte_offset(src, i), ""))
            i += 1
        elif c == "]" and stack and stack[-1][0] == "text_link" and src.startswith("(", i + 1):
            j, url = i + 2, []
            while j < n and src[j] != ")":
                if src[j] == "\\" and j + 1 < n:
                    j += 1
                url.append(src[j])
                j += 1
            if j >= n:
                raise _EntityError(f"Can't find end of a URL at byte offset {_byte_offset(src, i)}")
            close("text_link", {"url": "".join(url)})
            i = j + 1
        elif c == ">" and (i == 0 or src[i - 1] == "\n"):
            if quote_start is None:
                quote_start = out.pos
            i += 1
        else:
            raise _EntityError(
                f"Character '{c}' is reserved and must be escaped with the preceding '\\'"
            )
    if stack:
        kind, _, at, _ = stack[-1]
        raise _EntityError(f"Can't find end of {_MDV2_NAMES[kind]} entity at byte offset {at}")
    if quote_start is not None and out.pos > quote_start:
        entities.append(
            {"type": "blockquote", "offset": quote_start, "length": out.pos - quote_start}
        )
    return out.text(), entities


def parse_markdown(src: str) -> tuple[str, list[JSON]]:
    """Legacy Markdown: *bold* _italic_ `code` ```pre``` [text](url), no nesting."""
    out, entities = _Out(), list[JSON]()
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\\" and i + 1 < n and src[i + 1] in "_*`[":
            out.add(src[i + 1])
            i += 2
            continue
        if c not in "_*`[":
            out.add(c)
            i += 1
            continue
        unclosed = _EntityError(
            f"Can't find end of the entity starting at byte offset {_byte_offset(src, i)}"
        )
        start = out.pos
        if c == "[":
            close_bracket = src.find("]", i + 1)
            if close_bracket < 0 or not src.startswith("(", close_bracket + 1):
                raise unclosed
            close_paren = src.find(")", close_bracket + 2)
            if close_paren < 0:
                raise unclosed
            out.add(src[i + 1 : close_bracket])
            entity: JSON = {"type": "text_link", "url": src[close_bracket + 2 : close_paren]}
            i = close_paren + 1
        else:
            marker = "```" if src.startswith("```", i) else c
            end = src.find(marker, i + len(marker))
            if end < 0:
                raise unclosed
            out.add(src[i + len(marker) : end])
            kinds = {"```": "pre", "`": "code", "*": "bold", "_": "italic"}
            entity = {"type": kinds[marker]}
            i = end + len(marker)
        if out.pos > start:
            entities.append({**entity, "offset": start, "length": out.pos - start})
    return out.text(), entities


def render_text(text: str, parse_mode: str | None, entities: Any = None) -> tuple[str, list[JSON]]:
    """Text as Telegram stores it (markup removed, outer whitespace trimmed) and its entities."""
    if entities is not None:
        if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
            raise bad("can't parse entities JSON object")
        plain, found = text, list(entities)
    else:
        parsers: dict[str, Callable[[str], tuple[str, list[JSON]]]] = {
            "html": parse_html,
            "markdownv2": parse_markdown_v2,
            "markdown": parse_markdown,
        }
        mode = (parse_mode or "").lower()
        if mode and mode not in parsers:
            raise bad("unsupported parse_mode")
        try:
            plain, found = parsers[mode](text) if mode else (text, [])
        except _EntityError as exc:
            raise bad(f"can't parse entities: {exc}") from None
    stripped = plain.strip()
    if stripped != plain:
        lead, size = utf16_len(plain) - utf16_len(plain.lstrip()), utf16_len(stripped)
        trimmed = []
        for e in found:
            start = max(0, e["offset"] - lead)
            end = min(size, e["offset"] + e["length"] - lead)
            if end > start:
                trimmed.append({**e, "offset": start, "length": end - start})
        plain, found = stripped, trimmed
    found.sort(key=lambda e: (e["offset"], -e["length"]))
    return plain, found


# --------------------------------------------------------------------------------------------
# Keyboards

_INLINE_BUTTON_KINDS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)  # fmt: skip


def _check_url(url: Any) -> None:
    if not isinstance(url, str):
        raise bad('can\'t parse inline keyboard button: Field "url" must be of type String')
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https", "tg"):
        raise bad(f"inline keyboard button URL '{url}' is invalid: Unsupported URL protocol")
    host = parts.hostname or ""
    if parts.scheme.lower() != "tg" and "." not in host:
        raise bad(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")


def check_reply_markup(markup: Any, *, inline_only: bool = False) -> JSON | None:
    """Validate reply_markup; returns the inline keyboard a message keeps (or None)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        if inline_only:
            raise bad("inline keyboard expected")
        if isinstance(markup.get("keyboard"), list):
            rows = markup["keyboard"]
            if any(not isinstance(row, list) for row in rows):
                raise bad('field "keyboard" of the ReplyKeyboardMarkup must be an Array of Arrays')
            if sum(len(row) for row in rows) > 300:
                raise bad("reply markup is too long")
            if any(len(row) > 12 for row in rows):
                raise bad("BUTTONS_TOO_MUCH")
            return None
        if markup.get("remove_keyboard") is True or markup.get("force_reply") is True:
            return None
        raise bad("can't parse reply keyboard markup JSON object")
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or any(not isinstance(row, list) for row in rows):
        raise bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    if sum(len(row) for row in rows) > 100:
        raise bad("reply markup is too long")
    for row in rows:
        if len(row) > 8:
            raise bad("BUTTONS_TOO_MUCH")
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            if not button["text"].strip():
                raise bad("BUTTON_TEXT_INVALID")
            kinds = [kind for kind in _INLINE_BUTTON_KINDS if kind in button]
            if not kinds:
                raise bad(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            if len(kinds) > 1:
                raise bad(
                    f"can't parse inline keyboard button: {' and '.join(kinds)} can't be "
                    "used together"
                )
            data = button.get("callback_data")
            if "callback_data" in button and (
                not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64
            ):
                raise bad("BUTTON_DATA_INVALID")
            if "url" in button:
                _check_url(button["url"])
    kept = [list(row) for row in rows if row]
    return {"inline_keyboard": kept} if kept else None


# --------------------------------------------------------------------------------------------
# The world


@dataclass
class Call:
    """One request the bot made, as the fake understood it."""

    method: str
    params: JSON
    ok: bool = False
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    unknown: bool = False  # a method the fake does not know (real Telegram might)
    abandoned: bool = False  # a long poll the client gave up on before it was answered
    in_response: bool = False  # made by the bot's answer to a webhook request
    at: float = field(default_factory=time.time)


@dataclass
class FakeUser:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "en"
    started: bool = False  # has a private chat with the bot (sent /start)
    blocked: bool = False  # has blocked the bot

    def to_dict(self) -> JSON:
        d: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            d["last_name"] = self.last_name
        if self.username:
            d["username"] = self.username
        if self.language_code:
            d["language_code"] = self.language_code
        return d


@dataclass
class FakeChat:
    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    username: str | None = None
    creator_id: int | None = None
    admin_ids: set[int] = field(default_factory=set)
    member_ids: set[int] = field(default_factory=set)
    bot_is_admin: bool = False
    bot_kicked: bool = False
    migrated_to: int | None = None
    last_message_id: int = 0
    menu_button: JSON | None = None


@dataclass
class StoredMessage:
    """A message as the fake world holds it now (after edits)."""

    chat_id: int
    message_id: int
    from_id: int
    date: int
    text: str  # as Telegram stores it: markup removed
    raw: str  # as sent, e.g. with HTML tags
    parse_mode: str | None = None
    entities: list[JSON] = field(default_factory=list)
    reply_markup: JSON | None = None
    reply_to: int | None = None
    edit_date: int | None = None
    deleted: bool = False
    history: list[str] = field(default_factory=list)  # earlier texts, oldest first
    from_bot: bool = False

    @property
    def html(self) -> str | None:
        return self.raw if (self.parse_mode or "").lower() == "html" else None

    @property
    def buttons(self) -> list[JSON]:
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [button for row in rows for button in row]

    @property
    def button_texts(self) -> list[str]:
        return [button["text"] for button in self.buttons]

    @property
    def callback_data(self) -> list[str]:
        return [b["callback_data"] for b in self.buttons if "callback_data" in b]


@dataclass
class _Query:
    user_id: int
    answered: bool = False
    answer: JSON | None = None


@dataclass
class _Flood:
    most: int  # messages in a period
    period: float  # seconds
    retry_after: int
    stamps: deque[float] = field(default_factory=deque)
    blocked_until: float = 0.0


_INT_PARAMS = {
    "message_id", "user_id", "offset", "limit", "cache_time", "message_thread_id",
    "reply_to_message_id", "until_date", "max_connections",
}  # fmt: skip
_BOOL_PARAMS = {
    "disable_notification", "protect_content", "show_alert", "drop_pending_updates",
    "disable_web_page_preview", "allow_sending_without_reply", "allow_paid_broadcast",
    "only_if_banned", "revoke_messages", "for_channels",
}  # fmt: skip
_JSON_PARAMS = {
    "reply_markup", "entities", "caption_entities", "commands", "scope", "allowed_updates",
    "menu_button", "link_preview_options", "reply_parameters", "message_ids",
}  # fmt: skip


def decode_params(raw: JSON) -> JSON:
    """Form fields arrive as strings: parse nested JSON, integers and booleans."""
    params: JSON = {}
    for key, value in raw.items():
        if isinstance(value, str):
            if key in _JSON_PARAMS:
                try:
                    value = json.loads(value)
                except ValueError:
                    raise bad(f"can't parse {key} JSON object") from None
            elif key in _BOOL_PARAMS:
                if value.lower() not in ("true", "false", "1", "0"):
                    raise bad(f"invalid {key} specified")
                value = value.lower() in ("true", "1")
            elif key in _INT_PARAMS or (key == "chat_id" and re.fullmatch(r"-?\d+", value)):
                if not re.fullmatch(r"-?\d+", value):
                    raise bad(f"invalid {key} specified")
                value = int(value)
            elif key == "timeout":
                value = float(value)
        params[key] = value
    return params


class FakeTelegram:
    """The fake Telegram world plus the HTTP server that exposes it as the Bot API."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "egobot_test_bot",
        bot_first_name: str = "EgoBot Test",
        privacy_mode: bool = True,
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.privacy_mode = privacy_mode  # BotFather's default: groups only send commands/replies
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.messages: dict[int, list[StoredMessage]] = {}
        self.calls: list[Call] = []
        self.commands: dict[tuple[str, str], list[JSON]] = {}  # (scope JSON, language) -> list
        self.internal_errors: list[str] = []  # tracebacks of bugs in the fake itself
        self.webhook_url = ""
        self.webhook_secret: str | None = None  # as setWebhook was told
        self.default_menu_button: JSON = {"type": "commands"}
        self._queries: dict[str, _Query] = {}
        self._updates: list[JSON] = []
        self._allowed_updates: set[str] | None = None
        self._next_update_id = 100_000
        self._next_query_id = 0
        self._poll_generation = 0
        self._wake = asyncio.Event()
        self._flood: dict[int, _Flood] = {}
        self._bot_flood: _Flood | None = None  # the bot's messages over all chats, a second
        self._injected: dict[str, list[ApiError]] = {}
        self._held: set[str] = set()
        self._released = asyncio.Event()
        self._stopping = False
        self._local: LocalServer | None = None
        self.port = 0
        # Every _api_<method> below is a Bot API method; Telegram matches names case-insensitively.
        self._handlers: dict[str, Callable[[JSON], Any]] = {
            name.removeprefix("_api_").lower(): getattr(self, name)
            for name in dir(self)
            if name.startswith("_api_")
        }
        self._canonical = {
            name.removeprefix("_api_").lower(): name.removeprefix("_api_")
            for name in [*dir(self), "_api_getUpdates"]
            if name.startswith("_api_")
        }

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[FakeTelegram]:
        """``async with FakeTelegram.running() as tg:`` -- started server, stopped on exit."""
        tg = cls(**kwargs)
        await tg.start()
        try:
            yield tg
        finally:
            await tg.stop()

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Serve on 127.0.0.1 on a free port, as a task of the running event loop."""
        if self._local is not None:
            raise RuntimeError("FakeTelegram is already running")
        self._stopping = False
        self._wake = asyncio.Event()  # bound to this loop
        self._local = LocalServer(self.asgi_app(), "FakeTelegram", timeout_graceful_shutdown=3)
        try:
            self.port = await self._local.start()
        except RuntimeError:
            self._local = None
            raise RuntimeError("the fake Telegram server did not start") from None

    async def stop(self) -> None:
        """Answer pending long polls, shut the server down and wait for it."""
        if self._local is None:
            return
        self._stopping = True
        self._notify()
        local, self._local = self._local, None
        try:
            await local.stop()
        finally:
            self._stopping = False

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """A PTB ApplicationBuilder pointed at this fake (env proxies ignored)."""
        from telegram.ext import ApplicationBuilder
        from telegram.request import HTTPXRequest

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
            .request(HTTPXRequest(httpx_kwargs={"trust_env": False}))
            .get_updates_request(HTTPXRequest(httpx_kwargs={"trust_env": False}))
        )

    # ---------------------------------------------------------------- world setup

    def user(
        self,
        id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "en",
        *,
        last_name: str | None = None,
        started: bool = False,
    ) -> JSON:
        """Register (or update) a user; returns the User object as Telegram sends it."""
        if id <= 0:
            raise ValueError("user ids are positive")
        user = self.users.get(id)
        if user is None:
            user = self.users[id] = FakeUser(id, first_name)
            self.chats[id] = FakeChat(id, "private")
        user.first_name, user.username, user.last_name = first_name, username, last_name
        user.language_code = language_code
        user.started = user.started or started
        return user.to_dict()

    def group(
        self,
        id: int,
        title: str,
        *,
        creator: JSON | int | None = None,
        admins: Iterable[JSON | int] = (),
        members: Iterable[JSON | int] = (),
        supergroup: bool = False,
        username: str | None = None,
    ) -> JSON:
        """Register a group (negative id; supergroups -100...); returns its Chat object.

        Without ``creator`` the first user who writes in the group becomes its creator.
        """
        if id >= 0:
            raise ValueError("group ids are negative")
        if supergroup and not str(id).startswith("-100"):
            raise ValueError("supergroup ids look like -100xxxxxxxxxx")
        chat = FakeChat(id, "supergroup" if supergroup else "group", title, username)
        chat.creator_id = self._user_id(creator) if creator is not None else None
        chat.admin_ids = {self._user_id(u) for u in admins}
        chat.member_ids = {self._user_id(u) for u in members} | chat.admin_ids
        if chat.creator_id is not None:
            chat.member_ids.add(chat.creator_id)
        self.chats[id] = chat
        return self._chat_dict(chat)

    def supergroup(self, id: int, title: str, **kwargs: Any) -> JSON:
        return self.group(id, title, supergroup=True, **kwargs)

    def private_chat(self, user: JSON | int) -> JSON:
        return self._chat_dict(self.chats[self._user_id(user)])

    def set_admins(self, chat_id: int, users: Iterable[JSON | int]) -> None:
        chat = self.chats[chat_id]
        chat.admin_ids = {self._user_id(u) for u in users}
        chat.member_ids |= chat.admin_ids

    def set_bot_admin(self, chat_id: int, is_admin: bool = True) -> None:
        """An admin bot sees every group message, privacy mode or not, and may delete any."""
        self.chats[chat_id].bot_is_admin = is_admin

    def kick_bot(self, chat_id: int) -> None:
        self.chats[chat_id].bot_kicked = True

    def block_bot(self, user: JSON | int) -> None:
        """The user blocks the bot: private messages to them fail with 403."""
        self.users[self._user_id(user)].blocked = True

    def migrate_group(self, group_id: int, supergroup_id: int) -> JSON:
        """Upgrade a group: writes to the old id fail with migrate_to_chat_id."""
        old = self.chats[group_id]
        new = self.supergroup(
            supergroup_id,
            old.title or "",
            creator=old.creator_id,
            admins=old.admin_ids,
            members=old.member_ids,
        )
        old.migrated_to = supergroup_id
        return new

    def hold(self, chat_id: int) -> None:
        """Requests naming `chat_id` hang from now on (a process dying in the middle of its
        sends); `let_through` lets later requests pass while those keep hanging, and `release`
        fails them all: nothing they carried reaches the chat."""
        self._held.add(str(chat_id))
        self._released = asyncio.Event()

    def let_through(self) -> None:
        self._held.clear()

    def release(self) -> None:
        self._held.clear()
        self._released.set()

    def flood_limit(self, chat_id: int, max_per_minute: int, retry_after: int = 1) -> None:
        """Beyond max_per_minute sends/edits in this chat: 429 with parameters.retry_after.

        After a 429 the chat is blocked for retry_after seconds, then the count starts afresh.
        """
        self._flood[chat_id] = _Flood(max_per_minute, 60.0, retry_after)

    def bot_limit(self, max_per_second: int = 30, retry_after: int = 1) -> None:
        """Beyond max_per_second sends/edits over all chats: 429 with parameters.retry_after,
        as Telegram refuses a bot that sends more than about 30 messages a second."""
        self._bot_flood = _Flood(max_per_second, 1.0, retry_after)

    def inject_error(
        self,
        method: str,
        code: int,
        description: str,
        parameters: JSON | None = None,
        times: int = 1,
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail with this error."""
        errors = self._injected.setdefault(method.lower(), [])
        errors.extend(ApiError(code, description, parameters) for _ in range(times))

    # ---------------------------------------------------------------- update builders

    def message_update(
        self,
        chat: JSON | int,
        user: JSON | int,
        text: str,
        *,
        reply_to: StoredMessage | JSON | int | None = None,
    ) -> JSON:
        """An update with a user's text message; it is stored in the chat like any message.

        ``chat`` is a chat dict or id; for a private chat pass the user (or their id). A private
        message marks the user as having started the bot. With privacy mode on, a group message
        the bot would never receive (no command, no reply to the bot) raises ValueError.
        """
        sender, room = self._known_user(user), self._known_chat(chat)
        if not text.strip() or utf16_len(text) > 4096:
            raise ValueError("Telegram users send 1-4096 characters of non-blank text")
        replied = self._find_ref(room.id, reply_to) if reply_to is not None else None
        if reply_to is not None and replied is None:
            raise ValueError(f"no message {reply_to!r} in chat {room.id} to reply to")
        if room.type == "private":
            if room.id != sender.id:
                raise ValueError("only the user can write in their private chat with the bot")
            sender.started, sender.blocked = True, False
        else:
            self._check_privacy(room, text, replied)
            self._join(room, sender.id)
        entities = []
        for m in re.finditer(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,64})?", text):
            entities.append(
                {
                    "type": "bot_command",
                    "offset": utf16_len(text[: m.start()]),
                    "length": utf16_len(m.group(0)),
                }
            )
        stored = self._store(room, sender.id, text, text, None, entities, None, replied)
        return self._new_update("message", self._message_dict(stored))

    def callback_update(
        self, user: JSON | int, message: StoredMessage | JSON, data: str, *, check: bool = True
    ) -> JSON:
        """An update for a user pressing the button with ``data`` under a bot message.

        ``message`` is a StoredMessage or a Message dict the bot sent; the update carries the
        message's current content. With ``check`` the button must exist on it now.
        """
        presser = self._known_user(user)
        stored = self._find_ref(None, message)
        if stored is None or stored.deleted:
            raise ValueError(f"message {message!r} does not exist (any more)")
        if not stored.from_bot:
            raise ValueError("only messages the bot sent carry its inline buttons")
        if check and data not in stored.callback_data:
            raise ValueError(
                f"message {stored.message_id} has no button with callback_data {data!r}; "
                f"it has {stored.callback_data!r}"
            )
        room = self._known_chat(stored.chat_id)
        if room.type == "private" and room.id != presser.id:
            raise ValueError("only the chat's user can press buttons in a private chat")
        if room.type != "private":
            self._join(room, presser.id)
        self._next_query_id += 1
        query_id = str(4_204_000_000_000_000_000 + self._next_query_id)
        self._queries[query_id] = _Query(presser.id)
        query = {
            "id": query_id,
            "from": presser.to_dict(),
            "message": self._message_dict(stored),
            "chat_instance": str(-((abs(room.id) * 1_000_003 + self.bot_id) % 2**62)),
            "data": data,
        }
        return self._new_update("callback_query", query)

    def _member_update(self, kind: str, chat: FakeChat, by: int, old: JSON, new: JSON) -> JSON:
        changed = {
            "chat": self._chat_dict(chat),
            "from": self.users[by].to_dict(),
            "date": int(time.time()),
            "old_chat_member": old,
            "new_chat_member": new,
        }
        return self._new_update(kind, changed)

    def bot_removed_update(self, chat_id: int, by: JSON | int, *, kicked: bool = True) -> JSON:
        """`by` removes the bot from a group (kicked, or it "left"): from now on every call
        naming the group fails with 403, and Telegram sends this my_chat_member update."""
        chat = self.chats[chat_id]
        if chat.type == "private":
            raise ValueError("a bot is removed from a group; a user blocks it (bot_blocked_update)")
        old = self._member(chat, self.bot_id)
        chat.bot_kicked = True
        status = "kicked" if kicked else "left"
        new: JSON = {"status": status, "user": self._bot_dict()}
        if kicked:
            new["until_date"] = 0
        return self._member_update("my_chat_member", chat, self._user_id(by), old, new)

    def bot_blocked_update(self, user: JSON | int) -> JSON:
        """The user blocks the bot: private messages to them fail with 403, and Telegram sends
        this my_chat_member update from their private chat."""
        blocker = self._known_user(user)
        blocker.blocked = True
        chat = self._known_chat(blocker.id)
        old = {"status": "member", "user": self._bot_dict()}
        new = {"status": "kicked", "user": self._bot_dict(), "until_date": 0}
        return self._member_update("my_chat_member", chat, blocker.id, old, new)

    def member_joined_update(self, chat_id: int, user: JSON | int) -> JSON:
        """`user` joins a group: the chat_member update an admin bot gets when it asked for
        chat_member updates (allowed_updates)."""
        chat, joiner = self.chats[chat_id], self._known_user(user)
        old = {"status": "left", "user": joiner.to_dict()}
        chat.member_ids.add(joiner.id)
        new = {"status": "member", "user": joiner.to_dict()}
        return self._member_update("chat_member", chat, joiner.id, old, new)

    def push_update(self, update: JSON) -> JSON:
        """Queue an update for getUpdates (an update_id is assigned if missing)."""
        if "update_id" not in update:
            self._next_update_id += 1
            update = {"update_id": self._next_update_id, **update}
        self._updates.append(update)
        self._notify()
        return update

    def push_message(self, chat: JSON | int, user: JSON | int, text: str, **kw: Any) -> JSON:
        return self.push_update(self.message_update(chat, user, text, **kw))

    def push_callback(self, user: JSON | int, message: StoredMessage | JSON, data: str) -> JSON:
        return self.push_update(self.callback_update(user, message, data))

    @property
    def pending_updates(self) -> list[JSON]:
        return list(self._updates)

    # ---------------------------------------------------------------- queries for tests

    def calls_to(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def failed_calls(self) -> list[Call]:
        return [call for call in self.calls if not call.ok and not call.abandoned]

    @property
    def unknown_calls(self) -> list[Call]:
        return [call for call in self.calls if call.unknown]

    def messages_in(self, chat_id: int, *, include_deleted: bool = False) -> list[StoredMessage]:
        """Every message in the chat (users' and the bot's), as it is now."""
        return [m for m in self.messages.get(chat_id, []) if include_deleted or not m.deleted]

    def sent_to(self, chat_id: int) -> list[StoredMessage]:
        """The bot's messages in the chat that still exist, oldest first."""
        return [m for m in self.messages_in(chat_id) if m.from_bot]

    def last_message(self, chat_id: int) -> StoredMessage | None:
        """The bot's latest message in the chat that still exists."""
        sent = self.sent_to(chat_id)
        return sent[-1] if sent else None

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        found = self._find(chat_id, message_id)
        if found is None:
            raise KeyError((chat_id, message_id))
        return found

    def callback_answer(self, query_id: str) -> JSON | None:
        """What answerCallbackQuery said for this query (None if not answered)."""
        return self._queries[query_id].answer

    async def wait_for_call(
        self,
        method: str,
        *,
        count: int = 1,
        timeout: float = 5.0,
        predicate: Callable[[Call], bool] | None = None,
    ) -> Call:
        """Wait until ``count`` calls of ``method`` (matching predicate) were answered."""

        def matching() -> list[Call]:
            return [c for c in self.calls_to(method) if predicate is None or predicate(c)]

        deadline = time.monotonic() + timeout
        while len(matching()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no {count} call(s) to {method} within {timeout}s; "
                    f"calls: {[c.method for c in self.calls]}"
                )
            await asyncio.sleep(0.005)
        return matching()[count - 1]

    # ---------------------------------------------------------------- helpers

    @staticmethod
    def _user_id(user: JSON | int) -> int:
        return user if isinstance(user, int) else int(user["id"])

    def _known_user(self, user: JSON | int) -> FakeUser:
        user_id = self._user_id(user)
        if user_id not in self.users:
            raise ValueError(f"unknown user {user_id}: register it with tg.user(...) first")
        return self.users[user_id]

    def _known_chat(self, chat: JSON | int) -> FakeChat:
        """A chat users can write in now (for builders; API methods use _chat/_writable)."""
        chat_id = chat if isinstance(chat, int) else int(chat["id"])
        found = self.chats.get(chat_id)
        if found is None:
            raise ValueError(f"unknown chat {chat_id}: register it with tg.group(...) first")
        if found.migrated_to is not None:
            raise ValueError(f"group {chat_id} became supergroup {found.migrated_to}")
        if found.bot_kicked:
            raise ValueError(f"the bot was kicked from {chat_id}; it gets no updates from it")
        return found

    def _bot_dict(self) -> JSON:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _chat_dict(self, chat: FakeChat) -> JSON:
        if chat.type == "private":
            user = self.users[chat.id].to_dict()
            del user["is_bot"]
            user.pop("language_code", None)
            return {**user, "type": "private"}
        d: JSON = {"id": chat.id, "title": chat.title, "type": chat.type}
        if chat.username:
            d["username"] = chat.username
        return d

    def _message_dict(self, m: StoredMessage, *, nested: bool = False) -> JSON:
        sender = self._bot_dict() if m.from_bot else self.users[m.from_id].to_dict()
        d: JSON = {
            "message_id": m.message_id,
            "from": sender,
            "chat": self._chat_dict(self.chats[m.chat_id]),
            "date": m.date,
        }
        if m.edit_date:
            d["edit_date"] = m.edit_date
        replied = self._find(m.chat_id, m.reply_to) if m.reply_to else None
        if replied is not None and not replied.deleted and not nested:
            d["reply_to_message"] = self._message_dict(replied, nested=True)
        d["text"] = m.text
        if m.entities:
            d["entities"] = m.entities
        if m.reply_markup:
            d["reply_markup"] = m.reply_markup
        return d

    def _new_update(self, kind: str, payload: JSON) -> JSON:
        self._next_update_id += 1
        return {"update_id": self._next_update_id, kind: payload}

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    def _join(self, chat: FakeChat, user_id: int) -> None:
        chat.member_ids.add(user_id)
        if chat.creator_id is None:
            chat.creator_id = user_id

    def _check_privacy(self, chat: FakeChat, text: str, replied: StoredMessage | None) -> None:
        if not self.privacy_mode or chat.bot_is_admin:
            return
        command = re.match(r"/[A-Za-z0-9_]+(?:@(\w+))?", text)
        if command and command.group(1) in (None, self.bot_username):
            return
        if replied is not None and replied.from_bot:
            return
        raise ValueError(
            f"privacy mode: the bot would never receive {text!r} in group {chat.id}; send a "
            "command, reply to the bot, tg.set_bot_admin(chat_id) or "
            "FakeTelegram(privacy_mode=False)"
        )

    def _find(self, chat_id: int, message_id: int | None) -> StoredMessage | None:
        for m in self.messages.get(chat_id, []):
            if m.message_id == message_id:
                return m
        return None

    def _find_ref(
        self, chat_id: int | None, ref: StoredMessage | JSON | int
    ) -> StoredMessage | None:
        if isinstance(ref, StoredMessage):
            return ref
        if isinstance(ref, int):
            return self._find(chat_id, ref) if chat_id is not None else None
        return self._find(int(ref["chat"]["id"]), int(ref["message_id"]))

    def _store(
        self,
        chat: FakeChat,
        from_id: int,
        text: str,
        raw: str,
        parse_mode: str | None,
        entities: list[JSON],
        markup: JSON | None,
        reply_to: StoredMessage | None,
    ) -> StoredMessage:
        chat.last_message_id += 1
        stored = StoredMessage(
            chat_id=chat.id,
            message_id=chat.last_message_id,
            from_id=from_id,
            date=int(time.time()),
            text=text,
            raw=raw,
            parse_mode=parse_mode,
            entities=entities,
            reply_markup=markup,
            reply_to=reply_to.message_id if reply_to else None,
            from_bot=from_id == self.bot_id,
        )
        self.messages.setdefault(chat.id, []).append(stored)
        return stored

    def _chat(self, chat_id: Any) -> FakeChat:
        if chat_id is None or chat_id == "":
            raise bad("chat_id is empty")
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == chat_id[1:].lower():
                    return chat
            raise bad("chat not found")
        found = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if found is None:
            raise bad("chat not found")
        return found

    def _writable(self, chat_id: Any) -> FakeChat:
        chat = self._chat(chat_id)
        if chat.migrated_to is not None:
            raise bad(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not user.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        elif chat.bot_kicked:
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        return chat

    def _check_flood(self, chat_id: int) -> None:
        for flood in (self._bot_flood, self._flood.get(chat_id)):
            if flood is not None:
                self._count(flood)

    @staticmethod
    def _count(flood: _Flood) -> None:
        """Count one message against `flood`, or refuse it with a 429."""
        now = time.monotonic()
        if now < flood.blocked_until:
            wait = max(1, math.ceil(flood.blocked_until - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        while flood.stamps and now - flood.stamps[0] >= flood.period:
            flood.stamps.popleft()
        if len(flood.stamps) >= flood.most:
            flood.blocked_until = now + flood.retry_after
            flood.stamps.clear()
            raise ApiError(
                429,
                f"Too Many Requests: retry after {flood.retry_after}",
                {"retry_after": flood.retry_after},
            )
        flood.stamps.append(now)

    def _text(self, params: JSON) -> tuple[str, list[JSON], str]:
        raw = params.get("text")
        if raw is None or raw == "":
            raise bad("message text is empty")
        raw = raw if isinstance(raw, str) else json.dumps(raw)
        text, entities = render_text(raw, params.get("parse_mode"), params.get("entities"))
        if not text:
            raise bad("message text is empty")
        if utf16_len(text) > 4096:
            raise bad("message is too long")
        return text, entities, raw

    def _editable(self, params: JSON) -> StoredMessage:
        if params.get("inline_message_id"):
            raise bad("MESSAGE_ID_INVALID")  # the fake has no inline messages
        chat = self._writable(params.get("chat_id"))
        self._check_flood(chat.id)
        if params.get("message_id") is None:
            raise bad("message identifier is not specified")
        message = self._find(chat.id, params["message_id"])
        if message is None or message.deleted:
            raise bad("message to edit not found")
        if not message.from_bot:
            raise bad("message can't be edited")
        return message

    # ---------------------------------------------------------------- HTTP

    def asgi_app(self) -> Starlette:
        async def not_found(request: Request) -> JSONResponse:
            body = {"ok": False, "error_code": 404, "description": "Not Found"}
            return JSONResponse(body, status_code=404)

        return Starlette(
            routes=[
                Route("/bot{token}/{method}", self._endpoint, methods=["GET", "POST"]),
                Route("/{path:path}", not_found, methods=["GET", "POST"]),
            ]
        )

    async def _endpoint(self, request: Request) -> JSONResponse:
        name = request.path_params["method"]
        call = Call(self._canonical.get(name.lower(), name), {})
        try:
            call.params = await self._read_params(request)
            if request.path_params["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            handler = self._handlers.get(name.lower())
            if handler is None and name.lower() != "getupdates":
                call.unknown = True
                raise ApiError(404, "Not Found: method not found")
            call.params = decode_params(call.params)
            if str(call.params.get("chat_id")) in self._held:  # a bot process that died
                released = self._released
                await released.wait()
                raise ApiError(502, "Bad Gateway: the connection broke")
            injected = self._injected.get(name.lower())
            if injected:
                raise injected.pop(0)
            if handler is None:
                call.result = await self._get_updates(call.params, request)
            else:
                call.result = handler(call.params)
            call.ok = True
            body: JSON = {"ok": True, "result": call.result}
        except ApiError as exc:
            call.error_code, call.description = exc.code, exc.description
            body = {"ok": False, "error_code": exc.code, "description": exc.description}
            if exc.parameters:
                body["parameters"] = exc.parameters
        except _ClientGone:
            call.abandoned = True
            body = {"ok": False, "error_code": 499, "description": "client closed the request"}
        except Exception as exc:  # a bug in the fake: make it loud
            self.internal_errors.append(traceback.format_exc())
            call.error_code, call.description = 500, f"Internal Server Error: {exc!r}"
            body = {"ok": False, "error_code": 500, "description": call.description}
        self.calls.append(call)
        return JSONResponse(body, status_code=200 if call.ok else body["error_code"])

    def webhook_response(self, status: int, body: bytes, content_type: str = "") -> Call | None:
        """What Telegram does with the bot's HTTP response to a webhook request: a JSON object
        naming a `method` is carried out as a call (the bot never learns its result); any other
        200 response is just an acknowledgement. The call, if one was made."""
        if status != 200 or not content_type.startswith("application/json"):
            return None
        try:
            params = json.loads(body)
        except ValueError:
            return None
        if not isinstance(params, dict) or "method" not in params:
            return None
        name = str(params.pop("method"))
        call = Call(self._canonical.get(name.lower(), name), params, in_response=True)
        handler = self._handlers.get(name.lower())
        try:
            if handler is None:
                call.unknown = True
                raise ApiError(404, "Not Found: method not found")
            call.result = handler(decode_params(params))
            call.ok = True
        except ApiError as exc:
            call.error_code, call.description = exc.code, exc.description
        self.calls.append(call)
        return call

    @staticmethod
    async def _read_params(request: Request) -> JSON:
        params: JSON = dict(request.query_params)
        if request.method != "POST":
            return params
        body = await request.body()
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "application/json":
            try:
                data = json.loads(body) if body else {}
            except ValueError:
                raise bad("can't parse JSON request body") from None
            if not isinstance(data, dict):
                raise bad("JSON request body must be an object")
            params.update(data)
        elif content_type in ("application/x-www-form-urlencoded", "") and body:
            params.update(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
        elif content_type == "multipart/form-data":
            raise bad("the fake Telegram does not accept multipart uploads")
        elif body:
            raise bad(f"unsupported Content-Type {content_type}")
        return params

    # ---------------------------------------------------------------- long polling

    async def _get_updates(self, params: JSON, request: Request) -> list[JSON]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(0.0, float(params.get("timeout") or 0))
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = set(allowed) if allowed else None
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older pending poll ends with 409
        if offset > 0:  # confirms every update before offset
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        deadline = time.monotonic() + timeout
        gone = asyncio.ensure_future(self._wait_disconnect(request))
        try:
            while True:
                if generation != self._poll_generation:
                    raise ApiError(409, CONFLICT_POLL)
                batch = self._select_updates(offset, limit)
                remaining = deadline - time.monotonic()
                if batch or self._stopping or remaining <= 0:
                    return batch
                woken = asyncio.ensure_future(self._wake.wait())
                done, _ = await asyncio.wait(
                    {woken, gone}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                woken.cancel()
                if gone in done:
                    raise _ClientGone
        finally:
            gone.cancel()

    def _select_updates(self, offset: int, limit: int) -> list[JSON]:
        def allowed(update: JSON) -> bool:
            kind = next(key for key in update if key != "update_id")
            if self._allowed_updates is None:
                return kind not in _NOT_DEFAULT_UPDATES
            return kind in self._allowed_updates

        self._updates = [u for u in self._updates if allowed(u)]
        if offset < 0:
            return self._updates[offset:][:limit]
        return [u for u in self._updates if u["update_id"] >= offset][:limit]

    @staticmethod
    async def _wait_disconnect(request: Request) -> None:
        while (await request.receive())["type"] != "http.disconnect":
            await asyncio.sleep(0)

    # ---------------------------------------------------------------- Bot API methods

    def _api_getMe(self, params: JSON) -> JSON:
        return {
            **self._bot_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _api_sendMessage(self, params: JSON) -> JSON:
        chat = self._writable(params.get("chat_id"))
        self._check_flood(chat.id)
        text, entities, raw = self._text(params)
        markup = check_reply_markup(params.get("reply_markup"))
        reply = params.get("reply_parameters") or {}
        reply_id = reply.get("message_id", params.get("reply_to_message_id"))
        replied = None
        if reply_id is not None:
            replied = self._find(chat.id, int(reply_id))
            if replied is not None and replied.deleted:
                replied = None
            lenient = reply.get("allow_sending_without_reply", False)
            if replied is None and not (lenient or params.get("allow_sending_without_reply")):
                raise bad("message to be replied not found")
        stored = self._store(
            chat, self.bot_id, text, raw, params.get("parse_mode"), entities, markup, replied
        )
        return self._message_dict(stored)

    def _api_editMessageText(self, params: JSON) -> JSON:
        message = self._editable(params)
        text, entities, raw = self._text(params)
        markup = check_reply_markup(params.get("reply_markup"), inline_only=True)
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad(NOT_MODIFIED)
        message.history.append(message.text)
        message.text, message.entities, message.raw = text, entities, raw
        message.parse_mode, message.reply_markup = params.get("parse_mode"), markup
        message.edit_date = int(time.time())
        return self._message_dict(message)

    def _api_editMessageReplyMarkup(self, params: JSON) -> JSON:
        message = self._editable(params)
        markup = check_reply_markup(params.get("reply_markup"), inline_only=True)
        if markup == message.reply_markup:
            raise bad(NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = int(time.time())
        return self._message_dict(message)

    def _deletable(self, chat: FakeChat, message_id: Any) -> StoredMessage | None:
        message = self._find(chat.id, message_id)
        if message is None or message.deleted:
            return None
        if not (message.from_bot or chat.type == "private" or chat.bot_is_admin):
            raise bad("message can't be deleted")
        return message

    def _api_deleteMessage(self, params: JSON) -> bool:
        chat = self._chat(params.get("chat_id"))
        message = self._deletable(chat, params.get("message_id"))
        if message is None:
            raise bad("message to delete not found")
        message.deleted = True
        return True

    def _api_deleteMessages(self, params: JSON) -> bool:
        chat = self._chat(params.get("chat_id"))
        ids = params.get("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad("message_ids must be a non-empty array of at most 100 identifiers")
        found = [self._deletable(chat, message_id) for message_id in ids]
        for message in found:
            if message is not None:
                message.deleted = True
        return True

    def _api_answerCallbackQuery(self, params: JSON) -> bool:
        query = self._queries.get(str(params.get("callback_query_id", "")))
        if query is None or query.answered:
            raise bad(QUERY_INVALID)
        text = params.get("text") or ""
        if utf16_len(text) > 200:  # Telegram counts UTF-16 code units
            raise bad("MESSAGE_TOO_LONG")
        url = params.get("url")
        if url and not re.match(rf"(https://)?t\.me/{self.bot_username}\?start=", url):
            raise bad("URL_INVALID")
        query.answered = True
        query.answer = {"text": text, "show_alert": bool(params.get("show_alert")), "url": url}
        return True

    @staticmethod
    def _commands_key(params: JSON) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), params.get("language_code") or ""

    def _api_setMyCommands(self, params: JSON) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise bad("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
                raise bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
                raise bad("command description must be non-empty")
        self.commands[self._commands_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def _api_getMyCommands(self, params: JSON) -> list[JSON]:
        return self.commands.get(self._commands_key(params), [])

    def _api_deleteMyCommands(self, params: JSON) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    def _api_setChatMenuButton(self, params: JSON) -> bool:
        button = params.get("menu_button") or {"type": "default"}
        if button.get("type") not in ("default", "commands", "web_app"):
            raise bad("can't parse menu button JSON object")
        if params.get("chat_id") is None:
            self.default_menu_button = button
        else:
            self._chat(params["chat_id"]).menu_button = button
        return True

    def _api_getChatMenuButton(self, params: JSON) -> JSON:
        default = self.default_menu_button
        if params.get("chat_id") is None:
            return default
        return self._chat(params["chat_id"]).menu_button or default

    def _api_getChat(self, params: JSON) -> JSON:
        chat = self._chat(params.get("chat_id"))
        gifts = (
            "unlimited_gifts",
            "limited_gifts",
            "unique_gifts",
            "premium_subscription",
            "gifts_from_channels",
        )
        return {
            **self._chat_dict(chat),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": dict.fromkeys(gifts, False),
        }

    def _member(self, chat: FakeChat, user_id: int) -> JSON:
        if user_id == self.bot_id:
            status = "administrator" if chat.bot_is_admin else "member"
            user = self._bot_dict()
        else:
            user = self.users[user_id].to_dict()
            if chat.type == "private":
                status = "member"
            elif user_id == chat.creator_id:
                return {"status": "creator", "user": user, "is_anonymous": False}
            elif user_id in chat.admin_ids:
                status = "administrator"
            else:
                status = "member" if user_id in chat.member_ids else "left"
        if status != "administrator":
            return {"status": status, "user": user}
        rights = (
            "can_manage_chat",
            "can_delete_messages",
            "can_manage_video_chats",
            "can_restrict_members",
            "can_change_info",
            "can_invite_users",
            "can_pin_messages",
        )
        no_rights = (
            "can_be_edited",
            "is_anonymous",
            "can_promote_members",
            "can_post_stories",
            "can_edit_stories",
            "can_delete_stories",
        )
        return {
            "status": status,
            "user": user,
            **dict.fromkeys(rights, True),
            **dict.fromkeys(no_rights, False),
        }

    def _api_getChatMember(self, params: JSON) -> JSON:
        chat = self._chat(params.get("chat_id"))
        user_id = params.get("user_id")
        if user_id != self.bot_id and (
            user_id not in self.users or (chat.type == "private" and user_id != chat.id)
        ):
            raise bad("user not found")
        return self._member(chat, user_id)

    def _api_getChatAdministrators(self, params: JSON) -> list[JSON]:
        chat = self._chat(params.get("chat_id"))
        if chat.type == "private":
            raise bad("there are no administrators in the private chat")
        ids = [chat.creator_id] if chat.creator_id is not None else []
        ids += sorted(chat.admin_ids - set(ids))
        if chat.bot_is_admin:
            ids.append(self.bot_id)
        return [self._member(chat, user_id) for user_id in ids]

    def _api_getChatMemberCount(self, params: JSON) -> int:
        chat = self._chat(params.get("chat_id"))
        return 2 if chat.type == "private" else len(chat.member_ids) + 1

    def _api_deleteWebhook(self, params: JSON) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _api_setWebhook(self, params: JSON) -> bool:
        url = str(params.get("url") or "")
        if url and not url.startswith("https://"):
            raise bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad("bad webhook: secret token contains unallowed characters")
        self.webhook_url = url
        self.webhook_secret = None if secret is None else str(secret)
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _api_getWebhookInfo(self, params: JSON) -> JSON:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _api_close(self, params: JSON) -> bool:
        return True

    def _api_logOut(self, params: JSON) -> bool:
        return True

    def _api_sendChatAction(self, params: JSON) -> bool:
        self._writable(params.get("chat_id"))
        if params.get("action") not in _CHAT_ACTIONS:
            raise bad("wrong parameter action in request")
        return True
