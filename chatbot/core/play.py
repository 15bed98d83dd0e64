"""The game desk: moves (from a private hand or the group's table), steps of a choice, the
hand peek, and the timers of every seat (computer moves, reminders, take-overs).

A change of a running game is two steps: `record` puts the new state in the session (log,
per-seat freshness, timers) and `render` says which messages that change sends.
"""

from __future__ import annotations

import contextlib
import html
import logging
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import orjson

from chatbot import metrics
from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.fairness import Deal, deal_of, stamp_start
from chatbot.core.model import Answer, Button, Incoming, Message, Press, Reply
from chatbot.core.record import TTL as RECORD_TTL
from chatbot.core.record import Record, record_key
from chatbot.core.registry import Bundle
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
from chatbot.core.sessions import HISTORY_TTL, Busy, Sessions, game_key
from chatbot.core.standings import TTL as STANDINGS_TTL
from chatbot.core.standings import Standings, add_result, standings_key
from chatbot.core.thinking import Thinkers, budget
from chatbot.core.views import fresh, say
from chatbot.i18n import N_, Translator, translator
from chatbot.store.base import ANY_VERSION, RETRIES, Conflict, Doc, Entry, Write
from engine.core import (
    BadState,
    IllegalAction,
    Rng,
    Signal,
    dump_event,
    load_event,
    signals,
    stored,
)

log = logging.getLogger(__name__)

LOG_LINES = 6  # events kept for the table's narration (more when one change has more)
NOT_A_RULE = frozenset({"not_your_turn", "game_over", "bad_action"})  # no rule text to show
# Stamps start from a random number below this (from the deal's salt), not from zero: the buttons
# left on an earlier game's messages in the chat must not match the next game's.
STAMP_START = 1_000_000
TIMEOUT_STEPS = 16  # due timers handled in one go for one game (the rest at the next tick)
HURRIED_STEPS = 64  # computer actions taken at once after one change (see `hurry`)
CHOICES_KEPT = 1000  # computer choices kept for a timer tried again (see `_computer_choice`)


@dataclass(frozen=True)
class Change:
    """What one recorded step changed: the seats whose situation changed, every seat's legal
    actions now, the events' signals, and who acted (None: the game's start)."""

    changed: frozenset[int]
    legal: tuple[list[Any], ...]
    signals: frozenset[str]
    actor: int | None
    lost: frozenset[int] = frozenset()  # seats that could act before and cannot now


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


def computer_stamp(session: Session, seat: int) -> int:
    """What a computer seat's choices are drawn from beside the seed: its stamp counted from
    the seed (as when stamps started there), so a seeded game plays the same whatever its
    salt."""
    counted = session.stamps[seat] - stamp_start(session.salt, STAMP_START)
    return session.seed % STAMP_START + counted


def digest(bundle: Bundle, legal: Sequence[Any]) -> int:
    """A short fingerprint of a seat's legal actions, to see them change."""
    return zlib.crc32("\n".join(map(bundle.game.encode_action, legal)).encode())


