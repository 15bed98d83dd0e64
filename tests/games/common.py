"""What the test games' presenters share: plain English texts, no catalogue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.i18n import Translator
from chatbot.rule_help import GlossaryEntry, RuleBook, Section


def rulebook(game: str, text: str) -> RuleBook:
    """A one-section rulebook whose glossary has a "turn" (a term every test game shares)."""
    turn = GlossaryEntry("turn", "Turn", f"A turn of {game}.", "general", "go")
    return RuleBook(game, (Section("general", "How to play", text),), (turn,))


class PlainPresenter:
    """Defaults of a test presenter (English only, no options)."""

    game = ""

    def title(self, tr: Translator) -> str:
        return self.game.title()

    def option_label(self, option: str, tr: Translator) -> str:
        return option

    def option_value(self, option: str, value: bool | int, tr: Translator) -> str:
        return str(value)

    def peek(self, view: Any, tr: Translator, chars: int) -> str:
        return "Your hand"

    def announce(self, event: Any, names: Any, tr: Translator) -> str | None:
        return f"Game over: {event}" if type(event).__name__ == "GameEnded" else None

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        return (f"Not allowed: {code}", "general")

    def legend(self, tr: Translator, labels: Sequence[str] = ()) -> str:
        return ""

    def page_view(self, view: Any, legal: Any, names: Any, tr: Translator) -> dict[str, Any]:
        """No cards: every seat's note empty, each legal action a choice by its code."""
        choices: list[dict[str, Any]] = [
            {"act": str(a), "label": str(a), "cards": [], "area": None} for a in legal
        ]
        return {"hand": [], "areas": [], "seats": [""] * len(names), "choices": choices}

    def confirm(self, view: Any, action: Any, tr: Translator, before: Any = None) -> str:
        return ""
