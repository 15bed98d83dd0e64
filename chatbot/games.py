"""The games this bot hosts: the only place that names every game."""

from __future__ import annotations

from chatbot.core.registry import Bundle, Registry
from chatbot.i18n import N_
from chatbot.present.egonomy import PRESENTER as EGONOMY_PRESENTER
from chatbot.rules.egonomy import EGONOMY_RULES
from engine.egonomy import GAME as EGONOMY
from engine.egonomy.players import SearchPlayer

# Egonomy's computer players are named after thinkers (the game is a philosophers' symposium).
THINKERS = (
    N_("Socrates"),
    N_("Hypatia"),
    N_("Confucius"),
    N_("Nagarjuna"),
    N_("Simone"),
    N_("Avicenna"),
    N_("Laozi"),
    N_("Diogenes"),
    N_("Spinoza"),
)


def registry() -> Registry:
    """Every hosted game's bundle, the default first."""
    return Registry(
        [
            Bundle(EGONOMY, EGONOMY_PRESENTER, EGONOMY_RULES, SearchPlayer(), THINKERS),
        ]
    )
