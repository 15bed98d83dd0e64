"""Ano (Thai Uno with playing cards, 2-10 players): the game object that meets
engine.core.Game. Out of turn a player may jump in (option), call "Ano!" or catch a player who
forgot to: `legal_actions` lists it."""

from __future__ import annotations

from engine.ano import rules
from engine.ano.events import EVENT_TYPES
from engine.ano.rules import Action, State
from engine.ano.view import view
from engine.core import RulesGame

GAME: RulesGame[State, Action] = RulesGame(
    spec=rules.SPEC,
    event_types=EVENT_TYPES,
    new_game=rules.new_game,
    to_move=rules.to_move,
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
