"""Egonomy's rules: state, actions, legality, and what each action does.

The rulebook (seeds 000 Thai, 001 Japanese) and the project's rulings (RULINGS.md) are quoted
in the tests; this module keeps each rule in one function.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations, pairwise
from typing import Any, NamedTuple

from engine.core import GameSpec, IllegalAction, Options, OptionSpec, Placing, Rng, seed_state
from engine.egonomy.cards import NUMBER, TABLES, TOPIC, cards_in_play, table_topic
from engine.egonomy.events import (
    Argued,
    Babbled,
    CutOff,
    Event,
    Flipped,
    GameEnded,
    LetGo,
    Listened,
    MomentumGained,
    RoundEnded,
    RoundScore,
    RoundStarted,
    Stuck,
)

ROUNDS = 3  # "play 3 rounds"
TROPHIES_TO_END = 4  # "... or until a player has 4 trophies"
TROPHIES_FOR_PLACE = (2, 1)  # 1st gets 2, 2nd gets 1
FALLACY = (1, 2, 3)  # beats 789 "in addition to the normal rules"
FALLACY_VICTIM = (7, 8, 9)

BABBLE, CUT_OFF, ARGUE, LISTEN, LET_GO, FLIP = "b", "c", "a", "l", "g", "f"
KINDS = (BABBLE, CUT_OFF, ARGUE, LISTEN, LET_GO, FLIP)
NO_TABLE = -1

SPEC = GameSpec(
    name="egonomy",
    min_players=2,
    max_players=4,
    options=(OptionSpec("flip"), OptionSpec("strict_topics")),
)


class Action(NamedTuple):
    """One action: `kind` is one of KINDS; `cards` are card ids (for listen: the card taken)."""

    kind: str
    table: int = NO_TABLE
    cards: tuple[int, ...] = ()


class State(NamedTuple):
    """A whole game. Cards are ids into cards.CARDS; tuples everywhere (never mutated)."""

    players: int
    flip_mode: bool
    strict: bool
    rng: int
    round: int
    first: int  # the round's first player (holds the first-player card)
    turn: int
    momentum: bool  # the player to act gained momentum this turn (this is the extra action)
    hands: tuple[tuple[int, ...], ...]
    tables: tuple[tuple[int, ...], ...]  # the cards lying on each topic table
    flipped: tuple[bool, ...]
    egos: tuple[tuple[int, ...], ...]  # ego piles
    discard: tuple[int, ...]  # face-up discard pile
    facedown: int  # the 2-player card set aside face down; -1 with 3-4 players
    trophies: tuple[int, ...]
    last_ranking: tuple[int, ...]  # the last finished round's ranking, best first
    over: bool


# --- setup -------------------------------------------------------------------------------


def new_game(players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
    """Set up round 1: the bot picks the first player at random (house ruling)."""
    if not SPEC.min_players <= players <= SPEC.max_players:
        raise IllegalAction("player_count", min=SPEC.min_players, max=SPEC.max_players)
    opts = SPEC.resolve_options(options)
    rng = Rng(seed_state(seed))
    first = rng.below(players)
    blank = State(
        players=players,
        flip_mode=bool(opts["flip"]),
        strict=bool(opts["strict_topics"]),
        rng=rng.state,
        round=1,
        first=first,
        turn=first,
        momentum=False,
        hands=(),
        tables=((),) * TABLES,
        flipped=(False,) * TABLES,
        egos=((),) * players,
        discard=(),
        facedown=-1,
        trophies=(0,) * players,
        last_ranking=(),
        over=False,
    )
    return _deal(blank, 1, first, humblest=True)


def _deal(state: State, round_no: int, first: int, humblest: bool) -> tuple[State, list[Event]]:
    """Every card back, reshuffle, set one aside face down with 2 players, deal evenly."""
    rng = Rng(state.rng)
    deck = rng.shuffled(cards_in_play(state.players))
    facedown = deck.pop() if state.players == 2 else -1
    n = state.players
    hands = tuple(tuple(sorted(deck[i::n])) for i in range(n))
    dealt = state._replace(
        rng=rng.state,
        round=round_no,
        first=first,
        turn=first,
        momentum=False,
        hands=hands,
        tables=((),) * TABLES,
        flipped=(False,) * TABLES,
        egos=((),) * n,
        discard=(),
        facedown=facedown,
    )
    return dealt, [RoundStarted(round_no, first, humblest)]


# --- sequences and winning an argument -----------------------------------------------------


def is_sequence(cards: tuple[int, ...]) -> bool:
    """2 or 3 cards with consecutive numbers (12, 123, 789; never 11, 122 or 912)."""
    if not 2 <= len(cards) <= 3:
        return False
    nums = sorted(NUMBER[c] for c in cards)
    return all(b == a + 1 for a, b in pairwise(nums))


def beats(size: int, top: int, strength: tuple[int, int, bool]) -> bool:
    """Whether a sequence of `size` cards whose highest number is `top` wins on a table of
    that `strength` (see `_strength`): an empty table is always won; more cards beat fewer;
    with as many cards the higher sequence wins (equal loses); the fallacy 123 also beats 789."""
    lying, lying_top, victim = strength
    if size != lying:
        return size > lying
    return top > lying_top or (victim and top == FALLACY[-1])


def topic_mask(cards: tuple[int, ...]) -> int:
    """The topics of some cards as bits (topic t = 1 << t)."""
    mask = 0
    for c in cards:
        mask |= 1 << TOPIC[c]
    return mask


def fits(mask: int, topic: int, strict: bool) -> bool:
    """A sequence with these topics may argue on a table of `topic`: one card of the topic
    (house ruling), or every card with the "strict topics" option."""
    bit = 1 << topic
    return mask == bit if strict else bool(mask & bit)


# Every action object is made once and shared (actions are immutable): listing the legal
# actions is the hot loop of computer players' playouts.
_ALL_CARDS = range(len(NUMBER))
_BABBLE = tuple(tuple(Action(BABBLE, t, (c,)) for c in _ALL_CARDS) for t in range(TABLES))
_LISTEN = tuple(tuple(Action(LISTEN, t, (c,)) for c in _ALL_CARDS) for t in range(TABLES))
_CUT_OFF = tuple(Action(CUT_OFF, t) for t in range(TABLES))
_FLIP = tuple(Action(FLIP, t) for t in range(TABLES))


class Sequence_(NamedTuple):
    """A sequence in a hand: its size, highest number, topic bit mask, argue per table."""

    size: int
    top: int
    topics: int
    argue: tuple[Action, ...]


_SEQUENCES: dict[tuple[int, ...], Sequence_] = {}


def _sequence(cards: tuple[int, ...]) -> Sequence_:
    seq = _SEQUENCES.get(cards)
    if seq is None:
        argue = tuple(Action(ARGUE, t, cards) for t in range(TABLES))
        seq = Sequence_(len(cards), NUMBER[cards[-1]], topic_mask(cards), argue)
        _SEQUENCES[cards] = seq
    return seq


class HandIndex(NamedTuple):
    """What a hand can do whatever lies on the tables (copies of one card counted once)."""

    babbles: tuple[tuple[int, ...], ...]  # per topic, the cards that could be babbled
    sequences: tuple[Sequence_, ...]
    let_go: tuple[Action, ...]


@lru_cache(maxsize=4096)
def hand_index(hand: tuple[int, ...]) -> HandIndex:
    by_number: dict[int, list[int]] = {}  # distinct cards (one copy each) by number
    copies: dict[int, list[int]] = {}  # every card by number
    babbles: tuple[list[int], ...] = ([], [], [])
    seen: set[int] = set()
    for c in hand:
        n = NUMBER[c]
        copies.setdefault(n, []).append(c)
        key = TOPIC[c] * 10 + n
        if key not in seen:
            seen.add(key)
            by_number.setdefault(n, []).append(c)
            babbles[TOPIC[c]].append(c)
    sequences = []
    for n, low in by_number.items():
        mid = by_number.get(n + 1)
        if mid:
            high = by_number.get(n + 2, ())
            for a in low:
                for b in mid:
                    sequences.append(_sequence((a, b)))
                    sequences.extend(_sequence((a, b, c)) for c in high)
    let_go = [
        action
        for n, same in copies.items()
        if len(same) >= 2
        for action in _let_go_choices(tuple(same), len(by_number[n]) == len(same))
    ]
    return HandIndex(tuple(tuple(b) for b in babbles), tuple(sequences), tuple(let_go))


@lru_cache(maxsize=1024)
def _let_go_choices(same: tuple[int, ...], distinct: bool) -> tuple[Action, ...]:
    """Every group of two or more of these cards of one number; copies of a card count once."""
    groups = [g for k in range(2, len(same) + 1) for g in combinations(same, k)]
    if not distinct:
        unique = {tuple(sorted(TOPIC[c] for c in g)): g for g in reversed(groups)}
        groups = sorted(unique.values())
    return tuple(Action(LET_GO, NO_TABLE, g) for g in groups)


@lru_cache(maxsize=4096)
def _strength(table: tuple[int, ...]) -> tuple[int, int, bool]:
    """(cards, highest number, is 789) of what lies on a table."""
    if not table:
        return 0, 0, False
    top = max(NUMBER[c] for c in table)
    return len(table), top, len(table) == 3 and top == FALLACY_VICTIM[-1]


def _arguable(state: State, index: HandIndex) -> Iterator[Action]:
    """Every argue that is legal now: on topic, and winning on its table."""
    tops = topics(state)
    strict = state.strict
    for t in range(TABLES):
        topic, strength = tops[t], _strength(state.tables[t])
        for seq in index.sequences:
            if fits(seq.topics, topic, strict) and beats(seq.size, seq.top, strength):
                yield seq.argue[t]


# --- legal actions -------------------------------------------------------------------------


def topics(state: State) -> tuple[int, ...]:
    """The topic each table shows now."""
    f = state.flipped
    return (table_topic(0, f[0]), table_topic(1, f[1]), table_topic(2, f[2]))


def legal_actions(state: State, player: int) -> list[Action]:
    """Every action `player` may take now; only the player to move ever has any."""
    if state.over or player != state.turn:
        return []
    index = hand_index(state.hands[player])
    tops = topics(state)
    tables = state.tables
    out: list[Action] = []
    for t in range(TABLES):
        size = len(tables[t])
        if size == 0:
            babble = _BABBLE[t]
            out.extend(babble[c] for c in index.babbles[tops[t]])
        elif size == 1:
            out.append(_CUT_OFF[t])
        elif state.players >= 3:
            listen = _LISTEN[t]
            out.extend(listen[c] for c in tables[t])
        if size == 3 and state.flip_mode:
            out.append(_FLIP[t])
    out.extend(_arguable(state, index))
    out.extend(index.let_go)
    return out


def can_act(state: State, player: int) -> bool:
    """Whether `player` has any legal action (cheap checks first)."""
    tables = state.tables
    for t in range(TABLES):
        size = len(tables[t])
        if size == 1 or (size >= 2 and state.players >= 3) or (size == 3 and state.flip_mode):
            return True
    index = hand_index(state.hands[player])
    if index.let_go:
        return True
    tops = topics(state)
    for t in range(TABLES):
        if not tables[t] and index.babbles[tops[t]]:
            return True
    return next(_arguable(state, index), None) is not None


# --- applying an action --------------------------------------------------------------------


def apply(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """Check and carry out one action; raises IllegalAction and changes nothing if refused."""
    if state.over:
        raise IllegalAction("game_over")
    if player != state.turn:
        raise IllegalAction("not_your_turn", player=state.turn)
    handler = _HANDLERS.get(action.kind)
    if handler is None or (action.kind in (CUT_OFF, FLIP) and action.cards):
        raise IllegalAction("bad_action")
    if action.kind == LET_GO and action.table != NO_TABLE:
        raise IllegalAction("bad_action")  # a let-go names no table, a cut-off or flip no cards
    if action.kind != LET_GO and not 0 <= action.table < TABLES:
        raise IllegalAction("no_such_table")
    state, events, momentum = handler(state, player, action)
    return _after_action(state, player, momentum, events)


def _take_from_hand(state: State, player: int, cards: tuple[int, ...]) -> tuple[int, ...]:
    hand = list(state.hands[player])
    for c in cards:
        if c not in hand:
            raise IllegalAction("card_not_in_hand")
        hand.remove(c)
    return tuple(hand)


def _set(seq: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*seq[:index], value, *seq[index + 1 :])


Outcome = tuple[State, list[Event], bool]


def _babble(state: State, player: int, action: Action) -> Outcome:
    """Put one card on an empty topic table that matches the card's topic."""
    t = action.table
    if len(action.cards) != 1:
        raise IllegalAction("babble_one_card")
    hand = _take_from_hand(state, player, action.cards)
    card = action.cards[0]
    if len(state.tables[t]) == 1:
        raise IllegalAction("babble_on_single")  # single cards never beat each other
    if state.tables[t]:
        raise IllegalAction("babble_needs_empty_table")
    if TOPIC[card] != table_topic(t, state.flipped[t]):
        raise IllegalAction("babble_topic")
    new = state._replace(
        hands=_set(state.hands, player, hand), tables=_set(state.tables, t, (card,))
    )
    return new, [Babbled(player, t, card)], False


