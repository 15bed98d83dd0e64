"""EGO (2-6 players): the game object that meets engine.core.Game."""

from __future__ import annotations

from engine.core import RulesGame
from engine.ego import rules
from engine.ego.events import EVENT_TYPES
from engine.ego.rules import Action, State
from engine.ego.view import view

GAME: RulesGame[State, Action] = RulesGame.of(rules, EVENT_TYPES, view)
