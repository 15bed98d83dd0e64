"""Delivery: what one process sends to each chat, in which order, and when (docs/delivery.md).

- Per-chat queues: a press is answered at once by the runner; its messages wait here, so an
  answer never waits behind a group's flood budget.
- Coalescing: an unsent table update is replaced by a newer one, and a table message is edited
  at most once per `table_interval`; on a platform without edits, the group messages of one
  event are merged into one new message; where unasked messages cost, a new table message
  that answers no event waits `table_interval` for a newer one to replace it (or, where
  players move on a page, is parked in the store for the next reply in its chat, however
  long, which whichever process gets that reply sends).
- Order within a chat's budget (a platform with one gives a `Budget`): what is sent is chosen
  when the chat may get its next message, never committed early to a wait. First a table
  whose buttons are gone (a finished turn: presses on it could only be refused), then new game
  messages in order, then table edits due by their interval, then a table update that only
  marks a hidden choice (`Message.minor`: it waits three table intervals after the table's
  last edit and one after it came, goes only while a quarter of the chat's budget is free, and
  is dropped when another process saved a newer change meanwhile; the next real update
  carries it), and last replies
  to commands that only tell, while the budget has that room (or they waited
  `CHATTER_PATIENCE`). A member repeating a command gets one reply a burst (asks less than
  `CHATTER_WINDOW` seconds apart): the first at once, the latest when the burst is over if it
  says something new; the very reply they got moments ago is never sent again.
- A table shown anew below takes the buttons off the copy above.
- The ledger: a saved change counts as delivered once all its messages went out, recorded
  with the others every LEDGER_EVERY seconds in one store write (with new hand message ids
  and handled updates); a change not recorded in time is delivered by another process.

Adapters give an `Outbox` (send or edit one message) and their capabilities.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import orjson

from chatbot import metrics
from chatbot.core.model import Button, Capabilities, Command, Incoming, Message, Press, looks
from chatbot.core.sessions import HAND_SLOT, Sessions
from chatbot.core.views import table_slot
from chatbot.store.base import StoreUnavailable

log = logging.getLogger(__name__)
SLOTS_KEPT = 10_000  # newest slot message ids known in this process
# Seconds a delivered change, or a new hand message's id, waits to be recorded with the others
# (far below OWED_GRACE: only a process that dies within this time after delivering has its last
# changes sent again; until then another process bares the hand's previous message).
LEDGER_EVERY = 1.0
CHATTER_PATIENCE = 10.0  # seconds after which a command's reply goes without budget to spare
CHATTER_WINDOW = 10.0  # seconds between a member's asks that make them one burst
MINOR_ROOM = 0.25  # share of a chat's budget left free before a `minor` update goes
MINOR_RECHECK = 1.0  # seconds between looks at the budget for a waiting `minor` update
MINOR_WAIT = 3  # table intervals a `minor` update waits after the table's last edit
REPLY_MESSAGES = 5  # messages one reply may carry (LINE's limit)


class Undelivered(Exception):
    """Raised by an outbox: the platform could not be reached (after its retries); the
    message may be sent again later."""


class Outbox(Protocol):
    """A platform's way out."""

    capabilities: Capabilities
    platform: str  # its name in metrics labels

    async def send(self, message: Message) -> str | None:
        """Send `message` (or edit the one it names); the platform id of the message that
        shows it (the edited one, or a new one), None when it could not be delivered (the
        adapter logs why)."""
        ...


class Budget(Protocol):
    """A platform's per-chat message budget (Telegram's 20 a minute in a group)."""

    def ready(self, chat: str) -> float:
        """Seconds until a message to `chat` would go without waiting."""
        ...

    def room(self, chat: str) -> float:
        """The share (0–1) of `chat`'s budget free now."""
        ...


class Unlimited:
    """No per-chat budget: every message may go at once."""

    def ready(self, chat: str) -> float:
        return 0.0

    def room(self, chat: str) -> float:
        return 1.0


@dataclass
class _Batch:
    """The messages of one saved change: when the last is sent, the change is recorded as
    delivered (until then another process may deliver it if this one dies)."""

    chat: str
    change: int
    left: int
    # Batches of unasked table updates that went out with one of these messages (a reply
    # carries them): delivered, or not, with it.
    riders: list[_Batch] = field(default_factory=list)


Item = tuple[Message, _Batch | None]