def _cut_off(state: State, player: int, action: Action) -> Outcome:
    """Take the card from a table holding exactly one card into your ego pile."""
    t = action.table
    if len(state.tables[t]) != 1:
        raise IllegalAction("cut_off_needs_single")
    card = state.tables[t][0]
    new = state._replace(
        tables=_set(state.tables, t, ()),
        egos=_set(state.egos, player, state.egos[player] + (card,)),
    )
    return new, [CutOff(player, t, card)], False


def _argue(state: State, player: int, action: Action) -> Outcome:
    """Play a sequence that wins on a table; collect what lay there; momentum if on topic."""
    t, cards = action.table, action.cards
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = _take_from_hand(state, player, cards)
    if not is_sequence(cards):
        raise IllegalAction("not_a_sequence")
    topic = table_topic(t, state.flipped[t])
    mask = topic_mask(cards)
    if not fits(mask, topic, state.strict):
        raise IllegalAction("argue_topic_strict" if state.strict else "argue_topic")
    lying = state.tables[t]
    size, top, strength = len(cards), max(NUMBER[c] for c in cards), _strength(lying)
    if not beats(size, top, strength):
        raise IllegalAction("argue_fewer_cards" if size < len(lying) else "argue_not_higher")
    fallacy = strength[2] and size == 3 and top == FALLACY[-1]
    ordered = tuple(sorted(cards, key=NUMBER.__getitem__))
    new = state._replace(
        hands=_set(state.hands, player, hand),
        tables=_set(state.tables, t, ordered),
        egos=_set(state.egos, player, state.egos[player] + lying),
    )
    on_topic = mask == 1 << topic  # every card has the table's topic
    return new, [Argued(player, t, ordered, lying, fallacy)], on_topic


