"""The runner: what every platform adapter needs around the game service, in one place.

- Per-game ordering: one game's updates and timers run one at a time in this process; the
  lock covers load, rules and save only.
- A press is answered at once; its messages go to per-chat delivery queues, so an answer never
  waits behind a group's flood budget.
- Coalescing: an unsent table update is replaced by a newer one, and a table message is edited
  at most once per `table_interval`; on a platform without edits, the group messages of one
  event are merged into one new message; where unasked messages cost, a new table message
  that answers no event waits `table_interval` for a newer one to replace it.
- The ticker runs due timers (computer moves, reminders, take-overs).

Adapters give an `Outbox` (send or edit one message) and their capabilities.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import math
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol

from chatbot import metrics
from chatbot.core.buttons import game_chat
from chatbot.core.model import Answer, Button, Capabilities, Incoming, Message, looks
from chatbot.core.service import GameService
from chatbot.core.tables import HAND_SLOT, chat_of
from chatbot.i18n import negotiate, translator
from chatbot.store.base import StoreUnavailable

log = logging.getLogger(__name__)
SLOTS_KEPT = 10_000  # newest slot message ids known in this process
HEARTBEAT = 3.0  # seconds between this process's "alive" marks
RETRY_LATER = 60  # seconds before a timer that failed is tried again
# Seconds a delivered change, or a new hand message's id, waits to be recorded with the others
# (far below OWED_GRACE: only a process that dies within this time after delivering has its last
# changes sent again; until then another process bares the hand's previous message).
RECORD_EVERY = 1.0


class Outbox(Protocol):
    """A platform's way out."""

    capabilities: Capabilities
    platform: str  # its name in metrics labels

    async def send(self, message: Message) -> str | None:
        """Send `message` (or edit the one it names); the platform id of the message that
        shows it (the edited one, or a new one), None when it could not be delivered (the
        adapter logs why)."""
        ...


@dataclass
class _Batch:
    """The messages of one saved change: when the last is sent, the change is recorded as
    delivered (until then another process may deliver it if this one dies)."""

    chat: str
    change: int
    left: int


Item = tuple[Message, _Batch | None]


@dataclass
class _Queue:
    """One chat's undelivered messages: new messages in order, and table edits by target."""

    fifo: deque[Item] = field(default_factory=deque)
    edits: dict[str, Item] = field(default_factory=dict)
    edited: dict[str, float] = field(default_factory=dict)  # target -> when last edited
    held: dict[str, float] = field(default_factory=dict)  # held table -> when first queued
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    sending: bool = False


