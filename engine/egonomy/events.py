"""What happens in Egonomy, as data for the chat to narrate in any language (frozen: an
event is never changed once made)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.core import Signal, quick_init


@dataclass(frozen=True)
class RoundStarted:
    signal: ClassVar[str] = Signal.ROUND_BEGAN
    round: int
    first_player: int
    humblest: bool  # round 1: the bot "found the humblest player" (a random pick)


@dataclass(frozen=True)
class Babbled:
    player: int
    table: int
    card: int


@dataclass(frozen=True)
class CutOff:
    player: int
    table: int
    card: int


@dataclass(frozen=True)
class Argued:
    player: int
    table: int
    cards: tuple[int, ...]
    collected: tuple[int, ...]  # the cards that lay on the table, now in the player's ego pile
    fallacy: bool  # 123 beat 789


@dataclass(frozen=True)
class Listened:
    player: int
    table: int
    card: int
    discarded: tuple[int, ...]


@dataclass(frozen=True)
class LetGo:
    player: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Flipped:
    player: int
    table: int
    discarded: tuple[int, ...]
    topic: int  # the topic the table shows now


@dataclass(frozen=True)
class MomentumGained:
    player: int


@dataclass(frozen=True)
class Stuck:
    """A player who must act has no legal action: the round ends (house ruling)."""

    player: int


@dataclass(frozen=True)
class RoundScore:
    player: int
    place: int  # 1 = best
    ego: int  # collected minus cards left in hand
    collected: int
    left_in_hand: int
    hand_sum: int
    trophies_won: int


@dataclass(frozen=True)
class RoundEnded:
    round: int
    emptied_by: int | None  # the player whose hand became empty (None: a stuck player ended it)
    scores: tuple[RoundScore, ...]  # in rank order
    trophies: tuple[int, ...]  # totals per player after this round


@dataclass(frozen=True)
class GameEnded:
    signal: ClassVar[str] = Signal.GAME_ENDED
    ranking: tuple[int, ...]  # players, winner first
    trophies: tuple[int, ...]
    round: int = 3  # the last round played
    early: bool = False  # a player reached the trophy target before the last round


Event = (
    RoundStarted
    | Babbled
    | CutOff
    | Argued
    | Listened
    | LetGo
    | Flipped
    | MomentumGained
    | Stuck
    | RoundEnded
    | GameEnded
)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        RoundStarted,
        Babbled,
        CutOff,
        Argued,
        Listened,
        LetGo,
        Flipped,
        MomentumGained,
        Stuck,
        RoundScore,
        RoundEnded,
        GameEnded,
    )
}

for _cls in EVENT_TYPES.values():
    quick_init(_cls)
