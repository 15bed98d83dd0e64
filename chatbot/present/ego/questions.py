"""EGO's question texts by card id (a placeholder until the written deck replaces this file)."""

from __future__ import annotations

from chatbot.i18n import Translator


def question(card_id: str, tr: Translator) -> tuple[str, tuple[str, str, str]]:
    """The question of card `card_id` and its three answers, in `tr`'s language."""
    return (
        tr.t("Question {id}", id=card_id),
        (tr.t("Answer {n}", n=1), tr.t("Answer {n}", n=2), tr.t("Answer {n}", n=3)),
    )
