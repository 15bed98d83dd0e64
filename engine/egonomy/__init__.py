"""Egonomy (2-4 players): the game object that meets engine.core.Game."""

from __future__ import annotations

from engine.core import RulesGame
from engine.egonomy import rules
from engine.egonomy.events import EVENT_TYPES
from engine.egonomy.rules import Action, State
from engine.egonomy.view import view

GAME: RulesGame[State, Action] = RulesGame.of(rules, EVENT_TYPES, view)
