"""One property suite over every game: the hosted ones (`chatbot.games.registry()`) and the
games that exist only in the tests, through the `Game` protocol alone. A new game is checked
here the day it is registered, with every mix of its options (`GameSpec.options`); each game's
own suite keeps what is particular to it (its rules, what its views must hide).

Random playouts (random seats, actions, and now and then a person's time running out; the
game's computer player finishes the game) check at every step: each action is listed once, its
code reads back as itself and it applies; someone is awaited and has an action; another seat's
action and a malformed code are refused and change nothing; a stale action (listed earlier) or
a code near a listed one never breaks the game; the state survives its JSON form; views are
pure; every event survives its stored form, and only the last step's events end the game. At
the end nobody may act or is awaited, every seat is placed and someone is first, and the game
replays to the same state and events from its options, seed and moves.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest

from chatbot.core.registry import Bundle
from chatbot.games import registry
from engine.core import (
    Budget,
    IllegalAction,
    OptionValue,
    Rng,
    Signal,
    dump_event,
    from_json,
    load_event,
    signals,
    to_json,
)
from tests.engine.mixes import option_mixes
from tests.games import pick, slap

BUNDLES: list[Bundle] = [*registry(), pick.bundle(), slap.bundle()]
MAX_STEPS = 30_000  # every game here ends long before (a game that does not is a failure)
TIMEOUTS = 0.03  # share of steps where an awaited person's time runs out
COMPUTER = 0.7  # share of steps where the game's computer player chooses (random play alone
# may never finish a card game: nobody tries to empty a hand)
THINKING = Budget(playouts=8)  # a computer's thinking in these games: little, reproducible
RANDOM_STEPS = 1_000  # after this many steps only the computer player chooses (random wrong
# plays under a penalty rule can keep a card game going for ever)
QUICK_RANDOM_STEPS = 300  # the same in the quick suite
GARBAGE = ("", "?", "|", "zz", "-1", "999999", "x" * 40, "é", "0|0|0")
QUICK_MIXES = 24  # the quick suite plays this many of a game's option mixes (all, if fewer)
SLOW_GAMES = 20  # the slow suite's games per seat count (at least: every mix is played)
SAMPLE = 12  # listed actions read back per seat and step (a thorough game: all, and applied)

Trail = list[tuple[int, Any]]  # (seat, action; None: that seat's time ran out)


def schedule(bundle: Bundle, *, quick: bool) -> list[tuple[int, dict[str, OptionValue]]]:
    """(seat count, option mix) pairs: every seat count in turn, and the option mixes in a fixed
    shuffled order (the defaults first), each once before any comes again. Quick: each seat
    count once and up to QUICK_MIXES mixes; slow: every mix and SLOW_GAMES per seat count."""
    spec = bundle.game.spec
    seats = range(spec.min_players, spec.max_players + 1)
    first, *rest = option_mixes(spec)
    random.Random(spec.name).shuffle(rest)
    mixes = [first, *rest]
    if quick:
        games = max(len(seats), min(len(mixes), QUICK_MIXES))
    else:
        games = max(len(mixes), SLOW_GAMES * len(seats))
    return [(seats[k % len(seats)], mixes[k % len(mixes)]) for k in range(games)]


def playout(
    bundle: Bundle,
    players: int,
    options: dict[str, OptionValue],
    seed: int,
    *,
    thorough: bool,
    random_steps: int = RANDOM_STEPS,
) -> None:
    """One random game with every check (`thorough`: every listed action applied at every
    step, not a sample); raises AssertionError on the first broken one."""
    game, rng = bundle.game, random.Random(seed)
    state, events = game.new_game(players, options, seed)
    check_events(bundle, events, ended=False)
    trail: Trail = []
    earlier: dict[str, Any] = {}  # every action listed so far, by code
    for step in range(MAX_STEPS):
        check_state(bundle, state, players, rng, earlier, thorough)
        if game.is_over(state):
            break
        legal = {p: game.legal_actions(state, p) for p in range(players)}
        awaited = list(game.to_move(state))
        settling = step >= random_steps  # from here on the game's own players finish it
        if awaited and not settling and rng.random() < TIMEOUTS:
            seat = rng.choice(awaited)
            timed_out = game.timeout(state, seat)
            if timed_out is not None:
                state, new = timed_out
                check_events(bundle, new, ended=game.is_over(state))
                events += new
                trail.append((seat, None))
                continue
        movers = [p for p in range(players) if legal[p]]
        seat = rng.choice(awaited if settling else movers)
        action = None
        if settling or rng.random() < COMPUTER:
            view = game.view(state, seat)
            action = bundle.computer.choose(view, legal[seat], Rng(rng.getrandbits(63)), THINKING)
            assert action is None or action in legal[seat], "the computer chose a listed action"
        if action is None and settling and seat not in awaited:
            continue  # (a computer lets a chance out of turn go)
        if action is None:
            action = rng.choice(legal[seat])
        state, new = game.apply(state, seat, action)
        check_events(bundle, new, ended=game.is_over(state))
        events += new
        trail.append((seat, action))
    else:
        raise AssertionError(f"{bundle.name}: no end after {MAX_STEPS} steps")
    assert game.to_move(state) == (), "awaited after the end"
    assert all(not game.legal_actions(state, p) for p in range(players)), "acting after the end"
    placings = game.result(state)
    assert sorted(p.player for p in placings) == list(range(players)), placings
    assert min(p.place for p in placings) == 1, placings
    assert all(1 <= p.place <= players for p in placings), placings
    again, log = replay(bundle, players, options, seed, trail)
    assert to_json(game, again) == to_json(game, state), "the replay ends in the same state"
    assert log == events, "the replay tells the same events"


def replay(
    bundle: Bundle, players: int, options: dict[str, OptionValue], seed: int, trail: Trail
) -> tuple[Any, list[Any]]:
    """The state and all events after replaying `trail` from the deal."""
    game = bundle.game
    state, events = game.new_game(players, options, seed)
    for seat, action in trail:
        if action is None:
            timed_out = game.timeout(state, seat)
            assert timed_out is not None
            state, new = timed_out
        else:
            state, new = game.apply(state, seat, action)
        events += new
    return state, events


def check_events(bundle: Bundle, events: list[Any], *, ended: bool) -> None:
    """Each event survives its stored form; the events end the game exactly when it ends (the
    chat closes the game on them)."""
    for event in events:
        assert load_event(bundle.game.event_types, dump_event(event)) == event, event
    assert (Signal.GAME_ENDED in signals(events)) == ended, events


def check_state(
    bundle: Bundle,
    state: Any,
    players: int,
    rng: random.Random,
    earlier: dict[str, Any],
    thorough: bool,
) -> None:
    """Every check of one state; `earlier` (every action listed so far) grows by its actions."""
    game = bundle.game
    raw = to_json(game, state)
    assert to_json(game, from_json(game, raw)) == raw, "the state survives its JSON form"
    assert game.load(game.dump(state)) == state
    for viewer in (None, *range(players)):
        assert game.view(state, viewer) == game.view(state, viewer), "a view is pure"
    listed = {p: game.legal_actions(state, p) for p in range(players)}
    codes = {p: [game.encode_action(a) for a in actions] for p, actions in listed.items()}
    for seat, actions in listed.items():
        assert len(set(codes[seat])) == len(actions), f"an action listed twice: {codes[seat]}"
        if thorough:
            for code, action in zip(codes[seat], actions, strict=True):
                assert code.isascii() and game.decode_action(code) == action, code
                game.apply(state, seat, action)  # a listed action applies
            continue
        for i in rng.sample(range(len(actions)), min(len(actions), SAMPLE)):
            code = codes[seat][i]
            assert code.isascii() and game.decode_action(code) == actions[i], code
    if not game.is_over(state):
        awaited = game.to_move(state)
        assert awaited, "nobody is awaited in a game that is not over"
        assert all(listed[p] for p in awaited), "an awaited player has no action"
    every = list(dict.fromkeys(c for seat_codes in codes.values() for c in seat_codes))
    for seat in listed:
        mine = set(codes[seat])
        others = [c for c in every if c not in mine]
        for code in rng.sample(others, min(len(others), 4)):  # another seat's action
            assert refused(bundle, state, seat, game.decode_action(code)), code
    for code in GARBAGE:
        try:
            action = game.decode_action(code)
        except IllegalAction:
            continue
        for seat, actions in listed.items():
            if action not in actions:
                assert refused(bundle, state, seat, action), code
    # A stale button (an action listed earlier) or a code near a listed one is refused or
    # taken (a game may take an action that is the same move as a listed one), never a crash.
    stale = [c for c in earlier if c not in every]
    near = [n for code in rng.sample(every, min(len(every), 2)) for n in nearby(code, rng)]
    for code in (*rng.sample(stale, min(len(stale), 4)), *near):
        with contextlib.suppress(IllegalAction):
            action = game.decode_action(code)
            game.apply(state, rng.randrange(players), action)
    assert to_json(game, state) == raw, "a refused action changed nothing"
    for seat_codes, actions in zip(codes.values(), listed.values(), strict=True):
        earlier.update(zip(seat_codes, actions, strict=True))


def refused(bundle: Bundle, state: Any, seat: int, action: Any) -> bool:
    """Whether the game refuses `action` from `seat` (any error but IllegalAction fails)."""
    try:
        bundle.game.apply(state, seat, action)
    except IllegalAction:
        return True
    return False


def nearby(code: str, rng: random.Random) -> list[str]:
    """Codes one character away from `code`: one dropped, one changed, one added."""
    at = rng.randrange(len(code) + 1)
    char = rng.choice(f"{code}0123456789.|~!-")
    head, tail = code[:at], code[at + 1 :]
    return [head + tail, head + char + tail, head + char + code[at:]]


@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_random_games_of_every_game_keep_every_invariant(bundle: Bundle) -> None:
    """Every seat count and up to QUICK_MIXES option mixes; every third game thorough."""
    for seed, (players, options) in enumerate(schedule(bundle, quick=True)):
        thorough = seed % 3 == 0
        playout(bundle, players, options, seed, thorough=thorough, random_steps=QUICK_RANDOM_STEPS)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_many_random_games_of_every_game(bundle: Bundle) -> None:
    """Every option mix at least once, SLOW_GAMES games of every seat count."""
    for k, (players, options) in enumerate(schedule(bundle, quick=False)):
        playout(bundle, players, options, 1000 + k, thorough=k % 8 == 0)
