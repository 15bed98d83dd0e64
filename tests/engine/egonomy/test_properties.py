"""Seeded random Egonomy games: invariants that hold after every action of every game.

A plain loop over seeds plays the bulk of the games (cheap checks at every step); hypothesis
chooses the actions of fewer games and runs the expensive checks at every step (every plausible
action tried: exactly the listed ones are accepted; random malformed actions are refused), so
that a failure shrinks to a short game.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine.core import IllegalAction, Rng, from_json, to_json
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


def check_state(state: State) -> None:
    """What holds in every state of every game."""
    assert all_cards_accounted(state), "a card is missing or in two places"
    assert from_json(GAME, to_json(GAME, state)) == state
    facedown = {state.facedown} - {-1}
    assert facedown <= set(cards_in_play(state.players))
    for player in (None, *range(state.players)):
        seen = view(state, player)
        shown = {c for pile in (seen.hand, *seen.tables, seen.discard) for c in pile}
        hidden = facedown | {c for pile in state.egos for c in pile}
        hidden |= {c for p, hand in enumerate(state.hands) if p != player for c in hand}
        assert not shown & hidden, f"view of {player} leaks {shown & hidden}"
        assert seen.hand == (() if player is None else state.hands[player])
        assert seen.hand_sizes == tuple(map(len, state.hands))
        assert seen.ego_piles == tuple(map(len, state.egos))
        assert seen.tables == state.tables and seen.discard == state.discard
    if state.over:
        assert all(legal_actions(state, p) == [] for p in range(state.players))
        assert GAME.to_move(state) == ()
        return
    assert GAME.to_move(state) == (state.turn,)
    legal = legal_actions(state, state.turn)
    assert legal, "the player to move has no action (no passing: the round should have ended)"
    assert can_act(state, state.turn)
    for other in range(state.players):
        if other != state.turn:
            assert legal_actions(state, other) == []
            as_if = state._replace(turn=other, momentum=False)
            assert can_act(as_if, other) == bool(legal_actions(as_if, other))
    assert len(set(legal)) == len(legal), "an action is listed twice"


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
    """Exactly the listed actions are accepted among all plausible ones (up to card order and
    copies); random, mostly malformed, actions likewise; a refusal changes nothing."""
    if state.over:
        return
    player = state.turn
    legal = legal_actions(state, player)
    listed = keys(legal)
    for act in legal:
        apply(state, player, act)
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
) -> tuple[State, list[Action], list[State]]:
    """A whole game: the chosen actions, and the state after each (the first: the deal)."""
    state, events = new_game(players, opts, seed)
    every_step(state)
    states, actions = [state], []
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
        states.append(state)
        if state.round == before.round and not state.over:
            assert potential(state) < potential(before)
            steps_this_round += 1
            assert steps_this_round <= limit
        else:
            steps_this_round = 0
    assert len(actions) <= 3 * limit  # every game ends, after 3 rounds at most
    return state, actions, states


def check_events(before: State, after: State, mover: int, events: list[Event]) -> None:
    """Turns, momentum and round ends agree with the events."""
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
    """Ego = collected - left in hand; rank by ego, then smaller hand sum, then farther
    clockwise from the round's first player."""
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
    """Every game ends; cards are all accounted for; views never leak; states round-trip through
    JSON; only the player to move has actions, and `can_act` agrees with them; replaying
    (options, seed, actions) gives the same states."""
    finished = 0
    for seed in range(BULK_SEEDS):
        opts = options(flip, strict=seed % 4 == 0)
        final, actions, states = play_game(players, opts, seed, random_chooser(seed))
        replayed, _ = new_game(players, opts, seed)
        assert replayed == states[0]
        for act, expected in zip(actions, states[1:], strict=True):
            replayed, _ = apply(replayed, replayed.turn, act)
            assert replayed == expected
        assert final.over and 1 <= final.round <= 3
        finished += 1
    assert finished == BULK_SEEDS


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
    """Every listed legal action is accepted by apply, and random (mostly malformed) actions
    are accepted exactly when they are listed; the player to move's choice comes from
    hypothesis so that a failing game shrinks."""
    probe = Rng(seed)

    def choose(_state: State, legal: list[Action]) -> Action:
        return legal[data.draw(st.integers(0, len(legal) - 1), label="action")]

    def every_step(state: State) -> None:
        check_state(state)
        check_every_listed_action_and_some_others(state, probe)

    final, actions, _ = play_game(players, options(flip, strict), seed, choose, every_step)
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
        final, actions, _ = play_game(players, opts, seed, random_chooser(seed), every_step)
        assert final.over and actions


@pytest.mark.parametrize(("players", "flip"), CONFIGS)
def test_computer_players_pick_legal_actions_and_finish_games(players: int, flip: bool) -> None:
    """DESIGN: "Computer players see only what a human in their seat sees: choose(view,
    legal, rng)"; both pick only listed actions and finish every game."""
    bots = (RandomPlayer(), GreedyPlayer())
    for seed in range(40):
        seats = [bots[(seed >> p) & 1] for p in range(players)]
        chooser = bot_chooser(seats, seed)
        final, _, _ = play_game(players, options(flip, seed % 3 == 0), seed, chooser)
        placings = GAME.result(final)
        assert sorted(p.player for p in placings) == list(range(players))
        assert [p.place for p in placings] == list(range(1, players + 1))
        assert placings[0].score == max(final.trophies)
