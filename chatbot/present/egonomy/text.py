"""How Egonomy's cards, topics, tables and actions are written in any language."""

from __future__ import annotations

from collections.abc import Iterable

from chatbot.i18n import Translator
from chatbot.rule_help.egonomy import TOPIC_EMOJI, TOPIC_NAMES
from engine.egonomy.cards import NUMBER, TOPIC
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    LET_GO,
    LISTEN,
)
from engine.egonomy.view import View

FLIPPED_MARK = "↩️"

# --- cards and tables ----------------------------------------------------------------------


def card_text(card: int) -> str:
    """A card as topic emoji + number, e.g. "⚖️3"."""
    return f"{TOPIC_EMOJI[TOPIC[card]]}{NUMBER[card]}"


def cards_text(cards: Iterable[int]) -> str:
    """Cards in the given order, space-separated."""
    return " ".join(card_text(c) for c in cards)


def by_number(cards: Iterable[int]) -> list[int]:
    """Cards sorted by number, then topic."""
    return sorted(cards, key=lambda c: (NUMBER[c], TOPIC[c]))


def table_name(table: int, tr: Translator) -> str:
    """The short distinct label of a table (1-based), e.g. "Table 2"."""
    # TRANSLATORS: the short label of topic table 1, 2 or 3 (also used on buttons).
    return tr.gettext("Table {n}").format(n=table + 1)


def topic_name(topic: int, tr: Translator) -> str:
    """A topic as emoji + name, e.g. "🧩 Logic"."""
    return f"{TOPIC_EMOJI[topic]} {tr.gettext(TOPIC_NAMES[topic])}"


def _table_line(view: View, table: int, tr: Translator) -> str:
    """One table: label, topic (marked when flipped) and the cards lying there."""
    topic = topic_name(view.table_topics[table], tr)
    if view.flipped[table]:
        topic = f"{topic} {FLIPPED_MARK}"
    lying = cards_text(view.tables[table]) or tr.gettext("(empty)")
    # TRANSLATORS: e.g. "Table 2 · 🧩 Logic: 🧩4 🧩5"; the cards lying on that table.
    return tr.gettext("{table} · {topic}: {cards}").format(
        table=table_name(table, tr), topic=topic, cards=lying
    )


def table_lines(view: View, tr: Translator) -> list[str]:
    """The three topic tables, one line each."""
    return [_table_line(view, t, tr) for t in range(len(view.tables))]


def action_name(kind: str, tr: Translator) -> str:
    """The rulebook's name of an action kind, as on buttons."""
    names = {
        BABBLE: tr.pgettext("action", "Babble"),
        CUT_OFF: tr.pgettext("action", "Cut off"),
        ARGUE: tr.pgettext("action", "Argue"),
        LISTEN: tr.pgettext("action", "Listen"),
        LET_GO: tr.pgettext("action", "Let go"),
        FLIP: tr.pgettext("action", "Flip the table"),
    }
    return names[kind]
