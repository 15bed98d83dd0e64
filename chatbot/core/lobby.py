"""The lobby: opening a table, joining (by button or deep link), computer seats, options,
and the start of the game."""

from __future__ import annotations

from dataclasses import replace

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.model import Answer, Command, Incoming, Message, Press, Reply
from chatbot.core.play import GameDesk, deal_of_session
from chatbot.core.registry import Bundle
from chatbot.core.session import LOBBY, OVER, TURN_TIMERS, BadSession, Seat, Session
from chatbot.core.sessions import Busy, Sessions
from chatbot.core.views import fresh, say, with_slot
from chatbot.i18n import N_, Translator, translator
from chatbot.store.base import RETRIES, Conflict
from engine.core import BadState

ALREADY_OPEN = N_("A game is already open in this chat: /status shows it, /stop ends it.")


class LobbyDesk:
    """Everything before the first move."""

    def __init__(self, sessions: Sessions, play: GameDesk) -> None:
        self.sessions = sessions
        self.play = play

    def find(self, name: str) -> Bundle | None:
        """A game by its name or its title in any language ("" : the default game)."""
        wanted = name.strip().lower()
        if not wanted:
            return self.sessions.games.default
        return self.sessions.games.get(wanted)

    async def open(self, inc: Command) -> Reply:
        sessions = self.sessions
        language = await sessions.chat_language(inc)
        tr = translator(language)
        bundle = self.find(inc.args)
        if bundle is None:
            titles = tr.list(g.presenter.title(tr) for g in sessions.games)
            return self._notice(inc, tr.t("I know these games: {games}.", games=titles))
        try:
            session, _ = await sessions.load(inc.chat)
        except BadSession:  # an unreadable session must not block a new table
            await sessions.delete(inc.chat)
            session = None
        if session is not None and session.phase == OVER:  # its end was cut short (a crash)
            await self.play.finish(session)
            session = None
        if session is not None:
            return self._notice(inc, tr.gettext(ALREADY_OPEN))
        session = Session(
            game=bundle.name,
            chat=inc.chat,
            creator=inc.user.id,
            language=language,
            options=bundle.game.spec.resolve_options(),
            title=inc.chat_title[:64],
        )
        if inc.private or not bundle.private_hands or await sessions.reachable(inc.user.id):
            session.seats.append(await self.seat_for(inc))
        try:
            await sessions.save(session, 0)
        except Conflict:  # another /newgame opened a table at the same moment
            return self._notice(inc, tr.gettext(ALREADY_OPEN))
        if session.seats:  # the host sits down: a private /language must find this game
            await sessions.seated(inc.user.id, inc.chat)
        lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
        return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])

    async def seat_for(self, inc: Incoming) -> Seat:
        language = await self.sessions.user_language(inc.user.id, inc.user.language)
        return Seat(name=inc.user.name, user=inc.user.id, language=language)

    async def join(self, inc: Incoming, chat: str) -> Reply:
        """Join the lobby of `chat` (from its Join button or a deep link in a private chat)."""
        sessions = self.sessions
        tr = translator(await sessions.user_language(inc.user.id, inc.user.language))
        for _ in range(RETRIES):
            session, version = await sessions.load(chat)
            if session is None or session.phase != LOBBY:
                return self._notice(inc, tr.gettext("There is no open table to join."))
            if session.seat_of(inc.user.id) is not None:
                return self._notice(inc, tr.gettext("You are already at the table."))
            if not await sessions.is_member(chat, inc.user.id):  # a link or the group's button
                return self._notice(inc, tr.gettext("Only members of that group can join."))
            bundle = sessions.bundle(session)
            if len(session.seats) >= bundle.game.spec.max_players:
                return self._notice(inc, tr.gettext("The table is full."))
            if (
                bundle.private_hands
                and not inc.private
                and not await sessions.reachable(inc.user.id)
            ):
                link = sessions.platform.deep_link(b.deep_link_payload(chat))
                text = tr.gettext("Open a private chat with me first: your hand goes there.")
                return Reply(Answer(text, alert=link is None, url=link))
            session.seats.append(await self.seat_for(inc))
            session.stamp += 1
            if not await sessions.try_save(session, version):
                continue
            await sessions.seated(inc.user.id, chat)
            return self._lobby_changed(inc, session, tr.gettext("You joined the table."))
        raise Busy(chat)

    def _notice(self, inc: Incoming, text: str) -> Reply:
        """A private answer: a pop-up for a press, a message in a private chat otherwise."""
        if isinstance(inc, Press):
            return Reply(Answer(text))
        return Reply(messages=[say(inc.chat, text)])

    def _lobby_changed(self, inc: Incoming, session: Session, text: str) -> Reply:
        sessions = self.sessions
        tr = translator(session.language)
        bundle = sessions.bundle(session)
        lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
        edit = session.message_ids.get(views.LOBBY_SLOT)
        messages = []
        if edit and sessions.caps.edits:  # joins in a burst: one edit shows them all
            messages.append(replace(lobby, edit=edit, host=session.chat, coalesce=True))
        elif not sessions.caps.edits:
            messages.append(with_slot(lobby, views.LOBBY_SLOT, session.chat))
        reply = self._notice(inc, text)
        reply.messages = messages + reply.messages
        return reply

    async def press(self, inc: Press, code: b.Code) -> Reply:
        if code.op == b.JOIN:
            return await self.join(inc, inc.chat)
        sessions = self.sessions
        tr = translator(await sessions.user_language(inc.user.id, inc.user.language))
        for _ in range(RETRIES):
            session, version = await sessions.load(inc.chat)
            if session is None or session.phase != LOBBY:
                return Reply(Answer(tr.gettext("There is no open table here.")))
            if code.op != b.LEAVE and code.stamp != session.stamp:  # the current lobby
                text = tr.gettext("Someone changed the table just now: try again.")
                return self._lobby_changed(inc, session, text)
            outcome = await self._change_lobby(inc, session, code, tr)
            if isinstance(outcome, Reply):
                return outcome
            if code.op == b.START:
                return await self._begin(session, version, tr)
            session.stamp += 1
            if not await sessions.try_save(session, version):
                continue
            return self._lobby_changed(inc, session, outcome)
        raise Busy(inc.chat)

    async def _change_lobby(
        self, inc: Press, session: Session, code: b.Code, tr: Translator
    ) -> Reply | str:
        """Apply a lobby button to `session`; a Reply refuses it, a string confirms it."""
        spec = self.sessions.bundle(session).game.spec
        if code.op == b.LEAVE:
            seat = session.seat_of(inc.user.id)
            if seat is None:
                return Reply(Answer(tr.gettext("You are not at the table.")))
            del session.seats[seat]
            return tr.gettext("You left the table.")
        if code.op in (b.ADD_BOT, b.REMOVE_BOT, b.OPTION, b.START, b.PRESET, b.TIMER) and not (
            await self.sessions.may_host(inc, session)
        ):
            return Reply(Answer(tr.gettext("Only the host can change the table or start it.")))
        if code.op == b.ADD_BOT:
            if len(session.seats) >= spec.max_players:
                return Reply(Answer(tr.gettext("The table is full.")))
            session.seats.append(self._computer(session))
            return tr.gettext("A computer player joined.")
        if code.op == b.REMOVE_BOT:
            bots = [i for i, s in enumerate(session.seats) if s.bot]
            if not bots:
                return Reply(Answer(tr.gettext("There is no computer player to remove.")))
            del session.seats[bots[-1]]
            return tr.gettext("A computer player left.")
        if code.op == b.OPTION and code.fields and code.fields[0] in session.options:
            name = code.fields[0]
            if not spec.offered(spec.option(name), session.options):
                bundle = self.sessions.bundle(session)
                return Reply(Answer(views.option_needs(bundle, name, tr), alert=True))
            session.options[name] = spec.option(name).next(session.options[name])
            spec.settle(session.options)  # an option whose need went away goes off
            return tr.gettext("Options changed.")
        if code.op == b.PRESET and code.fields and code.fields[0].isdigit():
            presets = self.sessions.bundle(session).presets
            if int(code.fields[0]) < len(presets):
                session.options = spec.resolve_options(presets[int(code.fields[0])].options)
                return tr.gettext("Options changed.")
        if code.op == b.TIMER:
            at = TURN_TIMERS.index(session.turn_timer) if session.turn_timer in TURN_TIMERS else -1
            session.turn_timer = TURN_TIMERS[(at + 1) % len(TURN_TIMERS)]
            return tr.gettext("Turn timer changed.")
        if code.op == b.START:
            return await self._check_start(session, tr)
        return Reply(Answer(tr.gettext("This button is no longer in use.")))

    async def _check_start(self, session: Session, tr: Translator) -> Reply | str:
        bundle = self.sessions.bundle(session)
        if bundle.private_hands:
            away = [
                s.name
                for _, s in session.humans()
                if not await self.sessions.reachable(s.user or "")
            ]
            if away:
                text = tr.t(
                    "{names} must open a private chat with me first (Join (private chat)).",
                    names=tr.list(away),
                )
                return Reply(Answer(text, alert=True))
        while len(session.seats) < bundle.game.spec.min_players:
            session.seats.append(self._computer(session))
        return ""

    def _computer(self, session: Session) -> Seat:
        """A computer player's seat, named after one not yet at the table."""
        bundle = self.sessions.bundle(session)
        taken = {s.name for s in session.seats}
        name = next(n for n in bundle.computer_names if n not in taken)
        return Seat(name=name, bot=bundle.computer.name)

    async def _begin(self, session: Session, version: int, tr: Translator) -> Reply:
        """Deal the game; the lobby message becomes the start notice; hands go out privately."""
        sessions = self.sessions
        bundle = sessions.bundle(session)
        session.seed = sessions.seeds()
        bundle.game.spec.settle(session.options)  # a lobby saved before an option needed another
        session.salt = sessions.salts()
        try:
            state, events = bundle.game.new_game(len(session.seats), session.options, session.seed)
        except BadState:
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        change = self.play.start(session, state, events)
        dealt = state
        hurried: list[Message] = []  # computers that act at once (where pushes cost)
        state = await self.play.hurry(session, state, hurried)
        try:
            await sessions.save(session, version, owed=True)
        except Conflict:
            return Reply(Answer(tr.gettext("Someone changed the table just now: try again.")))
        await sessions.running(session)
        ctr = translator(session.language)
        started = ctr.t(
            "🎲 {game} begins! Players: {players}",
            game=bundle.presenter.title(ctr),
            players=ctr.list(views.names(session, ctr)),
        )
        if bundle.game.spec.options:
            started += "\n" + views.options_line(session, bundle, ctr)
        lock = deal_of_session(session, bundle).commitment
        started += "\n" + ctr.t(
            "🔒 The deal's lock: <code>{lock}</code> (its key comes with the results)", lock=lock
        )
        lobby_id = session.message_ids.get(views.LOBBY_SLOT)
        messages: list[Message] = []
        if lobby_id and sessions.caps.edits:
            messages.append(Message(session.chat, started, edit=lobby_id))
        else:
            messages.append(say(session.chat, started))
        rendered = self.play.render(session, dealt, events, change, None)
        rendered[0] = fresh(rendered[0])
        messages += rendered + hurried
        confirm = (session.chat, session.change)
        return Reply(Answer(tr.gettext("The game begins!")), messages, confirm=confirm)
