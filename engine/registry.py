"""Every game the bot hosts, by name, and the computer player that fills its empty seats."""

from __future__ import annotations

from typing import Any

from engine.core import Game, Player
from engine.egonomy import GAME as EGONOMY
from engine.egonomy.players import SearchPlayer

GAMES: dict[str, Game[Any, Any]] = {EGONOMY.spec.name: EGONOMY}
COMPUTERS: dict[str, Player[Any]] = {EGONOMY.spec.name: SearchPlayer()}
