"""A finished game's record: its deal and every move, kept and read back move by move.

It is kept with the game's results, and read back as everyone at the table saw it (the table's
narration and the group's announcements, which include what the rules reveal at the end), in
the reader's language.

A record is small JSON: the deal (`fairness.Deal`), the seats' names and the moves as
[seat, action code] (None: the person's time ran out). Replaying it through the engine gives
the very events of the game. `code`/`from_code` carry it as one line of text (zlib, base64)
for `python -m chatbot replay`.
"""

from __future__ import annotations

import base64
import binascii
import logging
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from chatbot.core import buttons as b
from chatbot.core import keys
from chatbot.core.fairness import Deal
from chatbot.core.model import Answer, Button, Message, Press, Reply
from chatbot.core.registry import Registry
from chatbot.core.session import Seat, Session
from chatbot.core.sessions import Sessions
from chatbot.core.views import say, seat_name
from chatbot.i18n import Translator, translator
from engine.core import BadState, IllegalAction, OptionValue

log = logging.getLogger(__name__)
TTL = 30 * 24 * 3600  # seconds a record is kept after its game
PAGE_LINES = 24  # moves on one page at most
PAGE_CHARS = 3000  # characters on one page at most (every platform's message holds more)


class BadRecord(Exception):
    """A record that cannot be read or replayed."""


@dataclass
class Record:
    game: str
    options: dict[str, OptionValue]
    seed: int
    salt: int
    seats: list[list[Any]]  # [name, computer?]
    trail: list[list[Any]] = field(default_factory=list)

    @classmethod
    def of(cls, session: Session) -> Record:
        seats = [[s.name, bool(s.bot)] for s in session.seats]
        return cls(
            session.game,
            dict(session.options),
            session.seed,
            session.salt,
            seats,
            list(session.trail),
        )

    def dumps(self) -> bytes:
        return orjson.dumps(self)

    @classmethod
    def loads(cls, raw: bytes) -> Record:
        try:
            data = orjson.loads(raw)
            return cls(**data)
        except (orjson.JSONDecodeError, TypeError, ValueError) as exc:
            raise BadRecord(repr(exc)) from exc

    def code(self) -> str:
        """The record as one line of text."""
        return base64.urlsafe_b64encode(zlib.compress(self.dumps(), 9)).decode()

    @classmethod
    def from_code(cls, text: str) -> Record:
        try:
            return cls.loads(zlib.decompress(base64.urlsafe_b64decode(text.strip().encode())))
        except (binascii.Error, zlib.error, ValueError) as exc:
            raise BadRecord(repr(exc)) from exc


def lines(record: Record, games: Registry, tr: Translator) -> list[str]:
    """The game as the table saw it, line by line: the start, then each move's narration."""
    bundle = games.get(record.game)
    if bundle is None:
        raise BadRecord(f"unknown game {record.game!r}")
    game = bundle.game
    names = [
        seat_name(Seat(str(name), bot="computer" if bot else None), tr)
        for name, bot in record.seats
    ]
    spec = game.spec
    key = Deal(
        record.game,
        len(names),
        tuple(record.options.get(o.name, o.default) for o in spec.options),
        record.seed,
        record.salt,
    ).key
    out = [
        tr.t("📜 {game}: {players}", game=bundle.presenter.title(tr), players=tr.list(names)),
        tr.t("🔓 The deal's key: <code>{key}</code>", key=key),
        "",
    ]
    for n, events in enumerate(replay(record, bundle)):
        told = _told(bundle, events, names, tr)
        out += [f"{n}. {line}" for line in told] if n else list(told)
    return out