class Runner:
    """Runs a game service for one platform: ordering, answers, delivery, timers."""

    def __init__(
        self,
        service: GameService,
        outbox: Outbox,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.outbox = outbox
        self.settings = service.tables.settings
        self.monotonic = monotonic
        self.errors: list[BaseException] = []
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._queues: dict[str, _Queue] = {}
        self._slots: OrderedDict[tuple[str, str], str] = OrderedDict()
        # (chat, message) -> (what a press saw on it, what this process's edit made it show)
        self._edited: OrderedDict[tuple[str, str], tuple[int, int]] = OrderedDict()
        self._ticker: asyncio.Task[None] | None = None
        self._confirming: set[asyncio.Task[None]] = set()  # deliveries being recorded
        self._delivered: dict[str, int] = {}  # chat -> its last delivered change, unrecorded
        self._hands: dict[tuple[str, str], str] = {}  # (chat, hand slot) -> new id, unrecorded
        self._updates: list[tuple[str, str]] = []  # (chat, update) handled, unrecorded
        self._handled: OrderedDict[str, None] = OrderedDict()  # updates handled here, newest
        self._recorder: asyncio.Task[None] | None = None  # waits RECORD_EVERY, then records
        self._sent = asyncio.Event()  # set whenever a queued message has been sent

    @property
    def platform(self) -> str:
        return self.outbox.platform

    @property
    def caps(self) -> Capabilities:
        return self.outbox.capabilities

    def lock(self, chat: str) -> asyncio.Lock:
        lock = self._locks.get(chat)
        if lock is None:
            lock = self._locks[chat] = asyncio.Lock()
        return lock

    # --- events in ---------------------------------------------------------------------------

    async def handle(self, inc: Incoming) -> Answer | None:
        """Handle one event; returns the answer to give the presser at once (None for a
        command). The event's messages are queued for delivery."""
        platform = self.platform
        metrics.UPDATES.labels(platform, metrics.kind_of(inc.command, inc.data, inc.event)).inc()
        began = time.perf_counter()
        try:
            async with self.lock(game_chat(inc.data, inc.chat)):
                if inc.update_id in self._handled:  # a copy, after this process handled it
                    return None
                reply = await self.service.handle(inc)
                self._remember(inc.update_id, reply.handled)
        except Exception as exc:
            tr = translator(negotiate(inc.user.language))
            cause = "storage" if isinstance(exc, StoreUnavailable) else "error"
            metrics.FAILURES.labels(platform, cause).inc()
            if isinstance(exc, StoreUnavailable):
                log.error("update %s in %s: storage unavailable: %r", inc.update_id, inc.chat, exc)
                text = tr.gettext("I can't reach my game storage right now: try again in a moment.")
            else:
                log.exception("update %s in %s failed", inc.update_id, inc.chat)
                self.errors.append(exc)
                text = tr.gettext("Something went wrong on my side: please try again in a moment.")
            if inc.data is None:
                self.post([Message(inc.chat, text)], inc)
                return None
            return Answer(text)
        finally:
            metrics.HANDLING.labels(platform).observe(time.perf_counter() - began)
        answer = reply.answer
        messages = list(reply.messages)
        if inc.data is not None and answer is None and messages:
            answer = Answer()  # (an update delivered twice makes no messages: answered once)
        if answer is not None and answer.text and not self.caps.popups:
            said = self._said(inc, answer)
            messages += [said] if said is not None else []
            answer = Answer(url=answer.url)
        self.post(messages, inc, reply.confirm)
        return answer

    def _remember(self, update: str | None, handled: tuple[str, str] | None) -> None:
        """An update handled here (copies of it are dropped here at once); one that must
        still be recorded as handled is, with the deliveries."""
        if update:
            self._handled[update] = None
            while len(self._handled) > SLOTS_KEPT:
                self._handled.popitem(last=False)
        if handled is not None:
            self._updates.append(handled)
            self._record_soon()

    def _said(self, inc: Incoming, answer: Answer) -> Message | None:
        """An answer as a message, where there are no pop-ups: in the press's own chat naming
        the presser when the platform answers there for free, else privately; its link as a
        button. A secret answer to a press in a group goes privately where that is free, else
        nowhere (the table shows that the presser acted)."""
        tr = translator(negotiate(inc.user.language))
        link = ((Button(tr.gettext("💬 Open our chat"), url=answer.url),),) if answer.url else ()
        if inc.private:
            return Message(inc.chat, answer.text, link)
        if answer.secret:
            return Message(inc.user.id, answer.text, link) if self.caps.unasked_free else None
        if self.caps.answers_in_chat:
            return Message(inc.chat, f"{html.escape(inc.user.name)}: {answer.text}", link)
        return Message(inc.user.id, answer.text, link)

    # --- messages out ------------------------------------------------------------------------

    def post(
        self,
        messages: list[Message],
        inc: Incoming | None = None,
        confirm: tuple[str, int] | None = None,
    ) -> None:
        """Queue messages for delivery, per chat, in order (never waits); `confirm` (chat,
        change) is recorded as delivered once all of them went out."""
        if inc is not None and inc.reply_token:
            messages = [
                replace(m, reply_token=inc.reply_token) if m.chat == inc.chat else m
                for m in messages
            ]
        if not self.caps.edits:
            messages = _merged(messages)
        elif inc is not None and inc.shown is not None:
            messages = [m for m in messages if not self._unchanged(m, inc, inc.shown)]
        batch = _Batch(*confirm, len(messages)) if confirm else None
        if batch is not None and not messages:
            self._done(batch)
        for message in messages:
            self._enqueue(message, batch)

    def _unchanged(self, message: Message, inc: Incoming, shown: int) -> bool:
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
        queue = self._queues.get(message.chat)
        if queue is None:
            queue = self._queues[message.chat] = _Queue()
        if self._supersede(queue, message, batch):
            return self._start(queue, message.chat)
        if message.coalesce and message.slot and message.game:
            key = (message.game, message.slot)
            target = self._slots.get(key) or message.edit
            if target and self.caps.edits:
                superseded = queue.edits.get(target)
                queue.edits[target] = (replace(message, edit=target), batch)
                if superseded is not None:
                    self._done(superseded[1])
                    if queue.task is not None:  # it already waits for this target's turn
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
        if not (message.slot and message.game):
            return False
        same = [
            i
            for i, (waiting, _) in enumerate(queue.fifo)
            if waiting.slot == message.slot and waiting.game == message.game
        ]
        if not same:
            return False
        i = same[-1]
        waiting, older = queue.fifo[i]
        if message.coalesce and (waiting.coalesce or self.caps.edits):
            token = message.reply_token or waiting.reply_token
            newer = replace(waiting, text=message.text, buttons=message.buttons, reply_token=token)
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
        change is recorded within RECORD_EVERY seconds, together with the others delivered
        meanwhile and the ids of new hand messages: one store write for many presses."""
        if batch is None:
            return
        batch.left -= 1
        if batch.left > 0:
            return
        self._delivered[batch.chat] = max(batch.change, self._delivered.get(batch.chat, 0))
        self._record_soon()

    def _record_soon(self) -> None:
        if self._recorder is None:
            self._recorder = asyncio.create_task(self._record_later())

    async def _record_later(self) -> None:
        await asyncio.sleep(RECORD_EVERY)
        self._recorder = None  # deliveries from now on wait for the next write
        task = asyncio.current_task()
        assert task is not None
        self._confirming.add(task)
        try:
            await self._record()
        finally:
            self._confirming.discard(task)

    async def _record(self) -> None:
        changes, self._delivered = self._delivered, {}
        hands, self._hands = self._hands, {}
        updates, self._updates = self._updates, []
        if not changes and not hands and not updates:
            return
        try:
            await self.service.tables.record(changes, hands, updates)
        except Exception as exc:  # another process may deliver them again, or not bare a hand
            count = len(changes) + len(hands) + len(updates)
            log.warning("could not record %d deliveries: %r", count, exc)

    async def _record_now(self) -> None:
        """Record the deliveries waiting for the next write now."""
        recorder, self._recorder = self._recorder, None
        if recorder is not None:
            recorder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await recorder
        await self._record()

    def _start(self, queue: _Queue, chat: str) -> None:
        queue.wake.set()
        if queue.task is None:
            queue.task = asyncio.create_task(self._drain(chat, queue))

    async def _drain(self, chat: str, queue: _Queue) -> None:
        """Deliver one chat's queue: new messages first, in order; each table edit when its
        interval allows."""
        interval = self.settings.table_interval
        try:
            while queue.fifo or queue.edits:
                queue.wake.clear()
                if queue.fifo:
                    message, batch = queue.fifo[0]
                    held = self._held(message)
                    if held is not None:
                        now = self.monotonic()
                        wait = queue.held.setdefault(held, now) + interval - now
                        if wait > 0:
                            with contextlib.suppress(TimeoutError):
                                await asyncio.wait_for(queue.wake.wait(), wait)
                            continue
                        del queue.held[held]
                    queue.sending = True
                    queue.fifo.popleft()
                    await self._send(message)
                    self._done(batch)
                    queue.sending = False
                    self._sent.set()
                    continue
                target, at = min(
                    ((t, queue.edited.get(t, -math.inf) + interval) for t in queue.edits),
                    key=lambda pair: pair[1],
                )
                wait = at - self.monotonic()
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(queue.wake.wait(), wait)
                    continue
                message, batch = queue.edits.pop(target)
                queue.edited[target] = self.monotonic()
                queue.sending = True
                await self._send(message)
                self._done(batch)
                queue.sending = False
                self._sent.set()
        finally:
            queue.task, queue.sending = None, False
            self._sent.set()
            if queue.fifo or queue.edits:  # posted while the last send was finishing
                self._start(queue, chat)
            elif self._queues.get(chat) is queue and not _recent(queue, self.monotonic(), interval):
                del self._queues[chat]

    def _held(self, message: Message) -> str | None:
        """Where a message that answers no event costs: the key under which a new table
        message waits an interval before it is sent (a newer one replaces it meanwhile)."""
        if self.caps.unasked_free or not message.coalesce or message.reply_token:
            return None
        return f"{message.game}/{message.slot}" if message.slot and message.game else None

    async def _send(self, message: Message) -> None:
        if message.only_edit:
            return await self._bare(message)
        sent: str | None = None
        try:
            sent = await self.outbox.send(message)
        except Exception as exc:  # one message lost must not stop the chat's queue
            log.exception("could not deliver to %s", message.chat)
            self.errors.append(exc)
        if message.edit and sent != message.edit:  # not edited: a press edits it again
            self._edited.pop((message.chat, message.edit), None)
        if sent is None or sent == message.edit or not (message.slot and message.game):
            return
        self._slots[(message.game, message.slot)] = sent
        self._slots.move_to_end((message.game, message.slot))
        while len(self._slots) > SLOTS_KEPT:
            self._slots.popitem(last=False)
        if message.slot.startswith(HAND_SLOT):  # recorded with the deliveries
            self._hands[(message.game, message.slot)] = sent
            return self._record_soon()
        try:
            await self.service.tables.remember(message.game, message.slot, sent)
        except StoreUnavailable as exc:  # the next update then sends the slot anew
            log.warning("could not record the message id of %s: %r", message.slot, exc)
        except Exception as exc:  # the next update then sends the slot anew
            log.exception("could not record the message id of %s", message.slot)
            self.errors.append(exc)

    async def _bare(self, message: Message) -> None:
        """Edit the slot's last message (known here, or recorded by any process) in place, once;
        nothing when there is none."""
        assert message.slot and message.game
        key, tables = (message.game, message.slot), self.service.tables
        self._hands.pop(key, None)  # its id, not yet recorded, need not be any more
        try:
            target = self._slots.get(key)
            if target is None:
                target = await tables.last_message(message.game, message.slot)
            if target:
                await self.outbox.send(replace(message, edit=target, slot=None, game=None))
                await tables.bared(message.game, message.slot)
        except Exception as exc:  # the buttons stay: pressing them is refused with a reason
            log.warning("could not take the buttons off %s: %r", message.slot, exc)
        self._slots[key] = ""
        self._slots.move_to_end(key)

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
            if not any(q.fifo or q.sending or self._due(q) for q in queues):
                break
            await self._sent.wait()
        while self._confirming:
            await asyncio.gather(*self._confirming, return_exceptions=True)

    def _due(self, queue: _Queue) -> bool:
        now, interval = self.monotonic(), self.settings.table_interval
        return any(queue.edited.get(t, -math.inf) + interval <= now for t in queue.edits)

    async def flush(self) -> None:
        """Wait until every queued message has been delivered, table edits included."""
        while tasks := [q.task for q in self._queues.values() if q.task is not None]:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._record_now()
        while self._confirming:
            await asyncio.gather(*self._confirming, return_exceptions=True)

    async def moved(self, old: str, new: str) -> None:
        """A chat got a new id (a Telegram group upgraded): its game follows it."""
        self.post(await self.service.chat_moved(old, new))

    # --- timers ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_forever())

    async def stop(self) -> None:
        """Stop the timers and deliver everything still queued."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        for queue in self._queues.values():  # owed table updates go now, not after an interval
            queue.edited.clear()
            queue.held = dict.fromkeys(queue.held, -math.inf)
            queue.wake.set()
        await self.flush()

    async def tick(self) -> int:
        """Run every due timer once; how many messages they posted."""
        try:
            keys = await self.service.due()
        except StoreUnavailable as exc:  # keep ticking: the store is briefly unreachable
            log.warning("timer tick: storage unavailable: %r", exc)
            return 0
        except Exception as exc:
            log.exception("timer tick failed")
            self.errors.append(exc)
            return 0
        posted = 0
        for key in keys:
            try:
                async with self.lock(chat_of(key)):
                    reply = await self.service.timeout(key)
                self.post(reply.messages, confirm=reply.confirm)
                posted += len(reply.messages)
            except StoreUnavailable as exc:
                log.warning("timer of %s: storage unavailable: %r", key, exc)
                if not await self._later(key):
                    break  # the store is down: the next tick tries again
            except Exception as exc:  # keep ticking the other games whatever one did
                log.exception("timer of %s failed (tried again in %d s)", key, RETRY_LATER)
                self.errors.append(exc)
                await self._later(key)
        return posted

    async def _later(self, key: str) -> bool:
        """Move a failing deadline back by RETRY_LATER, so that deadlines that keep failing
        cannot take every slot of each tick; False when the store cannot be reached."""
        tables = self.service.tables
        try:
            await tables.store.set_deadline(key, tables.clock() + RETRY_LATER)
        except StoreUnavailable:
            return False
        return True

    async def _tick_forever(self) -> None:
        beat = -math.inf
        while True:
            await asyncio.sleep(self.settings.tick)
            if self.monotonic() - beat >= HEARTBEAT:
                try:
                    await self.service.tables.heartbeat()
                    beat = self.monotonic()
                except Exception as exc:
                    log.warning("heartbeat failed: %r", exc)
            await self.tick()


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
        key = (message.game, message.slot)
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
            game=message.game or last.game,
            coalesce=last.coalesce and message.coalesce,
        )
    return out
