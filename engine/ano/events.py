"""What happens in Ano, as data for the chat to narrate in any language.

No event names a face another player may not see: draws carry only how many cards were drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.core import Signal, quick_init

# Why cards were drawn (Drew.reason).
TURN, CHAIN, CAUGHT, FUMBLE, FALSE_CATCH = "turn", "chain", "caught", "fumble", "false_catch"


@dataclass(frozen=True)
class Dealt:
    """5 cards each; the top of the pile turned up (jokers turned up went back first)."""

    kind: ClassVar[str] = "dealt"
    signal: ClassVar[str] = Signal.ROUND_BEGAN
    first: int
    top: int
    jokers_back: int  # jokers turned up and put back at the bottom of the pile


@dataclass(frozen=True)
class Played:
    """Cards went down, the first at the bottom and the last on top (`jump`: out of turn)."""

    kind: ClassVar[str] = "played"
    player: int
    cards: tuple[int, ...]
    suit: int  # the suit named with a joker on top, else -1
    jump: bool
    left: int  # cards left in the player's hand


@dataclass(frozen=True)
class Reversed:
    kind: ClassVar[str] = "reversed"
    direction: int  # 1 clockwise (seat order), -1 the other way


@dataclass(frozen=True)
class Skipped:
    kind: ClassVar[str] = "skipped"
    players: tuple[int, ...]  # in the order they were skipped (one may come twice)


@dataclass(frozen=True)
class DrawPending:
    """The next player, if unable to play, draws `total` (a chain adds up)."""

    kind: ClassVar[str] = "draw_pending"
    total: int


@dataclass(frozen=True)
class ChainEnded:
    """A number card answered a pending draw: nobody draws."""

    kind: ClassVar[str] = "chain_ended"
    player: int
    total: int


@dataclass(frozen=True)
class Drew:
    kind: ClassVar[str] = "drew"
    player: int
    count: int  # may be fewer than owed when too few cards exist
    reason: str  # TURN, CHAIN, CAUGHT, FUMBLE, FALSE_CATCH


@dataclass(frozen=True)
class MayPlayDrawn:
    """Option "play the drawn card": the drawn card fits, its player may play it or keep it."""

    kind: ClassVar[str] = "may_play_drawn"
    player: int


@dataclass(frozen=True)
class Kept:
    kind: ClassVar[str] = "kept"
    player: int


@dataclass(frozen=True)
class Fumbled:
    """Fumble option: a wrong card (or a wrong jump-in) stays in the hand and costs 2."""

    kind: ClassVar[str] = "fumbled"
    signal: ClassVar[str] = Signal.KEY
    player: int
    cards: tuple[int, ...]
    jump: bool


@dataclass(frozen=True)
class Reshuffled:
    """The discard pile but its top card became the new draw pile."""

    kind: ClassVar[str] = "reshuffled"
    cards: int


@dataclass(frozen=True)
class AnoOwed:
    """`player` holds a hand that could win at once and has not called "Ano" yet."""

    kind: ClassVar[str] = "ano_owed"
    player: int


@dataclass(frozen=True)
class AnoCalled:
    kind: ClassVar[str] = "ano_called"
    player: int


@dataclass(frozen=True)
class AnoForgotten:
    """The next player acted: `player` may be caught until their own next action."""

    kind: ClassVar[str] = "ano_forgotten"
    player: int


@dataclass(frozen=True)
class Caught:
    kind: ClassVar[str] = "caught"
    signal: ClassVar[str] = Signal.KEY
    catcher: int
    player: int
    drew: int


@dataclass(frozen=True)
class FalseCatch:
    """Fumble option (the bot's extension): catching a player who owes nothing costs 2."""

    kind: ClassVar[str] = "false_catch"
    signal: ClassVar[str] = Signal.KEY
    catcher: int
    player: int
    drew: int


@dataclass(frozen=True)
class Finished:
    kind: ClassVar[str] = "finished"
    signal: ClassVar[str] = Signal.KEY
    player: int
    place: int


@dataclass(frozen=True)
class Stalled:
    """Nobody could play and no card was left to draw for a whole round (the bot's ruling)."""

    kind: ClassVar[str] = "stalled"


@dataclass(frozen=True)
class GameEnded:
    kind: ClassVar[str] = "game_ended"
    signal: ClassVar[str] = Signal.GAME_ENDED
    ranking: tuple[int, ...]  # players, best first
    places: tuple[int, ...]  # each ranked player's place (equal counts share in points mode)
    scores: tuple[int, ...]  # each ranked player's points left in hand
    points: bool = False  # points mode: the points in hand rank the players left


Event = (
    Dealt
    | Played
    | Reversed
    | Skipped
    | DrawPending
    | ChainEnded
    | Drew
    | MayPlayDrawn
    | Kept
    | Fumbled
    | Reshuffled
    | AnoOwed
    | AnoCalled
    | AnoForgotten
    | Caught
    | FalseCatch
    | Finished
    | Stalled
    | GameEnded
)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Dealt,
        Played,
        Reversed,
        Skipped,
        DrawPending,
        ChainEnded,
        Drew,
        MayPlayDrawn,
        Kept,
        Fumbled,
        Reshuffled,
        AnoOwed,
        AnoCalled,
        AnoForgotten,
        Caught,
        FalseCatch,
        Finished,
        Stalled,
        GameEnded,
    )
}


for _cls in EVENT_TYPES.values():
    quick_init(_cls)
