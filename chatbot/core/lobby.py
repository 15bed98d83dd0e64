"""The lobby: opening a table, joining (by button or deep link), computer seats, options,
and the start of the game."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.model import Answer, Incoming, Message, Reply
from chatbot.core.session import LOBBY, OVER, PLAYING, Seat, Session
from chatbot.core.views import fresh, say, with_slot
from chatbot.i18n import N_, Translator, translator
from chatbot.present.registry import PRESENTERS
from chatbot.store.base import RETRIES, Conflict
from engine.core import dump_event
from engine.registry import COMPUTERS, GAMES

if TYPE_CHECKING:
    from chatbot.core.service import GameService

LOG_LINES = 6  # events kept for the table's narration
# A game's move counter starts from its (random) seed, below this, not from the lobby's: the
# buttons left on an earlier game's messages in the chat must not match the next game's.
MOVE_START = 1_000_000


ALREADY_OPEN = N_("A game is already open in this chat: /status shows it, /stop ends it.")


class Busy(Exception):
    """Too many concurrent writers on one session."""


class LobbyDesk:
    """Everything before the first move; the game service hands lobby events here."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    async def open(self, inc: Incoming) -> Reply:
        language = await self.service.chat_language(inc)
        tr = translator(language)
        wanted = inc.args.strip().lower() or next(iter(GAMES))
        if wanted not in GAMES:
            games = tr.list(PRESENTERS[g].title(tr) for g in GAMES)
            return Reply(
                messages=[say(inc.chat, tr.t("I know these games: {games}.", games=games))]
            )
        session, version = await self.service.load(inc.chat)
        if session is not None and session.phase == OVER:  # its end was cut short (a crash)
            with contextlib.suppress(Conflict):
                await self.service.store.delete(views.game_key(inc.chat), version)
            session = None
        if session is not None:
            return Reply(
                messages=[
                    say(
                        inc.chat,
                        tr.gettext(ALREADY_OPEN),
                    )
                ]
            )
        spec = GAMES[wanted].spec
        session = Session(
            game=wanted,
            chat=inc.chat,
            creator=inc.user.id,
            language=language,
            options=spec.resolve_options(),
        )
        if await self.reachable(inc.user.id) or inc.private:
            session.seats.append(await self.seat_for(inc))
        try:
            await self.service.save(session, 0)
        except Conflict:  # another /newgame opened a table at the same moment
            return Reply(messages=[say(inc.chat, tr.gettext(ALREADY_OPEN))])
        if session.seats:  # the host sits down: a private /language must find this game
            await self.service.store.set_setting(f"user:{inc.user.id}", "game", inc.chat)
        lobby = views.lobby(session, tr, self.service.deep_link)
        return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])

    async def reachable(self, user: str) -> bool:
        return await self.service.store.get_setting(f"user:{user}", "dm") == "1"

    async def seat_for(self, inc: Incoming) -> Seat:
        language = await self.service.user_language(inc.user.id, inc.user.language)
        return Seat(name=inc.user.name, user=inc.user.id, language=language)

    async def join(self, inc: Incoming, chat: str) -> Reply:
        """Join the lobby of `chat` (from its Join button or a deep link in a private chat)."""
        tr = translator(await self.service.user_language(inc.user.id, inc.user.language))
        for _ in range(RETRIES):
            session, version = await self.service.load(chat)
            if session is None or session.phase != LOBBY:
                return self._notice(inc, tr.gettext("There is no open table to join."))
            if session.seat_of(inc.user.id) is not None:
                return self._notice(inc, tr.gettext("You are already at the table."))
            spec = GAMES[session.game].spec
            if len(session.seats) >= spec.max_players:
                return self._notice(inc, tr.gettext("The table is full."))
            if not inc.private and not await self.reachable(inc.user.id):
                link = self.service.deep_link(b.deep_link_payload(chat))
                text = tr.gettext("Open a private chat with me first: your hand goes there.")
                return Reply(Answer(text, alert=link is None, url=link))
            session.seats.append(await self.seat_for(inc))
            session.move += 1
            try:
                await self.service.save(session, version)
            except Conflict:
                continue
            await self.service.store.set_setting(f"user:{inc.user.id}", "game", chat)
            return self._lobby_changed(inc, session, tr.gettext("You joined the table."))
        raise Busy(chat)

    def _notice(self, inc: Incoming, text: str) -> Reply:
        """A private answer: a pop-up for a press, a message in a private chat otherwise."""
        if inc.data is not None:
            return Reply(Answer(text))
        return Reply(messages=[say(inc.chat, text)])

    def _lobby_changed(self, inc: Incoming, session: Session, text: str) -> Reply:
        tr = translator(session.language)
        lobby = views.lobby(session, tr, self.service.deep_link)
        edit = session.messages.get(views.LOBBY_SLOT)
        messages = []
        if edit:
            messages.append(with_slot(lobby, views.LOBBY_SLOT, session.chat, edit=edit))
        reply = self._notice(inc, text)
        reply.messages = messages + reply.messages
        return reply

    async def press(self, inc: Incoming, press: b.Press) -> Reply:
        if press.op == b.JOIN:
            return await self.join(inc, inc.chat)
        tr = translator(await self.service.user_language(inc.user.id, inc.user.language))
        for _ in range(RETRIES):
            session, version = await self.service.load(inc.chat)
            if session is None or session.phase != LOBBY:
                return Reply(Answer(tr.gettext("There is no open table here.")))
            if press.op != b.LEAVE and press.move != session.move:  # the current lobby
                text = tr.gettext("Someone changed the table just now: try again.")
                return self._lobby_changed(inc, session, text)
            outcome = await self._change_lobby(inc, session, press, tr)
            if isinstance(outcome, Reply):
                return outcome
            if press.op == b.START:
                return await self._begin(session, version, tr)
            session.move += 1
            try:
                await self.service.save(session, version)
            except Conflict:
                continue
            return self._lobby_changed(inc, session, outcome)
        raise Busy(inc.chat)

    async def _change_lobby(
        self, inc: Incoming, session: Session, press: b.Press, tr: Translator
    ) -> Reply | str:
        """Apply a lobby button to `session`; a Reply refuses it, a string confirms it."""
        spec = GAMES[session.game].spec
        if press.op == b.LEAVE:
            seat = session.seat_of(inc.user.id)
            if seat is None:
                return Reply(Answer(tr.gettext("You are not at the table.")))
            del session.seats[seat]
            return tr.gettext("You left the table.")
        if press.op == b.ADD_BOT:
            if len(session.seats) >= spec.max_players:
                return Reply(Answer(tr.gettext("The table is full.")))
            session.seats.append(self._computer(session))
            return tr.gettext("A computer player joined.")
        if press.op == b.REMOVE_BOT:
            bots = [i for i, s in enumerate(session.seats) if s.bot]
            if not bots:
                return Reply(Answer(tr.gettext("There is no computer player to remove.")))
            del session.seats[bots[-1]]
            return tr.gettext("A computer player left.")
        if press.op == b.OPTION and press.fields and press.fields[0] in session.options:
            if not await self.service.may_host(inc, session):
                return Reply(Answer(tr.gettext("Only the host can change the options.")))
            name = press.fields[0]
            session.options[name] = not session.options[name]
            return tr.gettext("Options changed.")
        if press.op == b.START:
            if not await self.service.may_host(inc, session):
                return Reply(Answer(tr.gettext("Only the host can start the game.")))
            return await self._check_start(session, tr)
        return Reply(Answer(tr.gettext("This button is no longer in use.")))

    async def _check_start(self, session: Session, tr: Translator) -> Reply | str:
        spec = GAMES[session.game].spec
        away = [s.name for _, s in session.humans() if not await self.reachable(s.user or "")]
        if away:
            text = tr.t(
                "{names} must open a private chat with me first (Join (private chat)).",
                names=tr.list(away),
            )
            return Reply(Answer(text, alert=True))
        while len(session.seats) < spec.min_players:
            session.seats.append(self._computer(session))
        return ""

    @staticmethod
    def _computer(session: Session) -> Seat:
        """A computer player's seat, named after a thinker not yet at the table."""
        taken = {s.name for s in session.seats}
        name = next(n for n in views.BOT_NAMES if n not in taken)
        return Seat(name=name, bot=COMPUTERS[session.game].name)

    async def _begin(self, session: Session, version: int, tr: Translator) -> Reply:
        """Deal the game; the lobby message becomes the start notice; hands go out privately."""
        game = GAMES[session.game]
        session.seed = self.service.seeds()
        state, events = game.new_game(len(session.seats), session.options, session.seed)
        session.phase = PLAYING
        session.move = session.seed % MOVE_START
        session.state = game.dump(state)
        session.log = [dump_event(e) for e in events][-LOG_LINES:]
        self.service._schedule(session, state)
        try:
            await self.service.save(session, version)
        except Conflict:
            return Reply(Answer(tr.gettext("Someone changed the table just now: try again.")))
        ctr = translator(session.language)
        players = ctr.list(views.names(session, ctr))
        started = ctr.t(
            "🎲 {game} begins! Players: {players}",
            game=PRESENTERS[session.game].title(ctr),
            players=players,
        )
        messages = []
        lobby_id = session.messages.get(views.LOBBY_SLOT)
        if lobby_id:
            messages.append(Message(session.chat, started, edit=lobby_id))
        else:
            messages.append(say(session.chat, started))
        messages.append(fresh(views.table(session)))
        messages.extend(views.hand(session, i) for i, _ in session.humans())
        return Reply(Answer(tr.gettext("The game begins!")), messages)
