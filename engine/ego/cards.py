"""EGO's question cards: stable ids and a kind each (the texts live with the chat's catalogues).

A placeholder deck: 150 ids whose kinds cycle over a few kinds, until the project's written
deck replaces this file with the same names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Card:
    """A question card: `id` is stable across deck versions ("q001"); `kind` groups questions
    (food, habits, ...) so a computer player can learn a player's taste per kind."""

    id: str
    kind: str


KINDS: tuple[str, ...] = ("food", "habits", "leisure", "opinions", "dreams")

CARDS: tuple[Card, ...] = tuple(
    Card(f"q{i:03d}", KINDS[(i - 1) % len(KINDS)]) for i in range(1, 151)
)
