"""Computer players for Egonomy: they see only their seat's view and pick a legal action."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence

from engine.core import Budget, Rng
from engine.egonomy.cards import cards_in_play
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
    topic_mask,
    topics,
)
from engine.egonomy.view import View


class RandomPlayer:
    """Picks any legal action, uniformly."""

    name = "random"

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action:
        return legal[rng.below(len(legal))]


class GreedyPlayer:
    """Prefers collecting ego and emptying its hand; takes momentum when it is offered."""

    name = "greedy"

    def score(self, view: View, action: Action) -> float:
        """Ego now gained plus cards leaving the hand (each would cost 1 ego at round end)."""
        return _score(action, view.tables, view.table_topics, view.momentum)

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action:
        return _greedy_choice(legal, view.tables, view.table_topics, view.momentum, rng)


def _score(
    action: Action, tables: Sequence[tuple[int, ...]], topics: Sequence[int], momentum: bool
) -> float:
    """GreedyPlayer's score of an action, from the tables, their topics and the momentum."""
    kind = action.kind
    gain = 0.0 if momentum else 1.5
    if kind == ARGUE:
        cards = action.cards
        on_topic = topic_mask(cards) == 1 << topics[action.table]  # every card on topic
        return len(tables[action.table]) + len(cards) + (gain if on_topic else 0.0)
    if kind == CUT_OFF:
        return 1.0
    if kind == BABBLE:
        return 0.6  # leaves the hand, but offers a cut-off to the next player
    if kind == LET_GO:
        return 0.8 * len(action.cards)
    if kind == LISTEN:
        return gain - 1.0
    if kind == FLIP:
        return gain - 0.2
    return 0.0


def _greedy_choice(
    legal: Sequence[Action],
    tables: Sequence[tuple[int, ...]],
    topics: Sequence[int],
    momentum: bool,
    rng: Rng,
) -> Action:
    """One of the best scored actions, uniformly."""
    scores = [_score(a, tables, topics, momentum) for a in legal]
    best = max(scores)
    top = [a for a, s in zip(legal, scores, strict=True) if s == best]
    return top[rng.below(len(top))]


def determinize(view: View, rng: Rng, remember: bool = True) -> State:
    """A whole game consistent with what `view`'s player sees: the cards they cannot see (other
    hands, the face-down card) dealt at random in the right numbers. The ego piles hold the
    cards seen taken this round (which pile holds which does not matter to play); with
    `remember` off, unseen cards at random like the rest."""
    me = view.me if view.me is not None else view.turn
    seen = set(view.hand) | {c for t in view.tables for c in t} | set(view.discard)
    if remember:  # docs/rulings.md#egonomy-what-players-remember
        seen.update(view.taken)
    unseen = rng.shuffled([c for c in cards_in_play(view.players) if c not in seen])
    hands, egos = [], []
    for p in range(view.players):
        if p == me:
            hands.append(tuple(view.hand))
        else:
            hands.append(tuple(sorted(unseen[: view.hand_sizes[p]])))
            del unseen[: view.hand_sizes[p]]
    piles = list(view.taken) if remember else unseen
    for p in range(view.players):
        egos.append(tuple(piles[: view.ego_piles[p]]))
        del piles[: view.ego_piles[p]]
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


class _Sampling(ABC):
    """What the searching players share: the greedy player's most promising actions (at most
    `candidates`), each tried on sampled deals of the cards it cannot see and played to the
    end of the round (at most `horizon` actions) by greedy players, within a budget."""

    name: str

    def __init__(self, candidates: int, horizon: int) -> None:
        self.candidates = candidates
        self.horizon = horizon
        self.greedy = GreedyPlayer()

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action:
        if len(legal) == 1:
            return legal[0]
        ranked = sorted(legal, key=lambda a: -self.greedy.score(view, a))[: self.candidates]
        me = view.me if view.me is not None else view.turn
        used = (budget or self.budget(len(ranked))).start()
        return self.search(view, ranked, me, rng, used)

    @abstractmethod
    def budget(self, candidates: int) -> Budget:
        """The budget when none is given, for this many candidates."""

    @abstractmethod
    def search(
        self, view: View, ranked: list[Action], me: int, rng: Rng, used: Callable[[int], float]
    ) -> Action:
        """The best of `ranked` (best first by the greedy player) for seat `me`; `used` gives
        the share of the budget spent by the playouts done."""