def _listen(state: State, player: int, action: Action) -> Outcome:
    """3-4 players: take one card of a table with 2+ cards into your hand, discard the rest."""
    t = action.table
    if state.players < 3:
        raise IllegalAction("listen_needs_three_players")
    lying = state.tables[t]
    if len(lying) < 2:
        raise IllegalAction("listen_needs_two_cards")
    if len(action.cards) != 1 or action.cards[0] not in lying:
        raise IllegalAction("listen_card_not_on_table")
    card = action.cards[0]
    rest = tuple(c for c in lying if c != card)
    new = state._replace(
        hands=_set(state.hands, player, tuple(sorted(state.hands[player] + (card,)))),
        tables=_set(state.tables, t, ()),
        discard=state.discard + rest,
    )
    return new, [Listened(player, t, card, rest)], True


def _let_go(state: State, player: int, action: Action) -> Outcome:
    """Discard two or more cards of one number from your hand, face up."""
    cards = action.cards
    if len(cards) < 2:
        raise IllegalAction("let_go_needs_two")
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = _take_from_hand(state, player, cards)
    if len({NUMBER[c] for c in cards}) != 1:
        raise IllegalAction("let_go_one_number")
    new = state._replace(
        hands=_set(state.hands, player, hand), discard=state.discard + tuple(cards)
    )
    return new, [LetGo(player, tuple(cards))], False


