"""A running game's progress in its session: each step recorded and every seat's timer set.

A step records the state, the log, every seat's freshness and the epoch of the group's
buttons. Pure: the clock and the settings are passed in.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chatbot.core.fairness import stamp_start
from chatbot.core.registry import Bundle
from chatbot.core.session import OVER, PLAYING, WAIT_BOT, WAIT_REMIND, Session
from chatbot.settings import Settings
from engine.core import Signal, dump_event, signals, stored

# Events kept for the table's narration (more when one step has more): enough that a key
# event (a finish, a catch) stays in view after several steps merged into one edit.
LOG_LINES = 12
# Stamps start from a random number below this (from the deal's salt), not from zero: the buttons
# left on an earlier game's messages in the chat must not match the next game's.
STAMP_START = 1_000_000


@dataclass(frozen=True)
class Step:
    """What one recorded step changed: the seats whose situation changed, every seat's legal
    actions now, the events' signals, and who acted (None: the game's start)."""

    changed: frozenset[int]
    legal: tuple[list[Any], ...]
    signals: frozenset[str]
    actor: int | None
    lost: frozenset[int] = frozenset()  # seats that could act before and cannot now


def digest(bundle: Bundle, legal: Sequence[Any]) -> int:
    """A short fingerprint of a seat's legal actions, to see them change."""
    return zlib.crc32("\n".join(map(bundle.game.encode_action, legal)).encode())


def computer_stamp(session: Session, seat: int) -> int:
    """What a computer seat's choices are drawn from beside the seed: its stamp counted from
    the seed, so a seeded game plays the same whatever its salt."""
    counted = session.stamps[seat] - stamp_start(session.salt, STAMP_START)
    return session.seed % STAMP_START + counted


def start(
    session: Session, bundle: Bundle, state: Any, events: list[Any], now: float, settings: Settings
) -> Step:
    """Record a dealt game: every seat's stamp starts from the salt's hash."""
    first = stamp_start(session.salt, STAMP_START)
    session.phase = PLAYING
    session.epoch = first
    session.stamps = [first] * len(session.seats)
    session.choice_digests = []
    session.log = []
    session.trail = []
    return record(session, bundle, state, events, None, now, settings)


def record(
    session: Session,
    bundle: Bundle,
    state: Any,
    events: list[Any],
    actor: int | None,
    now: float,
    settings: Settings,
) -> Step:
    """Put the new state in `session`: log, stamps of the seats whose situation changed,
    the epoch when a turn or round began, and every seat's timer."""
    game = bundle.game
    session.state = stored(game, state)
    # every event of this step is kept (the terminal prints them all), and at least LOG_LINES
    session.log = (session.log + [dump_event(e) for e in events])[-max(LOG_LINES, len(events)) :]
    session.recent = len(events)
    session.moves += actor is not None
    sig = signals(events)
    begun = Signal.ROUND_BEGAN in sig or Signal.TURN_BEGAN in sig
    if begun:
        session.epoch += 1
    seats = range(len(session.seats))
    legal = tuple(game.legal_actions(state, p) for p in seats)
    digests = [digest(bundle, legal[p]) for p in seats]
    before = session.choice_digests
    changed = frozenset(
        p for p in seats if begun or p == actor or p >= len(before) or before[p] != digests[p]
    )
    for p in changed:
        session.stamps[p] += 1
    # An actor whose own action opened a new chance for it (a window out of turn that opens
    # with one's own move) may take it like anyone else.
    renewed = actor is not None and actor < len(before) and before[actor] != digests[actor]
    lost = frozenset(p for p in seats if p < len(before) and before[p] and not legal[p])
    session.choice_digests = digests
    over = game.is_over(state)
    awaited = set(game.to_move(state))
    mover = None if renewed else actor
    schedule(session, legal, changed, over, awaited, now, settings, mover)
    if over:
        session.phase = OVER
    return Step(changed, legal, sig, actor, lost)


def schedule(
    session: Session,
    legal: tuple[list[Any], ...],
    changed: frozenset[int],
    over: bool,
    awaited: set[int],
    now: float,
    settings: Settings,
    actor: int | None = None,
) -> None:
    """Every seat's timer: a computer acts after a short delay when it is awaited, or when a
    chance out of turn appears for it (`actor`: not after its own action, which left its
    choices as they were); a person awaited is reminded, then replaced. A seat whose situation
    did not change keeps its timer (one player's pick does not restart another's clock)."""
    timers: dict[str, list[Any]] = {}  # seat -> [WAIT_*, unix time]
    for p, seat in enumerate(session.seats):
        if over:
            break
        key = str(p)
        old = session.timers.get(key)
        kept = old if old is not None and p not in changed else None
        if seat.bot and legal[p]:
            if kept and kept[0] == WAIT_BOT:
                timers[key] = kept
            elif p in awaited or (p in changed and p != actor):
                timers[key] = [WAIT_BOT, now + settings.bot_delay]
        elif not seat.bot and p in awaited:
            if kept and kept[0] != WAIT_BOT:
                timers[key] = kept
            else:
                timers[key] = [WAIT_REMIND, now + waits(session, settings)[0]]
    session.timers = timers
    session.deadline = min((at for _, at in timers.values()), default=None)


def schedule_all(
    session: Session, bundle: Bundle, state: Any, now: float, settings: Settings
) -> None:
    """Every seat's timer anew, as if every situation had changed."""
    game = bundle.game
    seats = range(len(session.seats))
    legal = tuple(game.legal_actions(state, p) for p in seats)
    session.timers = {}
    over, awaited = game.is_over(state), set(game.to_move(state))
    schedule(session, legal, frozenset(seats), over, awaited, now, settings)


def waits(session: Session, settings: Settings) -> tuple[float, float]:
    """Seconds before an awaited person is reminded, and then before a computer moves for
    them: half the table's turn timer each, or the settings' when it has none."""
    if session.turn_timer > 0:
        return session.turn_timer / 2, session.turn_timer / 2
    return settings.remind_after, settings.takeover_after
