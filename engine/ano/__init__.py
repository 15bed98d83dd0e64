"""Ano (Thai Uno with playing cards, 2-10 players): the game object that meets
engine.core.Game. Out of turn a player may jump in (option), call "Ano!" or catch a player who
forgot to: `legal_actions` lists it."""

from __future__ import annotations

from engine.ano import rules
from engine.ano.events import EVENT_TYPES
from engine.ano.rules import Action, State
from engine.ano.view import view
from engine.core import RulesGame

GAME: RulesGame[State, Action] = RulesGame.of(rules, EVENT_TYPES, view)
