"""Computer players for Ano: they see only their seat's view and pick a legal action (or,
out of turn, None to let a chance go). They decide in microseconds: the thinking budget
(engine.core.Budget) they accept is never reached."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.ano.cards import ACE, JACK, JOKER, KING, QUEEN, RANK, SPECIAL, SUIT, SUITS
from engine.ano.rules import CALL, CATCH, DRAW, FORGOT_CALL, KEEP, PLAY, SPECIAL_LAST, Action
from engine.ano.view import View
from engine.core import Budget, Rng

CHAIN_CARDS = (QUEEN, KING, 0)  # kept for answering a pending draw


class RandomPlayer:
    """Any legal action, uniformly; out of turn it takes a chance half the time."""

    name = "random"

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action | None:
        if not legal or (view.me != view.turn and rng.below(2)):
            return None
        return legal[rng.below(len(legal))]


def good_play(view: View, action: Action) -> bool:
    """A play the rules accept without the fumble penalty."""
    cards = action.cards
    if view.me != view.turn:
        return len(cards) == 1 and cards[0] == view.top
    top_rank = -1 if view.top == JOKER else RANK[view.top]
    bottom = cards[0]
    if not (bottom == JOKER or SUIT[bottom] == view.follow_suit or RANK[bottom] == top_rank):
        return False
    last = len(cards) == len(view.hand)
    return not (last and view.flags & SPECIAL_LAST and SPECIAL[bottom])


class SensiblePlayer:
    """Never fumbles; always calls "Ano" (with the play itself) and catches whoever forgot;
    jumps in when it can; keeps jokers, Ks and Qs for answering a chain unless the next player
    is close to winning; plays many cards at once, leaving on top the suit it holds most."""

    name = "sensible"

    def choose(
        self, view: View, legal: Sequence[Action], rng: Rng, budget: Budget | None = None
    ) -> Action | None:
        for action in legal:
            if action.kind == CATCH and view.ano[action.target] == FORGOT_CALL:
                return action
        if any(a.kind == CALL for a in legal):
            return Action(CALL)
        plays = [a for a in legal if a.kind == PLAY and good_play(view, a)]
        calls = {(a.cards, a.suit) for a in plays if a.call}
        plays = [a for a in plays if a.call or (a.cards, a.suit) not in calls]
        if view.me != view.turn:
            return plays[0] if plays else None
        if not plays:
            for kind in (DRAW, KEEP):
                if any(a.kind == kind for a in legal):
                    return Action(kind)
            return legal[rng.below(len(legal))]
        scored = [(self.score(view, a), rng.below(1 << 16), a) for a in plays]
        return max(scored)[2]

    def score(self, view: View, action: Action) -> float:
        cards = action.cards
        left = list(view.hand)
        for c in cards:
            left.remove(c)
        if not left:
            return 1e6
        rank = RANK[cards[0]]
        value = 10.0 * len(cards)
        me = view.me if view.me is not None else view.turn
        threat = _next_hand(view, me) <= 2
        if rank in CHAIN_CARDS or rank == JACK:
            if view.pending == 0 and not threat:
                value -= {0: 30, KING: 15, QUEEN: 10, JACK: 6}[rank]
            elif threat:
                value += 20
        elif rank == ACE:
            value -= 2
        elif view.pending:
            value += 5  # a number card ends the chain and keeps the chain cards
        suits = Counter(SUIT[c] for c in left if c != JOKER)
        top = cards[-1]
        value += 2 * suits[action.suit if top == JOKER else SUIT[top]]
        if top == JOKER and suits:
            best = max(range(SUITS), key=lambda s: suits[s])
            value += 1 if action.suit == best else 0
        return value


def _next_hand(view: View, me: int) -> int:
    """The hand size of the next player still in the game."""
    seat = me
    for _ in range(view.players):
        seat = (seat + view.direction) % view.players
        if seat not in view.finished:
            return view.hand_sizes[seat]
    return 0