def replay(record: Record, bundle: Any) -> Iterator[list[Any]]:
    """The events of the deal, then of each move, replayed through the engine (BadRecord
    when the record does not replay)."""
    game = bundle.game
    try:
        options = game.spec.resolve_options(record.options)
        state, events = game.new_game(len(record.seats), options, record.seed)
        yield events
        for n, (seat, code) in enumerate(record.trail, 1):
            if code is None:
                outcome = game.timeout(state, seat)
                if outcome is None:
                    raise BadRecord(f"move {n}: no timeout rule")
                state, events = outcome
            else:
                state, events = game.apply(state, seat, game.decode_action(code))
            yield events
    except (IllegalAction, BadState, ValueError, TypeError, IndexError) as exc:
        raise BadRecord(repr(exc)) from exc


def _told(bundle: Any, events: list[Any], names: list[str], tr: Translator) -> Iterator[str]:
    """What the group was told of `events`: the table's lines and the announcements."""
    for event in events:
        if (line := bundle.presenter.narrate(event, names, tr)) is not None:
            yield line
        if (told := bundle.presenter.announce(event, names, tr)) is not None:
            yield told


def pages(all_lines: list[str], chars: int = PAGE_CHARS, per_page: int = PAGE_LINES) -> list[str]:
    """The lines cut into pages (each at most `per_page` lines and `chars` characters)."""
    out: list[list[str]] = [[]]
    size = 0
    for line in all_lines:
        if out[-1] and (len(out[-1]) >= per_page or size + len(line) + 1 > chars):
            out.append([])
            size = 0
        out[-1].append(line[:chars])
        size += len(line) + 1
    return ["\n".join(page) for page in out]


LINE_MESSAGES = 5  # pages sent together where messages cannot be edited (one reply)


class RecordDesk:
    """The "📜 Record" button under a game's results: its record as the pages of one message
    (turned with ◀️ ▶️, edited in place), or every page in one reply where messages cannot be
    edited; posted once a game (a later press says it is above)."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def press(self, inc: Press, lock: str, page: str | None) -> Reply:
        sessions = self.sessions
        doc = await sessions.record(inc.chat, lock)
        if doc is None:
            ptr = translator(await sessions.people.user_language(inc.user.id, inc.user.language))
            return Reply(Answer(ptr.gettext("This game's record is no longer kept.")))
        if page is None and not await sessions.first_time(keys.record_shown(inc.chat, lock), TTL):
            ptr = translator(await sessions.people.user_language(inc.user.id, inc.user.language))
            text = ptr.gettext("The record of this game is already in the chat, above.")
            return Reply(Answer(text))  # one record message a game, its pages turned in place
        tr = translator(await sessions.people.chat_language(inc))
        caps = sessions.caps
        try:
            record = Record.loads(doc.data)
            told = lines(record, sessions.games, tr)
        except BadRecord as exc:
            log.error("unreadable record %s in %s: %r", lock, inc.chat, exc)
            return Reply(Answer(tr.gettext("This game's record is no longer kept.")))
        code = tr.t(
            "🔑 This record's code, to play the game back or check it: <code>{code}</code>",
            code=record.code(),
        )
        if not caps.edits:
            chars = min(caps.message_chars, 4500)
            sheets = pages(told, chars, per_page=10**6)
            if len(sheets) > LINE_MESSAGES - 1:  # the first pages and the last (the results)
                sheets = [*sheets[: LINE_MESSAGES - 2], sheets[-1]]
            return Reply(Answer(), [say(inc.chat, s) for s in [*sheets, code]])
        sheets = [*pages(told, min(caps.message_chars, PAGE_CHARS)), code]
        at = int(page) if page is not None and page.isdigit() else 0
        at = min(at, len(sheets) - 1)
        text = tr.t("Page {page} of {pages}", page=at + 1, pages=len(sheets)) + "\n\n" + sheets[at]
        turn = []
        if at > 0:
            turn.append(Button("◀️", b.encode(b.RECORD, lock, str(at - 1))))
        if at < len(sheets) - 1:
            turn.append(Button("▶️", b.encode(b.RECORD, lock, str(at + 1))))
        edit = inc.message if page is not None else None  # the results' button: a new message
        return Reply(Answer(), [Message(inc.chat, text, (tuple(turn),) if turn else (), edit=edit)])
