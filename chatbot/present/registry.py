"""The presenter of every game, by engine game name."""

from __future__ import annotations

from chatbot.present.base import Presenter
from chatbot.present.egonomy import PRESENTER as EGONOMY

PRESENTERS: dict[str, Presenter] = {EGONOMY.game: EGONOMY}
