"""Presses on a running game, each a unit of work on the game's session.

A move (from a private hand or the group's table), a step of a choice, the hand peek and the
hand asked for.
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
from dataclasses import dataclass
from typing import Any

from chatbot import metrics
from chatbot.core import buttons as b
from chatbot.core import progress, views
from chatbot.core.desk import GameDesk
from chatbot.core.model import Answer, Button, Incoming, Message, Press, Reply
from chatbot.core.render import news
from chatbot.core.session import OVER, PLAYING, BadSession, Session
from chatbot.core.views import say
from chatbot.core.work import Found, Outcome
from chatbot.i18n import N_, Translator, translator
from engine.core import BadState, IllegalAction

log = logging.getLogger(__name__)
TURN_NEWS = 4  # lines of a finished turn's result told to a press on its table
NOT_A_RULE = frozenset({"not_your_turn", "game_over", "bad_action"})  # no rule text to show
# Seconds after its handling began within which a press's answer is said without asking the
# store whether another process said one (a copy waits longer: `ANSWER_WAIT`).
ANSWER_SOON = 2.0
# Seconds a copy of a press handled before waits for its answer to be recorded (said at once,
# plus the ledger's write, with room to spare) before saying that the press was counted.
ANSWER_WAIT = 4.0
ANSWER_POLL = 0.2  # seconds between looks


@dataclass(frozen=True)
class Seated:
    """A press that may act: the game's session, the presser's seat and the game's state."""

    session: Session
    seat: int
    state: Any


