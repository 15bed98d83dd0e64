"""What one player (or the group) may see of an EGO game: never another player's pick before
the reveal, only whether they have locked in."""

from __future__ import annotations

from dataclasses import dataclass

from engine.ego.rules import SKIPPED, State, locked


@dataclass(frozen=True)
class View:
    me: int | None  # None: the public view shown in the group
    players: int
    tokens: tuple[int, ...]
    bank: int
    removed: int
    from_bank: bool
    turn: int
    active: int
    card: str
    guessers: tuple[int, ...]
    locked: tuple[bool, ...]  # per player: their picks for this turn are all made
    skipped: tuple[bool, ...]  # per player: skipped this turn (did not pick in time)
    my_answer: int  # my own pick (the answer, or my guess); 0 when none or not mine to see
    my_stake: int
    history: tuple[tuple[int, str, int], ...]  # revealed (player, card, answer)
    over: bool
    reason: str


def view(state: State, player: int | None) -> View:
    mine_answer = mine_stake = 0
    if player is not None and not state.over:
        if player == state.active:
            mine_answer = state.answer
        elif state.guesses[player] != SKIPPED:
            mine_answer, mine_stake = state.guesses[player], state.stakes[player]
    return View(
        me=player,
        players=state.players,
        tokens=state.tokens,
        bank=state.bank,
        removed=state.removed,
        from_bank=state.from_bank,
        turn=state.turn,
        active=state.active,
        card=state.card,
        guessers=state.guessers,
        locked=tuple(locked(state, p) for p in range(state.players)),
        skipped=tuple(g == SKIPPED for g in state.guesses),
        my_answer=mine_answer,
        my_stake=mine_stake,
        history=state.history,
        over=state.over,
        reason=state.reason,
    )
