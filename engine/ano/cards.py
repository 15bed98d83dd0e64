"""Ano's cards: standard playing cards as small ints (faces), one or two decks, jokers.

A face is suit * 13 + (rank - 1) for the 52 cards (rank 1 = A ... 13 = K) and JOKER = 52.
Two decks hold two copies of every face: identical copies are the same int.
"""

from __future__ import annotations

from functools import cache

SUITS = 4  # 0 spades, 1 hearts, 2 diamonds, 3 clubs
RANKS = 13
JOKER = SUITS * RANKS  # 52
FACES = JOKER + 1
JOKERS_PER_DECK = 2
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

RANK = tuple([f % RANKS + 1 for f in range(JOKER)] + [0])  # 0: the joker
SUIT = tuple([f // RANKS for f in range(JOKER)] + [-1])
SPECIAL = tuple(RANK[f] in (0, ACE, JACK, QUEEN, KING) for f in range(FACES))

# "ไพ่โจ๊กเกอร์และK = 50 พ้อย ไพ่A,J,Q= 20 พ้อย ไพ่ตัวเลข = แต้มบนไพ่"
POINTS = tuple(
    50 if RANK[f] in (0, KING) else 20 if RANK[f] in (ACE, JACK, QUEEN) else RANK[f]
    for f in range(FACES)
)

# Compact one-character codes for button data (62 characters, 53 used).
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
CODE = ALPHABET[:FACES]
FACE_OF = {c: f for f, c in enumerate(CODE)}


def face(rank: int, suit: int) -> int:
    """The face of a rank (1 = A ... 13 = K) and suit; `face(0, -1)` is the joker."""
    return JOKER if rank == 0 else suit * RANKS + rank - 1


@cache  # a new game asks for one of four decks
def deck(decks: int, jokers: bool) -> tuple[int, ...]:
    """Every card of the game, sorted: 52 faces per deck, and 2 jokers per deck if used."""
    one = list(range(JOKER)) + ([JOKER] * JOKERS_PER_DECK if jokers else [])
    return tuple(sorted(one * decks))


def points(cards: tuple[int, ...]) -> int:
    """The points mode's count of cards left in a hand."""
    return sum(POINTS[c] for c in cards)
