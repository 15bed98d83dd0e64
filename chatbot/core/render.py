"""A recorded step of a running game as the messages it sends.

The group's table, the announcements of its events and the private hands, all drawn by the
game's presenter through `chatbot.core.views`.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Any

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.fairness import Deal, deal_of
from chatbot.core.model import Button, Message
from chatbot.core.progress import Step, waits
from chatbot.core.registry import Bundle
from chatbot.core.session import OVER, PLAYING, WAIT_BOT, WAIT_REMIND, Session
from chatbot.core.sessions import Sessions
from chatbot.core.views import fresh, say
from chatbot.i18n import Translator, translator
from engine.core import Signal, load_event, signals


def deal_of_session(session: Session, bundle: Bundle) -> Deal:
    """The deal of a session's game (its key is revealed only once the game is over)."""
    spec = bundle.game.spec
    return deal_of(
        session.game, len(session.seats), spec, session.options, session.seed, session.salt
    )


def key_revealed(session: Session, bundle: Bundle, tr: Translator) -> str:
    """The deal's key beside its lock, said when the game is over (its results, or /stop)."""
    deal = deal_of_session(session, bundle)
    return tr.t(
        "🔓 The deal's key: <code>{key}</code> "
        "(its lock was <code>{lock}</code>; /verify checks it)",
        key=deal.key,
        lock=deal.commitment,
    )


def recent_events(session: Session, bundle: Bundle) -> list[Any]:
    """The events of the session's last step."""
    recent = session.log[len(session.log) - session.recent :] if session.recent else []
    return [load_event(bundle.game.event_types, e) for e in recent]


def news(session: Session, bundle: Bundle, tr: Translator, most: int = 1) -> str | None:
    """The first `most` things the game's last step told the table, as plain text (a
    pop-up), one a line; None when it told nothing."""
    group_names = views.names(session, tr)
    told = []
    for event in recent_events(session, bundle):
        if (line := bundle.presenter.narrate(event, group_names, tr)) is not None:
            told.append(html.unescape(re.sub(r"<[^>]*>", "", line)))
            if len(told) == most:
                break
    return "\n".join(told) or None