class GameDesk:
    """Plays a running game: presses, timers, and the end of the game."""

    def __init__(self, sessions: Sessions, thinkers: Thinkers) -> None:
        self.sessions = sessions
        self.thinkers = thinkers  # where computer players think
        self._choices: dict[tuple[str, int, int, int, int], Any] = {}  # the latest, by situation

    # --- noting and rendering a change ---------------------------------------------------

    def start(self, session: Session, state: Any, events: list[Any]) -> Change:
        """Record a dealt game: every seat's stamp starts from the salt's hash."""
        first = stamp_start(session.salt, STAMP_START)
        session.phase = PLAYING
        session.epoch = first
        session.stamps = [first] * len(session.seats)
        session.choice_digests = []
        session.log = []
        session.trail = []
        return self.note_change(session, state, events, None)

    def note_change(
        self, session: Session, state: Any, events: list[Any], actor: int | None
    ) -> Change:
        """Put the new state in `session`: log, stamps of the seats whose situation changed,
        the epoch when a turn or round began, and every seat's timer."""
        bundle = self.sessions.bundle(session)
        game = bundle.game
        session.state = stored(game, state)
        # every event of this change is kept (the terminal prints them all), and at least
        # LOG_LINES for the table's narration
        session.log = (session.log + [dump_event(e) for e in events])[
            -max(LOG_LINES, len(events)) :
        ]
        session.recent = len(events)
        session.moves += actor is not None
        sig = signals(events)
        begun = Signal.ROUND_BEGAN in sig or Signal.TURN_BEGAN in sig
        if begun:
            session.epoch += 1
        seats = range(len(session.seats))
        legal = tuple(game.legal_actions(state, p) for p in seats)
        digests = [digest(bundle, legal[p]) for p in seats]
        before = session.choice_digests
        changed = frozenset(
            p for p in seats if begun or p == actor or p >= len(before) or before[p] != digests[p]
        )
        for p in changed:
            session.stamps[p] += 1
        # An actor whose own action opened a new chance for it (a window out of turn that
        # opens with one's own move) may take it like anyone else.
        renewed = actor is not None and actor < len(before) and before[actor] != digests[actor]
        lost = frozenset(p for p in seats if p < len(before) and before[p] and not legal[p])
        session.choice_digests = digests
        over = game.is_over(state)
        awaited = set(game.to_move(state))
        self.schedule(session, legal, changed, over, awaited, None if renewed else actor)
        if over:
            session.phase = OVER
        return Change(changed, legal, sig, actor, lost)

    def schedule(
        self,
        session: Session,
        legal: tuple[list[Any], ...],
        changed: frozenset[int],
        over: bool,
        awaited: set[int],
        actor: int | None = None,
    ) -> None:
        """Every seat's timer: a computer acts after a short delay when it is awaited, or when
        a chance out of turn appears for it (`actor`: not after its own action, which left its
        choices as they were); a person awaited is
        reminded, then replaced. A seat whose situation did not change keeps its timer (one
        player's pick does not restart another's clock)."""
        now = self.sessions.clock()
        settings = self.sessions.settings
        timers: dict[str, list[Any]] = {}  # seat -> [WAIT_*, unix time]
        for p, seat in enumerate(session.seats):
            if over:
                break
            key = str(p)
            old = session.timers.get(key)
            kept = old if old is not None and p not in changed else None
            if seat.bot and legal[p]:
                if kept and kept[0] == WAIT_BOT:
                    timers[key] = kept
                elif p in awaited or (p in changed and p != actor):
                    timers[key] = [WAIT_BOT, now + settings.bot_delay]
            elif not seat.bot and p in awaited:
                if kept and kept[0] != WAIT_BOT:
                    timers[key] = kept
                else:
                    timers[key] = [WAIT_REMIND, now + self.waits(session)[0]]
        session.timers = timers
        session.deadline = min((at for _, at in timers.values()), default=None)

    def waits(self, session: Session) -> tuple[float, float]:
        """Seconds before an awaited person is reminded, and then before a computer moves for
        them: half the table's turn timer each, or the settings' when it has none."""
        if session.turn_timer > 0:
            return session.turn_timer / 2, session.turn_timer / 2
        settings = self.sessions.settings
        return settings.remind_after, settings.takeover_after

    def timed(self, session: Session, table: Message) -> Message:
        """The table with the time left to each person it waits for (a table with its own
        turn timer, on a platform that edits: the line is kept current by the edits)."""
        if not session.turn_timer or not self.sessions.caps.edits or session.phase != PLAYING:
            return table
        tr = translator(session.language)
        now = self.sessions.clock()
        lines = []
        for p, (kind, at) in sorted(session.timers.items()):
            seat = session.seats[int(p)]
            if seat.bot or kind == WAIT_BOT:
                continue
            end = at + self.waits(session)[1] if kind == WAIT_REMIND else at
            left = max(0, round(end - now))
            lines.append(
                tr.t(
                    "⏱ {name}: {time} left",
                    name=views.seat_name(seat, tr),
                    time=views.duration(left, tr),
                )
            )
        if not lines:
            return table
        return replace(table, text="\n".join([table.text, "", *lines]))

    def render(
        self,
        session: Session,
        state: Any,
        events: list[Any],
        change: Change,
        pressed: str | None,
        private: bool = False,
    ) -> list[Message]:
        """The messages of a recorded change: the table, announcements, and the hands.

        The actor's pressed hand message is edited in place; every other hand that changes
        comes as a new private message, so its player is notified (edits notify nobody).
        Where unasked private messages cost, only the actor who pressed in the private chat
        (`private`) gets their hand: the answer to the press."""
        bundle = self.sessions.bundle(session)
        caps = self.sessions.caps
        tr = translator(session.language)
        group_names = views.names(session, tr)
        over = session.phase == OVER
        new_round = Signal.ROUND_BEGAN in change.signals and change.actor is not None
        announcements = [
            say(session.chat, text)
            for e in events
            if (text := bundle.presenter.announce(e, group_names, tr)) is not None
        ]
        if over and announcements:  # the final results offer the next game
            again = Button(tr.gettext("🔁 Play again"), b.encode(b.AGAIN, session.game))
            board = Button(tr.gettext("📊 Standings"), b.encode(b.STATS, session.game))
            lock = deal_of_session(session, bundle).commitment
            book = Button(tr.gettext("📜 Record"), b.encode(b.RECORD, lock))
            announcements[-1] = replace(announcements[-1], buttons=((again, board), (book,)))
        # A turn that begins below announcements (a reveal) moves the table down too, so
        # that its buttons stay at the bottom of the chat.
        moved = new_round or (
            Signal.TURN_BEGAN in change.signals and bool(announcements) and change.actor is not None
        )
        link = self.sessions.platform.deep_link
        final = over or moved
        legal = change.legal
        table = self.timed(session, views.table(session, bundle, caps, state, final, link, legal))
        if change.signals and change.signals <= {Signal.SECRET}:
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

        def hand(seat: int, edit: str | None = None) -> Message:
            return views.hand(session, bundle, seat, caps, state, edit=edit, legal=legal[seat])

        if bundle.private_hands and not over:
            for seat, _ in session.humans():
                if seat == change.actor and pressed:
                    messages.append(hand(seat, pressed))
                elif not caps.unasked_free:
                    if seat == change.actor and private:
                        messages.append(hand(seat))
                elif (
                    change.actor is None
                    or new_round
                    or seat == change.actor
                    or (seat in change.changed and change.legal[seat])
                ):
                    messages.append(hand(seat))
                elif seat in change.lost and caps.edits:
                    # a chance out of turn has passed: its buttons go (an edit, no notification)
                    messages.append(
                        views.bare_hand(session, bundle, seat, caps, state, legal[seat])
                    )
        if over and bundle.private_hands and caps.edits:
            # every hand loses its buttons (pressing them could only be refused): the one
            # pressed and each seat's latest hand message that had buttons
            for seat, _ in session.humans():
                if seat == change.actor and pressed:
                    messages.append(hand(seat, pressed))
                else:
                    messages.append(
                        views.bare_hand(session, bundle, seat, caps, state, legal[seat])
                    )
        if over and private and change.actor is not None and not caps.unasked_free:
            mover = session.seats[change.actor]  # the answer to the last move: where to look
            if mover.user is not None:
                mtr = translator(mover.language)
                text = mtr.gettext("The game is over: the results are in the group.")
                messages.append(say(mover.user, text))
        return messages

    # --- presses ---------------------------------------------------------------------------

    async def load_press(self, inc: Incoming, chat: str) -> tuple[Doc | None, str, bool]:
        """A game press's session (following a chat that moved), its chat, and whether this
        update was handled before: the load and the dedupe check share one round trip. The
        update is marked handled only by the save of its change (`act`), so that one cut
        short (a crash, a storage fault) is handled again when it is delivered again."""
        sessions = self.sessions
        doc, duplicate = await sessions.dedupe.load(chat, inc.update_id, game_key(chat))
        if doc is None and (moved := await sessions.moved_to(chat)):
            chat = moved  # the group became a supergroup: its own set of handled updates
            doc, again = await sessions.dedupe.load(moved, inc.update_id, game_key(moved))
            duplicate = duplicate or again
        sessions.keep(game_key(chat), doc)
        return doc, chat, duplicate

    async def act(self, inc: Press, code: b.Code) -> Reply:
        """A move: from a private hand (`m<seat stamp>|chat|code`) or from the group's table
        (`M<epoch>|code`), by whoever pressed it, if it is theirs to make."""
        group = code.op == b.GROUP_MOVE
        named, wanted = (inc.chat, code.fields[0]) if group else code.fields
        tried: tuple[bytes, Session, Reply] | None = None  # a save refused: what it would store
        # First on the document as this process last loaded or saved it, unclaimed: its save
        # checks in the same round trip that the game, the fields beside it and the update are
        # as they were (docs/delivery.md, "Dedupe"). Anything else, a refusal included, is
        # decided on the document loaded anew.
        kept = self.sessions.kept(game_key(named)) if inc.update_id else None
        for attempt in range(RETRIES + 1):
            if attempt:
                kept = None
            doc: Doc | None
            if kept is not None:
                doc, duplicate = kept, False
            else:
                doc, _, duplicate = await self.load_press(inc, named)
            if duplicate:
                if tried is not None and doc is not None and doc.data == tried[0]:
                    # The refused save was ours, applied before its reply was lost (the
                    # client sent it again and got a conflict): answer as if it had not been.
                    if tried[1].phase == OVER:
                        await self.finish(tried[1])
                    return tried[2]
                if attempt:  # our own save may have been applied, its answer lost
                    self._unsent_if_mine(doc)
                if await self._answer_lost(doc):
                    return await self._already(inc, doc)
                return Reply()  # delivered again: handled (and answered) before
            checked = await self._check(inc, doc, code.stamp, group, tentative=kept is not None)
            if checked is None:
                continue  # refused on the kept document: decided on a load
            if isinstance(checked, Reply):
                return checked
            session, version, seat, state = checked
            made = len(session.trail)
            bundle = self.sessions.bundle(session)
            tr = translator(session.seats[seat].language)
            try:
                action = bundle.game.decode_action(wanted)
                state, events = bundle.game.apply(state, seat, action)
            except IllegalAction as refused:
                if kept is not None:
                    continue
                return self._refused(inc, session, refused, tr)
            session.trail.append([seat, bundle.game.encode_action(action)])
            change = self.note_change(session, state, events, seat)
            pressed = inc.message if inc.private else None
            messages = self.render(session, state, events, change, pressed, inc.private)
            view = bundle.game.view(state, seat)
            state = await self.hurry(session, state, messages)
            seen = self.sessions.dedupe.mark(session.chat, inc.update_id)  # (the chat it moved to)
            fields = None if kept is None else kept.fields
            saved = await self.sessions.try_save(session, version, True, seen, fields)
            if kept is not None:
                metrics.KEPT_SAVES.labels("saved" if saved else "refused").inc()
            if saved:
                metrics.MOVES.labels(session.game).inc(len(session.trail) - made)
            if saved and session.phase == OVER:
                await self.finish(session)
            answer = Answer(bundle.presenter.confirm(view, action, tr), secret=True)
            reply = Reply(answer, messages, confirm=(session.chat, session.change))
            if saved:
                return reply
            tried = (session.dumps(), session, reply)
        raise Busy(named)

    async def _answer_lost(self, doc: Doc | None) -> bool:
        """Whether the process that saved the game's last change is gone (its heartbeat
        lapsed): a copy of a move it saved may be all that is left of the press, its answer
        lost with it. A live owner answered, or answers, its own press."""
        try:
            session, _ = self.sessions.session(doc)
        except BadSession:
            return False
        if session is None or session.owner in ("", self.sessions.process):
            return False
        return not await self.sessions.alive(session.owner)

    async def _already(self, inc: Incoming, doc: Doc | None) -> Reply:
        """The answer to a move delivered again after it was saved (its first answer may
        have been lost with the process that saved it): what the game's last change did."""
        tr = translator(await self.sessions.user_language(inc.user.id, inc.user.language))
        text = tr.gettext("That press was already counted.")
        try:
            session, _ = self.sessions.session(doc)
            news = (
                None if session is None else self._news(session, self.sessions.bundle(session), tr)
            )
        except (BadSession, BadState, KeyError, TypeError, ValueError):
            news = None
        if news:
            text += "\n" + tr.t("Last move: {news}", news=news)
        return Reply(Answer(text))  # (the runner fits it to a pop-up)

    def _unsent_if_mine(self, doc: Doc | None) -> None:
        """A save whose reply was lost (the connection broke, the client sent it again and
        got a conflict) still changed the game: if the stored change is this process's, it
        is delivered by this process's timer after the grace."""
        try:
            session, _ = self.sessions.session(doc)
        except BadSession:
            return
        if session is not None and session.owner == self.sessions.process:
            self.sessions.unsent.add((session.chat, session.change))

    async def nav(self, inc: Press, code: b.Code) -> Reply:
        """A step of a choice (or a page of a long list) in the private hand message."""
        chat, path = code.fields
        _, _, page = path.partition(b.PAGE)
        if page and not page.isdigit():  # page data no button of ours makes
            ptr = translator(await self.sessions.user_language(inc.user.id, inc.user.language))
            return Reply(Answer(ptr.gettext("This button is no longer in use.")))
        doc, chat, duplicate = await self.load_press(inc, chat)
        if duplicate:  # recorded once its answer and edit went out: nothing owed
            return Reply()
        checked = await self._check(inc, doc, code.stamp, False)
        if isinstance(checked, Reply):
            return checked
        session, _, seat, state = checked
        bundle = self.sessions.bundle(session)
        hand = views.hand(session, bundle, seat, self.sessions.caps, state, path, edit=inc.message)
        return Reply(Answer(), [hand])

    async def peek(self, inc: Press, code: b.Code) -> Reply:
        """The "My hand" button on the table: a pop-up, or the hand in the private chat where
        the platform has no pop-ups."""
        doc, _, duplicate = await self.load_press(inc, code.fields[0])
        if duplicate:
            return Reply()
        checked = await self._check(inc, doc, -1, True)
        if isinstance(checked, Reply):
            return checked
        session, _, seat, state = checked
        bundle = self.sessions.bundle(session)
        caps = self.sessions.caps
        if not caps.popups:
            return Reply(Answer(), [views.hand(session, bundle, seat, caps, state)])
        tr = translator(session.seats[seat].language)
        text = bundle.presenter.peek(bundle.game.view(state, seat), tr, caps.answer_chars)
        return Reply(Answer(text, alert=True))

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
        return await self.hand_in(inc, await self.sessions.store.load(game_key(chat)))

    async def hand_in(self, inc: Incoming, doc: Doc | None) -> tuple[Message, Message] | str:
        """`hand_of` the game stored in `doc` (just read by the caller)."""
        checked = await self._check(inc, doc, -1, True)
        if isinstance(checked, Reply):
            return checked.answer.text if checked.answer is not None else ""
        session, _, seat, state = checked
        bundle, caps = self.sessions.bundle(session), self.sessions.caps
        table = views.table(
            session, bundle, caps, state, deep_link=self.sessions.platform.deep_link
        )
        return views.hand(session, bundle, seat, caps, state), table

    @overload
    async def _check(
        self, inc: Incoming, doc: Doc | None, stamp: int, group: bool
    ) -> tuple[Session, int, int, Any] | Reply: ...

    @overload
    async def _check(
        self, inc: Incoming, doc: Doc | None, stamp: int, group: bool, tentative: bool
    ) -> tuple[Session, int, int, Any] | Reply | None: ...

    async def _check(
        self, inc: Incoming, doc: Doc | None, stamp: int, group: bool, tentative: bool = False
    ) -> tuple[Session, int, int, Any] | Reply | None:
        """The session, its version, the presser's seat and the game state, or the private
        answer why the press cannot act now (no game, not a player, an outdated button).
        `tentative`: `doc` may be stale (the kept document), so a refusal is not answered
        (None: the caller decides it on a load) and costs no rendering."""
        try:
            session, version = self.sessions.session(doc)
            if session is None or session.phase != PLAYING:
                if tentative:
                    return None
                return await self._presser_answer(inc, N_("No game is running here."))
            state = views.state_of(session, self.sessions.bundle(session))
        except (BadSession, BadState, KeyError) as exc:
            if tentative:
                return None
            log.error("unreadable session in %s: %r", inc.chat, exc)
            return await self._presser_answer(
                inc, N_("This game could not be read: /stop ends it.")
            )
        seat = session.seat_of(inc.user.id)
        if seat is None:
            if tentative:
                return None
            return await self._presser_answer(inc, N_("You are not playing in this game."))
        current = session.epoch if group else session.stamps[seat]
        if stamp >= 0 and stamp != current:
            if tentative:
                return None
            tr = translator(session.seats[seat].language)
            if group or not inc.private:
                return Reply(Answer(tr.gettext("That button is outdated.")))
            text = tr.gettext("That button is outdated: here is your current hand.")
            bundle = self.sessions.bundle(session)
            if news := self._news(session, bundle, tr):  # why: e.g. another's press was first
                text += "\n" + tr.t("Meanwhile: {news}", news=news)
            caps = self.sessions.caps
            pressed = inc.message if isinstance(inc, Press) else None
            hand = views.hand(session, bundle, seat, caps, state, edit=pressed)
            return Reply(Answer(text), [hand])
        return session, version, seat, state

    async def _presser_answer(self, inc: Incoming, msgid: str) -> Reply:
        """A refusal in the presser's own language (read only when refusing: a seated
        player's language is in the session, so a valid press costs no extra read)."""
        ptr = translator(await self.sessions.user_language(inc.user.id, inc.user.language))
        return Reply(Answer(ptr.gettext(msgid)))

    @staticmethod
    def _news(session: Session, bundle: Bundle, tr: Translator) -> str | None:
        """The first thing the game's last change told the table, if anything."""
        recent = session.log[len(session.log) - session.recent :] if session.recent else []
        group_names = views.names(session, tr)
        for dumped in recent:
            event = load_event(bundle.game.event_types, dumped)
            if (line := bundle.presenter.narrate(event, group_names, tr)) is not None:
                return html.unescape(re.sub(r"<[^>]*>", "", line))  # a pop-up is plain text
        return None

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
        if not caps.popups and caps.answers_in_chat and not inc.private:  # a free reply there
            explained = Message(inc.chat, f"{html.escape(inc.user.name)}: {why}", ((rule,),))
        return Reply(answer if caps.popups or inc.aside else Answer(), [explained])

    # --- the end ---------------------------------------------------------------------------

    async def finish(self, session: Session) -> None:
        """A finished game leaves the store; its result joins the chat's history and its
        standings in the same atomic step (compare-and-set on the game and the standings):
        a crash before it leaves the game over and stored, and the next tick finishes it;
        a second finisher finds the game gone. Either way it counts once."""
        store = self.sessions.store
        key, board = game_key(session.chat), standings_key(session.chat)
        for _ in range(RETRIES):
            try:
                stored_session, version = self.sessions.session(await store.load(key))
            except BadSession:
                return
            if stored_session is None or stored_session.phase != OVER:
                return  # finished already (and perhaps a new table opened)
            writes = [Write(key, version, None)]
            if (bundle := self.sessions.games.get(stored_session.game)) is not None:
                lock = deal_of_session(stored_session, bundle).commitment
                book = Record.of(stored_session).dumps()
                writes.append(Write(record_key(session.chat, lock), 0, book, RECORD_TTL))
            counted = self._counted(stored_session)
            if counted is not None:
                doc = await self._standings(board)
                table = add_result(
                    Standings.loads(doc.data if doc else None),
                    stored_session.game,
                    stored_session.seats,
                    counted,
                    self.sessions.clock(),
                    stored_session.title,
                )
                writes.append(Write(board, doc.version if doc else 0, table.dumps(), STANDINGS_TTL))
            entry = Entry(
                f"hist:{session.chat}",
                self.history_entry(stored_session, stopped=False),
                self.sessions.settings.history_keep,
                HISTORY_TTL,
            )
            try:
                await store.commit(writes, [entry])
                return
            except Conflict:
                continue  # changed meanwhile (a slot remembered, another finisher): look again
        raise Busy(session.chat)

    async def _standings(self, board: str) -> Doc | None:
        """The chat's standings document; one that is not even a document is removed (the
        standings start again with this game: no version could be compared with it)."""
        try:
            return await self.sessions.store.load(board)
        except BadSession:
            log.error("unreadable standings %s: removed", board)
            await self.sessions.store.delete(board, ANY_VERSION)
            return None

    def _counted(self, session: Session) -> list[int] | None:
        """Each seat's place in a finished game, or None when it cannot be read."""
        bundle = self.sessions.games.get(session.game)
        if bundle is None or session.state is None:
            return None
        try:
            placings = bundle.game.result(views.state_of(session, bundle))
        except (BadState, KeyError):
            return None
        places = {p.player: p.place for p in placings}
        if set(places) != set(range(len(session.seats))):
            return None
        return [places[i] for i in range(len(session.seats))]

    def history_entry(self, session: Session, stopped: bool) -> bytes:
        """The game's line in the chat's history: its ranking (names as stored: computer
        players' names are msgids, translated when shown)."""
        entry: dict[str, Any] = {
            "game": session.game,
            "at": self.sessions.clock(),
            "stopped": stopped,
        }
        bundle = self.sessions.games.get(session.game)
        if not stopped and session.state is not None and bundle is not None:
            with_state = views.state_of(session, bundle)
            entry["ranking"] = [
                {"name": session.seats[p.player].name, "bot": bool(session.seats[p.player].bot)}
                for p in bundle.game.result(with_state)
            ]
        return orjson.dumps(entry)

    async def record_history(self, session: Session, stopped: bool) -> None:
        """The chat's history gets the game's line (a stopped game: not counted in the
        standings)."""
        await self.sessions.store.push_history(
            f"hist:{session.chat}",
            self.history_entry(session, stopped),
            self.sessions.settings.history_keep,
            HISTORY_TTL,
        )

    # --- timers ----------------------------------------------------------------------------

    async def timeout(self, key: str) -> Reply:
        """Run a game's due timers: computer players act, idle people are reminded (a fresh
        hand message, so their buttons are at the bottom) or replaced for the turn. A saved
        change whose messages were never delivered (its process died or stalled) is
        delivered here, once, by whichever process gets to it."""
        store = self.sessions.store
        try:
            session, version = self.sessions.session(await store.load(key))
            if session is None:  # expired: its deadline and its count as running go too
                with contextlib.suppress(Conflict):  # (a new game there meanwhile)
                    await store.delete(key, 0)
                return Reply()
            state = views.state_of(session, self.sessions.bundle(session))
        except (BadSession, BadState, KeyError) as exc:
            log.error("unreadable session %s: %r (its timer is dropped)", key, exc)
            await store.clear_deadline(key)
            return Reply()
        messages: list[Message] = []
        confirm: tuple[str, int] | None = None
        if session.phase != LOBBY and await self.sessions.owed(session):
            messages = self.recover(session, state)
            confirm = (session.chat, session.change)
        if session.phase == OVER:  # its end was cut short (a crash): finish it now
            await self.finish(session)
            return Reply(messages=messages, confirm=confirm)
        now = self.sessions.clock()
        if session.phase != PLAYING or session.deadline is None or session.deadline > now:
            await self.sessions.reindex(session)  # only the grace of a delivery was due
            return Reply(messages=messages, confirm=confirm)
        moved, made = False, len(session.trail)
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
            self.schedule_all(session, state)  # a stale deadline (e.g. an older schema)
        if not await self.sessions.try_save(session, version, owed=bool(messages)):
            return Reply()  # another process changed the game: the next tick looks again
        metrics.MOVES.labels(session.game).inc(len(session.trail) - made)
        if session.phase == OVER:
            await self.finish(session)
        return Reply(messages=messages, confirm=(session.chat, session.change))

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

    def recover(self, session: Session, state: Any) -> list[Message]:
        """The messages of the session's last change, rendered again from what is stored:
        the table, the announcements of its events, and every hand."""
        bundle = self.sessions.bundle(session)
        game = bundle.game
        recent = session.log[len(session.log) - session.recent :] if session.recent else []
        events = [load_event(game.event_types, e) for e in recent]
        seats = range(len(session.seats))
        legal = tuple(game.legal_actions(state, p) for p in seats)
        change = Change(frozenset(seats), legal, signals(events), None)
        log.warning("delivering change %d of %s again", session.change, session.chat)
        return self.render(session, state, events, change, None)

    def schedule_all(self, session: Session, state: Any) -> None:
        """Every seat's timer anew, as if every situation had changed."""
        game = self.sessions.bundle(session).game
        seats = range(len(session.seats))
        legal = tuple(game.legal_actions(state, p) for p in seats)
        session.timers = {}
        self.schedule(
            session, legal, frozenset(seats), game.is_over(state), set(game.to_move(state))
        )

    async def _expire(
        self, session: Session, state: Any, seat: int, kind: str
    ) -> tuple[Any, list[Message], bool]:
        """One seat's timer ran out: its computer acts, its person is reminded or replaced.
        Returns the state, the messages and whether the game changed."""
        bundle = self.sessions.bundle(session)
        game = bundle.game
        player = session.seats[seat]
        if kind == WAIT_REMIND and not player.bot:
            at = self.sessions.clock() + self.waits(session)[1]
            session.timers[str(seat)] = [WAIT_TAKEOVER, at]
            session.deadline = min(at for _, at in session.timers.values())
            out = (
                [self._reminder(session, bundle, state, seat)]
                if self.sessions.caps.reminders
                else []
            )
            if session.turn_timer and self.sessions.caps.edits:  # the time left, halved
                link = self.sessions.platform.deep_link
                out.append(
                    self.timed(
                        session,
                        views.table(session, bundle, self.sessions.caps, state, deep_link=link),
                    )
                )
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
        change = self.note_change(session, state, events, seat)
        messages = self.render(session, state, events, change, None)
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
        kept for its situation: a timer tried again because its save lost a compare-and-set
        to a write that moved nothing (a message's id recorded) plays it without thinking
        again (a move abandoned at THINK_TIMEOUT would wait as long again)."""
        game = bundle.game
        legal = game.legal_actions(state, seat)
        key = (session.chat, session.epoch, session.change, seat, session.stamps[seat])
        kept = self._choices.get(key)
        if kept is not None and kept in legal:
            return kept
        rng = Rng(session.seed ^ computer_stamp(session, seat))
        settings = self.sessions.settings
        limit = budget(settings.think_playouts, settings.think_budget)
        action = await self.thinkers.think(
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
        seconds = round(self.waits(session)[1])
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
