"""Every key the bot keeps in the store, in one place: `<kind>:<owner>`.

The owner (what follows the first colon) is a chat or a user: the store keeps one owner's keys
together (one Redis Cluster slot), so a save and what it marks, or a game and its standings,
change in one atomic step. Only `chatbot.core.sessions` (and the `Liveness` it owns) reads and
writes them.
"""

from __future__ import annotations


def game(chat: str) -> str:
    """A chat's session: its lobby, then its game (one versioned document)."""
    return f"game:{chat}"


def chat_of_game(key: str) -> str:
    """The chat of a `game` key."""
    return key.removeprefix("game:")


def ledger(chat: str) -> str:
    """A chat's delivery ledger: the last change delivered and its hand messages' ids."""
    return f"ledger:{chat}"


def old_ledger(chat: str) -> str:
    """Where a version before 2026-12 kept the last change delivered."""
    return f"sent:{chat}"


def seen(chat: str) -> str:
    """The bounded set of the chat's handled updates (platform events)."""
    return f"seen:{chat}"


def answered(chat: str) -> str:
    """The set of the chat's presses answered (by whichever process answered each)."""
    return f"answered:{chat}"


def claims(chat: str) -> str:
    """The chat's updates being handled now, and by which process."""
    return f"claims:{chat}"


def history(chat: str) -> str:
    """The chat's latest finished games, newest first."""
    return f"hist:{chat}"


def standings(chat: str) -> str:
    """The chat's standings: every person's rating in every game played there."""
    return f"stats:{chat}"


def record(chat: str, lock: str) -> str:
    """A finished game's record, one per game (its deal's lock)."""
    return f"rec-{lock}:{chat}"


def parked(chat: str) -> str:
    """Group updates waiting for the next free reply in the chat."""
    return f"parked:{chat}"


def moved(chat: str) -> str:
    """The chat that `chat` became (a Telegram group upgraded to a supergroup)."""
    return f"moved:{chat}"


def chat_prefs(chat: str) -> str:
    """A chat's settings: its language, chosen or guessed."""
    return f"chat:{chat}"


def user_prefs(user: str) -> str:
    """A person's settings: language, whether their private chat is open, games sat in."""
    return f"user:{user}"


def alive(process: str) -> str:
    """A process's heartbeat."""
    return f"alive:{process}"


def again(chat: str, message: str) -> str:
    """A results message whose "Play again" opened a table already."""
    return f"again:{chat}:{message}"


def shown(chat: str, message: str, game: str) -> str:
    """A results message whose standings were shown in the group already."""
    return f"shown:{chat}:{message}:{game}"


HEALTH = "health"  # what /healthz reads: the store answers


def budget(name: str) -> str:
    """A message budget shared by every process (`chatbot.core.budget`): `name` is its owner."""
    return f"budget:{name}"


def record_shown(chat: str, lock: str) -> str:
    """Marks that a finished game's record was posted in the chat (it is posted once)."""
    return f"rec-shown-{lock}:{chat}"