def _flip(state: State, player: int, action: Action) -> Outcome:
    """Flip-table mode: flip a table holding exactly 3 cards, discard them, gain momentum."""
    t = action.table
    if not state.flip_mode:
        raise IllegalAction("flip_mode_off")
    lying = state.tables[t]
    if len(lying) != 3:
        raise IllegalAction("flip_needs_three")
    flipped = _set(state.flipped, t, not state.flipped[t])
    new = state._replace(
        tables=_set(state.tables, t, ()), flipped=flipped, discard=state.discard + lying
    )
    return new, [Flipped(player, t, lying, table_topic(t, flipped[t]))], True


_HANDLERS = {
    BABBLE: _babble,
    CUT_OFF: _cut_off,
    ARGUE: _argue,
    LISTEN: _listen,
    LET_GO: _let_go,
    FLIP: _flip,
}


def _after_action(
    state: State, player: int, momentum: bool, events: list[Event]
) -> tuple[State, list[Event]]:
    """Momentum, the next player, and the round's end (empty hand or a stuck player)."""
    if not state.hands[player]:
        return _end_round(state, events, emptied_by=player)
    if momentum and not state.momentum:  # at most once a turn
        events.append(MomentumGained(player))
        state = state._replace(momentum=True)
    else:
        state = state._replace(turn=(player + 1) % state.players, momentum=False)
    if not can_act(state, state.turn):
        events.append(Stuck(state.turn))
        return _end_round(state, events, emptied_by=None)
    return state, events


