"""A fingerprint of Egonomy's rules over 600 seeded games, so that making the engine faster
provably changes no rule: every legal action list in order, every state and event, the
refusal (or outcome) of a random, often illegal, action at every step, and greedy playouts
as computer players play them. If a rule is meant to change, the digest changes with it:
write the new reference with `python -m tests.engine.egonomy.test_digest --write`. A failure
names the first game and step that differ (tests/engine/fingerprint.py)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from engine.core import IllegalAction, Rng
from engine.egonomy.cards import TABLES, cards_in_play
from engine.egonomy.players import _greedy_choice
from engine.egonomy.rules import (
    KINDS,
    LET_GO,
    NO_TABLE,
    Action,
    State,
    apply,
    dump,
    encode_action,
    legal_actions,
    new_game,
    topics,
)
from tests.engine.fingerprint import Fingerprint, assert_unchanged, write_reference

GAMES = 600
OPTIONS: tuple[dict[str, bool], ...] = (
    {},
    {"flip": True},
    {"strict_topics": True},
    {"flip": True, "strict_topics": True},
)
RULES_DIGEST = "a0bddf8034f892b1b86e3c621f5a03dfeff0083b53e6307b0f7023ec915293f9"
REFERENCE = Path(__file__).with_name("digest_steps.txt")  # each game's hash step by step


def _random_action(state: State, rng: Rng) -> Action:
    """Any action at all: a random kind, table (or none) and 0-3 cards in play."""
    pool = cards_in_play(state.players)
    kind = KINDS[rng.below(len(KINDS))]
    table = rng.below(TABLES + 1) - 1 if rng.below(8) else 5
    cards = tuple(pool[rng.below(len(pool))] for _ in range(rng.below(4)))
    if table == NO_TABLE and kind != LET_GO and rng.below(2):
        table = 0
    return Action(kind, table, cards)


def _playout(state: State, rng: Rng, feed: Fingerprint) -> None:
    """Greedy play until the round ends (at most 40 actions)."""
    for _ in range(40):
        if state.over:
            return
        p = state.turn
        legal = legal_actions(state, p)
        pick = _greedy_choice(legal, state.tables, topics(state), state.momentum, rng)
        state, events = apply(state, p, pick)
        feed.update(repr((encode_action(pick), dump(state), events)).encode())
        if any(type(e).__name__ == "RoundEnded" for e in events):
            return


def rules_fingerprint(games: int = GAMES) -> Fingerprint:
    """The fingerprint of `games` seeded random games (see the module's docstring)."""
    feed = Fingerprint()
    for seed in range(games):
        players, options = 2 + seed % 3, OPTIONS[seed % len(OPTIONS)]
        feed.game(f"{players} players, options {options}, seed {seed}")
        state, events = new_game(players, options, seed)
        feed.update(repr((dump(state), events)).encode())
        feed.step()
        rng = Rng(seed)
        step = 0
        while not state.over:
            p = state.turn
            other = (p + 1) % state.players
            feed.update(repr(legal_actions(state, other)).encode())
            legal = legal_actions(state, p)
            feed.update(",".join(map(encode_action, legal)).encode())
            probe = _random_action(state, rng)
            try:
                outcome: object = dump(apply(state, p, probe)[0])
            except IllegalAction as refusal:
                outcome = refusal.code
            feed.update(repr((encode_action(probe), outcome)).encode())
            action = legal[rng.below(len(legal))]
            after, events = apply(state, p, action)
            if step % 10 == 0:
                _playout(state, Rng(seed * 1000 + step), feed)
            state = after
            feed.update(repr((dump(state), events)).encode())
            feed.step()
            step += 1
    return feed


def search_digest(games: int = 60) -> str:
    """The moves of the searching player in the first 6 turns of `games` seeded games (not
    asserted: it changes whenever the searching player does; printed to compare by hand)."""
    from engine.egonomy import GAME
    from engine.egonomy.players import SearchPlayer

    feed = hashlib.sha256()
    search = SearchPlayer()
    for seed in range(games):
        state, _ = new_game(2 + seed % 3, OPTIONS[seed % len(OPTIONS)], seed)
        rng = Rng(seed)
        for _ in range(6):
            if state.over:
                break
            p = state.turn
            action = search.choose(GAME.view(state, p), legal_actions(state, p), rng)
            feed.update(encode_action(action).encode())
            state, _ = apply(state, p, action)
    return feed.hexdigest()


def test_no_rule_changed_over_the_first_40_seeded_games() -> None:
    assert_unchanged(rules_fingerprint(40), REFERENCE)


@pytest.mark.slow
def test_no_rule_changed_over_600_seeded_games() -> None:
    assert_unchanged(rules_fingerprint(), REFERENCE, RULES_DIGEST)


if __name__ == "__main__":
    if "--write" in sys.argv:
        write_reference(REFERENCE, rules_fingerprint)
    else:
        print("rules ", rules_fingerprint().hexdigest())
        print("search", search_digest())
