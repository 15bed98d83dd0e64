"""Computer players for EGO: they see only their seat's view. They decide in microseconds:
the thinking budget (engine.core.Budget) they accept is never reached."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.core import Budget, Rng
from engine.ego.cards import CARDS
from engine.ego.rules import ANSWERS, Action
from engine.ego.view import View

KIND = {c.id: c.kind for c in CARDS}
CONFIDENT_SHARE = 0.6  # the best answer's share of what was seen, to stake 2
CONFIDENT_SEEN = 3  # at least this many earlier answers seen


def _mine_to_make(view: View, legal: Sequence[Action]) -> bool:
    return bool(legal) and view.me is not None and not view.locked[view.me]


class RandomPlayer:
    """Answers and guesses blindly, stakes at random; never refuses."""

    name = "random"

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action | None:
        if not _mine_to_make(view, legal):
            return None
        whole = [a for a in legal if a.answer and (a.stake or view.me == view.active)]
        return whole[rng.below(len(whole))] if whole else None


class ReaderPlayer:
    """Answers as it likes (at random); guesses from the active player's earlier answers: the
    answers they gave to cards of this card's kind count double, then every answer by position.
    Nothing seen: a random guess. Stakes 2 when one answer clearly leads."""

    name = "reader"

    def guess(self, view: View, rng: Rng) -> tuple[int, bool]:
        """The guess and whether it is confident."""
        kind = KIND.get(view.card)
        theirs = [(card, a) for p, card, a in view.history if p == view.active]
        by_kind = Counter(a for card, a in theirs if kind is not None and KIND.get(card) == kind)
        by_position = Counter(a for _, a in theirs)
        score = {a: 2 * by_kind[a] + by_position[a] for a in ANSWERS}
        best = max(score.values())
        if best == 0:
            return ANSWERS[rng.below(len(ANSWERS))], False
        top = [a for a in ANSWERS if score[a] == best]
        pick = top[rng.below(len(top))]
        seen = sum(score.values())
        confident = len(top) == 1 and seen >= CONFIDENT_SEEN and best >= CONFIDENT_SHARE * seen
        return pick, confident

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action | None:
        if not _mine_to_make(view, legal):
            return None
        if view.me == view.active:
            return Action(ANSWERS[rng.below(len(ANSWERS))])
        answer, confident = self.guess(view, rng)
        stake = 2 if confident and Action(answer, 2) in legal else 1
        return Action(answer, stake)
