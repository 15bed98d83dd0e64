"""Ano on the game page: playing cards drawn from data (rank, suit, colour), the top card,
every seat's hand size, and each legal action as a choice of the hand's cards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.i18n import Translator
from chatbot.present.ano.text import RANK_TEXT, SUIT_SYMBOLS, by_suit, cards_text
from engine.ano.cards import CODE, JOKER, RANK, SUIT
from engine.ano.rules import CALL, CATCH, DRAW, FORGOT_CALL, KEEP, OWES, PLAY, Action, encode_action
from engine.ano.view import View

JSON = dict[str, Any]
SUIT_MARKS = ("♠", "♥", "♦", "♣")  # the page draws text symbols (not emoji) in the card's colour
RED_SUITS = (1, 2)


def card(face: int) -> JSON:
    """A playing card for the page: its key (the face's code), corner rank and suit, colour."""
    if face == JOKER:
        return {"key": CODE[face], "face": "joker", "rank": "★", "tone": "red"}
    suit = SUIT[face]
    return {
        "key": CODE[face],
        "face": "pip",
        "rank": RANK_TEXT.get(RANK[face], str(RANK[face])),
        "suit": SUIT_MARKS[suit],
        "tone": "red" if suit in RED_SUITS else "black",
    }


def page_view(view: View, legal: Sequence[Action], names: Sequence[str], tr: Translator) -> JSON:
    top = card(view.top)
    notes = [_direction(view)]
    if view.named >= 0:
        notes.append("→ " + SUIT_SYMBOLS[view.named])
    if view.pending:
        notes.append(tr.t("draw {n} pending", n=view.pending))
    areas = [
        {
            "id": "top",
            "title": tr.t("Top card: {card}", card=""),
            "cards": [top],
            "note": " ".join(notes),
        },
        {
            "id": "pile",
            "title": tr.t(
                "Draw pile: {pile} · discard pile: {discard}", pile=view.pile, discard=view.discard
            ),
            "cards": [{"key": "", "face": "back"}],
            "note": "",
        },
    ]
    return {
        "hand": [card(c) for c in by_suit(view.hand)],
        "areas": areas,
        "seats": [_seat(view, p, tr) for p in range(view.players)],
        "choices": [_choice(a, names, tr) for a in legal if not (a.kind == PLAY and a.call)],
    }


def _direction(view: View) -> str:
    return "🔃" if view.direction > 0 else "🔄"


def _seat(view: View, p: int, tr: Translator) -> str:
    if p in view.finished:
        return f"🏁 {view.finished.index(p) + 1}"
    note = tr.nt("{n} card", "{n} cards", view.hand_sizes[p])
    if view.ano[p] == OWES:
        note += " · " + tr.gettext("must call Ano!")
    elif view.ano[p] == FORGOT_CALL:
        note += " · " + tr.gettext("forgot Ano: catch!")
    return note


def _choice(action: Action, names: Sequence[str], tr: Translator) -> JSON:
    """One legal action: a play takes its cards from the hand (the last goes on top)."""
    act = encode_action(action)
    if action.kind == PLAY:
        label = cards_text(action.cards)
        if action.suit >= 0:
            label += " → " + SUIT_SYMBOLS[action.suit]
        said = tr.t("played {cards}", cards=label)
        return {
            "act": act,
            "label": label,
            "cards": [CODE[c] for c in action.cards],
            "area": "top",
            "said": said,
        }
    label = {
        DRAW: "📥 " + tr.gettext("Draw"),
        KEEP: "✋ " + tr.gettext("Keep it"),
        CALL: "📣 " + tr.gettext("Ano!"),
    }.get(action.kind, "")
    if action.kind == CATCH:
        label = "🫵 " + tr.t("Caught {player}!", player=names[action.target])
    area = "pile" if action.kind == DRAW else None
    return {"act": act, "label": label, "cards": [], "area": area, "said": label}