Chatter = tuple[str, str, int]  # (member, command, index in its reply)


@dataclass
class _Asking:
    """A member asking the same thing again and again: one burst, one reply."""

    since: float  # when the burst began
    posted: float  # when they asked last
    replied: float = -math.inf  # when they got the last reply
    shows: int | None = None  # `looks` of that reply

    def got(self, message: Message, now: float) -> bool:
        """Whether they got this very reply moments ago."""
        same = self.shows == looks(message.text, message.buttons)
        return same and now - self.replied < CHATTER_WINDOW

    def free(self) -> float:
        """When the next reply may go: at once for the burst's first, else when it is over."""
        return -math.inf if self.replied < self.since else self.posted + CHATTER_WINDOW


@dataclass
class _Queue:
    """One chat's undelivered messages: new messages in order, table edits by target, and
    replies to commands that changed nothing, by who asked what."""

    fifo: deque[Item] = field(default_factory=deque)
    edits: dict[str, Item] = field(default_factory=dict)
    edited: dict[str, float] = field(default_factory=dict)  # target -> when last edited
    held: dict[str, float] = field(default_factory=dict)  # held table -> when first queued
    queued: dict[str, float] = field(default_factory=dict)  # table edit target -> since when
    chatter: dict[Chatter, tuple[Message, float]] = field(default_factory=dict)  # -> since
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    sending: bool = False

    def waiting(self) -> bool:
        return bool(self.fifo or self.edits or self.chatter)