# --- round and game end --------------------------------------------------------------------


def round_ranking(state: State) -> list[tuple[int, int, int]]:
    """(player, ego, hand sum), best first: ego = collected - cards in hand; ties go to the
    smaller hand sum, then to the player farther clockwise from the round's first player."""
    n = state.players
    rows = []
    for p in range(n):
        ego = len(state.egos[p]) - len(state.hands[p])
        hand_sum = sum(NUMBER[c] for c in state.hands[p])
        rows.append((p, ego, hand_sum))
    rows.sort(key=lambda r: (-r[1], r[2], -((r[0] - state.first) % n)))
    return rows


def _end_round(
    state: State, events: list[Event], emptied_by: int | None
) -> tuple[State, list[Event]]:
    ranking = round_ranking(state)
    trophies = list(state.trophies)
    scores = []
    for place, (p, ego, hand_sum) in enumerate(ranking, start=1):
        won = TROPHIES_FOR_PLACE[place - 1] if place <= len(TROPHIES_FOR_PLACE) else 0
        trophies[p] += won
        scores.append(
            RoundScore(p, place, ego, len(state.egos[p]), len(state.hands[p]), hand_sum, won)
        )
    order = tuple(p for p, _, _ in ranking)
    state = state._replace(trophies=tuple(trophies), last_ranking=order)
    events.append(RoundEnded(state.round, emptied_by, tuple(scores), tuple(trophies)))
    if state.round >= ROUNDS or max(trophies) >= TROPHIES_TO_END:
        final = final_ranking(state)
        early = state.round < ROUNDS
        events.append(GameEnded(final, tuple(trophies), state.round, early))
        return state._replace(over=True, momentum=False), events
    # the first-player card goes to the last placed player
    state, started = _deal(state, state.round + 1, order[-1], humblest=False)
    return state, events + started


def final_ranking(state: State) -> tuple[int, ...]:
    """Most trophies first; ties go to the better place in the last round."""
    place = {p: i for i, p in enumerate(state.last_ranking)}
    return tuple(sorted(range(state.players), key=lambda p: (-state.trophies[p], place[p])))


def result(state: State) -> tuple[Placing, ...]:
    return tuple(Placing(p, i + 1, state.trophies[p]) for i, p in enumerate(final_ranking(state)))


# --- codes and stored form -----------------------------------------------------------------


def encode_action(action: Action) -> str:
    """E.g. "a1.3.4.5" (argue 3 cards on table 1), "c0" (cut off table 0), "g.7.16"."""
    table = "" if action.table == NO_TABLE else str(action.table)
    return action.kind + table + "".join(f".{c}" for c in action.cards)


def decode_action(code: str) -> Action:
    try:
        head, *cards = code.split(".")
        kind, table = head[:1], head[1:]
        if kind not in KINDS:
            raise ValueError(kind)
        action = Action(kind, int(table) if table else NO_TABLE, tuple(int(c) for c in cards))
    except (ValueError, IndexError):
        raise IllegalAction("bad_action") from None
    if encode_action(action) != code:  # int() also reads " 5", "0_5", "-1", "05", "٥"
        raise IllegalAction("bad_action")
    return action


def dump(state: State) -> list[Any]:
    return [
        state.players,
        int(state.flip_mode),
        int(state.strict),
        state.rng,
        state.round,
        state.first,
        state.turn,
        int(state.momentum),
        [list(h) for h in state.hands],
        [list(t) for t in state.tables],
        [int(f) for f in state.flipped],
        [list(e) for e in state.egos],
        list(state.discard),
        state.facedown,
        list(state.trophies),
        list(state.last_ranking),
        int(state.over),
    ]


def load(data: list[Any]) -> State:
    (players, flip, strict, rng, rnd, first, turn, momentum) = data[:8]
    hands, tables, flipped, egos, discard, facedown, trophies, last, over = data[8:]
    return State(
        players=int(players),
        flip_mode=bool(flip),
        strict=bool(strict),
        rng=int(rng),
        round=int(rnd),
        first=int(first),
        turn=int(turn),
        momentum=bool(momentum),
        hands=tuple(tuple(h) for h in hands),
        tables=tuple(tuple(t) for t in tables),
        flipped=tuple(bool(f) for f in flipped),
        egos=tuple(tuple(e) for e in egos),
        discard=tuple(discard),
        facedown=int(facedown),
        trophies=tuple(trophies),
        last_ranking=tuple(last),
        over=bool(over),
    )
