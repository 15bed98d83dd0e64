"""The game service: every incoming event goes to its desk (lobby, help, game), which loads
the chat's session, changes it with a compare-and-set save and says what to send.
Platform-neutral; the runner calls `handle`, `due` and `timeout` and delivers what they return."""

from __future__ import annotations

import contextlib
import html
import logging

import orjson

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.board import BoardDesk
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
from chatbot.core.play import GameDesk, key_revealed
from chatbot.core.record import RecordDesk
from chatbot.core.session import LOBBY, PLAYING, BadSession
from chatbot.core.sessions import (
    HISTORY_TTL,
    PREFS_TTL,
    Busy,
    Sessions,
    game_key,
)
from chatbot.core.thinking import Thinkers
from chatbot.core.verify import verify
from chatbot.core.views import fresh, say, with_slot
from chatbot.i18n import Translator, negotiate, translator
from chatbot.store.base import Conflict
from engine.core import BadState

log = logging.getLogger(__name__)
DUE_BATCH = 50  # due games taken at one tick
AGAIN_TTL = 2 * 24 * 3600  # seconds a results message's "Play again" is remembered as used


TELLING = frozenset({"status", "help", "rules", "rule", "language"})  # commands that only tell


class GameService:
    """Dispatches events to the desks; owns the commands that span them (/stop, /status)."""

    def __init__(self, sessions: Sessions, thinkers: Thinkers) -> None:
        self.sessions = sessions
        self.play = GameDesk(sessions, thinkers)
        self.lobby = LobbyDesk(sessions, self.play)
        self.help = HelpDesk(sessions)
        self.board = BoardDesk(sessions)
        self.records = RecordDesk(sessions)

    async def handle(self, inc: Incoming) -> Reply:
        # (chatbot/core/dedupe.py) Game presses claim their update in the round trip that
        # loads their session (`load_press`); a move is marked handled by the save that
        # applies it, any other update with the ledger (`Reply.handled`).
        code = inc.code if isinstance(inc, Press) else None
        game = b.acts_on_game(code)
        chat = b.game_chat(code, inc.chat)  # whose set of handled updates
        dedupe = self.sessions.dedupe
        if not game and inc.update_id and (await dedupe.claim(chat, inc.update_id)).handled:
            return Reply()  # recorded once its answer and messages went out: nothing owed
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
            tr = translator(await self.sessions.user_language(inc.user.id, inc.user.language))
            return self._say(
                inc, tr, tr.gettext("The table is busy right now: please press again.")
            )
        except (BadSession, BadState) as exc:
            log.error("unreadable session in %s: %r", inc.chat, exc)
            tr = translator(negotiate(inc.user.language))
            return self._say(inc, tr, tr.gettext("This game could not be read: /stop ends it."))
        saved = game and reply.confirm is not None  # a move: its save marked it
        if not saved and inc.update_id:
            # Recorded with the deliveries, no round trip of its own; its claim holds copies
            # elsewhere off meanwhile.
            reply.handled = (chat, inc.update_id)
        return reply

    @staticmethod
    def _say(inc: Incoming, tr: Translator, text: str) -> Reply:
        """A short answer: a pop-up for a press, a message for a command."""
        if not isinstance(inc, Press):
            return Reply(messages=[say(inc.chat, text)])
        return Reply(Answer(text))

    async def _command(self, inc: Command) -> Reply:
        reply = await self._dispatch(inc)
        reply.chatter = inc.name in TELLING or (inc.name == "start" and not inc.private)
        return reply

    async def _dispatch(self, inc: Command) -> Reply:
        name = inc.name
        if name == "start":
            return await self._start_command(inc)
        if name == "newgame":
            return await self.lobby.open(inc)
        if name == "stop":
            return await self._stop(inc)
        if name == "status":
            return await self._status(inc)
        if name == "stats":
            return await self.board.command(inc)
        if name == "verify":
            tr = translator(await self.sessions.chat_language(inc))
            key, _, lock = inc.args.strip().partition(" ")
            _, text = verify(self.sessions.games, key, lock, tr)
            return Reply(messages=[say(inc.chat, text[: self.sessions.caps.message_chars])])
        if name in ("help", "rules", "rule", "language") or inc.private:
            return await self.help.command(inc)  # an unknown command in private: the help
        return Reply()  # in a group it may be meant for another bot

    async def _press(self, inc: Press) -> Reply:
        code = inc.code
        if code is None:
            tr = translator(negotiate(inc.user.language))
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        if code.op in (b.MOVE, b.NAV) and len(code.fields) == 2:
            if code.op == b.NAV:
                return await self.play.nav(inc, code)
            return await self.play.act(inc, code)
        if code.op == b.GROUP_MOVE and len(code.fields) == 1 and not inc.private:
            return await self.play.act(inc, code)
        if code.op == b.PEEK and len(code.fields) == 1:
            return await self.play.peek(inc, code)
        if code.op == b.AGAIN and len(code.fields) == 1:
            return await self._again(inc, code.fields[0])
        if code.op == b.RECORD and len(code.fields) in (1, 2):
            page = code.fields[1] if len(code.fields) == 2 else None
            return await self.records.press(inc, code.fields[0], page)
        if code.op == b.STATS and len(code.fields) == 1:
            return await self.board.press(inc, code.fields[0])
        if code.op in (b.RULE, b.LANGUAGE):
            return await self.help.press(inc, code)
        return await self.lobby.press(inc, code)

    async def _again(self, inc: Press, game: str) -> Reply:
        """ "Play again" under final results opens one new table per results message; later
        presses are answered privately (a button must not let anyone spam the group)."""
        store = self.sessions.store
        if inc.message and not await store.first_time(f"again:{inc.chat}:{inc.message}", AGAIN_TTL):
            tr = translator(await self.sessions.user_language(inc.user.id, inc.user.language))
            return Reply(Answer(tr.gettext("A new table was already opened from these results.")))
        return await self.lobby.open(as_command(inc, "newgame", game))

    # --- who is where ----------------------------------------------------------------------

    async def _membership(self, inc: Membership) -> Reply:
        """A private chat opened or closed, people arrived in a group, the bot was removed."""
        sessions = self.sessions
        if inc.event == OPENED:  # as a /start without payload: the private chat is open
            if inc.user.language:  # their own language is known now: their seats follow it
                language = await sessions.user_language(inc.user.id, inc.user.language)
                await self.help.seat_languages(inc.user.id, language)
            return await self._start_command(as_command(inc, "start"))
        if inc.event == CLOSED:
            await sessions.store.set_setting(f"user:{inc.user.id}", "dm", "0", PREFS_TTL)
            return Reply()
        try:
            session, version = await sessions.load(inc.chat)
        except BadSession:
            session, version = None, 0
        if session is None:
            return Reply()
        if inc.event == LEFT:  # nobody can see or play this game any more
            with contextlib.suppress(Conflict):
                await sessions.store.delete(game_key(session.chat), version)
                await self.play.record_history(session, stopped=True)
            return Reply()
        if inc.event == ARRIVED and session.phase == LOBBY:  # newcomers see the open table
            tr = translator(session.language)
            bundle = sessions.bundle(session)
            lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
            return Reply(messages=[with_slot(lobby, views.LOBBY_SLOT, inc.chat)])
        return Reply()

    # --- commands --------------------------------------------------------------------------

    async def _start_command(self, inc: Command) -> Reply:
        if inc.private:
            await self.sessions.store.set_setting(f"user:{inc.user.id}", "dm", "1", PREFS_TTL)
            payload = inc.args.strip()
            if chat := b.chat_from_payload(payload):
                return await self.lobby.join(inc, chat)
            if chat := b.chat_from_payload(payload, "h"):
                return await self.play.show_hand(inc, chat)
        return await self.help.command(inc)

    async def _stop(self, inc: Command) -> Reply:
        sessions = self.sessions
        tr = translator(await sessions.chat_language(inc))
        try:
            session, version = await sessions.load(inc.chat)
        except BadSession:  # an unreadable game can always be stopped
            await sessions.delete(inc.chat)
            text = tr.t("The game was stopped by {name}.", name=html.escape(inc.user.name))
            return Reply(messages=[say(inc.chat, text)])
        if session is None:
            return Reply(messages=[say(inc.chat, tr.gettext("No game is running here."))])
        if not await sessions.may_host(inc, session):
            text = tr.gettext("Only the player who opened the game or a chat admin can stop it.")
            return Reply(messages=[say(inc.chat, text)])
        try:
            await sessions.store.delete(game_key(session.chat), version)
        except Conflict:
            return Reply(messages=[say(inc.chat, tr.gettext("Please try again."))])
        await self.play.record_history(session, stopped=True)
        text = tr.t("The game was stopped by {name}.", name=html.escape(inc.user.name))
        out = [say(inc.chat, text)]
        if session.phase == PLAYING:
            with contextlib.suppress(BadSession, BadState, KeyError):
                bundle = sessions.bundle(session)
                out.insert(0, views.table(session, bundle, sessions.caps, final=True))
                # the game is over: its deal may be checked (never counted in the standings)
                out[-1] = say(inc.chat, f"{text}\n\n{key_revealed(session, bundle, tr)}")
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
        link = sessions.platform.deep_link
        return Reply(messages=[fresh(views.table(session, bundle, sessions.caps, deep_link=link))])

    async def _history(self, inc: Incoming) -> Message:
        tr = translator(await self.sessions.chat_language(inc))
        entries = await self.sessions.store.history(f"hist:{inc.chat}", 5)
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
        store = sessions.store
        await store.set_setting(f"moved:{old}", "to", new, PREFS_TTL)
        language = await store.get_setting(f"chat:{old}", "lang")
        if language:
            await store.set_setting(f"chat:{new}", "lang", language, PREFS_TTL)
        session, version = sessions.session(await store.load(game_key(old)))
        if session is None:
            return []
        session.chat = new
        session.message_ids.clear()  # the old chat's messages cannot be edited from the new one
        try:
            await sessions.save(session, 0)  # (a new document: nothing beside it yet)
        except Conflict:
            return []  # moved already (by another process, or a retried update)
        if session.phase != LOBBY:
            await sessions.running(session)
        with contextlib.suppress(Conflict):
            await store.delete(game_key(old), version)
        keep = sessions.settings.history_keep
        for raw in reversed(await store.history(f"hist:{old}", keep)):
            await store.push_history(f"hist:{new}", raw, keep, HISTORY_TTL)
        bundle = sessions.bundle(session)
        if session.phase == LOBBY:
            tr = translator(session.language)
            lobby = views.lobby(session, bundle, tr, sessions.platform.deep_link, sessions.caps)
            return [with_slot(lobby, views.LOBBY_SLOT, new)]
        return [
            fresh(
                views.table(session, bundle, sessions.caps, deep_link=sessions.platform.deep_link)
            )
        ]

    # --- timers ----------------------------------------------------------------------------

    async def due(self) -> list[str]:
        """The game keys whose deadline has come."""
        return await self.sessions.store.due(self.sessions.clock(), DUE_BATCH)

    async def timeout(self, key: str) -> Reply:
        return await self.play.timeout(key)

    async def tick(self) -> list[Message]:
        """Run every due deadline (the console and tests; the runner takes them one by one)."""
        out: list[Message] = []
        for key in await self.due():
            reply = await self.timeout(key)
            out.extend(reply.messages)
            if reply.confirm:
                await self.sessions.delivered(*reply.confirm)
        return out


def _ranked_name(entry: object, tr: Translator) -> str:
    """A name in a history entry: {"name", "bot"} (computer names translated), or a string."""
    if isinstance(entry, dict):
        name = str(entry.get("name", "?"))
        return html.escape(tr.gettext(name) if entry.get("bot") else name)
    return html.escape(str(entry))