class Renderer:
    """Draws the steps of the games of one platform (its capabilities, links and clock)."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    def table(self, session: Session, bundle: Bundle, state: Any = None) -> Message:
        """The group's table as it is now, with the time left to each person awaited."""
        sessions = self.sessions
        link = sessions.platform.deep_link
        return self.timed(session, views.table(session, bundle, sessions.caps, state, False, link))

    def timed(self, session: Session, table: Message) -> Message:
        """The table with the time left to each person it waits for (a table with its own
        turn timer, on a platform that edits: the line is kept current by the edits)."""
        sessions = self.sessions
        if not session.turn_timer or not sessions.caps.edits or session.phase != PLAYING:
            return table
        tr = translator(session.language)
        now = sessions.clock()
        lines = []
        for p, (kind, at) in sorted(session.timers.items()):
            seat = session.seats[int(p)]
            if seat.bot or kind == WAIT_BOT:
                continue
            end = at + waits(session, sessions.settings)[1] if kind == WAIT_REMIND else at
            left = max(0, round(end - now))
            name, time = views.seat_name(seat, tr), views.duration(left, tr)
            lines.append(tr.t("⏱ {name}: {time} left", name=name, time=time))
        if not lines:
            return table
        return replace(table, text="\n".join([table.text, "", *lines]))

    def step(
        self,
        session: Session,
        state: Any,
        events: list[Any],
        step: Step,
        pressed: str | None,
        private: bool = False,
    ) -> list[Message]:
        """The messages of a recorded step: the table, announcements, and the hands.

        The actor's pressed hand message is edited in place; every other hand that changes
        comes as a new private message, so its player is notified (edits notify nobody).
        Where unasked private messages cost, only the actor who pressed in the private chat
        (`private`) gets their hand: the answer to the press."""
        sessions = self.sessions
        bundle = sessions.bundle(session)
        caps = sessions.caps
        tr = translator(session.language)
        over = session.phase == OVER
        new_round = Signal.ROUND_BEGAN in step.signals and step.actor is not None
        announcements = self._announcements(session, bundle, events, tr)
        # A turn that begins below announcements (a reveal) moves the table down too, so
        # that its buttons stay at the bottom of the chat.
        moved = new_round or (
            Signal.TURN_BEGAN in step.signals and bool(announcements) and step.actor is not None
        )
        link = sessions.platform.deep_link
        legal = step.legal
        final = over or moved
        table = self.timed(session, views.table(session, bundle, caps, state, final, link, legal))
        if step.signals and step.signals <= {Signal.SECRET}:
            table = replace(table, minor=True)  # only marks a hidden choice: may wait
        if over:  # the deal's key comes with the results
            revealed = key_revealed(session, bundle, tr)
            # below the final table; where messages are merged instead of edited (the table
            # joins the results), after the results, so that its preview keeps its start
            if caps.edits or not announcements:
                table = replace(table, text=f"{table.text}\n\n{revealed}")
            else:
                last = announcements[-1]
                announcements[-1] = replace(last, text=f"{last.text}\n\n{revealed}")
        if moved and not over and caps.edits and announcements:
            # The finished turn's own table shows how it ended, its buttons gone in the same
            # edit; the next turn is one new message below it.
            told = "\n\n".join(m.text for m in announcements)
            messages = [replace(table, text=told, buttons=())]
        else:
            messages = [table, *announcements]
        if moved and not over:  # a fresh table below the results
            below = views.table(session, bundle, caps, state, False, link, legal)
            messages.append(fresh(self.timed(session, below)))
        if bundle.private_hands:
            messages += self._hands(session, bundle, state, step, pressed, private)
        return messages

    def _announcements(
        self, session: Session, bundle: Bundle, events: list[Any], tr: Translator
    ) -> list[Message]:
        """A new group message for each event that matters; the final results offer the next
        game, the standings and the record."""
        group_names = views.names(session, tr)
        # (the game's group as their host: where a page holds the game and no event asked
        # for them, they wait for the next free reply there like the table, never pushed)
        announcements = [
            replace(say(session.chat, text), host=session.chat)
            for e in events
            if (text := bundle.presenter.announce(e, group_names, tr)) is not None
        ]
        if session.phase == OVER and announcements:
            again = Button(tr.gettext("🔁 Play again"), b.encode(b.AGAIN, session.game))
            board = Button(tr.gettext("📊 Standings"), b.encode(b.STATS, session.game))
            lock = deal_of_session(session, bundle).commitment
            book = Button(tr.gettext("📜 Record"), b.encode(b.RECORD, lock))
            announcements[-1] = replace(announcements[-1], buttons=((again, board), (book,)))
        return announcements

    def _hands(
        self,
        session: Session,
        bundle: Bundle,
        state: Any,
        step: Step,
        pressed: str | None,
        private: bool,
    ) -> list[Message]:
        """The private hand messages of a step (see `step`)."""
        caps = self.sessions.caps
        over = session.phase == OVER
        new_round = Signal.ROUND_BEGAN in step.signals and step.actor is not None
        legal = step.legal
        messages: list[Message] = []

        def hand(seat: int, edit: str | None = None) -> Message:
            return views.hand(session, bundle, seat, caps, state, edit=edit, legal=legal[seat])

        for seat, _ in session.humans():
            if over:  # every hand loses its buttons (pressing them could only be refused)
                if caps.edits and seat == step.actor and pressed:
                    messages.append(hand(seat, pressed))
                elif caps.edits:  # each seat's latest hand message that had buttons
                    messages.append(
                        views.bare_hand(session, bundle, seat, caps, state, legal[seat])
                    )
            elif seat == step.actor and pressed:
                messages.append(hand(seat, pressed))
            elif not caps.unasked_free or caps.hands_on_page:
                if seat == step.actor and private:
                    messages.append(hand(seat))
            elif (
                step.actor is None
                or new_round
                or seat == step.actor
                or (seat in step.changed and step.legal[seat])
            ):
                messages.append(hand(seat))
            elif seat in step.lost and caps.edits:
                # a chance out of turn has passed: its buttons go (an edit, no notification)
                messages.append(views.bare_hand(session, bundle, seat, caps, state, legal[seat]))
        asked_only = not caps.unasked_free or caps.hands_on_page
        if over and private and step.actor is not None and asked_only:
            mover = session.seats[step.actor]  # the answer to the last move: where to look
            if mover.user is not None:
                mtr = translator(mover.language)
                text = mtr.gettext("The game is over: the results are in the group.")
                messages.append(say(mover.user, text))
        return messages

    def recover(self, session: Session, state: Any) -> list[Message]:
        """The messages of the session's last step, drawn again from what is stored: the
        table, the announcements of its events, and every hand."""
        bundle = self.sessions.bundle(session)
        game = bundle.game
        events = recent_events(session, bundle)
        seats = range(len(session.seats))
        legal = tuple(game.legal_actions(state, p) for p in seats)
        step = Step(frozenset(seats), legal, signals(events), None)
        return self.step(session, state, events, step, None)
