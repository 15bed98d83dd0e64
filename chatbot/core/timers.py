"""Every seat's timer and the computer players, and changes owed by a process that died.

A computer moves when its timer runs out, an idle person is reminded and then replaced for the
turn, and a change whose messages were never delivered (its process died) is delivered again
by whichever process gets to it first.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from chatbot import metrics
from chatbot.core import keys, progress, views
from chatbot.core.endings import Endings
from chatbot.core.model import Message, Reply
from chatbot.core.registry import Bundle
from chatbot.core.render import Renderer
from chatbot.core.session import (
    LOBBY,
    OVER,
    PLAYING,
    WAIT_BOT,
    WAIT_REMIND,
    WAIT_TAKEOVER,
    BadSession,
    Session,
)
from chatbot.core.sessions import Sessions
from chatbot.core.thinking import ThinkingPool, budget
from chatbot.core.views import say
from chatbot.core.work import Found, Outcome
from chatbot.i18n import translator
from engine.core import BadState, Rng

log = logging.getLogger(__name__)
TIMEOUT_STEPS = 16  # due timers handled in one go for one game (the rest at the next tick)
HURRIED_STEPS = 64  # computer actions taken at once after one change (see `hurry`)
CHOICES_KEPT = 1000  # computer choices kept for a unit of work tried again


@dataclass
class _Ticked:
    """What a game's timers did, and what follows once it is written (`then`)."""

    reply: Reply
    then: Callable[[], Awaitable[None]] | None = None
    moves: int = 0  # game actions taken


