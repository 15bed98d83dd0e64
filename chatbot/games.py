"""The games this bot hosts: the only place that names every game."""

from __future__ import annotations

from chatbot.core.registry import Bundle, Preset, Registry
from chatbot.i18n import N_
from chatbot.present.ano import PRESENTER as ANO_PRESENTER
from chatbot.present.ego import PRESENTER as EGO_PRESENTER
from chatbot.present.egonomy import PRESENTER as EGONOMY_PRESENTER
from chatbot.present.egonomy import TURN_CONTEXT as EGONOMY_CONTEXT
from chatbot.rule_help.ano import ANO_RULES
from chatbot.rule_help.ego import EGO_RULES
from chatbot.rule_help.egonomy import EGONOMY_RULES
from engine.ano import GAME as ANO
from engine.ano.players import SensiblePlayer
from engine.ego import GAME as EGO
from engine.ego.players import ReaderPlayer
from engine.egonomy import GAME as EGONOMY
from engine.egonomy.players import SearchPlayer

# Egonomy's computer players are named after philosophers (the game is their symposium).
PHILOSOPHERS = (
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

# EGO's computer players are party guests who think they know everyone.
GUESTS = (
    N_("Mochi"),
    N_("Pepper"),
    N_("Biscuit"),
    N_("Noodle"),
    N_("Ginger"),
    N_("Pickle"),
    N_("Waffle"),
)

# Ano's computer players have Thai nicknames, as friends round a card table would.
NICKNAMES = (
    N_("Som"),
    N_("Noi"),
    N_("Lek"),
    N_("Ploy"),
    N_("Ton"),
    N_("Nok"),
    N_("Mai"),
    N_("Pond"),
    N_("Fah"),
)

# Ano's presets: the rulebook's body (the defaults: one deck with jokers); the house rules
# groups play most (two decks, jumping in, no special card as the last card, playing the
# drawn card); and every option on.
ANO_PRESETS = (
    Preset(N_("📘 Classic")),
    Preset(
        N_("🎉 Party"),
        {"decks": 2, "jump_in": True, "special_last": True, "play_drawn": True},
    ),
    Preset(
        N_("🌶️ Everything"),
        {
            "decks": 2,
            "uno_rules": True,
            "jump_in": True,
            "fumble": True,
            "special_last": True,
            "points": True,
            "play_drawn": True,
        },
    ),
)


def registry() -> Registry:
    """Every hosted game's bundle, the default first."""
    return Registry(
        [
            Bundle(
                EGONOMY,
                EGONOMY_PRESENTER,
                EGONOMY_RULES,
                SearchPlayer(),
                PHILOSOPHERS,
                context=EGONOMY_CONTEXT,
            ),
            Bundle(EGO, EGO_PRESENTER, EGO_RULES, ReaderPlayer(), GUESTS),
            Bundle(ANO, ANO_PRESENTER, ANO_RULES, SensiblePlayer(), NICKNAMES, presets=ANO_PRESETS),
        ]
    )
