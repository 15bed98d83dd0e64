"""Every game the bot hosts, by name."""

from __future__ import annotations

from typing import Any

from engine.core import Game
from engine.egonomy import GAME as EGONOMY

GAMES: dict[str, Game[Any, Any]] = {EGONOMY.spec.name: EGONOMY}