class Moves(GameDesk):
    """The presses on the running games of one platform."""

    async def act(self, inc: Press, code: b.Code) -> Reply:
        """A move: from a private hand (`m<seat stamp>|chat|code`) or from the group's table
        (`M<epoch>|code`), by whoever pressed it, if it is theirs to make."""
        group = code.op == b.GROUP_MOVE
        named, wanted = (inc.chat, code.fields[0]) if group else code.fields
        made = [0]  # game actions the last try took (computers hurried included)
        copied: list[Found] = []  # the game as found by a copy of a press handled before

        async def work(found: Found) -> Outcome[Reply]:
            if found.handled:  # delivered again: handled before (its answer: `_copied`)
                copied.append(found)
                return Outcome(Reply())
            seated = await self._check(inc, found, code.stamp, group)
            if isinstance(seated, Reply):
                return Outcome(seated)
            session, seat, state = seated.session, seated.seat, seated.state
            bundle = self.sessions.bundle(session)
            tr = translator(session.seats[seat].language)
            before = bundle.game.view(state, seat)
            try:
                action = bundle.game.decode_action(wanted)
                state, events = bundle.game.apply(state, seat, action)
            except IllegalAction as refused:
                return Outcome(self._refused(inc, session, refused, tr))
            made_before = len(session.trail)
            session.trail.append([seat, bundle.game.encode_action(action)])
            now, settings = self.sessions.clock(), self.sessions.settings
            step = progress.record(session, bundle, state, events, seat, now, settings)
            pressed = inc.message if inc.private else None
            messages = self.renderer.step(session, state, events, step, pressed, inc.private)
            view = bundle.game.view(state, seat)
            await self.timers.hurry(session, state, messages)
            made[0] = len(session.trail) - made_before
            answer = Answer(bundle.presenter.confirm(view, action, tr, before), secret=True)
            return Outcome(Reply(answer, messages), save=session, owed=True)

        outcome = await self.sessions.change(named, work, update=inc.update_id)
        saved = outcome.save
        if copied and saved is None and outcome.result.answer is None:
            return await self._copied(inc, copied[-1])
        if saved is not None:
            outcome.result.confirm = (saved.chat, saved.change)
            metrics.MOVES.labels(saved.game).inc(made[0])
            if saved.phase == OVER:
                await self.endings.finish(saved.chat)
        return outcome.result

    async def _copied(self, inc: Press, found: Found) -> Reply:
        """A copy of a press handled before (its process died, stalled, or was slow to
        answer): nothing, once the process that handled it recorded its answer (it does so
        within ANSWER_WAIT when it answered at once); else that the press was counted, which
        the runner says only if no other process took the answer first
        (`Sessions.answering`)."""
        deadline = time.monotonic() + ANSWER_WAIT
        while not await self.sessions.was_answered(found.chat, inc.update_id or ""):
            if time.monotonic() >= deadline:
                return await self._already(inc, found)
            await asyncio.sleep(ANSWER_POLL)
        return Reply()

    async def _already(self, inc: Incoming, found: Found) -> Reply:
        """The answer to a move delivered again after it was saved (its first answer may
        have been lost with the process that saved it): what the game's last step did."""
        ptr = translator(await self.sessions.people.user_language(inc.user.id, inc.user.language))
        text = ptr.gettext("That press was already counted.")
        try:
            session = found.session
            told = None if session is None else news(session, self.sessions.bundle(session), ptr)
        except (BadSession, BadState, KeyError, TypeError, ValueError):
            told = None
        if told:
            text += "\n" + ptr.t("Last move: {news}", news=told)
        return Reply(Answer(text))  # (the runner fits it to a pop-up)

    async def nav(self, inc: Press, code: b.Code) -> Reply:
        """A step of a choice (or a page of a long list) in the private hand message."""
        chat, path = code.fields
        _, _, page = path.partition(b.PAGE)
        if page and not page.isdigit():  # page data no button of ours makes
            return await self._presser_answer(inc, N_("This button is no longer in use."))

        async def work(found: Found) -> Outcome[Reply]:
            if found.handled:  # recorded once its answer and edit went out: nothing owed
                return Outcome(Reply())
            seated = await self._check(inc, found, code.stamp, False)
            if isinstance(seated, Reply):
                return Outcome(seated)
            session, seat, state = seated.session, seated.seat, seated.state
            bundle, caps = self.sessions.bundle(session), self.sessions.caps
            hand = views.hand(session, bundle, seat, caps, state, path, edit=inc.message)
            return Outcome(Reply(Answer(), [hand]))

        return (await self.sessions.change(chat, work, update=inc.update_id)).result

    async def peek(self, inc: Press, code: b.Code) -> Reply:
        """The "My hand" button on the table: a pop-up, or the hand in the private chat where
        the platform has no pop-ups."""

        async def work(found: Found) -> Outcome[Reply]:
            if found.handled:
                return Outcome(Reply())
            seated = await self._check(inc, found, -1, True)
            if isinstance(seated, Reply):
                return Outcome(seated)
            session, seat, state = seated.session, seated.seat, seated.state
            bundle, caps = self.sessions.bundle(session), self.sessions.caps
            if not caps.popups:
                return Outcome(Reply(Answer(), [views.hand(session, bundle, seat, caps, state)]))
            tr = translator(session.seats[seat].language)
            text = bundle.presenter.peek(bundle.game.view(state, seat), tr, caps.answer_chars)
            return Outcome(Reply(Answer(text, alert=True)))

        return (await self.sessions.change(code.fields[0], work, update=inc.update_id)).result

    async def show_hand(self, inc: Incoming, chat: str) -> Reply:
        """The sender's hand in the game of `chat`, as the answer to their own message (from
        the table's "My hand" link)."""
        got = await self.hand_of(inc, chat)
        if isinstance(got, str):  # a command: its answer is a message
            return Reply(messages=[say(inc.chat, got)] if got else [])
        return Reply(messages=[got[0]])

    async def hand_of(self, inc: Incoming, chat: str) -> tuple[Message, Message] | str:
        """The sender's hand message in the game of `chat` and the group's table as it is
        now, or why there is none (no game, not a player)."""
        found = Found(chat, await self.sessions.find(chat), fit=self.sessions.fit)
        seated = await self._check(inc, found, -1, True)
        if isinstance(seated, Reply):
            return seated.answer.text if seated.answer is not None else ""
        session, seat, state = seated.session, seated.seat, seated.state
        bundle, caps = self.sessions.bundle(session), self.sessions.caps
        table = self.renderer.table(session, bundle, state)
        return views.hand(session, bundle, seat, caps, state), table

    async def _check(self, inc: Incoming, found: Found, stamp: int, group: bool) -> Seated | Reply:
        """The session, the presser's seat and the game state, or the private answer why the
        press cannot act now (no game, not a player, an outdated button)."""
        try:
            session = found.session
            if session is None or session.phase != PLAYING:
                return await self._presser_answer(inc, N_("No game is running here."))
            state = views.state_of(session, self.sessions.bundle(session))
        except (BadSession, BadState, KeyError) as exc:
            log.error("unreadable session in %s: %r", inc.chat, exc)
            return await self._presser_answer(
                inc, N_("This game could not be read: /stop ends it.")
            )
        seat = session.seat_of(inc.user.id)
        if seat is None:
            return await self._presser_answer(inc, N_("You are not playing in this game."))
        current = session.epoch if group else session.stamps[seat]
        if stamp >= 0 and stamp != current:
            tr = translator(session.seats[seat].language)
            if group:  # the turn (or round) it was pressed for is over: what it came to
                bundle = self.sessions.bundle(session)
                told = news(session, bundle, tr, TURN_NEWS)
                text = tr.contextual(bundle.context, "That turn is over.")
                return Reply(Answer(text + ("\n" + told if told else "")))
            if not inc.private:
                return Reply(Answer(tr.gettext("That button is outdated.")))
            text = tr.gettext("That button is outdated: here is your current hand.")
            bundle = self.sessions.bundle(session)
            if told := news(session, bundle, tr):  # why: e.g. another's press was first
                text += "\n" + tr.t("Meanwhile: {news}", news=told)
            caps = self.sessions.caps
            pressed = inc.message if isinstance(inc, Press) else None
            hand = views.hand(session, bundle, seat, caps, state, edit=pressed)
            return Reply(Answer(text), [hand])
        return Seated(session, seat, state)

    async def _presser_answer(self, inc: Incoming, msgid: str) -> Reply:
        """A refusal in the presser's own language (read only when refusing: a seated
        player's language is in the session, so a valid press costs no extra read)."""
        people = self.sessions.people
        ptr = translator(await people.user_language(inc.user.id, inc.user.language))
        return Reply(Answer(ptr.gettext(msgid)))

    def _refused(
        self, inc: Press, session: Session, refused: IllegalAction, tr: Translator
    ) -> Reply:
        """The rule that forbids it, in a pop-up, and privately with a button to the rule."""
        caps = self.sessions.caps
        bundle = self.sessions.bundle(session)
        why, section = bundle.presenter.explain(refused.code, refused.params, tr)
        answer = Answer(why, alert=True)
        if refused.code in NOT_A_RULE:
            return Reply(answer)
        rule = Button(tr.gettext("📖 Full rule"), b.encode(b.RULE, session.game, section))
        explained = Message(inc.user.id, why, ((rule,),))
        if not caps.popups and caps.answers_in_chat and not inc.private and not inc.aside:
            # a free reply in the chat pressed in (a page's press is answered on its page)
            explained = Message(inc.chat, f"{html.escape(inc.user.name)}: {why}", ((rule,),))
        return Reply(answer if caps.popups or inc.aside else Answer(), [explained])
