"""What one player (or the group) may see of an Ano game: every hand's size, never another
player's faces, nor the draw pile's."""

from __future__ import annotations

from typing import NamedTuple

from engine.ano.rules import State, follow


class View(NamedTuple):
    me: int | None  # None: the public view shown in the group
    hand: tuple[int, ...]  # my hand's faces (empty in the public view)
    hand_sizes: tuple[int, ...]
    top: int
    follow_suit: int  # the suit a card must match (the named one after a joker)
    named: int  # the suit named with the joker on top, else -1
    direction: int
    pending: int  # what the player to move draws if unable to play (0: the usual 1)
    turn: int
    drawn: int  # my drawn card that I may play now (option play_drawn), else -1
    ano: tuple[int, ...]  # per player: 0 clear, 1 must call "Ano", 2 may be caught
    finished: tuple[int, ...]
    pile: int  # cards in the draw pile
    discard: int  # cards in the discard pile
    players: int
    decks: int
    flags: int
    over: bool


def view(state: State, player: int | None) -> View:
    return View(
        me=player,
        hand=state.hands[player] if player is not None else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        top=state.discard[-1],
        follow_suit=follow(state)[0],
        named=state.suit,
        direction=state.direction,
        pending=state.pending,
        turn=state.turn,
        drawn=state.drawn if player is not None and player == state.turn else -1,
        ano=state.ano,
        finished=state.finished,
        pile=len(state.pile),
        discard=len(state.discard),
        players=state.players,
        decks=state.decks,
        flags=state.flags,
        over=state.over,
    )
