"""Seeded random Ano games with every option mix and 2-10 players: invariants after every
action (cards conserved, views hide hands, stored round trip), every game ends, replay is
exact. Random players act in turn and out of turn (jump-ins, calls, catches); fumbles are
rare, as they are between people."""

from __future__ import annotations

import contextlib
from itertools import product
from typing import Any

import pytest

from engine.ano import GAME
from engine.ano.events import Event, GameEnded
from engine.ano.players import good_play
from engine.ano.rules import (
    CLEAR,
    DRAW,
    FLAG_OPTIONS,
    PLAY,
    SPEC,
    SPECIAL_LAST,
    Action,
    State,
    ano_hand,
    apply,
    can_play,
    decode_action,
    encode_action,
    legal_actions,
    new_game,
)
from engine.ano.view import view
from engine.core import IllegalAction, Rng, dump_event, from_json, load_event, to_json

from .helpers import all_cards_accounted

MAX_ACTIONS = 20_000
FLAGS = [name for name, _ in FLAG_OPTIONS]
Step = tuple[int, Action]


def option_mix(index: int) -> dict[str, Any]:
    """The index-th of every combination of the options (2 decks x 2^7 yes/no options; jump-in
    only with two decks)."""
    bits = [bool(index >> i & 1) for i in range(len(FLAGS))]
    decks = 1 + (index >> len(FLAGS) & 1)
    mix: dict[str, Any] = {"decks": decks, **dict(zip(FLAGS, bits, strict=True))}
    mix["jump_in"] = mix["jump_in"] and decks == 2  # jump-in with two decks only
    return mix


ALL_MIXES = 2 ** (len(FLAGS) + 1)


def choose(state: State, rng: Rng) -> Step | None:
    """A random actor (usually the player to move) and a random legal action; wrong plays
    (fumble option) only now and then."""
    actor = state.turn
    if rng.below(4) == 0:
        others = [p for p in range(state.players) if p != actor and legal_actions(state, p)]
        if others:
            actor = others[rng.below(len(others))]
    legal = legal_actions(state, actor)
    seen = view(state, actor)
    good = [a for a in legal if a.kind != PLAY or good_play(seen, a)]
    pool = legal if rng.below(20) == 0 or not good else good
    return actor, pool[rng.below(len(pool))]


def check_state(state: State) -> None:
    """What holds in every state: cards conserved, a stored round trip, views hiding hands,
    someone to move, nobody finished acting, Ano statuses only on Ano hands."""
    assert all_cards_accounted(state), "a card is missing or in two places"
    assert from_json(GAME, to_json(GAME, state)) == state
    public = view(state, None)
    assert public.hand == () and public.hand_sizes == tuple(map(len, state.hands))
    for p in range(state.players):
        seen = view(state, p)
        assert seen.hand == state.hands[p]
        assert seen.drawn in (-1, *state.hands[p])
        if p in state.finished:
            assert not state.hands[p] and legal_actions(state, p) == []
        if state.ano[p] != CLEAR:
            assert ano_hand(state.hands[p], state.has(SPECIAL_LAST)) and not state.over
    if state.over:
        assert GAME.to_move(state) == ()
        assert all(legal_actions(state, p) == [] for p in range(state.players))
        return
    assert GAME.to_move(state) == (state.turn,) and state.turn not in state.finished
    legal = legal_actions(state, state.turn)
    assert legal and len(set(legal)) == len(legal)
    assert (Action(DRAW) in legal) == (state.drawn < 0 and not can_play(state, state.turn))


def check_actions(state: State, rng: Rng) -> None:
    """Every listed action is accepted and round-trips through its code; some unlisted ones
    (every single card of every hand, random codes) are refused unless listed."""
    for p in range(state.players):
        legal = legal_actions(state, p)
        for action in legal:
            assert decode_action(encode_action(action)) == action
            apply(state, p, action)
        plausible = [Action(PLAY, (c,), s) for c in set(state.hands[p]) for s in (-1, 0)]
        plausible += [Action(k) for k in "dkac"] + [Action("c", target=t) for t in range(3)]
        for action in plausible:
            if action in legal:
                continue
            with pytest.raises(IllegalAction):
                apply(state, p, action)
    code = "".join("pdkac0123a~!Z"[rng.below(13)] for _ in range(rng.below(6)))
    with contextlib.suppress(IllegalAction):
        apply(state, state.turn, decode_action(code))


def play_game(
    players: int, options: dict[str, Any], seed: int, *, thorough: bool = False
) -> tuple[State, list[Step], list[Event]]:
    state, events = new_game(players, options, seed)
    rng = Rng(seed)
    steps: list[Step] = []
    check_state(state)
    while not state.over:
        assert len(steps) < MAX_ACTIONS, "the game did not end"
        if thorough:
            check_actions(state, rng)
        step = choose(state, rng)
        assert step is not None
        state, new = apply(state, *step)
        steps.append(step)
        events += new
        check_state(state)
    return state, steps, events


def check_game(players: int, options: dict[str, Any], seed: int, thorough: bool) -> None:
    final, steps, events = play_game(players, options, seed, thorough=thorough)
    assert isinstance(events[-1], GameEnded)
    places = sorted(p.place for p in GAME.result(final))
    assert len(places) == players and places[0] == 1
    assert {p.player for p in GAME.result(final)} == set(range(players))
    for event in events:
        assert load_event(GAME.event_types, dump_event(event)) == event
    replayed, log = new_game(players, options, seed)
    for actor, action in steps:
        replayed, new = apply(replayed, actor, action)
        log += new
    assert replayed == final and log == events


QUICK = [(2 + i % 9, option_mix(i * 37 % ALL_MIXES), i) for i in range(24)]


@pytest.mark.parametrize("players,options,seed", QUICK)
def test_random_games_quick(players: int, options: dict[str, Any], seed: int) -> None:
    check_game(players, options, seed, thorough=seed % 3 == 0)


@pytest.mark.slow
@pytest.mark.parametrize("players", range(SPEC.min_players, SPEC.max_players + 1))
def test_random_games_every_option_mix(players: int) -> None:
    """Every option mix with every player count (2,304 games), and every listed action tried
    in some of them."""
    for mix, seed in product(range(ALL_MIXES), (players * 1000,)):
        check_game(players, option_mix(mix), seed + mix, thorough=mix % 64 == 0)
