"""Egonomy's 40 argument cards, three topic tables and their flip sides: all card data.

The rulebook does not list the cards; this is the project's ruling (docs/rulings.md,
"Egonomy: the cards"), kept in this one module so the real list can replace it:
- 27 unmarked cards: every topic has 1..9 once;
- 6 with the 3-player mark: every topic has a second 3 and a second 7;
- 7 with the 4-player mark: topics A and B a second 2, 5 and 8; topic C a second 5.
"""

from __future__ import annotations

from typing import NamedTuple

TOPICS = 3
TABLES = 3
NO_MARK, MARK_3, MARK_4 = 0, 3, 4
TOPIC_LETTERS = "ABC"


class Card(NamedTuple):
    """One argument card: topic 0..2, number 1..9, player-count mark (0, 3 or 4)."""

    topic: int
    number: int
    mark: int


def _deck() -> tuple[Card, ...]:
    """The 40 cards as guessed (docs/rulings.md#egonomy-the-cards)."""
    unmarked = [Card(t, n, NO_MARK) for t in range(TOPICS) for n in range(1, 10)]
    three = [Card(t, n, MARK_3) for t in range(TOPICS) for n in (3, 7)]
    four = [Card(t, n, MARK_4) for t in (0, 1) for n in (2, 5, 8)] + [Card(2, 5, MARK_4)]
    return tuple(unmarked + three + four)


CARDS: tuple[Card, ...] = _deck()
TOPIC: tuple[int, ...] = tuple(c.topic for c in CARDS)
NUMBER: tuple[int, ...] = tuple(c.number for c in CARDS)
# A marked card is a second copy of the unmarked card of its topic and number (they play
# alike): each card's unmarked copy, itself for an unmarked card. Ids put unmarked cards first.
FIRST_COPY: tuple[int, ...] = tuple(CARDS.index(Card(c.topic, c.number, NO_MARK)) for c in CARDS)
_IN_PLAY = {
    players: tuple(i for i, c in enumerate(CARDS) if c.mark in allowed)
    for players, allowed in ((2, {NO_MARK}), (3, {NO_MARK, MARK_3}), (4, {NO_MARK, MARK_3, MARK_4}))
}


def cards_in_play(players: int) -> tuple[int, ...]:
    """Card ids used with `players` players: 2 return both marks to the box, 3 the 4-mark."""
    return _IN_PLAY[players]


def table_topic(table: int, flipped: bool) -> int:
    """The topic a table shows: white side = its own topic; back of table i = topic i+1
    (docs/rulings.md#egonomy-topics-and-flip-sides)."""
    return (table + 1) % TOPICS if flipped else table


def label(card: int) -> str:
    """A short language-neutral name such as "A7" (topic letter + number), for tests and logs."""
    c = CARDS[card]
    return f"{TOPIC_LETTERS[c.topic]}{c.number}"


def parse(text: str, avoid: tuple[int, ...] = ()) -> tuple[int, ...]:
    """Card ids from labels ("A1 A2 B3"); a repeated label takes the next copy of that card."""
    taken = list(avoid)
    out: list[int] = []
    for word in text.split():
        topic, number = TOPIC_LETTERS.index(word[0].upper()), int(word[1:])
        card = next(
            i
            for i, c in enumerate(CARDS)
            if c.topic == topic and c.number == number and i not in taken
        )
        taken.append(card)
        out.append(card)
    return tuple(out)
