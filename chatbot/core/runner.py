"""The runner: what every platform adapter needs around the game service, in one place.

- Per-game ordering: one game's updates and timers run one at a time in this process; the
  lock covers load, rules and save only. A copy of an update this process answered is
  dropped at once.
- A press is answered at once; its messages go to the chats' delivery queues
  (chatbot/core/delivery.py), so an answer never waits behind a group's flood budget.
- Where there are no pop-ups, an answer is said in a message (in the press's chat where that
  is free).
- The ticker runs due timers (computer moves, reminders, take-overs), each game in a task of
  its own; the heartbeat tells other processes this one delivers what it owes.
"""

from __future__ import annotations

import asyncio
import functools
import html
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import replace

from chatbot import metrics
from chatbot.core.buttons import DATA_BYTES, GROUP_MOVE, MOVE, game_chat
from chatbot.core.delivery import Delivery
from chatbot.core.model import (
    Answer,
    Button,
    Capabilities,
    Incoming,
    Message,
    Press,
    Reply,
    clip,
)
from chatbot.core.moves import ANSWER_SOON
from chatbot.core.outbox import Budget, Outbox, cancelled
from chatbot.core.service import GameService
from chatbot.i18n import negotiate, translator
from chatbot.store.base import StoreUnavailable

log = logging.getLogger(__name__)
HEARTBEAT = 3.0  # seconds between this process's "alive" marks
RETRY_LATER = 60  # seconds before a timer that failed is tried again
STOP_WITHIN = 3.0  # seconds a stopping runner spends delivering what is queued
MOVES = frozenset({MOVE, GROUP_MOVE})  # presses whose copies are told what became of them