class Delivery:
    """One process's deliveries to every chat of one platform, and their ledger."""

    def __init__(
        self,
        sessions: Sessions,
        outbox: Outbox,
        monotonic: Callable[[], float],
        budget: Budget | None = None,
        errors: list[BaseException] | None = None,
    ) -> None:
        self.sessions = sessions
        self.outbox = outbox
        self.budget = budget or Unlimited()
        self.settings = sessions.settings
        self.monotonic = monotonic
        self.errors: list[BaseException] = [] if errors is None else errors
        self._queues: dict[str, _Queue] = {}
        self._slots: OrderedDict[tuple[str, str], str] = OrderedDict()
        # (chat, group slot message) sent or edited here -> whether it shows buttons now
        self._armed: OrderedDict[tuple[str, str], bool] = OrderedDict()
        # (chat, message) -> (what a press saw on it, what this process's edit made it show)
        self._edited: OrderedDict[tuple[str, str], tuple[int, int]] = OrderedDict()
        self._confirming: set[asyncio.Task[None]] = set()  # deliveries being recorded
        self._delivered: dict[str, int] = {}  # chat -> its last delivered change, unrecorded
        self._hands: dict[tuple[str, str], str] = {}  # (chat, hand slot) -> new id, unrecorded
        self._unwritten: dict[str, list[Message]] = {}  # chat -> parked here, not yet stored
        self._parking: dict[str, asyncio.Task[None]] = {}  # chat -> writing its parked updates
        self._parked_here: OrderedDict[str, None] = OrderedDict()  # chats parked for, newest
        self._ledger_task: asyncio.Task[None] | None = None  # waits LEDGER_EVERY, then records
        self._sent = asyncio.Event()  # set whenever a queued message has been sent
        self._flushing = False  # stopping: every update goes, minor ones included
        # (chat, member, command, index in the reply) -> that member's burst of asking
        self._asking: OrderedDict[tuple[str, str, str, int], _Asking] = OrderedDict()

    @property
    def platform(self) -> str:
        return self.outbox.platform

    @property
    def caps(self) -> Capabilities:
        return self.outbox.capabilities

    def post(
        self,
        messages: list[Message],
        inc: Incoming | None = None,
        confirm: tuple[str, int] | None = None,
        chatter: bool = False,
        loud: bool = False,
    ) -> None:
        """Queue messages for delivery, per chat, in order (never waits); `confirm` (chat,
        change) is recorded as delivered once all of them went out; `chatter`: the answer to
        a group command that only tells (it goes when the game's messages have gone); `loud`:
        none is parked (`Capabilities.hold_unasked`)."""
        if inc is not None and inc.context is not None:
            messages = [
                replace(m, answers=inc.context) if m.chat == inc.chat else m for m in messages
            ]
        if not self.caps.edits:
            messages = _merged(messages)
        elif isinstance(inc, Press) and inc.shown is not None:
            messages = [m for m in messages if not self._unchanged(m, inc, inc.shown)]
        batch = _Batch(*confirm, len(messages)) if confirm else None
        if batch is not None and not messages:
            self._done(batch)
        said = inc if isinstance(inc, Command) and chatter and not inc.private else None
        heard = not (isinstance(inc, Press) and inc.unheard)
        park = self.caps.hold_unasked and not loud and heard
        for i, message in enumerate(messages):
            if said is not None and message.chat == said.chat:
                self._chatter(message, (said.user.id, said.name, i))
            elif park and self._parks(message):
                self._park(message, batch)
            else:
                message, carrier = self._carry(message, batch)
                self._enqueue(message, carrier)

    def _parks(self, message: Message) -> bool:
        """Whether a message waits for the next reply in its chat, however long: an update of
        a game's group that answers no event, where such messages cost and players read the
        game on a page (the page and the table always read the game as it is)."""
        if self.caps.unasked_free or message.answers is not None:
            return False
        return message.host is not None and message.chat == message.host

    def _park(self, message: Message, batch: _Batch | None) -> None:
        """Park a group update for the next reply in its chat, in the store, where whichever
        process gets that reply finds it (an older table update of the same slot that carries
        no news goes: this one shows it). It counts as delivered; the chat's parked updates
        are written in order, one chat's after another's."""
        chat = message.chat
        self._unwritten.setdefault(chat, []).append(message)
        if chat not in self._parking:
            self._parking[chat] = asyncio.create_task(self._write_parked(chat))
        self._parked_here[chat] = None
        self._parked_here.move_to_end(chat)
        while len(self._parked_here) > SLOTS_KEPT:
            self._parked_here.popitem(last=False)
        self._done(batch)

    async def _write_parked(self, chat: str) -> None:
        """Write the updates parked here for `chat` to the store, oldest first."""
        try:
            while messages := self._unwritten.pop(chat, None):
                for message in messages:
                    key = f"{message.host}/{message.slot or ''}"
                    tag = key if message.coalesce else ""
                    try:
                        await self.sessions.park(chat, _stored(message), tag, key)
                    except Exception as exc:  # the next reply shows the table as it is then
                        log.warning("could not park an update of %s: %r", chat, exc)
        finally:
            del self._parking[chat]

    async def parked_written(self) -> None:
        """Wait until the updates parked here are in the store (a page's message in the
        group, which another process may get, follows at once)."""
        while self._parking:
            await asyncio.gather(*self._parking.values(), return_exceptions=True)

    async def _parked(self, chat: str) -> list[Message]:
        """The updates parked for `chat` by any process, oldest first, taken from the store
        (this process's own written there first)."""
        writing = self._parking.get(chat)
        if writing is not None:
            await asyncio.gather(writing, return_exceptions=True)
        self._parked_here.pop(chat, None)
        try:
            stored = await self.sessions.unpark(chat)
        except Exception as exc:  # they wait for the next reply
            log.warning("could not take the updates parked for %s: %r", chat, exc)
            return []
        parked = []
        for raw in stored:
            try:
                parked.append(_restored(raw))
            except (orjson.JSONDecodeError, TypeError, KeyError, AttributeError) as exc:
                log.error("an unreadable parked update of %s: %r", chat, exc)
        return parked

    async def release(self, chat: str, context: object) -> bool:
        """The updates parked for `chat`, by any process, go now: as the reply to the event
        of `context` (one there that nothing else answers), or, without one, as if never
        parked (a page could not post there). Whether there were any."""
        parked = await self._parked(chat)
        if not parked:
            return False
        self.post([replace(m, answers=context) for m in parked], loud=True)
        return True

    def _chatter(self, message: Message, key: Chatter) -> None:
        """A reply to a command that changed nothing: it replaces the member's unsent reply
        to the same command, and is dropped when they got the very same one moments ago."""
        queue = self._queue(message.chat)
        now, asked = self.monotonic(), (message.chat, *key)
        asking = self._asking.get(asked)
        if asking is None:
            asking = _Asking(since=now, posted=now)
        elif now - asking.posted >= CHATTER_WINDOW:
            asking.since = now  # a new burst
        asking.posted = now
        self._asking[asked] = asking
        self._asking.move_to_end(asked)
        while len(self._asking) > SLOTS_KEPT:
            self._asking.popitem(last=False)
        if asking.got(message, now):
            queue.chatter.pop(key, None)
            return
        waiting = queue.chatter.get(key)
        queue.chatter[key] = (message, waiting[1] if waiting else now)
        self._start(queue, message.chat)

    def _queue(self, chat: str) -> _Queue:
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = _Queue()
        return queue

    def _carry(self, message: Message, batch: _Batch | None) -> tuple[Message, _Batch | None]:
        """Where unasked messages cost, a reply to a group takes along the table updates
        held in its queue (free instead of pushed), up to REPLY_MESSAGES in all; one of a
        table the reply itself shows anew is dropped (the parked ones join it as it goes:
        `_with_parked`). The message, and the batch it now counts for."""
        queue = self._queues.get(message.chat)
        if message.answers is None or self.caps.unasked_free or queue is None:
            return message, batch
        held = [(m, bt) for m, bt in queue.fifo if self._held(m) is not None]
        room = REPLY_MESSAGES - 1 - len(message.also)
        told = [i for i in held if _shows(message, i[0])]
        carried = [i for i in held if all(i is not t for t in told)][:room]
        if not carried and not told:
            return message, batch
        carrier = batch or _Batch(message.chat, 0, 1)
        for item in carried + told:
            queue.fifo.remove(item)
            queue.held.pop(self._held(item[0]) or "", None)
            if item[1] is not None:
                carrier.riders.append(item[1])
        also = (*(m for m, _ in carried), *message.also)
        return replace(message, also=also), carrier

    async def _with_parked(self, message: Message) -> Message:
        """A reply to a chat this process parked updates for takes along every update parked
        there (by any process), before its own, up to REPLY_MESSAGES in all; one of a table
        the reply shows anew is dropped, and what does not fit stays parked."""
        parked = await self._parked(message.chat)
        rest = [m for m in parked if not _shows(message, m)]
        room = REPLY_MESSAGES - 1 - len(message.also)
        for left in rest[room:]:
            self._park(left, None)
        if not rest[:room]:
            return message
        return replace(message, also=(*rest[:room], *message.also))

    def _unchanged(self, message: Message, inc: Press, shown: int) -> bool:
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

    def _enqueue(self, message: Message, batch: _Batch | None) -> None:
        queue = self._queue(message.chat)
        if message.coalesce and message.slot:  # a reply re-posting this table shows it too
            for asked, (waiting, since) in list(queue.chatter.items()):
                if waiting.slot == message.slot and waiting.host == message.host:
                    shown = replace(waiting, text=message.text, buttons=message.buttons)
                    queue.chatter[asked] = (shown, since)
        if self._supersede(queue, message, batch):
            return self._start(queue, message.chat)
        if message.coalesce and message.edit and not message.slot and self.caps.edits:
            superseded = queue.edits.get(message.edit)  # an update of a known message
            queue.edits[message.edit] = (message, batch)
            if superseded is not None:
                self._done(superseded[1])
            return self._start(queue, message.chat)
        if message.coalesce and message.slot and message.host:
            key = (message.host, message.slot)
            target = self._slots.get(key) or message.edit
            if target and self.caps.edits:
                superseded = queue.edits.get(target)
                minor = message.minor and (superseded is None or superseded[0].minor)
                queue.edits[target] = (replace(message, edit=target, minor=minor), batch)
                queue.queued.setdefault(target, self.monotonic())
                if superseded is not None:
                    self._done(superseded[1])
                    was = superseded[0]
                    same = was.minor == minor and bool(was.buttons) == bool(message.buttons)
                    if queue.task is not None and same:  # it waits for this target's turn
                        return None
                return self._start(queue, message.chat)
            message = replace(message, edit=None)
        if (held := self._held(message)) is not None:
            queue.held.setdefault(held, self.monotonic())
        queue.fifo.append((message, batch))
        self._start(queue, message.chat)

    def _supersede(self, queue: _Queue, message: Message, batch: _Batch | None) -> bool:
        """An unsent older message of the same table: a table update takes its place (unless
        it carries merged news); a held update is dropped before a newer table with news.
        Whether `message` took the older one's place."""
        if not (message.slot and message.host):
            return False
        same = [
            i
            for i, (waiting, _) in enumerate(queue.fifo)
            if waiting.slot == message.slot and waiting.host == message.host
        ]
        if not same:
            return False
        i = same[-1]
        waiting, older = queue.fifo[i]
        if message.coalesce and (waiting.coalesce or self.caps.edits):
            answers = message.answers if message.answers is not None else waiting.answers
            newer = replace(
                waiting,
                text=message.text,
                buttons=message.buttons,
                answers=answers,
                minor=message.minor and waiting.minor,
            )
            queue.fifo[i] = (newer, batch)
            self._done(older)
            return True
        held = self._held(waiting)
        if held is not None and i == len(queue.fifo) - 1:  # the newer table tells it all
            del queue.fifo[i]
            queue.held.pop(held, None)
            self._done(older)
        return False

    def _done(self, batch: _Batch | None) -> None:
        """One message of `batch` went out (or was superseded by a newer one). A delivered
        change is recorded within LEDGER_EVERY seconds, together with the others delivered
        meanwhile and the ids of new hand messages: one store write for many presses."""
        if batch is None:
            return
        riders, batch.riders = batch.riders, []
        for rider in riders:
            self._done(rider)
        batch.left -= 1
        if batch.left > 0 or batch.change <= 0:  # (0: a reply's carrier, no change of its own)
            return
        self._delivered[batch.chat] = max(batch.change, self._delivered.get(batch.chat, 0))
        self.write_ledger_soon()

    def write_ledger_soon(self) -> None:
        """Write the ledger within LEDGER_EVERY seconds (with whatever joins it meanwhile)."""
        if self._ledger_task is None:
            self._ledger_task = asyncio.create_task(self._write_ledger_later())

    async def _write_ledger_later(self) -> None:
        await asyncio.sleep(LEDGER_EVERY)
        self._ledger_task = None  # deliveries from now on wait for the next write
        task = asyncio.current_task()
        assert task is not None
        self._confirming.add(task)
        try:
            await self._write_ledger()
        finally:
            self._confirming.discard(task)

    async def _write_ledger(self) -> None:
        changes, self._delivered = self._delivered, {}
        hands, self._hands = self._hands, {}
        seen = self.sessions.dedupe.marks()
        if not changes and not hands and not seen:
            return
        try:
            await self.sessions.write_ledger(changes, hands, seen)
        except Exception as exc:  # another process may deliver them again, or not bare a hand
            count = len(changes) + len(hands) + len(seen)
            log.warning("could not record %d deliveries: %r", count, exc)

    async def _write_ledger_now(self) -> None:
        """Record the deliveries waiting for the next write now."""
        task, self._ledger_task = self._ledger_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._write_ledger()

    def _start(self, queue: _Queue, chat: str) -> None:
        queue.wake.set()
        if queue.task is None:
            queue.task = asyncio.create_task(self._drain(chat, queue))

    async def _drain(self, chat: str, queue: _Queue) -> None:
        """Deliver one chat's queue, each message chosen when the chat's budget lets one go
        (the order is in the module's docstring)."""
        interval = self.settings.table_interval
        try:
            while queue.waiting():
                queue.wake.clear()
                wait = self.budget.ready(chat)
                picked = self._pick(chat, queue) if wait <= 0 else wait
                if isinstance(picked, float):  # nothing may go yet: wait, or for news
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(queue.wake.wait(), picked)
                    continue
                message, batch = picked
                since = queue.queued.pop(message.edit or "", None)
                waited = since is not None and self.monotonic() - since >= max(interval, 1e-3)
                queue.sending = True
                try:
                    if message.answers is not None and chat in self._parked_here:
                        message = await self._with_parked(message)
                    if not await self._outdone(message, batch, waited):
                        sent = await self._send(message)
                        if sent is not None and message.slot and message.edit is None:
                            queue.edited[sent] = self.monotonic()  # a new table: edited later
                    self._done(batch)
                except Undelivered as exc:
                    log.warning("could not deliver to %s for now: %s", message.chat, exc)
                    self._undelivered(batch)
                queue.sending = False
                self._sent.set()
        finally:
            queue.task, queue.sending = None, False
            self._sent.set()
            if queue.waiting():  # posted while the last send was finishing
                self._start(queue, chat)
            elif self._queues.get(chat) is queue and not _recent(queue, self.monotonic(), interval):
                del self._queues[chat]

    def _pick(self, chat: str, queue: _Queue) -> Item | float:
        """The message to send now, or how long until one may go."""
        now, interval = self.monotonic(), self.settings.table_interval
        for target, (message, _) in queue.edits.items():  # a finished table first
            if not message.buttons:
                queue.edited[target] = now
                return queue.edits.pop(target)
        if queue.fifo:
            message, _ = queue.fifo[0]
            held = self._held(message)
            if held is None:
                return queue.fifo.popleft()
            wait = queue.held.setdefault(held, now) + interval - now
            if wait > 0:
                return wait
            del queue.held[held]
            return queue.fifo.popleft()
        soonest, due = math.inf, None
        roomy = self._flushing or self.budget.room(chat) >= MINOR_ROOM
        for target, (message, _) in queue.edits.items():
            at = queue.edited.get(target, -math.inf) + interval * (
                MINOR_WAIT if message.minor else 1
            )
            if message.minor:  # and an interval since it came: a mark that goes was looked at
                at = max(at, queue.queued.get(target, now) + interval)
            if message.minor and not roomy:
                soonest = min(soonest, now + MINOR_RECHECK)
            elif at > now:
                soonest = min(soonest, at)
            elif due is None or (queue.edits[due][0].minor and not message.minor):
                due = target
        if due is not None:
            queue.edited[due] = now
            return queue.edits.pop(due)
        for key, (_, since) in sorted(queue.chatter.items(), key=lambda kv: kv[1][1]):
            asking = self._asking.get((chat, *key))
            free = now if asking is None else asking.free()
            if not roomy:
                free = max(free, since + CHATTER_PATIENCE)
                soonest = min(soonest, now + MINOR_RECHECK)
            if self._flushing or free <= now:
                return self._answer_chatter(queue, key, now)
            soonest = min(soonest, free)
        return max(0.0, soonest - now)

    def _answer_chatter(self, queue: _Queue, key: Chatter, now: float) -> Item | float:
        """Send a command's reply (0.0: it said nothing new: look again)."""
        message, _ = queue.chatter.pop(key)
        asking = self._asking.get((message.chat, *key))
        if asking is not None:
            if asking.got(message, now):
                return 0.0
            asking.replied, asking.shows = now, looks(message.text, message.buttons)
        return message, None

    def _held(self, message: Message) -> str | None:
        """Where a message that answers no event costs: the key under which a new table
        message waits an interval before it is sent (a newer one replaces it meanwhile)."""
        if self.caps.unasked_free or not message.coalesce or message.answers is not None:
            return None
        return f"{message.host}/{message.slot}" if message.slot and message.host else None

    async def _outdone(self, message: Message, batch: _Batch | None, waited: bool) -> bool:
        """Whether a table update is outdone by a newer change of its game, made by another
        process (this one's own newer update would have replaced it in the queue): that
        change's owner sends the table as it is now. Looked at for an unasked update that
        costs (two processes never both pay for the same table) and for a `minor` edit that
        `waited` an interval or more (a hidden pick's mark must not land over the reveal
        another process made meanwhile and bring back the finished turn's buttons). An edit
        that goes at once costs no look."""
        stale_edit = bool(message.edit and message.minor and message.buttons and waited)
        if batch is None or (self._held(message) is None and not stale_edit):
            return False
        try:
            session, _ = await self.sessions.load(batch.chat)
        except Exception as exc:  # unknown: send it (a table twice rather than none)
            log.warning("could not look at %s before a table update: %r", batch.chat, exc)
            return False
        if session is None:  # over: a final table goes (it has no buttons), nothing newer came
            return False
        another_game = bool(message.slot) and message.slot != table_slot(session)
        return session.change > batch.change or (stale_edit and another_game)

    def _undelivered(self, batch: _Batch | None) -> None:
        """A message of `batch` could not be delivered for now (the platform unreachable): its
        change is not recorded as delivered, and is delivered again after the grace."""
        if batch is None:
            return
        riders, batch.riders = batch.riders, []
        for rider in [batch, *riders]:
            self.sessions.unsent.add((rider.chat, rider.change))

    async def _send(self, message: Message) -> str | None:
        """Send one message; the id of the message that shows it (None: none). Undelivered
        when it may go later (the platform unreachable)."""
        if message.only_edit:
            await self._bare(message)
            return None
        sent: str | None = None
        try:
            sent = await self.outbox.send(message)
        except Undelivered:
            raise
        except Exception as exc:  # one message lost must not stop the chat's queue
            log.exception("could not deliver to %s", message.chat)
            self.errors.append(exc)
        if message.edit and sent != message.edit:  # not edited: a press edits it again
            self._edited.pop((message.chat, message.edit), None)
        hand = bool(message.slot and message.slot.startswith(HAND_SLOT))
        if sent is not None and (message.bare or (message.slot and not hand)):
            self._armed[(message.chat, sent)] = bool(message.buttons)  # False: never bared again
            self._armed.move_to_end((message.chat, sent))
            while len(self._armed) > SLOTS_KEPT:
                self._armed.popitem(last=False)
        if sent is None or sent == message.edit or not (message.slot and message.host):
            return sent
        key = (message.host, message.slot)
        before = self._slots.get(key)
        self._slots[key] = sent
        self._slots.move_to_end(key)
        while len(self._slots) > SLOTS_KEPT:
            self._slots.popitem(last=False)
        if hand:  # recorded with the deliveries
            self._hands[key] = sent
            self.write_ledger_soon()
            return sent
        stored = None
        try:
            stored = await self.sessions.remember(message.host, message.slot, sent)
        except StoreUnavailable as exc:  # the next update then sends the slot anew
            log.warning("could not record the message id of %s: %r", message.slot, exc)
        except Exception as exc:  # the next update then sends the slot anew
            log.exception("could not record the message id of %s", message.slot)
            self.errors.append(exc)
        self._retire(message.chat, before or stored, sent)
        return sent

    def _retire(self, chat: str, old: str | None, new: str) -> None:
        """A slot's message shown anew below (`new`): the copy above (`old`) loses its buttons,
        first in the chat's queue (a press there could only be refused), unless it is known to
        have none; an edit of it still waiting goes without them."""
        if not self.caps.edits or not old or old == new or self._armed.get((chat, old)) is False:
            return
        queue = self._queue(chat)
        waiting = queue.edits.get(old)
        if waiting is not None:
            queue.edits[old] = (replace(waiting[0], buttons=(), minor=False), waiting[1])
        else:
            queue.edits[old] = (Message(chat, "", edit=old, bare=True), None)
        self._start(queue, chat)

    async def _bare(self, message: Message) -> None:
        """Edit the slot's last message (known here, or recorded by any process) in place, once;
        nothing when there is none."""
        assert message.slot and message.host
        key, sessions = (message.host, message.slot), self.sessions
        self._hands.pop(key, None)  # its id, not yet recorded, need not be any more
        try:
            target = self._slots.get(key)
            if target is None:
                target = await sessions.last_message(message.host, message.slot)
            if target:
                await self.outbox.send(replace(message, edit=target, slot=None, host=None))
                await sessions.bared(message.host, message.slot)
        except Exception as exc:  # the buttons stay: pressing them is refused with a reason
            log.warning("could not take the buttons off %s: %r", message.slot, exc)
        self._slots[key] = ""
        self._slots.move_to_end(key)

    def wake(self) -> None:
        """Look at every chat's queue again (its budget or the clock moved on)."""
        for queue in self._queues.values():
            queue.wake.set()

    async def settle(self, chats: Iterable[str] | None = None) -> None:
        """Wait until every new message queued so far (to `chats`, or anywhere), and every
        table edit already due, has been sent (later edits keep waiting for their interval)."""
        wanted = None if chats is None else list(chats)
        while True:
            self._sent.clear()  # (before looking: a send that ends after the look sets it)
            queues = (
                self._queues.values()
                if wanted is None
                else [q for chat in wanted if (q := self._queues.get(chat)) is not None]
            )
            if not any(q.fifo or q.chatter or q.sending or self._due(q) for q in queues):
                break
            await self._sent.wait()
        while self._confirming:
            await asyncio.gather(*self._confirming, return_exceptions=True)

    def _due(self, queue: _Queue) -> bool:
        now, interval = self.monotonic(), self.settings.table_interval
        return any(
            not m.buttons or (queue.edited.get(t, -math.inf) + interval <= now and not m.minor)
            for t, (m, _) in queue.edits.items()
        )  # (a finished table goes first, whenever it was last edited: see `_pick`)

    async def flush(self) -> None:
        """Wait until every queued message has been delivered, table edits included, and
        every parked update is in the store."""
        while tasks := [q.task for q in self._queues.values() if q.task is not None]:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self.parked_written()
        await self._write_ledger_now()
        while self._confirming:
            await asyncio.gather(*self._confirming, return_exceptions=True)

    async def close(self, within: float) -> None:
        """Deliver what is queued for at most `within` seconds, table updates at once and minor
        ones too (what is left, another process delivers once this one's heartbeat lapsed)."""
        self._flushing = True
        for queue in self._queues.values():  # owed table updates go now, not after an interval
            queue.edited.clear()
            queue.queued = dict.fromkeys(queue.queued, -math.inf)  # (waited: still looked at)
            queue.held = dict.fromkeys(queue.held, -math.inf)
            queue.wake.set()
        try:
            async with asyncio.timeout(within):
                await self.flush()
        except TimeoutError:
            await self._abandon()

    async def _abandon(self) -> None:
        """Drop what is still queued, unrecorded (its changes stay owed: another process
        delivers them once this one's heartbeat has lapsed), and end the deliveries."""
        left = 0
        for queue in self._queues.values():
            left += len(queue.fifo) + len(queue.edits) + len(queue.chatter)
            queue.fifo.clear()  # (emptied first: an ending delivery starts no other)
            queue.edits.clear()
            queue.chatter.clear()
        await cancelled([q.task for q in self._queues.values() if q.task is not None])
        await self._write_ledger_now()  # what did go out is recorded
        log.warning("stopped with %d messages undelivered: another process sends them", left)


