"""A fingerprint of Ano's rules over 300 seeded games, so that making the engine faster
provably changes no rule.

Per game (2-10 players, option mixes spread over every combination, seeded): the dealt state
and events; before every action, for every seat, the legal actions in order (their codes and
fields), the seat's view, `can_play`, and what `apply` answers to a few unlisted actions (the
refusal's code and params, or the resulting state and events); the timeout's result; then the
chosen action (a wrong play only now and then, as in the property tests), the stored state and
every event it produced; at the end the result. If a rule is meant to change, write the new
reference with `python -m tests.engine.ano.test_digest --write`. A failure names the first
game and step that differ (tests/engine/fingerprint.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.ano import GAME
from engine.ano.players import good_play
from engine.ano.rules import (
    CATCH,
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
    follow,
    legal_actions,
    new_game,
    timeout,
)
from engine.ano.view import view
from engine.core import IllegalAction, Rng, dump_event
from tests.engine.fingerprint import Fingerprint, assert_unchanged, write_reference

GAMES = 300
RULES_DIGEST = "fc8947f084c97fba4b73fafd67c240107b510249bd37cd936d976af779c9c112"
REFERENCE = Path(__file__).with_name("digest_steps.txt")  # each game's hash step by step
FLAGS = [name for name, _ in FLAG_OPTIONS]
MIXES = 2 ** (len(FLAGS) + 1)
MAX_ACTIONS = 20_000


def option_mix(index: int) -> dict[str, Any]:
    """The index-th combination of the options (2 decks x 2^7 yes/no options), less those
    not offered with it (jump-in with one deck)."""
    bits = [bool(index >> i & 1) for i in range(len(FLAGS))]
    mix = {"decks": 1 + (index >> len(FLAGS) & 1), **dict(zip(FLAGS, bits, strict=True))}
    SPEC.settle(mix)
    return mix


def add(fp: Fingerprint, *items: Any) -> None:
    fp.update(orjson.dumps(items, default=repr) + b"\n")


def outcome(fp: Fingerprint, state: State, events: list[Any]) -> None:
    add(fp, GAME.dump(state), [dump_event(e) for e in events])


def attempt(fp: Fingerprint, state: State, player: int, action: Action) -> None:
    """What apply answers: the refusal, or the new state and events (state unchanged)."""
    try:
        after, events = apply(state, player, action)
    except IllegalAction as refused:
        add(fp, "refused", player, tuple(action), refused.code, refused.params)
        return
    add(fp, "accepted", player, tuple(action))
    outcome(fp, after, events)


def unlisted(state: State, player: int, rng: Rng) -> list[Action]:
    """A few actions, legal or not: a card of the hand (maybe a pair), any card, the bare
    kinds, a catch, a random code."""
    hand = state.hands[player]
    out = [Action(kind) for kind in "dkac"]
    out.append(Action(CATCH, target=rng.below(state.players + 1)))
    if hand:
        c = hand[rng.below(len(hand))]
        out.append(Action(PLAY, (c,), rng.below(5) - 1, bool(rng.below(2))))
        d = hand[rng.below(len(hand))]
        out.append(Action(PLAY, (c, d), rng.below(5) - 1, bool(rng.below(2))))
    out.append(Action(PLAY, (rng.below(53),), rng.below(5) - 1))
    code = "".join("pdkac0123a~!Z"[rng.below(13)] for _ in range(rng.below(6)))
    try:
        out.append(decode_action(code))
    except IllegalAction as refused:
        out.append(Action("?", (), -1, False, len(refused.code)))
    return out


def play(fp: Fingerprint, players: int, options: dict[str, Any], seed: int) -> None:
    fp.game(f"{players} players, options {options}, seed {seed}")
    state, events = new_game(players, options, seed)
    add(fp, "game", players, options, seed)
    outcome(fp, state, events)
    fp.step()
    rng = Rng(seed ^ 0x5EED)
    steps = 0
    while not state.over:
        assert steps < MAX_ACTIONS, f"game {seed} did not end"
        everyone = []
        for p in range(players):
            legal = legal_actions(state, p)
            everyone.append(legal)
            add(fp, p, [encode_action(a) for a in legal], [tuple(a) for a in legal])
            add(fp, tuple(view(state, p)), can_play(state, p))
            add(fp, ano_hand(state.hands[p], state.has(SPECIAL_LAST)))
        add(fp, tuple(view(state, None)), follow(state))
        if rng.below(3) == 0:
            p = rng.below(players)
            for action in unlisted(state, p, rng):
                attempt(fp, state, p, action)
        if rng.below(8) == 0:
            out = timeout(state, rng.below(players))
            if out is not None:
                outcome(fp, *out)
        actor = state.turn
        if rng.below(4) == 0:
            others = [p for p in range(players) if p != actor and everyone[p]]
            if others:
                actor = others[rng.below(len(others))]
        legal = everyone[actor]
        seen = view(state, actor)
        good = [a for a in legal if a.kind != PLAY or good_play(seen, a)]
        pool = legal if rng.below(20) == 0 or not good else good
        action = pool[rng.below(len(pool))]
        state, events = apply(state, actor, action)
        add(fp, actor, encode_action(action))
        outcome(fp, state, events)
        fp.step()
        steps += 1
    add(fp, "result", [(p.player, p.place, p.score) for p in GAME.result(state)])


def rules_fingerprint(games: int = GAMES) -> Fingerprint:
    """The fingerprint of `games` seeded games (see the module's docstring)."""
    fp = Fingerprint()
    for i in range(games):
        play(fp, 2 + i % 9, option_mix(i * 37 % MIXES), i)
    return fp


def test_no_rule_changed_over_the_first_30_seeded_games() -> None:
    assert_unchanged(rules_fingerprint(30), REFERENCE)


@pytest.mark.slow
def test_no_rule_changed_over_300_seeded_games() -> None:
    assert_unchanged(rules_fingerprint(), REFERENCE, RULES_DIGEST)


if __name__ == "__main__":
    if "--write" in sys.argv:
        write_reference(REFERENCE, rules_fingerprint)
    else:
        print("rules", rules_fingerprint().hexdigest())