class Runner:
    """Runs a game service for one platform: ordering, answers, delivery, timers."""

    def __init__(
        self,
        service: GameService,
        outbox: Outbox,
        monotonic: Callable[[], float] = time.monotonic,
        budget: Budget | None = None,
    ) -> None:
        if outbox.capabilities.data_bytes < DATA_BYTES:  # our button codes would not fit
            raise ValueError(f"{outbox.platform} carries {outbox.capabilities.data_bytes} bytes")
        self.service = service
        self.sessions = sessions = service.sessions
        self.outbox = outbox
        self.settings = sessions.settings
        self.monotonic = monotonic
        self.errors: list[BaseException] = []
        self.delivery = Delivery(sessions, outbox, monotonic, budget, self.errors)
        self.dedupe = sessions.dedupe
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._ticker: asyncio.Task[None] | None = None
        self._beat: asyncio.Task[None] | None = None
        self._timing: dict[str, asyncio.Task[int]] = {}  # game key -> its timers, running
        self._stopping = False

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
        metrics.UPDATES.labels(platform, metrics.kind_of(inc)).inc()
        press = inc if isinstance(inc, Press) else None
        began = time.perf_counter()
        try:
            async with self.lock(game_chat(press.code if press else None, inc.chat)):
                if self.dedupe.copy(inc.update_id):
                    return None
                reply = await self.service.handle(inc)
                told = await self._says(press, reply, time.perf_counter() - began)
                if self.dedupe.answered(inc.update_id, reply.handled) or told:
                    self.delivery.ledger.write_soon()
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
            if press is None:  # (every failed command is told: not merged into a burst)
                self.delivery.post([Message(inc.chat, text)], inc)
                return None
            return Answer(text)
        finally:
            metrics.HANDLING.labels(platform).observe(time.perf_counter() - began)
        answer = reply.answer
        messages = list(reply.messages)
        if press is not None and press.aside:  # its page shows the answer and its messages
            mine = tuple(m for m in messages if m.chat == inc.user.id)
            others = [m for m in messages if m.chat != inc.user.id]
            self.delivery.post(others, inc, reply.confirm, reply.chatter)
            await self.delivery.parking.written()  # the page's message there may reach another
            return replace(answer or Answer(), shown=mine)
        if press is not None and answer is None and messages and not reply.silent:
            answer = Answer()  # (an update delivered twice makes no messages: answered once)
        if answer is not None and answer.text and not self.caps.popups:
            said = self._said(inc, answer)
            messages += [said] if said is not None else []
            answer = Answer(url=answer.url)
        elif answer is not None and answer.text:
            answer = replace(answer, text=clip(answer.text, self.caps.answer_chars))
        self.delivery.post(messages, inc, reply.confirm, reply.chatter)
        return answer

    async def _says(self, press: Press | None, reply: Reply, took: float) -> bool:
        """Whether this process says the answer to a move's press it is about to give, and
        records it (with the ledger's next write: no round trip of its own). An answer that
        comes late (ANSWER_SOON: this process stalled, or the press is a copy of one handled
        before) is said only if no other process said one first (`Sessions.answering`); else
        the reply keeps its messages and loses its answer."""
        code = press.code if press is not None else None
        if press is None or code is None or code.op not in MOVES or not press.update_id:
            return False
        if reply.answer is None:
            return False
        chat = game_chat(code, press.chat)
        if took <= ANSWER_SOON:
            self.dedupe.told(chat, press.update_id)
            return True
        if not await self.sessions.answering(chat, press.update_id):
            log.info("update %s in %s: answered elsewhere", press.update_id, chat)
            reply.answer = None
            reply.silent = True
        return False

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
            # TRANSLATORS: an answer in the group to the player named first.
            text = tr.t("{name}: {text}", name=html.escape(inc.user.name), text=answer.text)
            return Message(inc.chat, text, link)
        return Message(inc.user.id, answer.text, link)

    async def moved(self, old: str, new: str) -> None:
        """A chat got a new id (a Telegram group upgraded): its game follows it."""
        self.delivery.post(await self.service.chat_moved(old, new))

    # --- timers ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the heartbeat and the ticker, each a task of its own: neither waits on a
        game (each due game's timers run in a task of their own)."""
        self.start_heartbeat()
        if self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_forever())

    def start_heartbeat(self) -> None:
        """This process's "alive" mark, kept (others know its saved changes have an owner who
        delivers and answers them)."""
        self._stopping = False
        if self._beat is None:
            self._beat = asyncio.create_task(self._beat_forever())

    async def stop(self) -> None:
        """Stop the heartbeat, the ticker and the timers running (a timer cut short saved
        nothing: it is due again for the next process), then deliver what is still queued
        for at most STOP_WITHIN seconds (what is left, another process delivers once this
        one's heartbeat has lapsed)."""
        self._stopping = True
        tasks = [t for t in (self._ticker, self._beat, *self._timing.values()) if t is not None]
        self._ticker = self._beat = None
        await cancelled(tasks)
        await self.delivery.close(STOP_WITHIN)

    async def tick(self, wait: bool = True) -> int:
        """Start the timers of every due game not already running here, each game in a task
        of its own (a slow game delays no other); with `wait`, wait for them and return how
        many messages they posted (else 0 at once)."""
        try:
            keys = await self.service.due()
        except StoreUnavailable as exc:  # keep ticking: the store is briefly unreachable
            log.warning("timer tick: storage unavailable: %r", exc)
            return 0
        except Exception as exc:
            log.exception("timer tick failed")
            self.errors.append(exc)
            return 0
        started = []
        for key in keys:
            if key not in self._timing and not self._stopping:
                task = self._timing[key] = asyncio.create_task(self._timer(key))
                # (a callback: a task cancelled before it began never runs a `finally`)
                task.add_done_callback(functools.partial(self._timed, key))
                started.append(task)
        if not wait:
            return 0
        return sum(await asyncio.gather(*started))

    def _timed(self, key: str, _: asyncio.Task[int]) -> None:
        self._timing.pop(key, None)

    async def _timer(self, key: str) -> int:
        """Run one game's due timers; how many messages they posted. Not under the chat's
        lock: a computer's thinking never holds up the chat's presses; the timer's save is a
        compare-and-set, and a press saved first makes it look again at the next tick."""
        try:
            reply = await self.service.timeout(key)
            self.delivery.post(reply.messages, confirm=reply.confirm)
            return len(reply.messages)
        except StoreUnavailable as exc:  # the next tick tries again
            log.warning("timer of %s: storage unavailable: %r", key, exc)
            await self._later(key)
        except Exception as exc:  # keep ticking the other games whatever one did
            log.exception("timer of %s failed (tried again in %d s)", key, RETRY_LATER)
            self.errors.append(exc)
            await self._later(key)
        return 0

    async def _later(self, key: str) -> bool:
        """Move a failing deadline back by RETRY_LATER, so that deadlines that keep failing
        cannot take every slot of each tick; False when the store cannot be reached."""
        try:
            await self.sessions.postpone(key, RETRY_LATER)
        except StoreUnavailable:
            return False
        return True

    async def _tick_forever(self) -> None:
        while not self._stopping:  # (a cancel lost in a library still ends the loop)
            await asyncio.sleep(self.settings.tick)
            await self.tick(wait=False)

    async def _beat_forever(self) -> None:
        """This process's "alive" mark every HEARTBEAT seconds, whatever the games do."""
        while not self._stopping:
            try:
                await self.sessions.liveness.heartbeat()
            except Exception as exc:
                log.warning("heartbeat failed: %r", exc)
            await asyncio.sleep(HEARTBEAT)
