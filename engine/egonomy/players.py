"""Computer players for Egonomy: they see only their seat's view and pick a legal action."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Rng
from engine.egonomy.cards import TOPIC
from engine.egonomy.rules import ARGUE, BABBLE, CUT_OFF, FLIP, LET_GO, LISTEN, Action
from engine.egonomy.view import View


class RandomPlayer:
    """Picks any legal action, uniformly."""

    name = "random"

    def choose(self, view: View, legal: Sequence[Action], rng: Rng) -> Action:
        return legal[rng.below(len(legal))]


class GreedyPlayer:
    """Prefers collecting ego and emptying its hand; takes momentum when it is offered."""

    name = "greedy"

    def score(self, view: View, action: Action) -> float:
        """Ego now gained plus cards leaving the hand (each would cost 1 ego at round end)."""
        momentum = 0.0 if view.momentum else 1.5
        if action.kind == ARGUE:
            collected = len(view.tables[action.table])
            on_topic = all(TOPIC[c] == view.table_topics[action.table] for c in action.cards)
            return collected + len(action.cards) + (momentum if on_topic else 0.0)
        if action.kind == CUT_OFF:
            return 1.0
        if action.kind == BABBLE:
            return 0.6  # leaves the hand, but offers a cut-off to the next player
        if action.kind == LET_GO:
            return 0.8 * len(action.cards)
        if action.kind == LISTEN:
            return momentum - 1.0
        if action.kind == FLIP:
            return momentum - 0.2
        return 0.0

    def choose(self, view: View, legal: Sequence[Action], rng: Rng) -> Action:
        best = max(self.score(view, a) for a in legal)
        top = [a for a in legal if self.score(view, a) == best]
        return top[rng.below(len(top))]


PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}
