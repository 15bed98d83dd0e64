"""An explicit Egonomy position (hands, tables, ego piles, whose turn) for tests and puzzles."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import seed_state
from engine.egonomy.cards import CARDS, NUMBER, TABLES, cards_in_play, parse
from engine.egonomy.rules import State


def position(
    players: int = 3,
    hands: Sequence[str] = (),
    tables: Sequence[str] = ("", "", ""),
    *,
    turn: int = 0,
    first: int = 0,
    flipped: Sequence[bool] = (False,) * TABLES,
    egos: Sequence[str] | None = None,
    discard: str = "",
    facedown: str = "",
    momentum: bool = False,
    flip: bool = False,
    strict: bool = False,
    round: int = 1,
    trophies: Sequence[int] | None = None,
    last_ranking: Sequence[int] = (),
    seed: int = 0,
) -> State:
    """A State from card labels ("A1 A2 B3"); a repeated label takes another copy of the card.

    Labels are read in order (hands, tables, ego piles, discard, face-down card), each avoiding
    the cards already used and the cards this player count returns to the box. Cards not named
    are nowhere: exact positions need not hold the whole deck. Hands are kept sorted and tables
    ordered by number, as the rules keep them.
    """
    in_play = set(cards_in_play(players))
    used: list[int] = [c for c in range(len(CARDS)) if c not in in_play]

    def take(text: str) -> tuple[int, ...]:
        try:
            cards = parse(text, avoid=tuple(used))
        except StopIteration:
            raise ValueError(f"no copy left in play for {text!r}") from None
        used.extend(cards)
        return cards

    hand_texts = list(hands) + [""] * (players - len(hands))
    egos_texts = list(egos) if egos is not None else [""] * players
    if len(hand_texts) != players or len(egos_texts) != players or len(tables) != TABLES:
        raise ValueError("one hand and one ego pile per player, one text per table")
    dealt = tuple(tuple(sorted(take(h))) for h in hand_texts)
    lying = tuple(tuple(sorted(take(t), key=NUMBER.__getitem__)) for t in tables)
    piles = tuple(take(e) for e in egos_texts)
    discarded = take(discard)
    aside = take(facedown)
    if len(aside) > 1 or (aside and players != 2):
        raise ValueError("only a 2-player game has a face-down card, and only one")
    return State(
        players=players,
        flip_mode=flip,
        strict=strict,
        rng=seed_state(seed),
        round=round,
        first=first,
        turn=turn,
        momentum=momentum,
        hands=dealt,
        tables=lying,
        flipped=tuple(flipped),
        egos=piles,
        discard=discarded,
        facedown=aside[0] if aside else -1,
        trophies=tuple(trophies) if trophies is not None else (0,) * players,
        last_ranking=tuple(last_ranking),
        over=False,
    )
