"""Seeded random Egonomy games: what Egonomy's rules keep after every action of every game.
What every game keeps (codes, JSON, listed actions applying, the end, the replay) is checked
for every game in tests/engine/test_every_game.py.

A plain loop over seeds plays the bulk of the games (cheap checks at every step); hypothesis
chooses the actions of fewer games and runs the expensive checks at every step (every plausible
action tried: exactly the listed ones are accepted; random malformed actions are refused), so
that a failure shrinks to a short game. Quotes come from the rulebook (seed 000 Thai, 001
Japanese) and docs/rulings.md (section Egonomy).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine.core import IllegalAction, Rng, to_json
from engine.egonomy import GAME
from engine.egonomy.cards import CARDS, TABLES, cards_in_play
from engine.egonomy.events import (
    Event,
    GameEnded,
    MomentumGained,
    RoundEnded,
    RoundStarted,
    Stuck,
)
from engine.egonomy.players import GreedyPlayer, RandomPlayer
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    KINDS,
    LET_GO,
    LISTEN,
    NO_TABLE,
    Action,
    State,
    apply,
    can_act,
    is_sequence,
    legal_actions,
    new_game,
)
from engine.egonomy.view import view

from .helpers import all_cards_accounted, key, keys

CONFIGS = [(players, flip) for players in (2, 3, 4) for flip in (False, True)]
BULK_SEEDS = 300  # per configuration: 1,800 games
Chooser = Callable[[State, list[Action]], Action]


def options(flip: bool, strict: bool) -> dict[str, bool]:
    return {"flip": flip, "strict_topics": strict}


def potential(state: State) -> int:
    """Falls by at least 1 with every action of a round, so a round has a bounded length:
    babble -1, cut off -2, argue -k-2l, listen 3-2m (m >= 2), let go -3k, flip -6."""
    return 3 * sum(map(len, state.hands)) + 2 * sum(map(len, state.tables))


def check_cards_conserved(state: State) -> None:
    """Every card of the player count exactly once (docs/rulings.md#egonomy-the-cards): in a
    hand, on a table, in an ego pile, in the discard or set aside face down (2 players)."""
    assert all_cards_accounted(state), "a card is missing or in two places"
    assert {state.facedown} - {-1} <= set(cards_in_play(state.players))


def check_views_hide(state: State) -> None:
    """A player sees their own hand, the tables and the discard, and only how many cards the
    others hold and each ego pile has: never another hand, an ego pile's faces
    (docs/rulings.md#egonomy-what-players-remember) or the card set aside."""
    hidden_to_all = ({state.facedown} - {-1}) | {c for pile in state.egos for c in pile}
    for player in (None, *range(state.players)):
        seen = view(state, player)
        shown = {c for pile in (seen.hand, *seen.tables, seen.discard) for c in pile}
        others = {c for p, hand in enumerate(state.hands) if p != player for c in hand}
        hidden = hidden_to_all | others
        assert not shown & hidden, f"view of {player} leaks {shown & hidden}"
        assert seen.hand == (() if player is None else state.hands[player])
        assert seen.hand_sizes == tuple(map(len, state.hands))
        assert seen.ego_piles == tuple(map(len, state.egos))
        assert seen.tables == state.tables and seen.discard == state.discard


def check_only_the_player_to_move_acts(state: State) -> None:
    """ "ในเทิร์นของคุณ คุณต้องทำหนึ่งในห้าแอ็คชัน" (on your turn you must take one of the five
    actions): nobody else acts; the round ends when the player who must act has no action left
    (docs/rulings.md#egonomy-a-stuck-player), so the player to move can act, and `can_act`
    tells, for any player, whether they could."""
    if state.over:
        return
    assert GAME.to_move(state) == (state.turn,)
    assert can_act(state, state.turn)
    for other in range(state.players):
        if other != state.turn:
            assert legal_actions(state, other) == []
            as_if = state._replace(turn=other, momentum=False)
            assert can_act(as_if, other) == bool(legal_actions(as_if, other))


def check_state(state: State) -> None:
    check_cards_conserved(state)
    check_views_hide(state)
    check_only_the_player_to_move_acts(state)


def plausible_actions(state: State) -> list[Action]:
    """Every action of a sensible shape for the player to move: each hand card on each table,
    every sequence in hand on each table, every group of one number, every table card."""
    hand = state.hands[state.turn]
    groups = [g for k in (2, 3) for g in combinations(hand, k) if is_sequence(g)]
    same = [g for k in range(2, 7) for g in combinations(hand, k) if len(numbers(g)) == 1]
    out = [Action(LET_GO, NO_TABLE, g) for g in same]
    for t in range(TABLES):
        out += [Action(CUT_OFF, t), Action(FLIP, t)]
        out += [Action(BABBLE, t, (c,)) for c in hand]
        out += [Action(ARGUE, t, g) for g in groups]
        out += [Action(LISTEN, t, (c,)) for c in state.tables[t]]
    return out


def numbers(cards: tuple[int, ...]) -> set[int]:
    return {CARDS[c].number for c in cards}


def check_every_listed_action_and_some_others(state: State, rng: Rng) -> None:
    """Exactly the listed actions are accepted among all plausible ones, up to card order and
    copies of a card (the second 3s, 7s..., docs/rulings.md#egonomy-the-cards); random, mostly
    malformed, actions likewise; another player is refused as not in turn; a refusal changes
    nothing."""
    if state.over:
        return
    player = state.turn
    listed = keys(legal_actions(state, player))
    accepted = set()
    for act in plausible_actions(state):
        try:
            apply(state, player, act)
        except IllegalAction:
            continue
        accepted.add(key(act))
    assert accepted == listed, f"accepted, not listed: {accepted - listed}; {listed - accepted}"
    near = [*state.hands[player], *(c for t in state.tables for c in t)]
    before = to_json(GAME, state)
    for _ in range(12):
        pool = near if rng.below(4) else list(range(len(CARDS)))
        cards = tuple(pool[rng.below(len(pool))] for _ in range(rng.below(5)))
        kind = (*KINDS, "x")[rng.below(len(KINDS) + 1)]
        act = Action(kind, (NO_TABLE, 0, 1, 2, 3)[rng.below(5)], cards)
        try:
            apply(state, player, act)
        except IllegalAction:
            assert key(act) not in listed or not in_place(state, act)
        else:
            assert key(act) in listed, f"{act} accepted but not listed"
        for other in range(state.players):
            if other != player:
                with pytest.raises(IllegalAction, match="not_your_turn"):
                    apply(state, other, act)
    assert to_json(GAME, state) == before


def in_place(state: State, act: Action) -> bool:
    """Whether the cards an action names are distinct and where it takes them from."""
    place = state.tables[act.table] if act.kind == LISTEN else state.hands[state.turn]
    return len(set(act.cards)) == len(act.cards) and set(act.cards) <= set(place)


def play_game(
    players: int,
    opts: dict[str, bool],
    seed: int,
    choose: Chooser,
    every_step: Callable[[State], None] = check_state,
) -> tuple[State, list[Action]]:
    """A whole game and its actions; every round is shorter than its potential allows and the
    game ends after 3 rounds at most ("เล่น 3 รอบ" / "3ラウンド遊ぶ", play 3 rounds)."""
    state, events = new_game(players, opts, seed)
    every_step(state)
    actions = []
    steps_this_round = 0
    limit = 3 * len(cards_in_play(players))
    while not state.over:
        legal = legal_actions(state, state.turn)
        act = choose(state, legal)
        mover, before = state.turn, state
        state, events = apply(state, mover, act)
        every_step(state)
        check_events(before, state, mover, events)
        actions.append(act)
        if state.round == before.round and not state.over:
            assert potential(state) < potential(before)
            steps_this_round += 1
            assert steps_this_round <= limit
        else:
            steps_this_round = 0
    assert len(actions) <= 3 * limit and 1 <= state.round <= 3
    return state, actions


def check_events(before: State, after: State, mover: int, events: list[Event]) -> None:
    """Turns, momentum and round ends agree with the events: momentum keeps the turn, at most
    once a turn ("รับ [momentum] ได้ครั้งเดียวต่อเทิร์น", momentum once a turn); otherwise play
    goes clockwise; a round ends when a hand empties or the player to move is stuck
    (docs/rulings.md#egonomy-a-stuck-player); the first two of a round win 2 and 1 trophies;
    the game ends after round 3 or a round in which someone reached 4 trophies; the last placed
    player starts the next round, dealt afresh
    (docs/rulings.md#egonomy-first-player-rounds-and-ties)."""
    ended = [e for e in events if isinstance(e, RoundEnded)]
    if ended:
        (end,) = ended
        assert after.trophies == end.trophies
        assert [s.trophies_won for s in end.scores] == [2, 1, 0, 0][: before.players]
        check_ranking(end, before.first, before.players)
        if end.emptied_by is not None:
            assert end.emptied_by == mover and 0 in [s.left_in_hand for s in end.scores]
        else:
            assert [e for e in events if isinstance(e, Stuck)], "round ended without a cause"
        assert after.over == (before.round == 3 or max(after.trophies) >= 4)
        if after.over:
            assert isinstance(events[-1], GameEnded) and after.round == before.round
        else:
            assert events[-1] == RoundStarted(before.round + 1, after.first, False)
            assert after.first == after.turn == end.scores[-1].player
            assert after.tables == ((), (), ()) and after.flipped == (False, False, False)
            assert not any(after.egos) and after.discard == () and not after.momentum
            assert len(set(map(len, after.hands))) == 1  # dealt evenly
        return
    gained = MomentumGained(mover) in events
    assert gained == (after.turn == mover) == after.momentum
    assert not (gained and before.momentum), "momentum twice in one turn"
    if not gained:
        assert after.turn == (mover + 1) % before.players


def check_ranking(end: RoundEnded, first: int, players: int) -> None:
    """ "เสีย 1 ✦ ต่อการ์ดหนึ่งใบที่เหลือในมือ" (lose 1 ego per card left in hand): ego = collected
    - left in hand; rank by ego, then smaller hand sum, then farther clockwise from the round's
    first player (docs/rulings.md#egonomy-first-player-rounds-and-ties): no shared place."""
    assert [s.place for s in end.scores] == list(range(1, players + 1))
    for s in end.scores:
        assert s.ego == s.collected - s.left_in_hand
    order = [(-s.ego, s.hand_sum, -((s.player - first) % players)) for s in end.scores]
    assert order == sorted(order) and len(set(order)) == players


def random_chooser(seed: int) -> Chooser:
    rng = Rng(seed)
    return lambda _state, legal: legal[rng.below(len(legal))]


def bot_chooser(seats: list[RandomPlayer | GreedyPlayer], seed: int) -> Chooser:
    """Each seat's computer player chooses from that seat's view only."""
    rng = Rng(seed)

    def choose(state: State, legal: list[Action]) -> Action:
        picked = seats[state.turn].choose(view(state, state.turn), legal, rng)
        assert picked in legal
        return picked

    return choose


@pytest.mark.slow
@pytest.mark.parametrize(("players", "flip"), CONFIGS)
def test_bulk_random_games_keep_every_invariant(players: int, flip: bool) -> None:
    """`check_state` and `check_events` after every action of 300 random games per
    configuration, strict topics in a quarter of them."""
    for seed in range(BULK_SEEDS):
        opts = options(flip, strict=seed % 4 == 0)
        final, _ = play_game(players, opts, seed, random_chooser(seed))
        assert final.over


@pytest.mark.slow
@pytest.mark.parametrize(("players", "flip"), CONFIGS)
@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],  # "explain" traces: too slow
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**64 - 1), strict=st.booleans(), data=st.data())
def test_hypothesis_games_accept_exactly_the_listed_actions(
    players: int, flip: bool, seed: int, strict: bool, data: st.DataObject
) -> None:
    """Among every plausible action exactly the listed ones are accepted, and random (mostly
    malformed) actions are accepted exactly when they are listed; the player to move's choice
    comes from hypothesis so that a failing game shrinks."""
    probe = Rng(seed)

    def choose(_state: State, legal: list[Action]) -> Action:
        return legal[data.draw(st.integers(0, len(legal) - 1), label="action")]

    def every_step(state: State) -> None:
        check_state(state)
        check_every_listed_action_and_some_others(state, probe)

    final, actions = play_game(players, options(flip, strict), seed, choose, every_step)
    assert final.over and actions


