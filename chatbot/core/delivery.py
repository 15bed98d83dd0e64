"""Delivery: what one process sends to each chat, in which order, and when (docs/delivery.md).

Adapters give an `Outbox` (send or edit one message) and their capabilities; a platform with a
per-chat budget gives a `Budget` too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import replace

from chatbot.core.chatter import Chatter
from chatbot.core.ledger import Ledger
from chatbot.core.model import Capabilities, Command, Incoming, Message, Press
from chatbot.core.outbox import (
    MINOR_RECHECK,
    REPLY_MESSAGES,
    Ask,
    Batch,
    Budget,
    Item,
    Outbox,
    Queue,
    Undelivered,
    Unlimited,
    cancelled,
    held_key,
    merged,
    shows,
)
from chatbot.core.parking import Parking, parks
from chatbot.core.sessions import HAND_SLOT, Sessions
from chatbot.core.slots import Slots
from chatbot.core.views import table_slot
from chatbot.store.base import StoreUnavailable

log = logging.getLogger(__name__)
MINOR_ROOM = 0.25  # share of a chat's budget left free before a `minor` update goes
MINOR_WAIT = 3  # table intervals a `minor` update waits after the table's last edit
TABLE_WAIT, TABLE_LOOK = 15.0, 0.5  # for a table another process posts: how long, how often


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
        self._queues: dict[str, Queue] = {}
        self.slots = Slots(outbox.platform)
        self.ledger = Ledger(sessions)
        self.parking = Parking(sessions)
        self.chatter = Chatter(sessions)
        self._sent = asyncio.Event()  # set whenever a queued message has been sent
        self._flushing = False  # stopping: every update goes, minor ones included

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
            messages = merged(messages)
        elif isinstance(inc, Press) and inc.shown is not None:
            messages = [m for m in messages if not self.slots.unchanged(m, inc, inc.shown)]
        batch = Batch(*confirm, len(messages)) if confirm else None
        if batch is not None and not messages:
            self._done(batch)
        said = inc if isinstance(inc, Command) and chatter and not inc.private else None
        heard = not (isinstance(inc, Press) and inc.unheard)
        park = self.caps.hold_unasked and not loud and heard
        for i, message in enumerate(messages):
            if said is not None and message.chat == said.chat:
                self._chatter(message, (said.user.id, "", i))  # a member's commands: one burst
            elif park and parks(message, self.caps):
                self._park(message, batch)
            else:
                message, carrier = self._carry(message, batch)
                self._enqueue(message, carrier)

    def _park(self, message: Message, batch: Batch | None) -> None:
        """Park a group update for the next reply in its chat (`Parking`); it counts as
        delivered."""
        self.parking.park(message)
        self._done(batch)

    async def release(self, chat: str, context: object) -> bool:
        """The updates parked for `chat`, by any process, go now: as the reply to the event
        of `context` (one there that nothing else answers), or, without one, as if never
        parked (a page could not post there). Whether there were any."""
        parked = await self.parking.taken(chat)
        if not parked:
            return False
        self.post([replace(m, answers=context) for m in parked], loud=True)
        return True

    def _chatter(self, message: Message, key: Ask) -> None:
        """A reply to a command that changed nothing: it replaces the member's unsent reply
        to the same command, and is dropped when they got the very same one moments ago."""
        queue, now = self._queue(message.chat), self.monotonic()
        if self.chatter.asked(message.chat, key, message, now):
            queue.chatter.pop(key, None)
            return
        waiting = queue.chatter.get(key)
        queue.chatter[key] = (message, waiting[1] if waiting else now)
        self._start(queue, message.chat)

    def _queue(self, chat: str) -> Queue:
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = Queue()
        return queue

    def _carry(self, message: Message, batch: Batch | None) -> tuple[Message, Batch | None]:
        """Where unasked messages cost, a reply to a group takes along the table updates
        held in its queue (free instead of pushed), up to REPLY_MESSAGES in all; one of a
        table the reply itself shows anew is dropped (the parked ones join it as it goes:
        `Parking.joined`). The message, and the batch it now counts for."""
        queue = self._queues.get(message.chat)
        if message.answers is None or self.caps.unasked_free or queue is None:
            return message, batch
        held = [(m, bt) for m, bt in queue.fifo if held_key(m, self.caps) is not None]
        room = REPLY_MESSAGES - 1 - len(message.also)
        told = [i for i in held if shows(message, i[0])]
        carried = [i for i in held if all(i is not t for t in told)][:room]
        if not carried and not told:
            return message, batch
        carrier = batch or Batch(message.chat, 0, 1)
        for item in carried + told:
            queue.fifo.remove(item)
            queue.held.pop(held_key(item[0], self.caps) or "", None)
            if item[1] is not None:
                carrier.riders.append(item[1])
        also = (*(m for m, _ in carried), *message.also)
        return replace(message, also=also), carrier

    def _enqueue(self, message: Message, batch: Batch | None) -> None:
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
            target = self.slots.get(key) or message.edit
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
        if (held := held_key(message, self.caps)) is not None:
            queue.held.setdefault(held, self.monotonic())
        queue.fifo.append((message, batch))
        self._start(queue, message.chat)

    def _supersede(self, queue: Queue, message: Message, batch: Batch | None) -> bool:
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
        held = held_key(waiting, self.caps)
        if held is not None and i == len(queue.fifo) - 1:  # the newer table tells it all
            del queue.fifo[i]
            queue.held.pop(held, None)
            self._done(older)
        return False

    def _done(self, batch: Batch | None) -> None:
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
        self.ledger.delivered(batch.chat, batch.change)

    def _start(self, queue: Queue, chat: str) -> None:
        queue.wake.set()
        if queue.task is None:
            queue.task = asyncio.create_task(self._drain(chat, queue))

    async def _drain(self, chat: str, queue: Queue) -> None:
        """Deliver one chat's queue, each message chosen when the chat's budget lets one go
        (the order is in docs/delivery.md)."""
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
                if not await self.chatter.may_go(message, self.monotonic()):
                    continue
                since = queue.queued.pop(message.edit or "", None)
                waited = since is not None and self.monotonic() - since >= max(interval, 1e-3)
                queue.sending = True
                try:
                    if message.answers is not None and self.parking.here(chat):
                        message = await self.parking.joined(message)
                    if (current := await self._current(message, batch, waited)) is not None:
                        message = current
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
            elif self._queues.get(chat) is queue and not queue.recent(self.monotonic(), interval):
                del self._queues[chat]

    def _pick(self, chat: str, queue: Queue) -> Item | float:
        """The message to send now, or how long until one may go."""
        now, interval = self.monotonic(), self.settings.table_interval
        for target, (message, _) in queue.edits.items():  # a finished table first
            if not message.buttons:
                queue.edited[target] = now
                return queue.edits.pop(target)
        if queue.fifo:
            message, _ = queue.fifo[0]
            held = held_key(message, self.caps)
            if held is None:
                return queue.fifo.popleft()
            wait = queue.held.setdefault(held, now) + interval - now
            if wait > 0:
                return wait
            del queue.held[held]
            return queue.fifo.popleft()
        if (late := self.chatter.overdue(queue, now)) is not None:
            return late
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
        return self.chatter.pick(chat, queue, now, soonest, roomy, self._flushing)

    async def _current(self, message: Message, batch: Batch | None, waited: bool) -> Message | None:
        """A table update as it goes now; None where another process's newer change outdoes it
        (that change's owner sends the table as it is now). Looked at for an unasked update
        that costs (one table paid once), an edit with buttons that `waited` (never over
        another process's newer table: a mark over its reveal) and an update of a table not
        known when drawn: it edits the one another process posts (up to TABLE_WAIT)."""
        late = bool(message.edit and message.coalesce and message.buttons and waited)
        unknown = self.caps.edits and message.coalesce and bool(message.slot) and not message.edit
        if batch is None or (held_key(message, self.caps) is None and not (late or unknown)):
            return message
        waiting = 0.0
        while True:
            try:
                session, _ = await self.sessions.load(batch.chat)
            except Exception as exc:  # unknown: send it (a table twice rather than none)
                log.warning("could not look at %s before a table update: %r", batch.chat, exc)
                return message
            if session is None:  # over: a final table goes (no buttons), nothing newer came
                return message
            another_game = bool(message.slot) and message.slot != table_slot(session)
            if session.change > batch.change or (late and message.minor and another_game):
                return None
            shown = session.message_ids.get(message.slot or "") if unknown else None
            if shown or not unknown or waiting >= TABLE_WAIT:
                return replace(message, edit=shown) if shown else message
            await asyncio.sleep(TABLE_LOOK)
            waiting += TABLE_LOOK

    def _undelivered(self, batch: Batch | None) -> None:
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
        hand = bool(message.slot and message.slot.startswith(HAND_SLOT))
        self.slots.sent(message, sent, hand)
        if sent is None or sent == message.edit or not (message.slot and message.host):
            return sent
        key = (message.host, message.slot)
        before = self.slots.shown(key, sent)
        if hand:  # recorded with the deliveries
            self.ledger.hand(key, sent)
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
        if not self.caps.edits or not old or old == new or self.slots.unarmed(chat, old):
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
        key, liveness = (message.host, message.slot), self.sessions.liveness
        self.ledger.forget_hand(key)  # its id, not yet recorded, need not be any more
        try:
            target = self.slots.get(key)
            if target is None:
                target = await liveness.last_message(message.host, message.slot)
            if target:
                await self.outbox.send(replace(message, edit=target, slot=None, host=None))
                await liveness.bared(message.host, message.slot)
        except Exception as exc:  # the buttons stay: pressing them is refused with a reason
            log.warning("could not take the buttons off %s: %r", message.slot, exc)
        self.slots.bared(key)

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
        await self.ledger.written()

    def _due(self, queue: Queue) -> bool:
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
        await self.parking.written()
        await self.ledger.write_now()
        await self.ledger.written()

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
        await self.ledger.write_now()  # what did go out is recorded
        log.warning("stopped with %d messages undelivered: another process sends them", left)
