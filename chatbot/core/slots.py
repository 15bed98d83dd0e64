"""Slots as this process knows them: which message shows each slot, and with what.

Whether a message it sent shows buttons, and what a press's edit made a message show
(docs/delivery.md, "Message ids").
"""

from __future__ import annotations

from collections import OrderedDict

from chatbot import metrics
from chatbot.core.model import Message, Press, looks
from chatbot.core.outbox import SLOTS_KEPT


class Slots:
    """The newest SLOTS_KEPT of each: a message's id known here spares a store read, and an
    edit known made spares a call the platform would refuse."""

    def __init__(self, platform: str) -> None:
        self.platform = platform  # its name in metrics labels
        self._ids: OrderedDict[tuple[str, str], str] = OrderedDict()  # (host, slot) -> message
        # (chat, group slot message) sent or edited here -> whether it shows buttons now
        self._armed: OrderedDict[tuple[str, str], bool] = OrderedDict()
        # (chat, message) -> (what a press saw on it, what this process's edit made it show)
        self._edited: OrderedDict[tuple[str, str], tuple[int, int]] = OrderedDict()

    def get(self, key: tuple[str, str]) -> str | None:
        """The message that shows slot `key` (host, slot), as sent here ("": bared here)."""
        return self._ids.get(key)

    def shown(self, key: tuple[str, str], message: str) -> str | None:
        """Slot `key` is shown anew by `message`; the one that showed it, known here."""
        before = self._ids.get(key)
        self._ids[key] = message
        self._ids.move_to_end(key)
        while len(self._ids) > SLOTS_KEPT:
            self._ids.popitem(last=False)
        return before

    def bared(self, key: tuple[str, str]) -> None:
        """Slot `key`'s last message lost its buttons: nothing of it to edit any more."""
        self._ids[key] = ""
        self._ids.move_to_end(key)

    def sent(self, message: Message, sent: str | None, hand: bool) -> None:
        """`message` went out as `sent` (None: it did not): an edit that did not land is
        forgotten (a press edits it again); a group message's buttons are noted."""
        if message.edit and sent != message.edit:
            self._edited.pop((message.chat, message.edit), None)
        if sent is not None and (message.bare or (message.slot and not hand)):
            self._armed[(message.chat, sent)] = bool(message.buttons)  # False: never bared again
            self._armed.move_to_end((message.chat, sent))
            while len(self._armed) > SLOTS_KEPT:
                self._armed.popitem(last=False)

    def unarmed(self, chat: str, message: str) -> bool:
        """Whether `message` is known to show no buttons (nothing to take off)."""
        return self._armed.get((chat, message)) is False

    def unchanged(self, message: Message, inc: Press, shown: int) -> bool:
        """Whether `message` edits the pressed message into what it shows already (a button
        pressed twice): the platform says so, or this process made that very edit from what
        the press saw. Such an edit is dropped (it would cost a call and be refused)."""
        if message.edit is None or message.edit != inc.message or message.chat != inc.chat:
            return False
        key, now = (message.chat, message.edit), looks(message.text, message.buttons)
        if shown == now or self._edited.get(key) == (shown, now):
            metrics.EDITS_SKIPPED.labels(self.platform).inc()
            return True
        self._edited[key] = (shown, now)  # forgotten again if the edit fails
        self._edited.move_to_end(key)
        while len(self._edited) > SLOTS_KEPT:
            self._edited.popitem(last=False)
        return False
