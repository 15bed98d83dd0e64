"""Egonomy's rules: state, actions, legality, and what each action does.

The rulebook (seeds 000 Thai, 001 Japanese) and the project's rulings (RULINGS.md) are quoted
in the tests; this module keeps each rule in one function.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, pairwise, product
from typing import Any, NamedTuple

from engine.core import GameSpec, IllegalAction, Options, OptionSpec, Placing, Rng, seed_state
from engine.egonomy.cards import (
    CARDS,
    NO_MARK,
    NUMBER,
    TABLES,
    TOPIC,
    cards_in_play,
    table_topic,
)
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


_new = tuple.__new__  # a State from a list of its 17 fields in one step (no keyword parsing)


# --- setup -------------------------------------------------------------------------------


def new_game(players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
    """Set up round 1: the bot picks the first player at random
    (docs/rulings.md#egonomy-first-player-rounds-and-ties)."""
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
    hands = tuple([tuple(sorted(deck[i::n])) for i in range(n)])
    s = list(state)
    # rng, round, first, turn, momentum, hands, tables, flipped, egos, discard, facedown
    fields = (rng.state, round_no, first, first, False, hands, _NO_TABLES, _UNFLIPPED)
    s[3:14] = (*fields, ((),) * n, (), facedown)
    return _new(State, s), [RoundStarted(round_no, first, humblest)]


_NO_TABLES: tuple[tuple[int, ...], ...] = ((),) * TABLES
_UNFLIPPED = (False,) * TABLES


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
    (docs/rulings.md#egonomy-argue-and-momentum), or every card with "strict topics"."""
    bit = 1 << topic
    return mask == bit if strict else bool(mask & bit)


# Every action object is made once and shared (actions are immutable): listing the legal
# actions is the hot loop of computer players' playouts.
_ALL_CARDS = range(len(NUMBER))
_BABBLE = tuple(tuple(Action(BABBLE, t, (c,)) for c in _ALL_CARDS) for t in range(TABLES))
_LISTEN = tuple(tuple(Action(LISTEN, t, (c,)) for c in _ALL_CARDS) for t in range(TABLES))
_BABBLE_OF = tuple(actions.__getitem__ for actions in _BABBLE)  # card -> its babble on table t
_LISTEN_OF = tuple(actions.__getitem__ for actions in _LISTEN)
_CUT_OFF = tuple(Action(CUT_OFF, t) for t in range(TABLES))
_FLIP = tuple(Action(FLIP, t) for t in range(TABLES))
_SHOWN = tuple((table_topic(t, False), table_topic(t, True)) for t in range(TABLES))

# A sequence row: (its rank, see `_rank`; topic bit mask; its argue action on each table).
SequenceRow = tuple[int, int, tuple[Action, ...]]


def _rank(size: int, top: int) -> int:
    """Sequences and tables in one order: more cards first, then the higher top number."""
    return size * 16 + top


def _row(cards: tuple[int, ...]) -> SequenceRow:
    argue = tuple(Action(ARGUE, t, cards) for t in range(TABLES))
    return _rank(len(cards), NUMBER[cards[-1]]), topic_mask(cards), argue


# Every pair and triple of cards with consecutive numbers, looked up by (a*N + b)*N + c.
_N = len(NUMBER)
_PAIRS: list[SequenceRow | None] = [None] * (_N * _N)
_TRIPLES: list[SequenceRow | None] = [None] * (_N * _N * _N)
for _a in _ALL_CARDS:
    for _b in _ALL_CARDS:
        if NUMBER[_b] == NUMBER[_a] + 1:
            _PAIRS[_a * _N + _b] = _row((_a, _b))
            for _c in _ALL_CARDS:
                if NUMBER[_c] == NUMBER[_b] + 1:
                    _TRIPLES[(_a * _N + _b) * _N + _c] = _row((_a, _b, _c))

# What a hand can do whatever lies on the tables (copies of one card counted once): per
# topic the cards that could be babbled, the sequences, the let-go actions.
HandIndex = tuple[tuple[list[int], list[int], list[int]], list[SequenceRow], list[Action]]

# Hand indexes by hand. A hand rarely comes back once changed, so this holds only the hands
# of recent positions and is emptied when full.
_INDEX: dict[tuple[int, ...], HandIndex] = {}
_INDEX_SIZE = 1 << 6


def hand_index(hand: tuple[int, ...]) -> HandIndex:
    """The index of a sorted hand, from the cache of recent hands or built."""
    index = _INDEX.get(hand)
    return index if index is not None else _index_built(hand)


def _index_built(hand: tuple[int, ...]) -> HandIndex:
    """Build a hand's index in one pass over the hand (sorted by card id, so a card's first
    copy comes first) and keep it. The sequences and let-gos of each number come from tables
    by what the hand holds of that number and the next two (see `_HELD`)."""
    held = [0] * 12  # by number: the cards of that number in the hand, as `_HELD` bits
    numbers: list[int] = []  # in the order they first appear in the hand
    babbles: tuple[list[int], list[int], list[int]] = ([], [], [])
    for c in hand:
        n = NUMBER[c]
        bits = held[n]
        if not bits:
            numbers.append(n)
        elif bits & _TWIN_HELD[c]:  # the first copy came before: no babble of its own
            held[n] = bits | _HELD[c]
            continue
        held[n] = bits | _HELD[c]
        babbles[TOPIC[c]].append(c)
    rows: list[SequenceRow] = []
    let_go: list[Action] = []
    for n in numbers:
        bits = held[n]
        if held[n + 1]:  # second copies left out: they make no other sequence
            key = (n * 64 + _ONE_COPY[bits]) * 64 + _ONE_COPY[held[n + 1]]
            key = key * 64 + _ONE_COPY[held[n + 2]]
            found = _ROWS_FROM.get(key)
            rows += found if found is not None else _rows_from(key)
        if bits & (bits - 1):  # two cards or more of this number
            key = n * 64 + bits
            known = _LET_GOS.get(key)
            let_go += known if known is not None else _let_gos(key)
    if len(_INDEX) >= _INDEX_SIZE:
        _INDEX.clear()
    index = _INDEX[hand] = babbles, rows, let_go
    return index


# What a hand holds of one number, as bits: topic t's unmarked card 1 << 2t, its marked copy
# (3-4 players) 2 << 2t. A marked copy comes after its unmarked twin in a sorted hand.
_HELD = tuple((1 if CARDS[c].mark == NO_MARK else 2) << 2 * TOPIC[c] for c in _ALL_CARDS)
_TWIN_HELD = tuple(0 if CARDS[c].mark == NO_MARK else 1 << 2 * TOPIC[c] for c in _ALL_CARDS)
_CARD_HELD = {(NUMBER[c], _HELD[c]): c for c in _ALL_CARDS}
# The bits without the marked copies whose unmarked twin is held.
_ONE_COPY = tuple(bits & ~((bits & 0b010101) << 1) for bits in range(64))


def _cards_held(n: int, bits: int) -> tuple[list[int], list[int]]:
    """The cards of number `n` that `bits` hold, in id order: one copy of each card (the
    unmarked ones, then marked copies held alone), and the second copies."""
    one = [_CARD_HELD[n, bit] for bit in (1, 4, 16) if bits & bit]
    one += [_CARD_HELD[n, bit << 1] for bit in (1, 4, 16) if bits & 3 * bit == bit << 1]
    second = [_CARD_HELD[n, bit << 1] for bit in (1, 4, 16) if bits & 3 * bit == 3 * bit]
    return one, second


# The sequences starting with number n, by what the hand holds of n, n+1 and n+2 (the key of
# `_index_built`), in the order of their cards' ids; filled as hands need them.
_ROWS_FROM: dict[int, tuple[SequenceRow, ...]] = {}


def _rows_from(key: int) -> tuple[SequenceRow, ...]:
    """The sequences of a key of `_ROWS_FROM`, kept there."""
    rest, high_bits = divmod(key, 64)
    rest, mid_bits = divmod(rest, 64)
    n, bits = divmod(rest, 64)
    mid, high = _cards_held(n + 1, mid_bits)[0], _cards_held(n + 2, high_bits)[0]
    rows: list[SequenceRow] = []
    for a in _cards_held(n, bits)[0]:
        for b in mid:
            rows.append(_PAIRS[a * _N + b])  # type: ignore[arg-type]
            rows += (_TRIPLES[(a * _N + b) * _N + c] for c in high)  # type: ignore[misc]
    if len(_ROWS_FROM) >= _ROWS_SIZE:
        _ROWS_FROM.clear()
    found = _ROWS_FROM[key] = tuple(rows)
    return found


_ROWS_SIZE = 1 << 15

# The let-go actions of two or more cards of number n, by n * 64 + what the hand holds of n.
_LET_GOS: dict[int, tuple[Action, ...]] = {}


def _let_gos(key: int) -> tuple[Action, ...]:
    one, second = _cards_held(*divmod(key, 64))
    if second:
        found = _let_go_choices(tuple(sorted(one + second)), False)
    else:
        found = _let_go_choices(tuple(one), True)
    _LET_GOS[key] = found
    return found


# The let-go choices of some cards of one number, by whether they are all distinct (no two
# copies of one card), then by the cards.
_LET_GO: dict[bool, dict[tuple[int, ...], tuple[Action, ...]]] = {True: {}, False: {}}


def _let_go_choices(same: tuple[int, ...], distinct: bool) -> tuple[Action, ...]:
    """Every group of two or more of these cards of one number; copies of a card count once."""
    choices = _LET_GO[distinct].get(same)
    if choices is None:
        groups = [g for k in range(2, len(same) + 1) for g in combinations(same, k)]
        if not distinct:
            unique = {tuple(sorted(TOPIC[c] for c in g)): g for g in reversed(groups)}
            groups = sorted(unique.values())
        choices = _LET_GO[distinct][same] = tuple(Action(LET_GO, NO_TABLE, g) for g in groups)
    return choices


@lru_cache(maxsize=4096)
def _strength(table: tuple[int, ...]) -> tuple[int, int, bool]:
    """(cards, highest number, is 789) of what lies on a table."""
    if not table:
        return 0, 0, False
    top = max(NUMBER[c] for c in table)
    return len(table), top, len(table) == 3 and top == FALLACY_VICTIM[-1]


_FALLACY_RANK = _rank(len(FALLACY), FALLACY[-1])
_NOT_A_RANK = -1
_BARS: dict[tuple[int, ...], tuple[int, int]] = {}


def _bar(lying: tuple[int, ...]) -> tuple[int, int]:
    """What a sequence must beat on a table with 2 or more cards: (rank to exceed, the one
    lower rank that also wins: the fallacy 123 on 789) (see `beats`)."""
    bar = _BARS.get(lying)
    if bar is None:
        if len(_BARS) >= _INDEX_SIZE:
            _BARS.clear()
        size, top, victim = _strength(lying)
        bar = _BARS[lying] = _rank(size, top), _FALLACY_RANK if victim else _NOT_A_RANK
    return bar


_OPEN = (0, _NOT_A_RANK)  # an empty table or a single card: every sequence wins


def _argues(
    rows: list[SequenceRow], t: int, topic: int, lying: tuple[int, ...], strict: bool
) -> list[Action]:
    """The argues of these sequences that are legal on table `t` (see `fits` and `beats`)."""
    bit = 1 << topic
    over, also = _bar(lying) if len(lying) > 1 else _OPEN
    if strict:
        return [a[t] for r, m, a in rows if m == bit and (r > over or r == also)]
    return [a[t] for r, m, a in rows if m & bit and (r > over or r == also)]


# For each way the tables may lie flipped: the topic each shows, and those topics as bits.
_SIDES = {
    sides: (shown, 1 << shown[0], 1 << shown[1], 1 << shown[2])
    for sides in product((False, True), repeat=TABLES)
    for shown in [tuple(table_topic(t, sides[t]) for t in range(TABLES))]
}


# --- legal actions -------------------------------------------------------------------------


def topics(state: State) -> tuple[int, ...]:
    """The topic each table shows now."""
    f = state.flipped
    return (_SHOWN[0][f[0]], _SHOWN[1][f[1]], _SHOWN[2][f[2]])


def legal_actions(state: State, player: int) -> list[Action]:
    """Every action `player` may take now; only the player to move ever has any."""
    global _listed
    if state.over or player != state.turn:
        return []
    hand = state.hands[player]
    index = _INDEX.get(hand)
    babbles, rows, let_go = index if index is not None else _index_built(hand)
    tables = state.tables
    shown, bit0, bit1, bit2 = _SIDES[state.flipped]
    listen, flip = state.players >= 3, state.flip_mode
    out: list[Action] = []
    for t in range(TABLES):
        lying = tables[t]
        size = len(lying)
        if size == 0:
            out.extend(map(_BABBLE_OF[t], babbles[shown[t]]))
        elif size == 1:
            out.append(_CUT_OFF[t])
        elif listen:
            out.extend(map(_LISTEN_OF[t], lying))
        if size == 3 and flip:
            out.append(_FLIP[t])
    if rows:  # one pass over the sequences for the three tables
        lying = tables[0]  # each table's bar, from the cache when it is there
        over0, also0 = (_BARS.get(lying) or _bar(lying)) if len(lying) > 1 else _OPEN
        lying = tables[1]
        over1, also1 = (_BARS.get(lying) or _bar(lying)) if len(lying) > 1 else _OPEN
        lying = tables[2]
        over2, also2 = (_BARS.get(lying) or _bar(lying)) if len(lying) > 1 else _OPEN
        on0: list[Action] = []
        on1: list[Action] = []
        on2: list[Action] = []
        if state.strict:
            for r, m, a in rows:
                if m == bit0 and (r > over0 or r == also0):
                    on0.append(a[0])
                if m == bit1 and (r > over1 or r == also1):
                    on1.append(a[1])
                if m == bit2 and (r > over2 or r == also2):
                    on2.append(a[2])
        else:
            for r, m, a in rows:
                if m & bit0 and (r > over0 or r == also0):
                    on0.append(a[0])
                if m & bit1 and (r > over1 or r == also1):
                    on1.append(a[1])
                if m & bit2 and (r > over2 or r == also2):
                    on2.append(a[2])
        out += on0
        out += on1
        out += on2
    out += let_go
    _listed = state, tuple(out)
    return out


# The last state whose legal actions were listed, and those actions: `apply` need not check
# an action it finds there again.
_listed: tuple[State | None, tuple[Action, ...]] = (None, ())


def can_act(state: State, player: int) -> bool:  # docs/rulings.md#egonomy-a-stuck-player
    """Whether `player` has any legal action (cheap checks first)."""
    tables = state.tables
    listen, flip = state.players >= 3, state.flip_mode
    for lying in tables:
        size = len(lying)
        if size == 1 or (size >= 2 and listen) or (size == 3 and flip):
            return True
    babbles, rows, let_go = hand_index(state.hands[player])
    if let_go:
        return True
    f = state.flipped
    for t in range(TABLES):
        if not tables[t] and babbles[_SHOWN[t][f[t]]]:
            return True
    return any(_argues(rows, t, _SHOWN[t][f[t]], tables[t], state.strict) for t in range(TABLES))


# --- applying an action --------------------------------------------------------------------


def apply(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """Check and carry out one action; raises IllegalAction and changes nothing if refused."""
    listed, actions = _listed
    if state is listed and action in actions and player == state.turn:
        kind, table, cards = action  # just listed as legal: nothing to check
        return _TRUSTED[kind](state, player, table, cards)
    if state.over:
        raise IllegalAction("game_over")
    if player != state.turn:
        raise IllegalAction("not_your_turn", player=state.turn)
    kind, table, cards = action
    handler = _HANDLER_AT.get((kind, table))  # None: a malformed action, refused below
    if handler is None or (kind in (CUT_OFF, FLIP) and cards):
        if _HANDLERS.get(kind) is None or (kind in (CUT_OFF, FLIP) and cards):
            raise IllegalAction("bad_action")
        if kind == LET_GO:
            raise IllegalAction("bad_action")  # a let-go names no table, a cut-off or flip no cards
        raise IllegalAction("no_such_table")
    return _after_action(state, player, handler(state, player, table, cards))


def play(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """`apply` for an action listed by `legal_actions(state, player)`, its checks skipped: for
    computer players' playouts. Anything else may leave a broken state."""
    kind, table, cards = action
    return _TRUSTED[kind](state, player, table, cards)


def _take_from_hand(state: State, player: int, cards: tuple[int, ...]) -> tuple[int, ...]:
    hand = state.hands[player]
    if len(cards) == 1:
        if cards[0] not in hand:
            raise IllegalAction("card_not_in_hand")
        i = hand.index(cards[0])
        return hand[:i] + hand[i + 1 :]
    left = list(hand)
    for c in cards:
        if c not in left:
            raise IllegalAction("card_not_in_hand")
        left.remove(c)
    return tuple(left)


def _set(seq: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*seq[:index], value, *seq[index + 1 :])


# What an action changes: the actor's hand, the tables, the flipped sides, the ego piles, the
# discard pile; what happened; whether it gains momentum.
Outcome = tuple[
    tuple[int, ...],
    tuple[tuple[int, ...], ...],
    tuple[bool, ...],
    tuple[tuple[int, ...], ...],
    tuple[int, ...],
    Event,
    bool,
]
Played = tuple[State, list[Event]]  # the new state and what happened


def _babble(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """Put one card on an empty topic table that matches the card's topic."""
    if len(cards) != 1:
        raise IllegalAction("babble_one_card")
    hand = _take_from_hand(state, player, cards)
    card = cards[0]
    tables = state.tables
    if len(tables[t]) == 1:
        raise IllegalAction("babble_on_single")  # single cards never beat each other
    if tables[t]:
        raise IllegalAction("babble_needs_empty_table")
    if TOPIC[card] != _SHOWN[t][state.flipped[t]]:
        raise IllegalAction("babble_topic")
    tables = _set(tables, t, (card,))
    return hand, tables, state.flipped, state.egos, state.discard, Babbled(player, t, card), False


def _cut_off(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """Take the card from a table holding exactly one card into your ego pile."""
    lying = state.tables[t]
    if len(lying) != 1:
        raise IllegalAction("cut_off_needs_single")
    egos = _set(state.egos, player, state.egos[player] + lying)
    tables = _set(state.tables, t, ())
    event = CutOff(player, t, lying[0])
    return state.hands[player], tables, state.flipped, egos, state.discard, event, False


def _argue(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """Play a sequence that wins on a table; collect what lay there; momentum if on topic."""
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = _take_from_hand(state, player, cards)
    if not is_sequence(cards):
        raise IllegalAction("not_a_sequence")
    topic = _SHOWN[t][state.flipped[t]]
    mask = topic_mask(cards)
    if not fits(mask, topic, state.strict):
        raise IllegalAction("argue_topic_strict" if state.strict else "argue_topic")
    lying = state.tables[t]
    size, top, strength = len(cards), max(NUMBER[c] for c in cards), _strength(lying)
    if not beats(size, top, strength):
        raise IllegalAction("argue_fewer_cards" if size < len(lying) else "argue_not_higher")
    fallacy = strength[2] and size == 3 and top == FALLACY[-1]
    ordered = tuple(sorted(cards, key=NUMBER.__getitem__))
    tables = _set(state.tables, t, ordered)
    egos = _set(state.egos, player, state.egos[player] + lying)
    on_topic = mask == 1 << topic  # every card has the table's topic
    event = Argued(player, t, ordered, lying, fallacy)
    return hand, tables, state.flipped, egos, state.discard, event, on_topic


# The trusted handlers below build the new state's fields in a list `s` (a copy of the old
# state's: hands at 8, tables 9, flipped 10, egos 11, discard 12) and hand it to `_next`. The
# events they report are made once and shared (events are never changed) when they name only
# a player, a table and a card.
_BABBLED = tuple(
    tuple(tuple(Babbled(p, t, c) for c in _ALL_CARDS) for t in range(TABLES))
    for p in range(SPEC.max_players)
)
_CUT = tuple(
    tuple(tuple(CutOff(p, t, c) for c in _ALL_CARDS) for t in range(TABLES))
    for p in range(SPEC.max_players)
)
_MOMENTUM = tuple(MomentumGained(p) for p in range(SPEC.max_players))


def _babble_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_babble` without its checks, for a listed babble."""
    s = list(state)
    card = cards[0]
    hand = state.hands[player]
    i = hand.index(card)
    hand = hand[:i] + hand[i + 1 :]
    hands = list(state.hands)
    hands[player] = hand
    s[8] = tuple(hands)
    tables = list(state.tables)
    tables[t] = cards
    s[9] = tuple(tables)
    return _next(s, player, hand, _BABBLED[player][t][card], False)


def _cut_off_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_cut_off` without its check, for a listed cut-off."""
    s = list(state)
    lying = state.tables[t]
    tables = list(state.tables)
    tables[t] = ()
    s[9] = tuple(tables)
    egos = list(state.egos)
    egos[player] += lying
    s[11] = tuple(egos)
    return _next(s, player, state.hands[player], _CUT[player][t][lying[0]], False)


def _argue_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_argue` without its checks, for a listed argue (its cards ordered by number)."""
    s = list(state)
    left = list(state.hands[player])
    for c in cards:
        left.remove(c)
    hand = tuple(left)
    hands = list(state.hands)
    hands[player] = hand
    s[8] = tuple(hands)
    lying = state.tables[t]
    topic = _SHOWN[t][state.flipped[t]]
    if len(cards) == 2:
        fallacy = False
        on_topic = TOPIC[cards[0]] == topic and TOPIC[cards[1]] == topic
    else:
        fallacy = NUMBER[cards[2]] == FALLACY[-1] and _strength(lying)[2]
        on_topic = TOPIC[cards[0]] == topic and TOPIC[cards[1]] == topic == TOPIC[cards[2]]
    tables = list(state.tables)
    tables[t] = cards
    s[9] = tuple(tables)
    egos = list(state.egos)
    egos[player] += lying
    s[11] = tuple(egos)
    return _next(s, player, hand, Argued(player, t, cards, lying, fallacy), on_topic)


def _listen_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_listen` without its checks, for a listed listen."""
    s = list(state)
    lying = state.tables[t]
    card = cards[0]
    i = lying.index(card)
    rest = lying[:i] + lying[i + 1 :]
    hand = tuple(sorted(state.hands[player] + cards))
    hands = list(state.hands)
    hands[player] = hand
    s[8] = tuple(hands)
    tables = list(state.tables)
    tables[t] = ()
    s[9] = tuple(tables)
    s[12] = state.discard + rest
    return _next(s, player, hand, Listened(player, t, card, rest), True)


def _let_go_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_let_go` without its checks, for a listed let-go."""
    s = list(state)
    left = list(state.hands[player])
    for c in cards:
        left.remove(c)
    hand = tuple(left)
    hands = list(state.hands)
    hands[player] = hand
    s[8] = tuple(hands)
    s[12] = state.discard + cards
    return _next(s, player, hand, LetGo(player, cards), False)


def _flip_trusted(state: State, player: int, t: int, cards: tuple[int, ...]) -> Played:
    """`_flip` without its checks, for a listed flip."""
    s = list(state)
    lying = state.tables[t]
    side = not state.flipped[t]
    s[10] = _set(state.flipped, t, side)
    tables = list(state.tables)
    tables[t] = ()
    s[9] = tuple(tables)
    s[12] = state.discard + lying
    event = Flipped(player, t, lying, _SHOWN[t][side])
    return _next(s, player, state.hands[player], event, True)


def _listen(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """3-4 players: take one card of a table with 2+ cards into your hand, discard the rest."""
    if state.players < 3:
        raise IllegalAction("listen_needs_three_players")
    lying = state.tables[t]
    if len(lying) < 2:
        raise IllegalAction("listen_needs_two_cards")
    if len(cards) != 1 or cards[0] not in lying:
        raise IllegalAction("listen_card_not_on_table")
    card = cards[0]
    rest = tuple(c for c in lying if c != card)
    hand = tuple(sorted(state.hands[player] + (card,)))
    tables = _set(state.tables, t, ())
    event = Listened(player, t, card, rest)
    return hand, tables, state.flipped, state.egos, state.discard + rest, event, True


def _let_go(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """Discard two or more cards of one number from your hand, face up."""
    if len(cards) < 2:
        raise IllegalAction("let_go_needs_two")
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = _take_from_hand(state, player, cards)
    if len({NUMBER[c] for c in cards}) != 1:
        raise IllegalAction("let_go_one_number")
    cards = tuple(cards)
    discard = state.discard + cards
    return hand, state.tables, state.flipped, state.egos, discard, LetGo(player, cards), False


def _flip(state: State, player: int, t: int, cards: tuple[int, ...]) -> Outcome:
    """Flip-table mode: flip a table holding exactly 3 cards, discard them, gain momentum."""
    if not state.flip_mode:
        raise IllegalAction("flip_mode_off")
    lying = state.tables[t]
    if len(lying) != 3:
        raise IllegalAction("flip_needs_three")
    flipped = _set(state.flipped, t, not state.flipped[t])
    tables = _set(state.tables, t, ())
    event = Flipped(player, t, lying, table_topic(t, flipped[t]))
    return state.hands[player], tables, flipped, state.egos, state.discard + lying, event, True


_HANDLERS = {
    BABBLE: _babble,
    CUT_OFF: _cut_off,
    ARGUE: _argue,
    LISTEN: _listen,
    LET_GO: _let_go,
    FLIP: _flip,
}


# The handlers of `play`, for listed actions only.
_TRUSTED = {
    BABBLE: _babble_trusted,
    CUT_OFF: _cut_off_trusted,
    ARGUE: _argue_trusted,
    LISTEN: _listen_trusted,
    LET_GO: _let_go_trusted,
    FLIP: _flip_trusted,
}


# The handler of each well-formed (kind, table): a let-go names no table, the others one.
_HANDLER_AT = {
    (kind, table): handler
    for kind, handler in _HANDLERS.items()
    for table in ((NO_TABLE,) if kind == LET_GO else range(TABLES))
}


def _after_action(state: State, player: int, outcome: Outcome) -> Played:
    """The state after a checked action (see `_next`)."""
    hand, tables, flipped, egos, discard, event, momentum = outcome
    s = list(state)
    hands = list(state.hands)
    hands[player] = hand
    s[8:13] = tuple(hands), tables, flipped, egos, discard
    return _next(s, player, hand, event, momentum)


def _next(s: list[Any], player: int, hand: tuple[int, ...], event: Event, momentum: bool) -> Played:
    """The new state from its fields `s` (the actor's `hand` among them), then momentum, the
    next player, and the round's end (empty hand or a stuck player)."""
    if not hand:
        return _end_round(_new(State, s), [event], emptied_by=player)
    players = s[0]
    if momentum and not s[7]:  # at most once a turn
        s[7] = True
        events = [event, _MOMENTUM[player]]
        turn = player
    else:
        turn = s[6] = (player + 1) % players
        s[7] = False
        events = [event]
    new = _new(State, s)
    # `can_act`'s first check, inline: a table offers a cut-off, a listen (3-4 players) or a flip
    if players >= 3:
        for lying in s[9]:
            if lying:
                return new, events
    else:
        flip = s[1]
        for lying in s[9]:
            size = len(lying)
            if size == 1 or (size == 3 and flip):
                return new, events
    if not can_act(new, turn):
        events.append(Stuck(turn))
        return _end_round(new, events, emptied_by=None)
    return new, events


# --- round and game end --------------------------------------------------------------------


def round_ranking(state: State) -> list[tuple[int, int, int]]:
    """(player, ego, hand sum), best first: ego = collected - cards in hand; ties go to the
    smaller hand sum, then to the player farther clockwise from the round's first player."""
    n, first, number = state.players, state.first, NUMBER.__getitem__
    rows = [
        (p, len(ego) - len(hand), sum(map(number, hand)))
        for p, (hand, ego) in enumerate(zip(state.hands, state.egos, strict=True))
    ]
    rows.sort(key=lambda r: (-r[1], r[2], -((r[0] - first) % n)))
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
    order = tuple([p for p, _, _ in ranking])
    s = list(state)
    s[14:16] = tuple(trophies), order  # trophies, last_ranking
    state = _new(State, s)
    events.append(RoundEnded(state.round, emptied_by, tuple(scores), tuple(trophies)))
    if state.round >= ROUNDS or max(trophies) >= TROPHIES_TO_END:
        final = final_ranking(state)
        early = state.round < ROUNDS
        events.append(GameEnded(final, tuple(trophies), state.round, early))
        s[7], s[16] = False, True  # momentum, over
        return _new(State, s), events
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
