"""The game service: every incoming event -> load the chat's session, change it with a
compare-and-set save, and say what to send. Platform-neutral; adapters call `handle`, `tick`
and `remember`, and send what they return."""

from __future__ import annotations

import asyncio
import contextlib
import html
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import orjson

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.help import HelpDesk
from chatbot.core.lobby import LOG_LINES, Busy, LobbyDesk
from chatbot.core.model import Answer, Button, Incoming, Message, Reply
from chatbot.core.session import (
    LOBBY,
    OVER,
    PLAYING,
    WAIT_BOT,
    WAIT_REMIND,
    WAIT_TAKEOVER,
    Session,
)
from chatbot.core.views import fresh, say, with_slot
from chatbot.i18n import Translator, negotiate, translator
from chatbot.present.registry import PRESENTERS
from chatbot.settings import Settings
from chatbot.store.base import RETRIES, Conflict, Doc, Store
from engine.core import IllegalAction, Rng, dump_event
from engine.registry import COMPUTERS, GAMES

DEDUPE_TTL = 3600  # seconds a delivered update's id is remembered
NOT_A_RULE = frozenset({"not_your_turn", "game_over", "bad_action"})  # no rule text to show


class GameService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        deep_link: Callable[[str], str | None] = lambda payload: None,
        is_admin: Callable[[str, str], Awaitable[bool]] | None = None,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] = lambda: random.SystemRandom().randrange(1 << 62),
    ) -> None:
        self.store = store
        self.settings = settings
        self.deep_link = deep_link
        self.is_admin = is_admin
        self.clock = clock
        self.seeds = seeds
        self.help = HelpDesk(self)
        self.lobby = LobbyDesk(self)

    # --- loading and saving ------------------------------------------------------------------

    async def load(self, chat: str) -> tuple[Session | None, int]:
        doc = await self.store.load(views.game_key(chat))
        if doc is None and (moved := await self.moved_to(chat)):
            doc = await self.store.load(views.game_key(moved))
        return self._session(doc)

    async def moved_to(self, chat: str) -> str | None:
        """The chat that `chat` became (a Telegram group upgraded to a supergroup), if any."""
        return await self.store.get_setting("moved", chat)

    async def chat_moved(self, old: str, new: str) -> list[Message]:
        """A chat changed its id: its game, language and history follow it; buttons that
        still name the old chat find the game through the recorded move. Idempotent."""
        await self.store.set_setting("moved", old, new)
        language = await self.store.get_setting(f"chat:{old}", "lang")
        if language:
            await self.store.set_setting(f"chat:{new}", "lang", language)
        doc = await self.store.load(views.game_key(old))
        session, version = self._session(doc)
        if session is None:
            return []
        session.chat = new
        session.messages = {}  # the old chat's messages cannot be edited from the new one
        try:
            await self.save(session, 0)
        except Conflict:
            return []  # moved already (by another process, or a retried update)
        with contextlib.suppress(Conflict):
            await self.store.delete(views.game_key(old), version)
        for raw in reversed(await self.store.history(f"hist:{old}", self.settings.history_keep)):
            await self.store.push_history(f"hist:{new}", raw, self.settings.history_keep)
        if session.phase == LOBBY:
            tr = translator(session.language)
            return [with_slot(views.lobby(session, tr, self.deep_link), views.LOBBY_SLOT, new)]
        return [fresh(views.table(session))]

    @staticmethod
    def _session(doc: Doc | None) -> tuple[Session | None, int]:
        if doc is None:
            return None, 0
        return Session.loads(doc.data), doc.version

    async def save(self, session: Session, version: int) -> None:
        await self.store.save(
            views.game_key(session.chat),
            session.dumps(),
            version,
            self.settings.idle_ttl,
            session.deadline,
        )

    async def user_language(self, user_id: str, code: str | None) -> str:
        return await self.store.get_setting(f"user:{user_id}", "lang") or negotiate(code)

    async def chat_language(self, inc: Incoming) -> str:
        if inc.private:
            return await self.user_language(inc.user.id, inc.user.language)
        return await self.store.get_setting(f"chat:{inc.chat}", "lang") or negotiate(
            inc.user.language
        )

    async def may_host(self, inc: Incoming, session: Session) -> bool:
        """The player who opened the table, or an admin of the chat."""
        if inc.user.id == session.creator:
            return True
        return self.is_admin is not None and await self.is_admin(inc.chat, inc.user.id)

    async def update(self, chat: str, change: Callable[[Session], bool]) -> Session | None:
        """Load `chat`'s session, apply `change` and save it with compare-and-set, again from
        the load while another writer wins the race; `change` returns False to save nothing."""
        for _ in range(RETRIES):
            session, version = await self.load(chat)
            if session is None or not change(session):
                return session
            try:
                await self.save(session, version)
                return session
            except Conflict:
                continue
        raise Busy(chat)

    async def remember(self, chat: str, slot: str, message: str) -> None:
        """Record the platform id of a newly sent slot message (not a game change)."""

        def record(session: Session) -> bool:
            changed = session.messages.get(slot) != message
            session.messages[slot] = message
            return changed

        with contextlib.suppress(Busy):  # a lost id only means the next update is sent anew
            await self.update(chat, record)

    # --- dispatch ------------------------------------------------------------------------------

    async def handle(self, inc: Incoming) -> Reply:
        if inc.command is None and inc.data is None:
            return Reply()
        # Game presses dedupe in the round trip that loads their session (`_load_press`).
        if (
            inc.update_id
            and not _game_press(inc.data)
            and not await self.store.first_time(f"seen:{inc.update_id}", DEDUPE_TTL)
        ):
            return Reply()  # the same update delivered again: already handled
        try:
            if inc.command is not None:
                return await self._command(inc)
            return await self._press(inc)
        except Busy:  # many writers at once on one session: nothing was changed
            tr = translator(await self.user_language(inc.user.id, inc.user.language))
            text = tr.gettext("The table is busy right now: please press again.")
            if inc.data is None:  # a command has no pop-up to answer with
                return Reply(messages=[say(inc.chat, text)])
            return Reply(Answer(text))

    async def _command(self, inc: Incoming) -> Reply:
        name = inc.command
        if name == "start":
            return await self._start_command(inc)
        if name == "newgame":
            return await self.lobby.open(inc)
        if name == "stop":
            return await self._stop(inc)
        if name == "status":
            return await self._status(inc)
        if name in ("help", "rules", "rule", "language") or inc.private:
            return await self.help.command(inc)  # an unknown command in private: the help
        return Reply()  # in a group it may be meant for another bot

    async def _press(self, inc: Incoming) -> Reply:
        press = b.decode(inc.data or "")
        if press is None:
            tr = translator(negotiate(inc.user.language))
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        if press.op == b.MOVE and len(press.fields) == 2:
            return await self._move(inc, press.move, *press.fields)
        if press.op == b.NAV and len(press.fields) == 2:
            return await self._nav(inc, press.move, *press.fields)
        if press.op == b.PEEK and len(press.fields) == 1:
            return await self._peek(inc, press.fields[0])
        if press.op == b.AGAIN and len(press.fields) == 1:
            return await self.lobby.open(replace(inc, command="newgame", args=press.fields[0]))
        if press.op in (b.RULE, b.LANGUAGE):
            return await self.help.press(inc, press)
        return await self.lobby.press(inc, press)

    # --- commands --------------------------------------------------------------------------

    async def _start_command(self, inc: Incoming) -> Reply:
        if inc.private:
            await self.store.set_setting(f"user:{inc.user.id}", "dm", "1")
            chat = b.chat_from_payload(inc.args.strip())
            if chat:
                return await self.lobby.join(inc, chat)
        return await self.help.command(inc)

    async def _stop(self, inc: Incoming) -> Reply:
        tr = translator(await self.chat_language(inc))
        session, version = await self.load(inc.chat)
        if session is None:
            return Reply(messages=[say(inc.chat, tr.gettext("No game is running here."))])
        if not await self.may_host(inc, session):
            text = tr.gettext("Only the player who opened the game or a chat admin can stop it.")
            return Reply(messages=[say(inc.chat, text)])
        try:
            await self.store.delete(views.game_key(inc.chat), version)
        except Conflict:
            return Reply(messages=[say(inc.chat, tr.gettext("Please try again."))])
        await self._record(session, stopped=True)
        text = tr.t("The game was stopped by {name}.", name=html.escape(inc.user.name))
        out = [say(inc.chat, text)]
        if session.phase == PLAYING:
            out.insert(0, views.table(session, final=True))
        return Reply(messages=out)

    async def _status(self, inc: Incoming) -> Reply:
        session, _ = await self.load(inc.chat)
        if session is None:
            return Reply(messages=[await self._history(inc)])
        if session.phase == LOBBY:
            tr = translator(session.language)
            lobby = views.lobby(session, tr, self.deep_link)
            return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])
        table = views.table(session)
        return Reply(messages=[fresh(table)])

    async def _history(self, inc: Incoming) -> Message:
        tr = translator(await self.chat_language(inc))
        entries = await self.store.history(f"hist:{inc.chat}", 5)
        if not entries:
            return say(inc.chat, tr.gettext("No game is running here. /newgame opens one."))
        lines = [tr.gettext("No game is running here. Latest results:")]
        for raw in entries:
            entry = orjson.loads(raw)
            title = PRESENTERS[entry["game"]].title(tr) if entry["game"] in PRESENTERS else "?"
            if entry.get("stopped"):
                lines.append(tr.t("• {game}: stopped", game=title))
            else:
                ranking = tr.list(html.escape(n) for n in entry["ranking"])
                lines.append(tr.t("• {game}: {ranking}", game=title, ranking=ranking))
        return say(inc.chat, "\n".join(lines))

    # --- playing ---------------------------------------------------------------------------

    async def _move(self, inc: Incoming, move: int, chat: str, code: str) -> Reply:
        for attempt in range(RETRIES):
            if attempt == 0:
                doc, chat, duplicate = await self._load_press(inc, chat)
                if duplicate:
                    return Reply()  # the same update delivered again: already handled
            else:
                doc = await self.store.load(views.game_key(chat))
            loaded, version = self._session(doc)
            checked = await self._check_player(inc, loaded, move)
            if isinstance(checked, Reply):
                return checked
            session, seat = checked
            tr = translator(session.seats[seat].language)
            game = GAMES[session.game]
            state = game.load(session.state)
            try:
                action = game.decode_action(code)
                state, events = game.apply(state, seat, action)
            except IllegalAction as refused:
                return self._refused(inc, session, refused, tr)
            pressed = inc.message if inc.private else None
            messages = self._advance(session, state, events, seat, pressed)
            try:
                await self.save(session, version)
            except Conflict:
                continue
            if session.phase != PLAYING:
                await self._finish(session)
            return Reply(Answer(), messages)
        raise Busy(chat)

    async def _seated(self, inc: Incoming, session: Session | None) -> int | Reply:
        """The presser's seat in a running game, or the private answer why there is none."""
        if session is not None and session.phase == PLAYING:
            seat = session.seat_of(inc.user.id)
            if seat is not None:
                return seat
        tr = translator(await self.user_language(inc.user.id, inc.user.language))
        if session is None or session.phase != PLAYING:
            return Reply(Answer(tr.gettext("No game is running here.")))
        return Reply(Answer(tr.gettext("You are not playing in this game.")))

    async def _check_player(
        self, inc: Incoming, session: Session | None, move: int
    ) -> tuple[Session, int] | Reply:
        """The session and the presser's seat, or a refusal when the press cannot be a move of
        this game now (no game, not a player, an outdated button)."""
        seat = await self._seated(inc, session)
        if isinstance(seat, Reply):
            return seat
        assert session is not None
        if move != session.move:
            tr = translator(session.seats[seat].language)
            text = tr.gettext("That button is outdated: here is your current hand.")
            if not inc.private:
                return Reply(Answer(text))
            return Reply(Answer(text), [views.hand(session, seat, edit=inc.message)])
        return session, seat

    def _refused(
        self, inc: Incoming, session: Session, refused: IllegalAction, tr: Translator
    ) -> Reply:
        """The rule that forbids it, in a pop-up, and privately with a button to the rule."""
        why, section = PRESENTERS[session.game].explain(refused.code, refused.params, tr)
        answer = Answer(why[:200], alert=True)
        if refused.code in NOT_A_RULE:
            return Reply(answer)
        rule = Button(tr.gettext("📖 Full rule"), b.encode(b.RULE, session.game, section))
        return Reply(answer, [Message(inc.user.id, why, ((rule,),))])

    async def _load_press(self, inc: Incoming, chat: str) -> tuple[Doc | None, str, bool]:
        """A game press's session (following a chat that moved), its chat, and whether this
        update was handled before: the load and the dedupe share one round trip."""
        key = views.game_key(chat)
        if inc.update_id:
            doc, first = await self.store.load_once(key, f"seen:{inc.update_id}", DEDUPE_TTL)
        else:
            doc, first = await self.store.load(key), True
        if doc is None and (moved := await self.moved_to(chat)):
            chat = moved  # the group became a supergroup
            doc = await self.store.load(views.game_key(moved))
        return doc, chat, not first

    async def _nav(self, inc: Incoming, move: int, chat: str, path: str) -> Reply:
        doc, chat, duplicate = await self._load_press(inc, chat)
        if duplicate:
            return Reply()
        loaded, _ = self._session(doc)
        checked = await self._check_player(inc, loaded, move)
        if isinstance(checked, Reply):
            return checked
        session, seat = checked
        return Reply(Answer(), [views.hand(session, seat, path, edit=inc.message)])

    async def _peek(self, inc: Incoming, chat: str) -> Reply:
        doc, chat, duplicate = await self._load_press(inc, chat)
        if duplicate:
            return Reply()
        session, _ = self._session(doc)
        seat = await self._seated(inc, session)
        if isinstance(seat, Reply):
            return seat
        assert session is not None
        tr = translator(session.seats[seat].language)
        game = GAMES[session.game]
        view = game.view(game.load(session.state), seat)
        return Reply(Answer(PRESENTERS[session.game].peek(view, tr)[:200], alert=True))

    def _advance(
        self, session: Session, state: Any, events: list[Any], actor: int, pressed: str | None
    ) -> list[Message]:
        """Store the new state in `session` and say what changed: table, announcements, hands.

        The actor's pressed hand message is edited in place; every other hand that changes
        comes as a new private message, so its player is notified (edits notify nobody)."""
        game = GAMES[session.game]
        presenter = PRESENTERS[session.game]
        session.state = game.dump(state)
        session.move += 1
        session.log = (session.log + [dump_event(e) for e in events])[-LOG_LINES:]
        self._schedule(session, state)
        tr = translator(session.language)
        group_names = views.names(session, tr)
        announcements = [
            say(session.chat, text)
            for e in events
            if (text := presenter.announce(e, group_names, tr)) is not None
        ]
        over = game.is_over(state)
        new_round = bool(announcements)
        messages = [views.table(session, final=over or new_round)]
        if announcements:
            if over:  # the final results offer the next game
                again = Button(tr.gettext("🔁 Play again"), b.encode(b.AGAIN, session.game))
                last = announcements[-1]
                announcements[-1] = replace(last, buttons=((again,),))
            messages.extend(announcements)
            if not over:  # a new round: a fresh table below the results
                messages.append(fresh(views.table(session)))
        to_move = set(game.to_move(state))
        for seat, _ in session.humans():
            if seat == actor and pressed:
                messages.append(views.hand(session, seat, edit=pressed))
            elif not over and (new_round or seat in to_move or seat == actor):
                messages.append(views.hand(session, seat))
        if over:
            session.phase = OVER
        return messages

    def _schedule(self, session: Session, state: Any) -> None:
        """The next deadline: a computer's move, or a reminder for the person to move."""
        game = GAMES[session.game]
        to_move = game.to_move(state)
        now = self.clock()
        if game.is_over(state) or not to_move:
            session.waiting, session.deadline = None, None
        elif any(session.seats[p].bot for p in to_move):
            session.waiting, session.deadline = WAIT_BOT, now + self.settings.bot_delay
        else:
            session.waiting, session.deadline = WAIT_REMIND, now + self.settings.remind_after

    async def _finish(self, session: Session) -> None:
        """A finished game leaves the store; its result joins the chat's history."""
        key = views.game_key(session.chat)
        for _ in range(RETRIES):  # a slot id or language saved meanwhile must not keep it
            doc = await self.store.load(key)
            if doc is None:
                break
            try:
                await self.store.delete(key, doc.version)
                break
            except Conflict:
                continue
        await self._record(session, stopped=False)

    async def _record(self, session: Session, stopped: bool) -> None:
        entry: dict[str, Any] = {"game": session.game, "at": self.clock(), "stopped": stopped}
        if not stopped and session.state is not None:
            game = GAMES[session.game]
            placings = game.result(game.load(session.state))
            tr = translator(session.language)
            entry["ranking"] = [
                tr.gettext(session.seats[p.player].name)
                if session.seats[p.player].bot
                else session.seats[p.player].name
                for p in placings
            ]
        await self.store.push_history(
            f"hist:{session.chat}", orjson.dumps(entry), self.settings.history_keep
        )

    # --- timers ----------------------------------------------------------------------------

    async def tick(self) -> list[Message]:
        """Run every due deadline: computer moves, reminders, and take-overs of idle turns."""
        out: list[Message] = []
        for key in await self.due():
            out.extend(await self.timeout(key))
        return out

    async def due(self) -> list[str]:
        """The game keys whose deadline has come."""
        return await self.store.due(self.clock(), 50)

    async def timeout(self, key: str) -> list[Message]:
        """What happens at a game's deadline: a computer moves, or an idle player is reminded
        (a fresh hand message, so their buttons are at the bottom) or replaced for the turn."""
        doc = await self.store.load(key)
        session, version = self._session(doc)
        if session is None:
            await self.store.clear_deadline(key)
            return []
        if session.deadline is None or session.deadline > self.clock():
            return []  # another process already handled it
        game = GAMES[session.game]
        state = game.load(session.state)
        to_move = game.to_move(state)
        if session.phase != PLAYING or not to_move:
            session.waiting = session.deadline = None
            await self._try_save(session, version)
            return []
        player = to_move[0]
        seat = session.seats[player]
        if session.waiting == WAIT_REMIND and not seat.bot:
            session.waiting = WAIT_TAKEOVER
            session.deadline = self.clock() + self.settings.takeover_after
            if not await self._try_save(session, version):
                return []
            tr = translator(seat.language)
            text = tr.t(
                "⏰ It is your turn! If you do not move in {seconds} seconds, "
                "a computer player will move for you.",
                seconds=tr.number(round(self.settings.takeover_after)),
            )
            hand = views.hand(session, player)
            return [replace(hand, text=f"{text}\n\n{hand.text}")]
        rng = Rng(session.seed ^ session.move)
        view = game.view(state, player)
        computer = COMPUTERS[session.game]
        legal = game.legal_actions(state, player)
        # A computer thinks for some milliseconds: in a worker thread, so that the event loop
        # goes on answering other presses meanwhile.
        action = await asyncio.to_thread(computer.choose, view, legal, rng)
        state, events = game.apply(state, player, action)
        messages = self._advance(session, state, events, player, None)
        if not seat.bot:
            tr = translator(session.language)
            notice = tr.t(
                "{name} was away: a computer player moved for them.", name=views.seat_name(seat, tr)
            )
            messages.insert(1, say(session.chat, notice))
        if not await self._try_save(session, version):
            return []
        if session.phase != PLAYING:
            await self._finish(session)
        return messages

    async def _try_save(self, session: Session, version: int) -> bool:
        try:
            await self.save(session, version)
            return True
        except Conflict:
            return False


def _game_press(data: str | None) -> bool:
    """Whether button data is a move, a step of a choice or a peek (`_load_press` dedupes)."""
    press = b.decode(data) if data is not None else None
    if press is None:
        return False
    fields = {b.MOVE: 2, b.NAV: 2, b.PEEK: 1}.get(press.op)
    return fields == len(press.fields)
