"""What one player (or the group) may see of an Egonomy game.

"Others may count your ego and the cards in your hand at any time, but may not look at their
faces"; "everyone may look at the face-up discard pile at any time". Nobody sees the 2-player
face-down card or the faces of another player's hand or ego pile.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.egonomy.rules import State, topics


class View(NamedTuple):
    me: int | None  # None: the public view shown in the group
    hand: tuple[int, ...]  # my hand's faces (empty in the public view)
    hand_sizes: tuple[int, ...]
    ego_piles: tuple[int, ...]  # how many cards each ego pile holds
    tables: tuple[tuple[int, ...], ...]
    table_topics: tuple[int, ...]
    flipped: tuple[bool, ...]
    discard: tuple[int, ...]
    trophies: tuple[int, ...]
    players: int
    round: int
    first: int
    turn: int
    momentum: bool
    flip_mode: bool
    strict: bool
    over: bool
    taken: tuple[int, ...] = ()  # the cards in the ego piles, sorted: see `view`


def view(state: State, player: int | None) -> View:
    """What `player` sees, and remembers: the ego piles lie face down, but every card in them
    lay face up on a table this round when it was taken, so `taken` names them (not who took
    which), as an attentive player recalls them."""
    return View(
        me=player,
        hand=state.hands[player] if player is not None else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        ego_piles=tuple(len(e) for e in state.egos),
        tables=state.tables,
        table_topics=topics(state),
        flipped=state.flipped,
        discard=state.discard,
        trophies=state.trophies,
        players=state.players,
        round=state.round,
        first=state.first,
        turn=state.turn,
        momentum=state.momentum,
        flip_mode=state.flip_mode,
        strict=state.strict,
        over=state.over,
        taken=tuple(sorted(c for pile in state.egos for c in pile)),
    )
