"""EGO's question deck as data: 41 cards, each with a stable id and a kind.

The rulebook's own 220 cards are not in the seed; the project writes its own deck. The texts
(a question about the answering player and three answers) live in the gettext domain
`ego_questions` (chatbot/present/ego/questions.py); a card is stored by its id, so a game
shows the right card in any language. New cards take the next id; an id is never reused.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Card:
    """One question card: its id ("q001") and its kind ("food"), for computer players' guesses."""

    id: str
    kind: str


KINDS: tuple[str, ...] = (
    "food",
    "habits",
    "leisure",
    "home",
    "social",
    "opinions",
    "travel",
    "tech",
    "style",
    "money",
    "media",
    "whatif",
)

CARDS: tuple[Card, ...] = (
    Card("q001", "food"),
    Card("q002", "habits"),
    Card("q003", "leisure"),
    Card("q004", "opinions"),
    Card("q005", "travel"),
    Card("q006", "social"),
    Card("q007", "food"),
    Card("q008", "tech"),
    Card("q009", "home"),
    Card("q010", "money"),
    Card("q011", "media"),
    Card("q012", "whatif"),
    Card("q013", "style"),
    Card("q014", "food"),
    Card("q015", "habits"),
    Card("q016", "leisure"),
    Card("q017", "opinions"),
    Card("q018", "travel"),
    Card("q019", "social"),
    Card("q020", "tech"),
    Card("q021", "food"),
    Card("q022", "home"),
    Card("q023", "money"),
    Card("q024", "media"),
    Card("q025", "whatif"),
    Card("q026", "style"),
    Card("q027", "leisure"),
    Card("q028", "habits"),
    Card("q029", "food"),
    Card("q030", "opinions"),
    Card("q031", "travel"),
    Card("q032", "social"),
    Card("q033", "tech"),
    Card("q034", "home"),
    Card("q035", "media"),
    Card("q036", "whatif"),
    Card("q037", "money"),
    Card("q038", "style"),
    Card("q039", "food"),
    Card("q040", "habits"),
    Card("q041", "leisure"),
)
