"""Scripted Ano positions: cards written as "7H", "10S", "QD", "AC", "JO" (joker)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.ano.cards import JOKER, deck, face
from engine.ano.rules import CLEAR, FLAG_OPTIONS, JOKERS, NO_SUIT, SPEC, State

SUIT_LETTERS = "SHDC"
RANK_NAMES = {"A": 1, "J": 11, "Q": 12, "K": 13}


def card(code: str) -> int:
    if code == "JO":
        return JOKER
    rank, suit = code[:-1], code[-1]
    return face(RANK_NAMES.get(rank) or int(rank), SUIT_LETTERS.index(suit))


def cards(codes: str) -> tuple[int, ...]:
    return tuple(card(c) for c in codes.split())


def hand(codes: str) -> tuple[int, ...]:
    return tuple(sorted(cards(codes)))


def position(
    hands: list[str],
    top: str,
    pile: str = "",
    *,
    turn: int = 0,
    direction: int = 1,
    pending: int = 0,
    suit: int = NO_SUIT,
    ano: tuple[int, ...] | None = None,
    finished: tuple[int, ...] = (),
    drawn: int = -1,
    discard: str = "",
    **options: Any,
) -> State:
    """A position with these hands, top card and draw pile (drawn from its last card)."""
    opts = SPEC.resolve_options(options)
    flags = sum(bit for name, bit in FLAG_OPTIONS if opts[name])
    return State(
        players=len(hands),
        decks=int(opts["decks"]),
        flags=flags,
        rng=12345,
        hands=tuple(hand(h) for h in hands),
        pile=cards(pile) if pile else (),
        discard=(*(cards(discard) if discard else ()), card(top)),
        suit=suit,
        turn=turn,
        direction=direction,
        pending=pending,
        drawn=drawn,
        ano=ano if ano is not None else (CLEAR,) * len(hands),
        finished=finished,
        idle=0,
        over=False,
    )


def all_cards_accounted(state: State) -> bool:
    """Hands, draw pile and discard pile together hold exactly the game's deck."""
    held = Counter(state.pile) + Counter(state.discard)
    for h in state.hands:
        held += Counter(h)
    return held == Counter(deck(state.decks, state.has(JOKERS)))