async def cancelled(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel `tasks` and wait until each has ended (cancelled again while one goes on)."""
    pending = set(tasks)
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=1.0)


def _shows(reply: Message, update: Message) -> bool:
    """Whether `reply` (or a message it carries) shows anew the table `update` only
    updates (one without news of its own)."""
    shown = {(m.host, m.slot) for m in (reply, *reply.also) if m.slot}
    return update.coalesce and (update.host, update.slot) in shown


def _stored(message: Message) -> bytes:
    """A parked message as the store keeps it (JSON)."""
    return orjson.dumps(message)


def _restored(raw: bytes) -> Message:
    """The parked message `_stored` made."""
    data = orjson.loads(raw)
    data["buttons"] = tuple(tuple(Button(**b) for b in row) for row in data["buttons"])
    data["also"] = tuple(_restored(orjson.dumps(m)) for m in data["also"])
    return Message(**data)


def _recent(queue: _Queue, now: float, interval: float) -> bool:
    """Whether a table of this chat was edited within the interval (keep its timing)."""
    return any(now - at < interval for at in queue.edited.values())


def _merged(messages: list[Message]) -> list[Message]:
    """For platforms without edits: a table superseded within the same event is dropped, and a
    message without buttons joins its chat's latest one (each chat keeps its own order), so a
    move sends one group message."""
    later = set()
    kept: list[Message] = []
    for message in reversed(messages):
        key = (message.host, message.slot)
        if message.coalesce and message.slot and key in later:
            continue
        later.add(key)
        kept.append(replace(message, edit=None))
    out: list[Message] = []
    last_of: dict[str, int] = {}  # chat -> index in `out` of its latest message
    for message in reversed(kept):
        at = last_of.get(message.chat)
        if at is None or (out[at].buttons and message.buttons):
            last_of[message.chat] = len(out)
            out.append(message)
            continue
        last = out[at]
        out[at] = replace(
            last,
            text=f"{last.text}\n\n{message.text}",
            buttons=message.buttons or last.buttons,
            slot=message.slot or last.slot,
            host=message.host or last.host,
            coalesce=last.coalesce and message.coalesce,
        )
    return _bundled(out)


def _bundled(messages: list[Message]) -> list[Message]:
    """The messages that answer an event in its chat as one reply (up to REPLY_MESSAGES: the
    first carries the others); an answer is never merged into a later table update (each
    press keeps its own reply)."""
    out: list[Message] = []
    first: dict[tuple[str, object], int] = {}  # (chat, context) -> index in `out` of its reply
    for message in messages:
        token = message.answers
        if token is None:
            out.append(message)
            continue
        message = replace(message, coalesce=False)
        key = (message.chat, token)
        at = first.get(key)
        if at is not None and len(out[at].also) < REPLY_MESSAGES - 1:
            out[at] = replace(out[at], also=(*out[at].also, message))
            continue
        first.setdefault(key, len(out))
        out.append(message)
    return out
