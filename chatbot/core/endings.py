"""A game's end: the game leaves the store and its result is kept, in one atomic step.

A finished game's result joins the chat's history and standings and its record is kept; a
stopped game joins the history only.
"""

from __future__ import annotations

from typing import Any

import orjson

from chatbot.core import keys, views
from chatbot.core.record import TTL as RECORD_TTL
from chatbot.core.record import Record
from chatbot.core.render import deal_of_session
from chatbot.core.session import OVER, BadSession, Session
from chatbot.core.sessions import Sessions
from chatbot.core.standings import TTL as STANDINGS_TTL
from chatbot.core.standings import Standings, add_result
from chatbot.core.work import Found, Outcome
from chatbot.store.base import Write
from engine.core import BadState


class Endings:
    """Ends the games of one platform's chats."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def finish(self, chat: str) -> None:
        """A finished game leaves the store; its result joins the chat's history and its
        standings in the same atomic step (compare-and-set on the game and the standings): a
        crash before it leaves the game over and stored, and the next tick finishes it; a
        second finisher finds the game gone. Either way it counts once."""
        board = keys.standings(chat)

        async def work(found: Found) -> Outcome[None]:
            try:
                session = found.session
            except BadSession:
                return Outcome(None)
            if session is None or session.phase != OVER:
                return Outcome(None)  # finished already (and perhaps a new table opened)
            writes = []
            if (bundle := self.sessions.games.get(session.game)) is not None:
                lock = deal_of_session(session, bundle).commitment
                book = Record.of(session).dumps()
                writes.append(Write(keys.record(found.chat, lock), 0, book, RECORD_TTL))
            counted = self._counted(session)
            if counted is not None:
                doc = found.others[board]
                table = add_result(
                    Standings.loads(doc.data if doc else None),
                    session.game,
                    session.seats,
                    counted,
                    self.sessions.clock(),
                    session.title,
                )
                version = doc.version if doc else 0
                writes.append(Write(board, version, table.dumps(), STANDINGS_TTL))
            line = self.sessions.history_entry(found.chat, self.history_entry(session, False))
            return Outcome(None, delete=True, writes=writes, entries=[line])

        await self.sessions.change(chat, work, also=[board])

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

    async def stopped(self, session: Session) -> None:
        """The chat's history gets a stopped game's line (never counted in the standings)."""
        await self.sessions.push_history(session.chat, self.history_entry(session, True))
