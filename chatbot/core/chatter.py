"""Chatter: a member's burst of commands, answered once (docs/delivery.md).

A reply that changed no game (a status, the help, a refusal) is chatter. A member's burst of
commands (asks less than `CHATTER_WINDOW` seconds apart, whatever the commands) gets one reply:
the latest while none has gone yet, none after it; the very reply they got moments ago is
never sent again. Behind one bot each process sees part of a burst: a reply goes only if no
process replied to the member in the chat since a window before this process saw the burst
begin (the time of the last reply kept in the store, on the shared clock). Chatter takes only
budget the game leaves free, unless it has waited `CHATTER_PATIENCE`: then it goes before the
game's next table edit."""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

from chatbot.core.model import Message, looks
from chatbot.core.outbox import MINOR_RECHECK, SLOTS_KEPT, Ask, Item, Queue
from chatbot.core.sessions import Sessions
from chatbot.store.base import StoreUnavailable

CHATTER_PATIENCE = 60.0  # seconds after which a command's reply goes without budget to spare
CHATTER_WINDOW = 10.0  # seconds between a member's asks that make them one burst
# seconds a reply to a member's burst is remembered: replies to one burst, each process's part
# of it, go within a patience and a window of each other
REPLIED_KEPT = math.ceil(CHATTER_PATIENCE + CHATTER_WINDOW)


@dataclass
class Asking:
    """A member asking again and again: one burst, one reply."""

    since: float  # when the burst began
    posted: float  # when they asked last
    began: float  # when the burst began, on the clock every process shares
    replied: float = -math.inf  # when they got the last reply
    shows: int | None = None  # `looks` of that reply

    def got(self, message: Message, now: float) -> bool:
        """Whether they got this very reply moments ago."""
        same = self.shows == looks(message.text, message.buttons)
        return same and now - self.replied < CHATTER_WINDOW

    def answered(self) -> bool:
        """Whether the burst got its reply."""
        return self.replied >= self.since


class Chatter:
    """The bursts of asking in every chat of one process, newest kept."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        # (chat, member, "", index in the reply) -> that member's burst of asking
        self._asking: OrderedDict[tuple[str, str, str, int], Asking] = OrderedDict()
        self._going: dict[int, tuple[str, Ask]] = {}  # a picked reply -> its chat and ask

    def asked(self, chat: str, key: Ask, message: Message, now: float) -> bool:
        """A member asked (again): `message` is the reply. Whether it is dropped: their burst
        got its reply already, or that very reply moments ago."""
        asked = (chat, *key)
        asking = self._asking.get(asked)
        if asking is None:
            asking = Asking(since=now, posted=now, began=self.sessions.budgets.clock())
        elif now - asking.posted >= CHATTER_WINDOW:
            asking.since, asking.began = now, self.sessions.budgets.clock()  # a new burst
        asking.posted = now
        self._asking[asked] = asking
        self._asking.move_to_end(asked)
        while len(self._asking) > SLOTS_KEPT:
            self._asking.popitem(last=False)
        return asking.answered() or asking.got(message, now)

    def overdue(self, queue: Queue, now: float) -> Item | None:
        """The reply that has waited CHATTER_PATIENCE while the game's table was edited,
        longest waiting first: it goes before the table's next edit (a busy game leaves no
        place to spare, and nobody's command goes unanswered); None: none has."""
        edited = max(queue.edited.values(), default=-math.inf)
        for key, (message, since) in sorted(queue.chatter.items(), key=lambda kv: kv[1][1]):
            if now - since < CHATTER_PATIENCE or edited < since:
                return None
            del queue.chatter[key]
            if self.answered(message, key, now):
                return self._goes(message, key)
        return None

    def pick(
        self, chat: str, queue: Queue, now: float, soonest: float, roomy: bool, flushing: bool
    ) -> Item | float:
        """The reply to send now, longest waiting first, or how long until one may go (or the
        game's messages may: `soonest`); 0.0: a reply said nothing new (look again). Without
        `roomy` budget a reply waits CHATTER_PATIENCE; `flushing`: every reply goes now."""
        for key, (_, since) in sorted(queue.chatter.items(), key=lambda kv: kv[1][1]):
            free = now
            if not roomy:
                free = max(free, since + CHATTER_PATIENCE)
                soonest = min(soonest, now + MINOR_RECHECK)
            if flushing or free <= now:
                message, _ = queue.chatter.pop(key)
                return self._goes(message, key) if self.answered(message, key, now) else 0.0
            soonest = min(soonest, free)
        return max(0.0, soonest - now)

    def _goes(self, message: Message, key: Ask) -> Item:
        self._going[id(message)] = (message.chat, key)
        return message, None

    async def may_go(self, message: Message, now: float) -> bool:
        """Whether a picked `message` may go: anything but a reply to a member's command; such
        a reply only if no process replied to that member in the chat since a window before
        this process saw their burst begin (each process sees part of a burst, whose asks are
        less than a window apart); a store that cannot be reached lets it go (never silent)."""
        going = self._going.pop(id(message), None)
        if going is None:
            return True
        chat, key = going
        asking = self._asking.get((chat, *key))
        budgets, name = self.sessions.budgets, f"replies/{chat}/{key[0]}/{key[2]}"  # (its part)
        try:
            last = await budgets.last_reply(name)
            if last is not None and asking is not None and last > asking.began - CHATTER_WINDOW:
                asking.replied = now  # another process's reply answered this burst
                return False
            await budgets.replying(name, REPLIED_KEPT)
        except StoreUnavailable:
            pass
        return True

    def answered(self, message: Message, key: Ask, now: float) -> bool:
        """The member's reply goes now; False when it is the very one they got moments ago
        (it does not go)."""
        asking = self._asking.get((message.chat, *key))
        if asking is not None:
            if asking.got(message, now):
                return False
            asking.replied, asking.shows = now, looks(message.text, message.buttons)
        return True
