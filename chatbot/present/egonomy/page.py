"""Egonomy on the game page: topic cards drawn from data (the topic's sign and colour, the
number), the three topic tables, every seat's hand, ego and trophies, and each legal action as
a choice of the hand's cards and the table it goes to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.i18n import Translator
from chatbot.present.egonomy.choices import _move_label
from chatbot.present.egonomy.text import FLIPPED_MARK, by_number, table_name, topic_name
from chatbot.rule_help.egonomy import TOPIC_EMOJI, TOPIC_NAMES
from engine.egonomy.cards import NUMBER, TOPIC
from engine.egonomy.rules import LISTEN, NO_TABLE, Action, encode_action
from engine.egonomy.view import View

JSON = dict[str, Any]
DISCARD_SHOWN = 5


def card(card_id: int, tr: Translator) -> JSON:
    """A topic card for the page: its key (the card's number and topic: copies play alike),
    the topic's sign, colour and name, its number."""
    topic = TOPIC[card_id]
    return {
        "key": f"{topic}.{NUMBER[card_id]}",
        "face": "topic",
        "sign": TOPIC_EMOJI[topic],
        "tone": f"t{topic}",
        "number": NUMBER[card_id],
        "name": tr.gettext(TOPIC_NAMES[topic]),
    }


def page_view(view: View, legal: Sequence[Action], names: Sequence[str], tr: Translator) -> JSON:
    areas = []
    for t in range(len(view.tables)):
        title = f"{table_name(t, tr)} · {topic_name(view.table_topics[t], tr)}"
        if view.flipped[t]:
            title += f" {FLIPPED_MARK}"
        cards = [card(c, tr) for c in view.tables[t]]
        areas.append({"id": f"t{t}", "title": title, "cards": cards, "note": ""})
    if view.discard:
        shown = [card(c, tr) for c in view.discard[-DISCARD_SHOWN:]]
        title = tr.gettext("Discard pile ({n}): {cards}").format(n=len(view.discard), cards="")
        areas.append({"id": "discard", "title": title, "cards": shown, "note": ""})
    seats = [
        f"{tr.nt('{n} card', '{n} cards', view.hand_sizes[p])}"
        f" · ✦ {view.ego_piles[p]} · 🏆 {view.trophies[p]}"
        for p in range(view.players)
    ]
    return {
        "hand": [card(c, tr) for c in by_number(view.hand)],
        "areas": areas,
        "seats": seats,
        "choices": [_choice(a, view, tr) for a in legal],
    }


def _choice(action: Action, view: View, tr: Translator) -> JSON:
    """One legal action: the hand's cards it plays (none when the card comes from a table)."""
    label = _move_label(action, view, tr)
    from_hand = [] if action.kind == LISTEN else [card(c, tr)["key"] for c in action.cards]
    area = None if action.table == NO_TABLE else f"t{action.table}"
    return {
        "act": encode_action(action),
        "label": label,
        "cards": from_hand,
        "area": area,
        "said": label,
    }
