"""The lobby: everything before the first move, each a unit of work on the chat's session.

Opening a table, joining (by button or deep link), computer seats, options, and the start of
the game.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from chatbot.core import buttons as b
from chatbot.core import progress, views
from chatbot.core.desk import GameDesk
from chatbot.core.model import Answer, Command, Incoming, Message, Press, Reply
from chatbot.core.registry import Bundle
from chatbot.core.render import deal_of_session
from chatbot.core.session import LOBBY, OVER, TURN_TIMERS, BadSession, Seat, Session
from chatbot.core.views import fresh, say, with_slot
from chatbot.core.work import Found, Outcome
from chatbot.i18n import N_, Translator, translator
from engine.core import BadState

ALREADY_OPEN = N_("A game is already open in this chat: /status shows it, /stop ends it.")
T = TypeVar("T")
HOST_ONLY = frozenset({b.ADD_BOT, b.REMOVE_BOT, b.OPTION, b.START, b.PRESET, b.TIMER})


class LobbyDesk(GameDesk):
    """Everything before the first move."""

    def find(self, name: str) -> Bundle | None:
        """A game by its name or its title in any language ("" : the default game)."""
        wanted = name.strip().lower()
        if not wanted:
            return self.sessions.games.default
        return self.sessions.games.get(wanted)

    async def open(self, inc: Command) -> Reply:
        sessions = self.sessions
        people = sessions.people
        language = await people.chat_language(inc)
        tr = translator(language)
        bundle = self.find(inc.args)
        if bundle is None:
            titles = tr.list(g.presenter.title(tr) for g in sessions.games)
            return self._notice(inc, tr.t("I know these games: {games}.", games=titles))
        try:
            stored, _ = await sessions.load(inc.chat)
        except BadSession:  # an unreadable session must not block a new table
            await sessions.delete(inc.chat)
        else:
            if stored is not None and stored.phase == OVER:  # its end was cut short (a crash)
                await self.endings.finish(stored.chat)
        held = await people.open_tables(inc.user.id, besides=inc.chat)
        if len(held) >= sessions.settings.open_tables:  # a person holds only a few open
            text = tr.nt(
                "You have a table open in another chat already: start it there, or end it "
                "with /stop, before opening another.",
                "You have tables open in {n} other chats already: start one there, or end "
                "it with /stop, before opening another.",
                len(held),
            )
            return self._notice(inc, text)
        sits = inc.private or not bundle.private_hands or await people.reachable(inc.user.id)
        seat = await self.seat_for(inc) if sits else None

        async def work(found: Found) -> Outcome[Reply]:
            if found.doc is not None:
                return Outcome(self._notice(inc, tr.gettext(ALREADY_OPEN)))
            session = Session(
                game=bundle.name,
                chat=inc.chat,
                creator=inc.user.id,
                language=language,
                options=bundle.game.spec.resolve_options(),
                title=inc.chat_title[:64],
                seats=[seat] if seat is not None else [],
            )
            lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
            return Outcome(Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)]), session)

        outcome = await sessions.change(inc.chat, work)
        if outcome.save is not None:
            await people.opened(inc.user.id, inc.chat, held)
        if outcome.save is not None and seat is not None:  # a private /language must find it
            await people.seated(inc.user.id, inc.chat)
        return outcome.result

    async def seat_for(self, inc: Incoming) -> Seat:
        language = await self.sessions.people.user_language(inc.user.id, inc.user.language)
        return Seat(name=inc.user.name, user=inc.user.id, language=language)

    async def join(self, inc: Incoming, chat: str) -> Reply:
        """Join the lobby of `chat` (from its Join button or a deep link in a private chat)."""
        sessions = self.sessions
        people = sessions.people
        tr = translator(await people.user_language(inc.user.id, inc.user.language))
        seat = await self.seat_for(inc)
        checked: dict[str, bool] = {}  # what the platform and the store said, asked once

        async def work(found: Found) -> Outcome[Reply]:
            session = found.session
            if session is None or session.phase != LOBBY:
                return Outcome(self._notice(inc, tr.gettext("There is no open table to join.")))
            if session.seat_of(inc.user.id) is not None:
                return Outcome(self._notice(inc, tr.gettext("You are already at the table.")))
            if "member" not in checked:  # a link or the group's button
                checked["member"] = await people.is_member(chat, inc.user.id)
            if not checked["member"]:
                return Outcome(
                    self._notice(inc, tr.gettext("Only members of that group can join."))
                )
            bundle = sessions.bundle(session)
            if len(session.seats) >= bundle.game.spec.max_players:
                return Outcome(self._notice(inc, self._full(session, tr)))
            if bundle.private_hands and not inc.private:
                if "reachable" not in checked:
                    checked["reachable"] = await people.reachable(inc.user.id)
                if not checked["reachable"]:
                    link = sessions.platform.deep_link(b.deep_link_payload(chat))
                    text = tr.gettext("Open a private chat with me first: your hand goes there.")
                    return Outcome(Reply(Answer(text, alert=link is None, url=link)))
            session.seats.append(seat)
            session.stamp += 1
            told = tr.gettext("You joined the table.")
            return Outcome(self._lobby_changed(inc, session, told), session)

        outcome = await sessions.change(chat, work)
        if outcome.save is not None:
            await people.seated(inc.user.id, outcome.save.chat)
        return outcome.result

    def _full(self, session: Session, tr: Translator) -> str:
        """Why no one more can sit down: the table is full, with who sits at it."""
        return tr.t("The table is full: {players}.", players=tr.list(views.names(session, tr)))

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
        tr = translator(await sessions.people.user_language(inc.user.id, inc.user.language))
        hosts: dict[str, bool] = {}  # whether the presser may host, asked once

        async def work(found: Found) -> Outcome[Reply]:
            session = found.session
            if session is None or session.phase != LOBBY:
                return Outcome(Reply(Answer(tr.gettext("There is no open table here."))))
            if code.op in HOST_ONLY:
                if "host" not in hosts:
                    hosts["host"] = await sessions.people.may_host(inc, session)
                if not hosts["host"]:
                    text = tr.gettext("Only the host can change the table or start it.")
                    return Outcome(Reply(Answer(text)))
            before = session.dumps()
            outcome = self._change_lobby(inc, session, code, tr)
            if isinstance(outcome, Reply):
                return Outcome(outcome)
            if code.op == b.START:
                return await self._begin(session, tr)
            if session.dumps() == before:  # the lobby already is what the button asked for
                return Outcome(Reply(Answer(outcome)))
            session.stamp += 1
            return Outcome(self._lobby_changed(inc, session, outcome), session)

        outcome = await sessions.change(inc.chat, work)
        if code.op == b.START and outcome.save is not None:
            return await self._begun(outcome.save, outcome.result)
        return outcome.result

    def _change_lobby(
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
        if code.op == b.ADD_BOT:
            if len(session.seats) >= spec.max_players:
                return Reply(Answer(self._full(session, tr)))
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
            option = spec.option(name)
            if not spec.offered(option, session.options):
                bundle = self.sessions.bundle(session)
                return Reply(Answer(views.option_needs(bundle, name, tr), alert=True))
            value = _choice(option.choices, code.fields[1:])
            if value is None:  # (a button drawn before buttons carried their value)
                value = option.next(session.options[name])
            session.options[name] = value
            spec.settle(session.options)  # an option whose need went away goes off
            return tr.gettext("Options changed.")
        if code.op == b.PRESET and code.fields and code.fields[0].isdigit():
            presets = self.sessions.bundle(session).presets
            if int(code.fields[0]) < len(presets):
                session.options = spec.resolve_options(presets[int(code.fields[0])].options)
                return tr.gettext("Options changed.")
        if code.op == b.TIMER:
            seconds = _choice(TURN_TIMERS, code.fields)
            session.turn_timer = (
                views.next_timer(session.turn_timer) if seconds is None else seconds
            )
            return tr.gettext("Turn timer changed.")
        if code.op == b.START:
            shown = code.fields[0] if code.fields else ""
            if shown.isdigit() and len(session.seats) < int(shown):  # someone left meanwhile
                text = tr.t(
                    "The table changed: now {players}. Press Start again to begin.",
                    players=tr.list(views.names(session, tr)) or tr.gettext("nobody"),
                )
                reply = self._lobby_changed(inc, session, text)
                reply.answer = Answer(text, alert=True)
                return reply
            return "start"
        return Reply(Answer(tr.gettext("This button is no longer in use.")))

    async def _check_start(self, session: Session, tr: Translator) -> Reply | None:
        """Why the game cannot start now (a player the bot cannot write to), or None."""
        bundle = self.sessions.bundle(session)
        if not bundle.private_hands:
            return None
        reachable = self.sessions.people.reachable
        away = [s.name for _, s in session.humans() if not await reachable(s.user or "")]
        if not away:
            return None
        text = tr.t(
            "{names} must open a private chat with me first: press “Join (private chat)”.",
            names=tr.list(away),
        )
        return Reply(Answer(text, alert=True))

    def _computer(self, session: Session) -> Seat:
        """A computer player's seat, named after one not yet at the table."""
        bundle = self.sessions.bundle(session)
        taken = {s.name for s in session.seats}
        name = next(n for n in bundle.computer_names if n not in taken)
        return Seat(name=name, bot=bundle.computer.name)

    async def _begin(self, session: Session, tr: Translator) -> Outcome[Reply]:
        """Deal the game (computers fill the empty seats); its first messages follow it."""
        sessions = self.sessions
        if (refused := await self._check_start(session, tr)) is not None:
            return Outcome(refused)
        bundle = sessions.bundle(session)
        while len(session.seats) < bundle.game.spec.min_players:
            session.seats.append(self._computer(session))
        session.seed = sessions.seeds()
        bundle.game.spec.settle(session.options)  # a lobby saved before an option needed another
        session.salt = sessions.salts()
        try:
            state, events = bundle.game.new_game(len(session.seats), session.options, session.seed)
        except BadState:
            return Outcome(Reply(Answer(tr.gettext("This button is no longer in use."))))
        step = progress.start(session, bundle, state, events, sessions.clock(), sessions.settings)
        rendered = self.renderer.step(session, state, events, step, None)
        rendered[0] = fresh(rendered[0])
        hurried: list[Message] = []  # computers that act at once (where pushes cost)
        await self.timers.hurry(session, state, hurried)
        answer = Answer(tr.gettext("The game begins!"))
        return Outcome(Reply(answer, rendered + hurried), session, owed=True)

    async def _begun(self, session: Session, dealt: Reply) -> Reply:
        """The start notice (in place of the lobby message) before the game's first messages;
        the game counts as running."""
        sessions = self.sessions
        await sessions.running(session)
        bundle = sessions.bundle(session)
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
        if lobby_id and sessions.caps.edits:
            notice = Message(session.chat, started, edit=lobby_id)
        else:
            notice = say(session.chat, started)
        confirm = (session.chat, session.change)
        return Reply(dealt.answer, [notice, *dealt.messages], confirm=confirm)


def _choice(choices: tuple[T, ...], fields: tuple[str, ...]) -> T | None:
    """The choice a button's first field names by its index (None: no such field)."""
    if not fields or not fields[0].isdigit() or int(fields[0]) >= len(choices):
        return None
    return choices[int(fields[0])]
