"""Updates delivered twice: what one process knows of the updates it answered.

A platform may deliver an update again (a webhook retried after a slow answer or a lost
connection, an update whose process died handling it). Each is handled once, and one cut short
is handled again (docs/delivery.md, "Dedupe"):

- a copy of an update this process answered is dropped at once (`copy`, `answered`);
- before handling an update, a process claims it in the store, in the round trip that loads
  the game (`Sessions.claim`): a copy reaching another process meanwhile waits for the claim,
  then finds the update handled (or handles it itself once the claim lapses: its process died);
- an update is marked handled by the save of the change it made (`mark`, passed to the save),
  or, when it changed no game, with the next write of the delivery ledger (`answered` queues
  the mark, the ledger takes it with `marks`): no round trip of its own.
"""

from __future__ import annotations

from collections import OrderedDict

from chatbot.core import keys
from chatbot.store.base import Seen

# Seconds each handled update id is remembered in the store, whatever else the chat sees
# meanwhile: longer than any platform redelivers an update (a LINE event older than the LINE
# adapter's EVENT_WINDOW is dropped by its own timestamp; Telegram retries a webhook within
# minutes), so that a copy is never handled twice, in any process, after any restart.
DEDUPE_TTL = 3600
IN_FLIGHT = 5.0  # seconds a process holds an update it handles against copies elsewhere
ANSWERED_KEPT = 10_000  # newest updates this process answered, known here


def member(update: str) -> str:
    """An update's id as a chat's sets keep it: without the platform's prefix (the chat names
    the platform), so that Redis keeps a numeric id (Telegram's) as an integer."""
    return update.rpartition(":")[2]


def mark(chat: str, update: str | None) -> Seen | None:
    """What marks `update` handled in `chat` and releases its claim (None: an event without
    an update id)."""
    if not update:
        return None
    return Seen(keys.seen(chat), member(update), DEDUPE_TTL, keys.claims(chat))


class Dedupe:
    """One process's memory of the updates it answered, and the marks of those that changed
    no game, waiting for the ledger's next write."""

    def __init__(self) -> None:
        self._answered: OrderedDict[str, None] = OrderedDict()  # newest last
        self._marks: list[Seen] = []

    def copy(self, update: str | None) -> bool:
        """Whether `update` is a copy of one this process answered already."""
        return update is not None and update in self._answered

    def answered(self, update: str | None, unmarked: tuple[str, str] | None) -> bool:
        """This process answered `update` (copies of it are dropped here from now on);
        `unmarked` (chat, update): it changed no game, so no save marked it handled: its mark
        waits for the ledger's next write. Whether one waits now."""
        if update:
            self._answered[update] = None
            while len(self._answered) > ANSWERED_KEPT:
                self._answered.popitem(last=False)
        seen = None if unmarked is None else mark(*unmarked)
        if seen is not None:
            self._marks.append(seen)
        return bool(self._marks)

    def told(self, chat: str, update: str) -> None:
        """This process answered `chat`'s press `update` at once: recorded with the ledger's
        next write (a copy elsewhere then says nothing; `Sessions.answering`)."""
        self._marks.append(Seen(keys.answered(chat), member(update), DEDUPE_TTL))

    def marks(self) -> list[Seen]:
        """The marks waiting for the ledger, taken (it writes them with its next write)."""
        marks, self._marks = self._marks, []
        return marks
