"""Computer players for Egonomy: they see only their seat's view and pick a legal action."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Rng
from engine.egonomy.cards import TOPIC, cards_in_play
from engine.egonomy.events import RoundEnded
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    LET_GO,
    LISTEN,
    Action,
    State,
    apply,
    legal_actions,
    round_ranking,
)
from engine.egonomy.view import View
from engine.egonomy.view import view as seat_view


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


def determinize(view: View, rng: Rng) -> State:
    """A whole game consistent with what `view`'s player sees: the cards they cannot see (other
    hands, ego piles, the face-down card) dealt at random in the right numbers."""
    me = view.me if view.me is not None else view.turn
    seen = set(view.hand) | {c for t in view.tables for c in t} | set(view.discard)
    unseen = rng.shuffled([c for c in cards_in_play(view.players) if c not in seen])
    hands, egos = [], []
    for p in range(view.players):
        if p == me:
            hands.append(tuple(view.hand))
        else:
            hands.append(tuple(sorted(unseen[: view.hand_sizes[p]])))
            del unseen[: view.hand_sizes[p]]
    for p in range(view.players):
        egos.append(tuple(unseen[: view.ego_piles[p]]))
        del unseen[: view.ego_piles[p]]
    return State(
        players=view.players,
        flip_mode=view.flip_mode,
        strict=view.strict,
        rng=rng.next(),
        round=view.round,
        first=view.first,
        turn=view.turn,
        momentum=view.momentum,
        hands=tuple(hands),
        tables=view.tables,
        flipped=view.flipped,
        egos=tuple(egos),
        discard=view.discard,
        facedown=unseen[0] if unseen else -1,
        trophies=view.trophies,
        last_ranking=(),
        over=view.over,
    )


class SearchPlayer:
    """Tries its most promising actions on sampled deals of the cards it cannot see, plays each
    sample to the end of the round with greedy players, and keeps the best on average."""

    name = "search"

    def __init__(self, samples: int = 6, candidates: int = 6, horizon: int = 80) -> None:
        self.samples = samples
        self.candidates = candidates
        self.horizon = horizon
        self.greedy = GreedyPlayer()

    def choose(self, view: View, legal: Sequence[Action], rng: Rng) -> Action:
        if len(legal) == 1:
            return legal[0]
        ranked = sorted(legal, key=lambda a: -self.greedy.score(view, a))[: self.candidates]
        me = view.me if view.me is not None else view.turn
        totals = [0.0] * len(ranked)
        for _ in range(self.samples):
            state = determinize(view, rng)
            for i, action in enumerate(ranked):
                totals[i] += self._playout(state, me, action, rng)
        return ranked[max(range(len(ranked)), key=totals.__getitem__)]

    def _playout(self, state: State, me: int, action: Action, rng: Rng) -> float:
        """My round result after `action` and greedy play by all: margin of ego over the best
        other player, and my place."""
        state, events = apply(state, me, action)
        for _ in range(self.horizon):
            for event in events:
                if isinstance(event, RoundEnded):
                    return _round_value(event, me)
            if state.over:
                break
            p = state.turn
            legal = legal_actions(state, p)
            state, events = apply(state, p, self.greedy.choose(seat_view(state, p), legal, rng))
        ranking = round_ranking(state)
        place = next(i for i, row in enumerate(ranking) if row[0] == me)
        ego = {p: e for p, e, _ in ranking}
        return ego[me] - max(e for p, e in ego.items() if p != me) - place


def _round_value(event: RoundEnded, me: int) -> float:
    mine = next(s for s in event.scores if s.player == me)
    best_other = max(s.ego for s in event.scores if s.player != me)
    return mine.ego - best_other - mine.place + 2 * mine.trophies_won