@pytest.mark.parametrize(("players", "flip"), CONFIGS)
def test_a_few_seeded_games_accept_exactly_the_listed_actions(players: int, flip: bool) -> None:
    """The hypothesis run's checks (marked slow) on two seeded games of each configuration,
    so that a change that breaks them fails the quick suite too."""
    for seed in (players, players + 7):
        probe = Rng(seed)

        def every_step(state: State, probe: Rng = probe) -> None:
            check_state(state)
            check_every_listed_action_and_some_others(state, probe)

        opts = options(flip, strict=seed % 2 == 0)
        final, actions = play_game(players, opts, seed, random_chooser(seed), every_step)
        assert final.over and actions


@pytest.mark.parametrize(("players", "flip"), CONFIGS)
def test_computer_players_pick_legal_actions_and_finish_games(players: int, flip: bool) -> None:
    """DESIGN: "Computer players see only what a human in their seat sees: choose(view,
    legal, rng)"; both pick only listed actions and finish every game."""
    bots = (RandomPlayer(), GreedyPlayer())
    for seed in range(40):
        seats = [bots[(seed >> p) & 1] for p in range(players)]
        chooser = bot_chooser(seats, seed)
        final, _ = play_game(players, options(flip, seed % 3 == 0), seed, chooser)
        placings = GAME.result(final)
        assert sorted(p.player for p in placings) == list(range(players))
        assert [p.place for p in placings] == list(range(1, players + 1))
        assert placings[0].score == max(final.trophies)