class Timers:
    """Runs the due timers of one platform's games."""

    def __init__(
        self, sessions: Sessions, renderer: Renderer, endings: Endings, pool: ThinkingPool
    ) -> None:
        self.sessions = sessions
        self.renderer = renderer
        self.endings = endings
        self.pool = pool  # where computer players think
        self._choices: dict[tuple[str, int, int, int, int], Any] = {}  # the latest, by situation

    async def timeout(self, key: str) -> Reply:
        """Run a game's due timers: computer players act, idle people are reminded (a fresh
        hand message, so their buttons are at the bottom) or replaced for the turn. A saved
        change whose messages were never delivered (its process died or stalled) is
        delivered here, once, by whichever process gets to it."""
        chat = keys.chat_of_game(key)
        try:
            outcome = await self.sessions.change(chat, lambda found: self._tick(key, found))
        except BadSession as exc:  # not even a document
            log.error("unreadable session %s: %r (its timer is dropped)", key, exc)
            await self.sessions.drop_deadline(key)
            return Reply()
        ticked = outcome.result
        if outcome.save is not None:
            ticked.reply.confirm = (outcome.save.chat, outcome.save.change)
            metrics.MOVES.labels(outcome.save.game).inc(ticked.moves)
            if outcome.save.phase == OVER:
                await self.endings.finish(outcome.save.chat)
        if ticked.then is not None:
            await ticked.then()
        return ticked.reply

    async def _tick(self, key: str, found: Found) -> Outcome[_Ticked]:
        """The work of `timeout` on the game as found."""
        sessions = self.sessions
        try:
            session = found.session
            if session is None:  # expired: its deadline and its count as running go too
                return Outcome(_Ticked(Reply(), lambda: sessions.gone(key)))
            state = views.state_of(session, sessions.bundle(session))
        except (BadSession, BadState, KeyError) as exc:
            log.error("unreadable session %s: %r (its timer is dropped)", key, exc)
            return Outcome(_Ticked(Reply(), lambda: sessions.drop_deadline(key)))
        messages: list[Message] = []
        confirm: tuple[str, int] | None = None
        if session.phase != LOBBY and await sessions.liveness.owed(session):
            log.warning("delivering change %d of %s again", session.change, session.chat)
            messages = self.renderer.recover(session, state)
            confirm = (session.chat, session.change)
        if session.phase == OVER:  # its end was cut short (a crash): finish it now
            reply = Reply(messages=messages, confirm=confirm)
            return Outcome(_Ticked(reply, lambda: self.endings.finish(session.chat)))
        now = sessions.clock()
        if session.phase != PLAYING or session.deadline is None or session.deadline > now:
            reply = Reply(messages=messages, confirm=confirm)  # only a delivery's grace was due
            return Outcome(_Ticked(reply, lambda: sessions.reindex(session)))
        made = len(session.trail)
        moved = False
        for _ in range(TIMEOUT_STEPS):
            due = sorted(
                (at, int(p), kind) for p, (kind, at) in session.timers.items() if at <= now
            )
            if not due:
                break
            _, seat, kind = due[0]
            state, out, acted = await self._expire(session, state, seat, kind)
            messages += out
            moved = moved or acted
            if session.phase != PLAYING:
                break
        if moved and session.phase == PLAYING:
            state = await self.hurry(session, state, messages)
        if session.deadline is not None and session.deadline <= now and not messages:
            bundle = sessions.bundle(session)  # a stale deadline (e.g. an older schema)
            progress.schedule_all(session, bundle, state, now, sessions.settings)
        ticked = _Ticked(Reply(messages=messages), moves=len(session.trail) - made)
        return Outcome(ticked, save=session, owed=bool(messages))

    async def hurry(self, session: Session, state: Any, messages: list[Message]) -> Any:
        """Where unasked messages cost, computers act at once instead of after their delay
        (their messages join `messages`) when they are awaited together with others
        (simultaneous choices), the game is all on the group's table (no private hands to
        go stale) or its players move on a page (`hold_unasked`: the page reads the hand as it
        is), turn after turn while no person is awaited: the last person's press then
        carries what follows (a reveal) in its free answer. The state now."""
        bundle = self.sessions.bundle(session)
        caps = self.sessions.caps
        if caps.unasked_free:
            return state
        game = bundle.game
        together = not bundle.private_hands or caps.hold_unasked  # or several awaited at once
        for _ in range(HURRIED_STEPS):
            if session.phase != PLAYING:
                break
            awaited = set(game.to_move(state))
            together = together or len(awaited) > 1
            if not together:
                break
            due = [
                p
                for p in sorted(awaited)
                if session.seats[p].bot and session.timers.get(str(p), [""])[0] == WAIT_BOT
            ]
            if not due:
                break
            state, out, _ = await self._expire(session, state, due[0], WAIT_BOT)
            messages += out
        return state

    async def _expire(
        self, session: Session, state: Any, seat: int, kind: str
    ) -> tuple[Any, list[Message], bool]:
        """One seat's timer ran out: its computer acts, its person is reminded or replaced.
        Returns the state, the messages and whether the game changed."""
        sessions = self.sessions
        bundle = sessions.bundle(session)
        game = bundle.game
        player = session.seats[seat]
        if kind == WAIT_REMIND and not player.bot:
            at = sessions.clock() + progress.waits(session, sessions.settings)[1]
            session.timers[str(seat)] = [WAIT_TAKEOVER, at]
            session.deadline = min(at for _, at in session.timers.values())
            out = [self._reminder(session, bundle, state, seat)] if sessions.caps.reminders else []
            if session.turn_timer and sessions.caps.edits:  # the time left, halved
                out.append(self.renderer.table(session, bundle, state))
            return state, out, False
        events: list[Any] | None = None
        if not player.bot:
            outcome = game.timeout(state, seat)
            if outcome is not None:
                state, events = outcome
                session.trail.append([seat, None])
        computer_moved = events is None
        if events is None:
            action = await self._computer_choice(session, bundle, state, seat)
            if action is None:  # it lets an out-of-turn chance go
                del session.timers[str(seat)]
                session.deadline = min((at for _, at in session.timers.values()), default=None)
                return state, [], False
            state, events = game.apply(state, seat, action)
            session.trail.append([seat, game.encode_action(action)])
        now, settings = sessions.clock(), sessions.settings
        step = progress.record(session, bundle, state, events, seat, now, settings)
        messages = self.renderer.step(session, state, events, step, None)
        if not player.bot and computer_moved:
            tr = translator(session.language)
            notice = tr.t(
                "{name} was away: a computer player moved for them.",
                name=views.seat_name(player, tr),
            )
            messages.insert(1, say(session.chat, notice))
        return state, messages, True

    async def _computer_choice(
        self, session: Session, bundle: Bundle, state: Any, seat: int
    ) -> Any:
        """A computer seat's action (None: it lets an out-of-turn chance go). An action is
        kept for its situation: a unit of work tried again after losing a race to a write
        that moved nothing plays it without thinking again."""
        game = bundle.game
        legal = game.legal_actions(state, seat)
        key = (session.chat, session.epoch, session.change, seat, session.stamps[seat])
        kept = self._choices.get(key)
        if kept is not None and kept in legal:
            return kept
        rng = Rng(session.seed ^ progress.computer_stamp(session, seat))
        settings = self.sessions.settings
        limit = budget(settings.think_playouts, settings.think_budget)
        action = await self.pool.think(
            bundle.computer, game.view(state, seat), legal, rng, limit, settings.think_timeout
        )
        if action is None and seat in game.to_move(state) and legal:
            action = legal[0]  # its fallback: it must move (it thought too long, or passed)
        if action is not None:
            self._choices[key] = action
            if len(self._choices) > CHOICES_KEPT:
                del self._choices[next(iter(self._choices))]  # the oldest
        return action

    def _reminder(self, session: Session, bundle: Bundle, state: Any, seat: int) -> Message:
        """A person's reminder: their hand anew in their private chat, or a word in the group
        for a game without private hands. Where unasked messages cost (LINE), the private one
        is the cheaper: a message pushed to a group counts once for every member."""
        player = session.seats[seat]
        seconds = round(progress.waits(session, self.sessions.settings)[1])
        if not bundle.private_hands or player.user is None:
            tr = translator(session.language)
            text = tr.npgettext(
                bundle.context,
                "⏰ {name}, it is your turn: {n} second left.",
                "⏰ {name}, it is your turn: {n} seconds left.",
                seconds,
            ).format(n=seconds, name=views.seat_name(player, tr))
            return say(session.chat, text)
        tr = translator(player.language)
        text = tr.npgettext(
            bundle.context,
            "⏰ It is your turn! If you do not move in {n} second, "
            "a computer player will move for you.",
            "⏰ It is your turn! If you do not move in {n} seconds, "
            "a computer player will move for you.",
            seconds,
        ).format(n=seconds)
        hand = views.hand(session, bundle, seat, self.sessions.caps, state)
        return replace(hand, text=f"{text}\n\n{hand.text}")
