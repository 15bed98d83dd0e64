"""EGO (2-6 players): the game object that meets engine.core.Game."""

from __future__ import annotations

from engine.core import RulesGame
from engine.ego import rules
from engine.ego.events import EVENT_TYPES
from engine.ego.rules import Action, State
from engine.ego.view import view

GAME: RulesGame[State, Action] = RulesGame(
    spec=rules.SPEC,
    event_types=EVENT_TYPES,
    new_game=rules.new_game,
    to_move=rules.awaited,
    legal_actions=rules.legal_actions,
    apply=rules.apply,
    timeout=rules.timeout,
    view=view,
    is_over=rules.is_over,
    result=rules.result,
    encode_action=rules.encode_action,
    decode_action=rules.decode_action,
    dump=rules.dump,
    load=rules.load,
)
