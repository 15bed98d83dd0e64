"""What happens in EGO, as data for the chat to narrate in any language.

A pick's content never appears in an event before the reveal: `Picked` names only the player."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.core import Signal


@dataclass(frozen=True)
class TurnStarted:
    signal: ClassVar[str] = Signal.TURN_BEGAN
    turn: int  # 1, 2, ... over the whole game
    player: int  # the active player, who answers
    card: str  # the question card's id
    guessers: tuple[int, ...]  # the players who can guess (they have bet tokens)


@dataclass(frozen=True)
class Picked:
    """A secret choice was made or changed; `locked` says whether this player is now done."""

    signal: ClassVar[str] = Signal.SECRET
    player: int
    locked: bool


@dataclass(frozen=True)
class Skipped:
    """A guesser did not pick in time: no stake, no loss this turn."""

    player: int


@dataclass(frozen=True)
class Guess:
    player: int
    answer: int  # 1-3
    stake: int
    payout: int  # tokens the player won (+) or lost (-); 0 in a void turn


@dataclass(frozen=True)
class Revealed:
    """Every pick shown: the active player's answer and each guess with its result."""

    signal: ClassVar[str] = Signal.REVEALED
    player: int
    card: str
    answer: int
    guesses: tuple[Guess, ...]
    gained: int  # tokens the active player took from the bank (1 per right guess)
    void: bool  # the bank could not pay every winner: nothing moved, the game ends
    bank: int
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class Refused:
    """The active player refused to answer (or let their time run out, which counts as a
    refusal): the turn is cancelled, guesses are withdrawn."""

    player: int
    card: str
    paid: int  # tokens that left the refuser (default) or the bank (the option)
    from_bank: bool
    withdrawn: int  # guesses that were withdrawn
    bank: int
    tokens: tuple[int, ...]
    timed_out: bool = False  # the player did not answer in time


@dataclass(frozen=True)
class GameEnded:
    signal: ClassVar[str] = Signal.GAME_ENDED
    reason: str  # one of rules.END_REASONS
    tokens: tuple[int, ...]
    bank: int
    ranking: tuple[int, ...]  # players, best first
    places: tuple[int, ...]  # place per player in `ranking` order (1, 1, 3)


Event = TurnStarted | Picked | Skipped | Revealed | Refused | GameEnded

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (TurnStarted, Picked, Skipped, Guess, Revealed, Refused, GameEnded)
}
