"""EGO's question deck as data: 81 cards, each with a stable id and a kind.

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
    Card("q042", "food"),
    Card("q043", "habits"),
    Card("q044", "leisure"),
    Card("q045", "social"),
    Card("q046", "opinions"),
    Card("q047", "travel"),
    Card("q048", "tech"),
    Card("q049", "home"),
    Card("q050", "money"),
    Card("q051", "media"),
    Card("q052", "whatif"),
    Card("q053", "style"),
    Card("q054", "food"),
    Card("q055", "habits"),
    Card("q056", "leisure"),
    Card("q057", "social"),
    Card("q058", "opinions"),
    Card("q059", "travel"),
    Card("q060", "tech"),
    Card("q061", "home"),
    Card("q062", "money"),
    Card("q063", "media"),
    Card("q064", "whatif"),
    Card("q065", "style"),
    Card("q066", "food"),
    Card("q067", "habits"),
    Card("q068", "leisure"),
    Card("q069", "social"),
    Card("q070", "opinions"),
    Card("q071", "travel"),
    Card("q072", "tech"),
    Card("q073", "home"),
    Card("q074", "money"),
    Card("q075", "media"),
    Card("q076", "whatif"),
    Card("q077", "style"),
    Card("q078", "food"),
    Card("q079", "habits"),
    Card("q080", "leisure"),
    Card("q081", "social"),
)
