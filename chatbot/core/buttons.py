"""Button data: short ASCII codes that carry what a press means, made to fit `DATA_BYTES`.

A code that changes a game carries a stamp: a seat's stamp on private buttons, the game's
epoch on group buttons (lobby buttons carry none: each names the value it sets); a press whose
stamp is not the current one is refused, not applied. Fields are separated by "|" (chat ids
contain ":").
"""

from __future__ import annotations

from dataclasses import dataclass

MOVE, NAV, PEEK, RULE, LANGUAGE = "m", "n", "h", "r", "L"
GROUP_MOVE = "M"  # a move pressed on the group's table (every eligible player's button)
JOIN, LEAVE, ADD_BOT, REMOVE_BOT, OPTION, START = "j", "q", "b", "x", "o", "s"
AGAIN = "g"  # under a game's final results: open a new table of the same game
STATS = "t"  # under a game's final results: the chat's standings in that game
RECORD = "R"  # under a game's final results: its record (with a page: a page of it)
PRESET, TIMER = "p", "k"  # in the lobby: a preset of options; the next turn timer
_OPS = {
    MOVE,
    GROUP_MOVE,
    NAV,
    PEEK,
    RULE,
    LANGUAGE,
    JOIN,
    LEAVE,
    ADD_BOT,
    REMOVE_BOT,
    OPTION,
    START,
    AGAIN,
    STATS,
    PRESET,
    TIMER,
    RECORD,
}
# Every code fits this many bytes, the least any platform carries (Telegram's 64); an
# adapter declares its own limit (`Capabilities.data_bytes`), checked against this at start.
DATA_BYTES = 64
SEND_PRIVATELY = "*"  # rule button on a table: send the overview to the private chat
OVERVIEW = "^"  # "All rules" under a section: the overview in place of the section
GAMES_MENU = "?"  # the list of games whose rules can be read
PAGE = "~"  # in a choice path: "<path>~<page>" shows a page of a long list


@dataclass(frozen=True)
class Code:
    """Decoded button data: `op`, the stamp it was made at (-1: none), and its fields."""

    op: str
    stamp: int
    fields: tuple[str, ...]


def encode(op: str, *fields: str, stamp: int = -1) -> str:
    head = op if stamp < 0 else f"{op}{stamp}"
    data = "|".join((head, *fields))
    if len(data.encode()) > DATA_BYTES:
        raise ValueError(f"button data over {DATA_BYTES} bytes: {data!r}")
    return data


def decode(data: str) -> Code | None:
    """The code, or None for data this bot never made."""
    head, *fields = data.split("|")
    if not head or head[0] not in _OPS:
        return None
    digits = head[1:]
    if digits and not (digits.isascii() and digits.isdigit()):  # int() refuses "²"
        return None
    return Code(head[0], int(digits) if digits else -1, tuple(fields))


def deep_link_payload(chat: str) -> str:
    """A /start payload (A-Z a-z 0-9 _ -) that joins the lobby of `chat`."""
    return "j" + chat.replace(":", "_")


def chat_from_payload(payload: str, kind: str = "j") -> str | None:
    """The chat of a payload of `kind` ("j": join its lobby, "h": show my hand there)."""
    if not payload.startswith(kind) or len(payload) < 2:
        return None
    return payload[1:].replace("_", ":")


def hand_payload(chat: str) -> str:
    """A /start payload that shows the sender's hand in the game of `chat`."""
    return "h" + chat.replace(":", "_")


def game_chat(code: Code | None, chat: str) -> str:
    """The chat whose game a press in `chat` acts on (hand buttons name their group)."""
    if code is not None and code.op in (MOVE, NAV, PEEK) and code.fields:
        return code.fields[0]
    return chat


def acts_on_game(code: Code | None) -> bool:
    """Whether a code is a move, a step of a choice or a peek (deduped with its load)."""
    if code is None:
        return False
    fields = {MOVE: 2, NAV: 2, PEEK: 1, GROUP_MOVE: 1}.get(code.op)
    return fields == len(code.fields)
