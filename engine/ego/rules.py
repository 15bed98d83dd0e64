"""EGO's rules: state, actions, legality, the reveal and its payouts, and the game's end.

The rulebook (seed 002, Estonian) and the project's rulings (docs/rulings.md, "EGO") are
quoted in the tests; this module keeps each rule in one function.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.core import GameSpec, IllegalAction, Options, OptionSpec, Placing, Rng, seed_state
from engine.ego.cards import CARDS
from engine.ego.events import (
    Event,
    GameEnded,
    Guess,
    Picked,
    Refused,
    Revealed,
    Skipped,
    TurnStarted,
)

START_TOKENS = 10  # "Iga mängija võtab ka 10 punast panusežetooni."
BANK_PER_PLAYER = 10  # "aseta 10 punast panusežetooni mängija kohta žetoonialusele"
ANSWERS = (1, 2, 3)  # answer tokens with 1, 2 and 3 dots
STAKES = (1, 2)  # "kas teha panus ühe või kahe panusežetooniga"
REFUSAL_COST = 2  # "andes žetoonialuselt ära 2 panusežetooni"
SKIPPED = -1  # a guesser who did not pick in time

# Why a game ended.
BANK_EMPTY, BANK_SHORT, ALL_BROKE, STALLED = "bank_empty", "bank_short", "all_broke", "stalled"
END_REASONS = (BANK_EMPTY, BANK_SHORT, ALL_BROKE, STALLED)

SPEC = GameSpec(
    name="ego",
    min_players=2,
    max_players=6,
    options=(OptionSpec("refusal_from_bank"),),
    private_hands=False,
)


class Action(NamedTuple):
    """A secret pick: an answer (1-3; the active player's answer or a guess), a stake (1-2,
    guessers only), or both at once; or a refusal (the active player only). 0 = not given."""

    answer: int = 0
    stake: int = 0
    refuse: bool = False


REFUSE = Action(refuse=True)


class State(NamedTuple):
    """A whole game; tuples everywhere (never mutated)."""

    players: int
    from_bank: bool  # the option: a refusal takes its tokens from the bank, out of the game
    rng: int
    tokens: tuple[int, ...]  # each player's bet tokens
    bank: int
    removed: int  # tokens that left the game by refusals (the option)
    turn: int
    active: int  # the player who answers this turn
    card: str  # the question card's id
    used: tuple[str, ...]  # cards used since the deck was last reshuffled
    answer: int  # the active player's pick, 0 while none
    guesses: tuple[int, ...]  # per player: 0 none yet, 1-3, or SKIPPED
    stakes: tuple[int, ...]  # per player: 0 none yet, 1-2
    guessers: tuple[int, ...]  # who can guess this turn (not the active player; not broke)
    quiet: int  # turns in a row in which no token moved
    history: tuple[tuple[int, str, int], ...]  # revealed (player, card, answer), oldest first
    over: bool
    reason: str  # one of END_REASONS once over


# --- setup and turns -------------------------------------------------------------------------


def new_game(players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
    """Tokens dealt, the bank filled; the lobby opener (seat 0) answers first
    (docs/rulings.md#ego-the-deck-and-the-order-of-turns)."""
    if not SPEC.min_players <= players <= SPEC.max_players:
        raise IllegalAction("player_count", min=SPEC.min_players, max=SPEC.max_players)
    opts = SPEC.resolve_options(options)
    blank = State(
        players=players,
        from_bank=bool(opts["refusal_from_bank"]),
        rng=seed_state(seed),
        tokens=(START_TOKENS,) * players,
        bank=BANK_PER_PLAYER * players,
        removed=0,
        turn=0,
        active=0,
        card="",
        used=(),
        answer=0,
        guesses=(0,) * players,
        stakes=(0,) * players,
        guessers=(),
        quiet=0,
        history=(),
        over=False,
        reason="",
    )
    return _start_turn(blank, 0, [])


def draw_card(used: tuple[str, ...], rng: Rng) -> tuple[str, tuple[str, ...]]:
    """A random card not used yet (all used: they are shuffled back); the new used list."""
    taken = set(used)
    unused = [c.id for c in CARDS if c.id not in taken]
    if not unused:
        used, unused = (), [c.id for c in CARDS]
    card = unused[rng.below(len(unused))]
    return card, (*used, card)


def _start_turn(state: State, active: int, events: list[Event]) -> tuple[State, list[Event]]:
    rng = Rng(state.rng)
    card, used = draw_card(state.used, rng)
    guessers = tuple(p for p in range(state.players) if p != active and state.tokens[p] > 0)
    fresh = state._replace(
        rng=rng.state,
        turn=state.turn + 1,
        active=active,
        card=card,
        used=used,
        answer=0,
        guesses=(0,) * state.players,
        stakes=(0,) * state.players,
        guessers=guessers,
    )
    return fresh, [*events, TurnStarted(fresh.turn, active, card, guessers)]


def is_over(state: State) -> bool:
    return state.over


def awaited(state: State) -> tuple[int, ...]:
    """Whose pick is still awaited: the active player until they answer, every guesser until
    they have both a guess and a stake (or were skipped)."""
    if state.over:
        return ()
    out = {state.active} if state.answer == 0 else set()
    out.update(
        g
        for g in state.guessers
        if state.guesses[g] != SKIPPED and (state.guesses[g] == 0 or state.stakes[g] == 0)
    )
    return tuple(sorted(out))


def locked(state: State, player: int) -> bool:
    """Whether `player` has made every pick this turn asks of them."""
    if player == state.active:
        return state.answer != 0
    return player in state.guessers and state.guesses[player] > 0 and state.stakes[player] > 0


# --- actions ---------------------------------------------------------------------------------


def legal_actions(state: State, player: int) -> list[Action]:
    """The active player: an answer or a refusal; a guesser: a guess, a stake, or both. Picks
    may be changed until the reveal (docs/rulings.md#ego-changing-a-pick)."""
    if state.over:
        return []
    if player == state.active:
        return [*(Action(a) for a in ANSWERS), REFUSE]
    if player not in state.guessers or state.guesses[player] == SKIPPED:
        return []
    stakes = [s for s in STAKES if s <= state.tokens[player]]
    return [
        *(Action(a) for a in ANSWERS),
        *(Action(0, s) for s in stakes),
        *(Action(a, s) for s in stakes for a in ANSWERS),
    ]


def apply(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    if state.over:
        raise IllegalAction("game_over")
    if not 0 <= player < state.players:
        raise IllegalAction("not_a_player")
    if action.refuse:
        if player != state.active:
            raise IllegalAction("refuse_not_yours")
        return _refuse(state)
    if player == state.active:
        if action.stake:
            raise IllegalAction("answerer_no_stake")
        if action.answer not in ANSWERS:
            raise IllegalAction("bad_action")
        return _settle(state._replace(answer=action.answer), [Picked(player, True)])
    return _guess(state, player, action)


def _guess(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """A guess, a stake, or both; a stake never exceeds the player's tokens
    (docs/rulings.md#ego-guessing-at-once)."""
    if player not in state.guessers:
        raise IllegalAction("broke" if state.tokens[player] == 0 else "not_a_guesser")
    if state.guesses[player] == SKIPPED:
        raise IllegalAction("skipped")
    if action.answer not in (0, *ANSWERS) or action.stake not in (0, *STAKES):
        raise IllegalAction("bad_action")
    if not action.answer and not action.stake:
        raise IllegalAction("bad_action")
    if action.stake > state.tokens[player]:
        raise IllegalAction("stake_too_high", stake=action.stake, tokens=state.tokens[player])
    guesses, stakes = list(state.guesses), list(state.stakes)
    if action.answer:
        guesses[player] = action.answer
    if action.stake:
        stakes[player] = action.stake
    state = state._replace(guesses=tuple(guesses), stakes=tuple(stakes))
    return _settle(state, [Picked(player, locked(state, player))])


def _withdrawn(state: State) -> int:
    """How many guessers had started a pick (withdrawn when the turn is cancelled)."""
    return sum(1 for g in state.guessers if state.guesses[g] > 0 or state.stakes[g] > 0)


def _refuse(state: State, timed_out: bool = False) -> tuple[State, list[Event]]:
    """Refusing costs the refuser 2 bet tokens, paid into the bank (all they have if fewer);
    with the option, 2 tokens leave the bank and the game instead. The turn is cancelled
    (docs/rulings.md#ego-refusing)."""
    p = state.active
    tokens = list(state.tokens)
    if state.from_bank:
        paid = min(REFUSAL_COST, state.bank)
        bank, removed = state.bank - paid, state.removed + paid
    else:
        paid = min(REFUSAL_COST, tokens[p])
        tokens[p] -= paid
        bank, removed = state.bank + paid, state.removed
    after = state._replace(tokens=tuple(tokens), bank=bank, removed=removed)
    event = Refused(
        p, state.card, paid, state.from_bank, _withdrawn(state), bank, after.tokens, timed_out
    )
    return _next_turn(after, paid > 0, [event])


def timeout(state: State, player: int) -> tuple[State, list[Event]]:
    """A guesser who does not pick is skipped (no stake, no loss); an active player who does not
    answer refuses, at a refusal's cost (docs/rulings.md#ego-an-idle-active-player)."""
    if player not in awaited(state):
        return state, []
    if player == state.active:
        return _refuse(state, timed_out=True)
    guesses = (*state.guesses[:player], SKIPPED, *state.guesses[player + 1 :])
    stakes = (*state.stakes[:player], 0, *state.stakes[player + 1 :])
    skipped = state._replace(guesses=guesses, stakes=stakes)
    return _settle(skipped, [Skipped(player)])


# --- the reveal ------------------------------------------------------------------------------


def _settle(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Reveal once nobody's pick is awaited any more."""
    if awaited(state):
        return state, events
    return _reveal(state, events)


def _reveal(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Lost stakes go to the bank first; then each right guess gets its stake back plus as much
    again, and the active player takes 1 token per right guess. A bank that cannot pay every
    winner in full voids the turn (every stake returns) and ends the game
    (docs/rulings.md#ego-payouts-and-the-end)."""
    placed = [g for g in state.guessers if state.guesses[g] > 0]
    right = [g for g in placed if state.guesses[g] == state.answer]
    wrong = [g for g in placed if state.guesses[g] != state.answer]
    bank = state.bank + sum(state.stakes[g] for g in wrong)
    owed = sum(state.stakes[g] for g in right) + len(right)
    history = (*state.history, (state.active, state.card, state.answer))
    if owed > bank:
        guesses = tuple(Guess(g, state.guesses[g], state.stakes[g], 0) for g in placed)
        revealed = Revealed(
            state.active, state.card, state.answer, guesses, 0, True, state.bank, state.tokens
        )
        return _end(state._replace(history=history), BANK_SHORT, [*events, revealed])
    tokens = list(state.tokens)
    payouts = []
    for g in placed:
        won = state.stakes[g] if g in right else -state.stakes[g]
        tokens[g] += won
        payouts.append(Guess(g, state.guesses[g], state.stakes[g], won))
    tokens[state.active] += len(right)
    bank -= owed
    after = state._replace(tokens=tuple(tokens), bank=bank, history=history)
    revealed = Revealed(
        state.active,
        state.card,
        state.answer,
        tuple(payouts),
        len(right),
        False,
        bank,
        after.tokens,
    )
    return _next_turn(after, bool(placed), [*events, revealed])


def _next_turn(state: State, moved: bool, events: list[Event]) -> tuple[State, list[Event]]:
    """The next player's turn, unless the bank is empty, everyone is broke, or a whole round of
    turns went by with no token moving (rulings against a stall)."""
    quiet = 0 if moved else state.quiet + 1
    state = state._replace(quiet=quiet)
    if state.bank == 0:
        return _end(state, BANK_EMPTY, events)
    if not any(state.tokens):
        return _end(state, ALL_BROKE, events)
    if quiet >= state.players:
        return _end(state, STALLED, events)
    return _start_turn(state, (state.active + 1) % state.players, events)


def _end(state: State, reason: str, events: list[Event]) -> tuple[State, list[Event]]:
    over = state._replace(
        over=True,
        reason=reason,
        answer=0,
        guesses=(0,) * state.players,
        stakes=(0,) * state.players,
        guessers=(),
    )
    placings = result(over)
    ended = GameEnded(
        reason,
        over.tokens,
        over.bank,
        tuple(p.player for p in placings),
        tuple(p.place for p in placings),
    )
    return over, [*events, ended]


def result(state: State) -> tuple[Placing, ...]:
    """Most tokens wins; equal tokens share a place (1, 1, 3)."""
    order = sorted(range(state.players), key=lambda p: -state.tokens[p])
    return tuple(
        Placing(p, 1 + sum(t > state.tokens[p] for t in state.tokens), state.tokens[p])
        for p in order
    )


# --- codes and the stored form ---------------------------------------------------------------


def encode_action(action: Action) -> str:
    """ "x" refuse, "2" an answer, "b2" a stake, "2b2" both."""
    if action.refuse:
        return "x"
    answer = str(action.answer) if action.answer else ""
    return answer + (f"b{action.stake}" if action.stake else "")


def decode_action(code: str) -> Action:
    if code == "x":
        return REFUSE
    answer, _, stake = code.partition("b")
    try:
        action = Action(int(answer) if answer else 0, int(stake) if stake else 0)
    except ValueError:
        raise IllegalAction("bad_action") from None
    if encode_action(action) != code or action.answer not in (0, *ANSWERS):
        raise IllegalAction("bad_action")
    if action.stake not in (0, *STAKES) or action == Action():
        raise IllegalAction("bad_action")
    return action


def dump(state: State) -> Any:
    data = state._asdict()
    for key in ("tokens", "used", "guesses", "stakes", "guessers"):
        data[key] = list(data[key])
    data["history"] = [list(h) for h in state.history]
    return data


def load(data: Any) -> State:
    tuples = ("tokens", "used", "guesses", "stakes", "guessers")
    fields: dict[str, Any] = {k: tuple(data[k]) if k in tuples else data[k] for k in State._fields}
    fields["history"] = tuple((int(p), str(c), int(a)) for p, c, a in data["history"])
    return State(**fields)


to_move = awaited  # (the engine contract's name)
