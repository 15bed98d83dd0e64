"""The base of the desks that open and play a game: the sessions, renderer, timers, endings."""

from __future__ import annotations

from dataclasses import dataclass

from chatbot.core.endings import Endings
from chatbot.core.render import Renderer
from chatbot.core.sessions import Sessions
from chatbot.core.timers import Timers


@dataclass(eq=False)
class GameDesk:
    """A desk that changes a chat's game: `LobbyDesk` before the first move, `Moves` after."""

    sessions: Sessions
    renderer: Renderer
    timers: Timers
    endings: Endings