class FlatSearchPlayer(_Sampling):
    """Tries its most promising actions on sampled deals of the cards it cannot see, plays each
    sample to the end of the round with greedy players, and keeps the best on average. Every
    candidate gets the same number of samples, and its deals ignore the cards seen taken (the
    seats' player before SearchPlayer)."""

    name = "flat-search"

    def __init__(self, samples: int = 6, candidates: int = 6, horizon: int = 80) -> None:
        super().__init__(candidates, horizon)
        self.samples = samples

    def budget(self, candidates: int) -> Budget:
        """`samples` deals for every candidate."""
        return Budget(playouts=self.samples * candidates)

    def search(
        self, view: View, ranked: list[Action], me: int, rng: Rng, used: Callable[[int], float]
    ) -> Action:
        totals = [0.0] * len(ranked)
        counts = [0] * len(ranked)
        done = 0
        while used(done) < 1:  # a sample for every candidate, as long as the budget lasts
            state = determinize(view, rng, remember=False)
            for i, action in enumerate(ranked):
                totals[i] += _playout(state, me, action, rng, self.horizon)
                counts[i] += 1
                done += 1
                if used(done) >= 1:
                    break
        return ranked[_best(totals, counts, range(len(ranked)))]


class SearchPlayer(_Sampling):
    """Flat Monte Carlo with successive halving: every candidate action is tried on the same
    sampled deals of the cards it cannot see (the cards seen taken into ego piles are not
    dealt into hands), each played to the end of the round by greedy
    players; at each share of the budget the worse half of the candidates is dropped, so the
    promising ones get most of the samples. Stops when the budget is spent or one is left."""

    name = "search"

    def __init__(self, playouts: int = 120, candidates: int = 16, horizon: int = 80) -> None:
        super().__init__(candidates, horizon)
        self.playouts = playouts  # the budget when none is given

    def budget(self, candidates: int) -> Budget:
        """`playouts` in all, however many candidates."""
        return Budget(playouts=self.playouts)

    def search(
        self, view: View, ranked: list[Action], me: int, rng: Rng, used: Callable[[int], float]
    ) -> Action:
        n = len(ranked)
        rounds = (n - 1).bit_length()  # halvings from n candidates down to one
        totals = [0.0] * n
        counts = [0] * n
        alive = list(range(n))
        done, halved = 0, 0
        while len(alive) > 1:
            state = determinize(view, rng)
            for i in alive:
                totals[i] += _playout(state, me, ranked[i], rng, self.horizon)
                counts[i] += 1
                done += 1
                if used(done) >= 1:
                    return ranked[_best(totals, counts, alive)]
            if used(done) * rounds >= halved + 1:
                alive.sort(key=lambda i: -totals[i] / counts[i])
                del alive[(len(alive) + 1) // 2 :]
                halved += 1
        return ranked[alive[0]]


def _best(totals: Sequence[float], counts: Sequence[int], among: Iterable[int]) -> int:
    """The candidate with the best mean among those tried (the first of equals)."""
    tried = [i for i in among if counts[i]]
    return max(tried, key=lambda i: totals[i] / counts[i])


def _playout(state: State, me: int, action: Action, rng: Rng, horizon: int) -> float:
    """My round result after `action` and greedy play by all: margin of ego over the best
    other player, and my place."""
    state, events = apply(state, me, action)
    for _ in range(horizon):
        for event in events:
            if isinstance(event, RoundEnded):
                return _round_value(event, me)
        if state.over:
            break
        p = state.turn  # greedy play, judged from the state (what its seat's view shows)
        legal = legal_actions(state, p)
        pick = _greedy_choice(legal, state.tables, topics(state), state.momentum, rng)
        state, events = apply(state, p, pick)
    ranking = round_ranking(state)
    place = next(i for i, row in enumerate(ranking) if row[0] == me)
    ego = {p: e for p, e, _ in ranking}
    return ego[me] - max(e for p, e in ego.items() if p != me) - place


def _round_value(event: RoundEnded, me: int) -> float:
    mine = next(s for s in event.scores if s.player == me)
    best_other = max(s.ego for s in event.scores if s.player != me)
    return mine.ego - best_other - mine.place + 2 * mine.trophies_won
