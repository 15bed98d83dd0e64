"""The game service: every incoming event goes to its desk by a table of commands or buttons.

The desks: lobby, moves, help, standings, record; the service owns what spans them (/stop,
/status, a chat that changed its id). Platform-neutral: the runner calls `handle`, `due` and
`timeout` and delivers what they return.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable

import orjson

from chatbot.core import buttons as b
from chatbot.core import keys, views
from chatbot.core.endings import Endings
from chatbot.core.help import HelpDesk
from chatbot.core.lobby import LobbyDesk
from chatbot.core.model import (
    ARRIVED,
    CLOSED,
    LEFT,
    OPENED,
    Answer,
    Command,
    Incoming,
    Membership,
    Message,
    Press,
    Reply,
    as_command,
)
from chatbot.core.moves import Moves
from chatbot.core.record import RecordDesk
from chatbot.core.render import Renderer, key_revealed
from chatbot.core.session import LOBBY, PLAYING, BadSession, Session
from chatbot.core.sessions import ASKING, WROTE, Busy, Sessions
from chatbot.core.standings_desk import StandingsDesk
from chatbot.core.thinking import ThinkingPool
from chatbot.core.timers import Timers
from chatbot.core.verify import verify
from chatbot.core.views import fresh, say, with_slot
from chatbot.core.work import Found, Outcome
from chatbot.i18n import Translator, negotiate, translator
from engine.core import BadState

log = logging.getLogger(__name__)
DUE_BATCH = 50  # due games taken at one tick
AGAIN_TTL = 2 * 24 * 3600  # seconds a results message's "Play again" is remembered as used
TELLING = frozenset({"status", "help", "rules", "rule", "language"})  # commands that only tell

Handler = Callable[[Command], Awaitable[Reply]]
PressHandler = Callable[[Press, b.Code], Awaitable[Reply]]


class GameService:
    """Dispatches events to the desks; owns the commands that span them (/stop, /status)."""

    def __init__(self, sessions: Sessions, pool: ThinkingPool) -> None:
        self.sessions = sessions
        self.renderer = Renderer(sessions)
        self.endings = Endings(sessions)
        self.timers = Timers(sessions, self.renderer, self.endings, pool)
        self.moves = Moves(sessions, self.renderer, self.timers, self.endings)
        self.lobby = LobbyDesk(sessions, self.renderer, self.timers, self.endings)
        self.help = HelpDesk(sessions)
        self.standings = StandingsDesk(sessions)
        self.records = RecordDesk(sessions)
        self.commands: dict[str, Handler] = {
            "start": self._start_command,
            "newgame": self.lobby.open,
            "stop": self._stop,
            "status": self._status,
            "stats": self.standings.command,
            "verify": self._verify,
            "help": self.help.command,
            "rules": self.help.command,
            "rule": self.help.command,
            "language": self.help.command,
        }
        # A button's op and how many fields it has -> who handles it (None: any number).
        self.buttons: dict[str, tuple[tuple[int, ...] | None, PressHandler]] = {
            b.MOVE: ((2,), self.moves.act),
            b.NAV: ((2,), self.moves.nav),
            b.PEEK: ((1,), self.moves.peek),
            b.AGAIN: ((1,), lambda inc, code: self._again(inc, code.fields[0])),
            b.RECORD: ((1, 2), self._record),
            b.STATS: ((1,), lambda inc, code: self.standings.press(inc, code.fields[0])),
            b.RULE: (None, self.help.press),
            b.LANGUAGE: (None, self.help.press),
        }

    async def handle(self, inc: Incoming) -> Reply:
        # (chatbot/core/dedupe.py) Game presses claim their update in the round trip that
        # loads their session; a move is marked handled by the save that applies it, any
        # other update with the ledger (`Reply.handled`).
        code = inc.code if isinstance(inc, Press) else None
        game = b.acts_on_game(code)
        chat = b.game_chat(code, inc.chat)  # whose set of handled updates
        sessions = self.sessions
        if not game and inc.update_id and (await sessions.claim(chat, inc.update_id)).handled:
            return Reply()  # recorded once its answer and messages went out: nothing owed
        asking = ASKING.set((chat, inc.update_id) if not game and inc.update_id else None)
        try:
            if isinstance(inc, Membership):
                return await self._membership(inc)
            if isinstance(inc, Command):
                reply = await self._command(inc)
            elif isinstance(inc, Press):
                reply = await self._press(inc)
            else:
                return Reply()
        except Busy:  # many writers at once on one session: nothing was changed
            tr = await self._presser(inc)
            text = tr.gettext("The table is busy right now: please press again.")
            return self._say(inc, text)
        except (BadSession, BadState) as exc:
            log.error("unreadable session in %s: %r", inc.chat, exc)
            tr = translator(negotiate(inc.user.language))
            return self._say(inc, tr.gettext("This game could not be read: /stop ends it."))
        finally:
            ASKING.reset(asking)
        saved = game and reply.confirm is not None  # a move: its save marked it
        if not saved and inc.update_id:
            # Recorded with the deliveries, no round trip of its own; its claim holds copies
            # elsewhere off meanwhile.
            reply.handled = (chat, inc.update_id)
        return reply

    async def _presser(self, inc: Incoming) -> Translator:
        """The presser's own language."""
        people = self.sessions.people
        return translator(await people.user_language(inc.user.id, inc.user.language))

    @staticmethod
    def _say(inc: Incoming, text: str) -> Reply:
        """A short answer: a pop-up for a press, a message for a command."""
        if not isinstance(inc, Press):
            return Reply(messages=[say(inc.chat, text)])
        return Reply(Answer(text))

    async def _command(self, inc: Command) -> Reply:
        handler = self.commands.get(inc.name)
        if handler is None:
            if not inc.private:
                return Reply()  # in a group it may be meant for another bot
            handler = self.help.command  # an unknown command in private: the help
        wrote = WROTE.set(False)
        try:
            reply = await handler(inc)
            # A reply that changed no game only tells or refuses: it waits for the game's
            # messages, and a member's burst of them gets one reply.
            reply.chatter = inc.name in TELLING or not WROTE.get()
        finally:
            WROTE.reset(wrote)
        return reply

    async def _press(self, inc: Press) -> Reply:
        code = inc.code
        if code is None:
            tr = translator(negotiate(inc.user.language))
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        if code.op == b.GROUP_MOVE and len(code.fields) == 1 and not inc.private:
            return await self.moves.act(inc, code)
        fields, handler = self.buttons.get(code.op, (None, self.lobby.press))
        if fields is not None and len(code.fields) not in fields:
            return await self.lobby.press(inc, code)  # (answers what it does not know)
        return await handler(inc, code)

    async def _record(self, inc: Press, code: b.Code) -> Reply:
        page = code.fields[1] if len(code.fields) == 2 else None
        return await self.records.press(inc, code.fields[0], page)

    async def _verify(self, inc: Command) -> Reply:
        tr = translator(await self.sessions.people.chat_language(inc))
        key, _, lock = inc.args.strip().partition(" ")
        _, text = verify(self.sessions.games, key, lock, tr)
        return Reply(messages=[say(inc.chat, text[: self.sessions.caps.message_chars])])

    async def _again(self, inc: Press, game: str) -> Reply:
        """ "Play again" under final results opens one new table per results message; later
        presses are answered privately (a button must not let anyone spam the group)."""
        again = keys.again(inc.chat, inc.message or "")
        if inc.message and not await self.sessions.first_time(again, AGAIN_TTL):
            tr = await self._presser(inc)
            return Reply(Answer(tr.gettext("A new table was already opened from these results.")))
        return await self.lobby.open(as_command(inc, "newgame", game))

    # --- who is where ----------------------------------------------------------------------

    async def _membership(self, inc: Membership) -> Reply:
        """A private chat opened or closed, people arrived in a group, the bot was removed."""
        sessions = self.sessions
        if inc.event == OPENED:  # as a /start without payload: the private chat is open
            if inc.user.language:  # their own language is known now: their seats follow it
                language = await sessions.people.user_language(inc.user.id, inc.user.language)
                await self.help.seat_languages(inc.user.id, language)
            return await self._start_command(as_command(inc, "start"))
        if inc.event == CLOSED:
            await sessions.people.set_reachable(inc.user.id, False)
            return Reply()
        if inc.event == LEFT:  # nobody can see or play this game any more
            stopped = await sessions.change(inc.chat, _delete_readable)
            if stopped.result is not None:
                await self.endings.stopped(stopped.result)
            return Reply()
        if inc.event == ARRIVED:
            try:
                session, _ = await sessions.load(inc.chat)
            except BadSession:
                return Reply()
            if session is not None and session.phase == LOBBY:  # newcomers see the table
                tr = translator(session.language)
                bundle = sessions.bundle(session)
                link, caps = sessions.platform.deep_link, sessions.caps
                lobby = views.lobby(session, bundle, tr, link, caps)
                return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])
        return Reply()

    # --- commands --------------------------------------------------------------------------

    async def _start_command(self, inc: Command) -> Reply:
        if inc.private:
            await self.sessions.people.set_reachable(inc.user.id, True)
            payload = inc.args.strip()
            if chat := b.chat_from_payload(payload):
                return await self.lobby.join(inc, chat)
            if chat := b.chat_from_payload(payload, "h"):
                return await self.moves.show_hand(inc, chat)
        return await self.help.command(inc)

    async def _stop(self, inc: Command) -> Reply:
        sessions = self.sessions
        tr = translator(await sessions.people.chat_language(inc))
        stopped = tr.t("The game was stopped by {name}.", name=html.escape(inc.user.name))
        try:
            session, _ = await sessions.load(inc.chat)
        except BadSession:  # an unreadable game can always be stopped
            await sessions.delete(inc.chat)
            return Reply(messages=[say(inc.chat, stopped)])
        if session is None:
            return Reply(messages=[say(inc.chat, tr.gettext("No game is running here."))])
        if not await sessions.people.may_host(inc, session):
            text = tr.gettext("Only the player who opened the game or a chat admin can stop it.")
            return Reply(messages=[say(inc.chat, text)])
        outcome = await sessions.change(inc.chat, _delete_readable)
        session = outcome.result
        if session is None:  # gone meanwhile (finished, or stopped by another)
            return Reply(messages=[say(inc.chat, tr.gettext("No game is running here."))])
        await self.endings.stopped(session)
        out = [say(inc.chat, stopped)]
        if session.phase == PLAYING:
            try:
                bundle = sessions.bundle(session)
                out.insert(0, views.table(session, bundle, sessions.caps, final=True))
                # the game is over: its deal may be checked (never counted in the standings)
                out[-1] = say(inc.chat, f"{stopped}\n\n{key_revealed(session, bundle, tr)}")
            except (BadSession, BadState, KeyError):
                pass
        return Reply(messages=out)

    async def _status(self, inc: Command) -> Reply:
        sessions = self.sessions
        session, _ = await sessions.load(inc.chat)
        if session is None:
            return Reply(messages=[await self._history(inc)])
        bundle = sessions.bundle(session)
        if session.phase == LOBBY:
            tr = translator(session.language)
            lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
            return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])
        return Reply(messages=[fresh(self.renderer.table(session, bundle))])

    async def _history(self, inc: Incoming) -> Message:
        tr = translator(await self.sessions.people.chat_language(inc))
        entries = await self.sessions.history(inc.chat, 5)
        if not entries:
            return say(inc.chat, tr.gettext("No game is running here. /newgame opens one."))
        lines = [tr.gettext("No game is running here. Latest results:")]
        for raw in entries:
            line = self._result(raw, tr)
            if line is None:  # told, not hidden: nothing to stop, nothing lost
                log.error("unreadable history entry in %s: %r", inc.chat, raw[:80])
                line = tr.gettext("• (a result that could not be read)")
            lines.append(line)
        return say(inc.chat, "\n".join(lines))

    def _result(self, raw: bytes, tr: Translator) -> str | None:
        """A history entry's line in `/status`; None for one that cannot be read."""
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(entry, dict):
            return None
        game, ranking = entry.get("game"), entry.get("ranking", [])
        if not isinstance(game, str) or not isinstance(ranking, list):
            return None
        bundle = self.sessions.games.get(game)
        title = bundle.presenter.title(tr) if bundle is not None else "?"  # no longer hosted
        if entry.get("stopped"):
            return tr.t("• {game}: stopped", game=title)
        names = tr.list(_ranked_name(n, tr) for n in ranking)
        return tr.t("• {game}: {ranking}", game=title, ranking=names)

    # --- a chat that changed its id ----------------------------------------------------------

    async def chat_moved(self, old: str, new: str) -> list[Message]:
        """A chat changed its id: its game, language and history follow it; buttons that
        still name the old chat find the game through the recorded move. Idempotent."""
        sessions = self.sessions
        await sessions.chat_moved(old, new)
        session, version = await sessions.load(old, follow=False)
        if session is None:
            return []
        session.chat = new
        session.message_ids.clear()  # the old chat's messages cannot be edited from the new one
        if not await sessions.move(session, old, version):
            return []  # moved already (by another process, or a retried update)
        if session.phase != LOBBY:
            await sessions.running(session)
        bundle = sessions.bundle(session)
        if session.phase == LOBBY:
            tr = translator(session.language)
            lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
            return [with_slot(lobby, views.LOBBY_SLOT, new)]
        return [fresh(self.renderer.table(session, bundle))]

    # --- timers ----------------------------------------------------------------------------

    async def due(self) -> list[str]:
        """The game keys whose deadline has come."""
        return await self.sessions.due(DUE_BATCH)

    async def timeout(self, key: str) -> Reply:
        return await self.timers.timeout(key)

    async def tick(self) -> list[Message]:
        """Run every due deadline (the console and tests; the runner takes them one by one)."""
        out: list[Message] = []
        for key in await self.due():
            reply = await self.timeout(key)
            out.extend(reply.messages)
            if reply.confirm:
                await self.sessions.liveness.delivered(*reply.confirm)
        return out


async def _delete_readable(found: Found) -> Outcome[Session | None]:
    """Delete the chat's session as found; the result is the session (None: none)."""
    try:
        session = found.session
    except BadSession:
        return Outcome(None, delete=found.doc is not None)
    if session is None:
        return Outcome(None)
    return Outcome(session, delete=True)


def _ranked_name(entry: object, tr: Translator) -> str:
    """A name in a history entry: {"name", "bot"} (computer names translated), or a string."""
    if isinstance(entry, dict):
        name = str(entry.get("name", "?"))
        return html.escape(tr.gettext(name) if entry.get("bot") else name)
    return html.escape(str(entry))
