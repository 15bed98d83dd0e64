"""A fingerprint of Ano's rules: one SHA-256 over seeded random games, to show that a speed
change to engine/ano changed no rule (the hash must stay the same).

Per game (2-10 players, option mixes spread over every combination, seeded): the dealt state
and events; before every action, for every seat, the legal actions in order (their codes and
fields), the seat's view, `can_play`, and what `apply` answers to a few unlisted actions (the
refusal's code and params, or the resulting state and events); the timeout's result; then the
chosen action (a wrong play only now and then, as in the property tests), the stored state and
every event it produced; at the end the result. 300 games print bddbb115816db580484d0fab910a6e1
3ca5e8a10d554f10d1bd0b4f7b5a567ac (the rules as of the speed work on the engine).
Usage: python bench/ano_rules_hash.py [--games N] [--expect HEX]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from typing import Any

import orjson

from engine.ano import GAME
from engine.ano.players import good_play
from engine.ano.rules import (
    CATCH,
    FLAG_OPTIONS,
    PLAY,
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

FLAGS = [name for name, _ in FLAG_OPTIONS]
MIXES = 2 ** (len(FLAGS) + 1)
MAX_ACTIONS = 20_000


def option_mix(index: int) -> dict[str, Any]:
    """The index-th combination of the options (2 decks x 2^7 yes/no options)."""
    bits = [bool(index >> i & 1) for i in range(len(FLAGS))]
    return {"decks": 1 + (index >> len(FLAGS) & 1), **dict(zip(FLAGS, bits, strict=True))}


class Fingerprint:
    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.actions = 0

    def add(self, *items: Any) -> None:
        self.sha.update(orjson.dumps(items, default=repr))
        self.sha.update(b"\n")

    def outcome(self, state: State, events: list[Any]) -> None:
        self.add(GAME.dump(state), [dump_event(e) for e in events])

    def attempt(self, state: State, player: int, action: Action) -> None:
        """What apply answers: the refusal, or the new state and events (state unchanged)."""
        try:
            after, events = apply(state, player, action)
        except IllegalAction as refused:
            self.add("refused", player, tuple(action), refused.code, refused.params)
            return
        self.add("accepted", player, tuple(action))
        self.outcome(after, events)


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
    state, events = new_game(players, options, seed)
    fp.add("game", players, options, seed)
    fp.outcome(state, events)
    rng = Rng(seed ^ 0x5EED)
    steps = 0
    while not state.over:
        if steps >= MAX_ACTIONS:
            raise SystemExit(f"game {seed} did not end")
        everyone = []
        for p in range(players):
            legal = legal_actions(state, p)
            everyone.append(legal)
            fp.add(p, [encode_action(a) for a in legal], [tuple(a) for a in legal])
            fp.add(tuple(view(state, p)), can_play(state, p))
            fp.add(ano_hand(state.hands[p], state.has(SPECIAL_LAST)))
        fp.add(tuple(view(state, None)), follow(state))
        if rng.below(3) == 0:
            p = rng.below(players)
            for action in unlisted(state, p, rng):
                fp.attempt(state, p, action)
        if rng.below(8) == 0:
            out = timeout(state, rng.below(players))
            if out is not None:
                fp.outcome(*out)
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
        fp.add(actor, encode_action(action))
        fp.outcome(state, events)
        steps += 1
    fp.add("result", [(p.player, p.place, p.score) for p in GAME.result(state)])
    fp.actions += steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--expect", help="exit 1 unless the hash is this one")
    args = parser.parse_args()
    fp = Fingerprint()
    for i in range(args.games):
        play(fp, 2 + i % 9, option_mix(i * 37 % MIXES), i)
    digest = fp.sha.hexdigest()
    print(f"{args.games} games, {fp.actions} actions: {digest}")
    if args.expect and args.expect != digest:
        print("DIFFERENT: a rule changed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
