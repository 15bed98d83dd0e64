"""EGO on the game page: the question card with its three answers, every seat's tokens and
whether they have locked in, the bank, and the seat's secret picks as choices (an answer, a
bet in chips, both, or the refusal)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.i18n import Translator
from chatbot.present.ego import DIGITS, refuse_label
from chatbot.present.ego.questions import question
from engine.ego.rules import Action, encode_action
from engine.ego.view import View

JSON = dict[str, Any]
SECRET = "🤫"  # what a pick shows in the group: never the pick itself


def page_view(view: View, legal: Sequence[Action], names: Sequence[str], tr: Translator) -> JSON:
    asked, answers = question(view.card, tr)
    qcard: JSON = {"key": "", "face": "question", "text": asked, "answers": list(answers)}
    if view.my_answer:
        qcard["picked"] = view.my_answer
    areas = [
        {
            "id": "question",
            "title": tr.t("Turn {turn}", turn=view.turn),
            "cards": [qcard],
            "note": "",
        },
        {
            "id": "bank",
            "title": tr.t("🏦 Bank: {n}", n=view.bank),
            "cards": [],
            "note": "",
            "chips": view.bank,
        },
    ]
    return {
        "hand": [],
        "areas": areas,
        "seats": [_seat(view, p) for p in range(view.players)],
        "choices": [_choice(a, view, tr) for a in legal],
    }


def _seat(view: View, p: int) -> str:
    mark = ""
    if not view.over:
        mark = " 💤" if view.skipped[p] else " 🔒" if view.locked[p] else ""
    return f"🪙 {view.tokens[p]}{mark}"


def _choice(action: Action, view: View, tr: Translator) -> JSON:
    """A secret pick: an answer, a bet (chips), both, or the refusal."""
    bet = tr.gettext("bet {n}")
    if action.refuse:
        label = refuse_label(view.from_bank, tr)
    elif action.answer and action.stake:
        label = f"{DIGITS[action.answer]} · {bet.format(n=action.stake)}"
    elif action.answer:
        label = DIGITS[action.answer]
    else:
        label = "🪙 " + bet.format(n=action.stake)
    choice: JSON = {"act": encode_action(action), "label": label, "cards": [], "area": "question"}
    choice.update(answer=action.answer, chips=action.stake, said=SECRET)
    return choice
