"""Egonomy's rules: state, actions, legality, and what each action does.

The rulebook (seeds 000 Thai, 001 Japanese) and the project's rulings (docs/rulings.md) are quoted
in the tests; this module keeps each rule in one function.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, permutations, product
from typing import Any, NamedTuple

from engine.core import (
    GameSpec,
    IllegalAction,
    Options,
    OptionSpec,
    Placing,
    Rng,
    replaced,
    seed_state,
    with_item,
    without,
)
from engine.egonomy.cards import (
    CARDS,
    FIRST_COPY,
    NO_MARK,
    NUMBER,
    TABLES,
    TOPIC,
    TOPICS,
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
    dealt = replaced(
        state,
        {
            "rng": rng.state,
            "round": round_no,
            "first": first,
            "turn": first,
            "momentum": False,
            "hands": tuple(tuple(sorted(deck[i::n])) for i in range(n)),
            "tables": ((),) * TABLES,
            "flipped": (False,) * TABLES,
            "egos": ((),) * n,
            "discard": (),
            "facedown": facedown,
        },
    )
    return dealt, [RoundStarted(round_no, first, humblest)]


# --- sequences and winning an argument -----------------------------------------------------


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


def _rank(size: int, top: int) -> int:
    """Sequences and tables in one order: more cards first, then the higher top number."""
    return size * 16 + top


class Run(NamedTuple):
    """A sequence a hand may argue with: its cards ordered by number, its rank (`_rank`), its
    topics as bits (`topic_mask`), the topics of the tables it `fits` without and with
    "strict topics", and (its rank, its argue on each table) as `_argues` reads them."""

    cards: tuple[int, ...]
    rank: int
    topics: int
    fits_on: tuple[tuple[int, ...], tuple[int, ...]]
    listed: tuple[int, tuple[Action, ...]]


def _run(cards: tuple[int, ...]) -> Run:
    mask = topic_mask(cards)
    argue = tuple(Action(ARGUE, t, cards) for t in range(TABLES))
    rank = _rank(len(cards), NUMBER[cards[-1]])
    loose, strict = (tuple(t for t in range(TOPICS) if fits(mask, t, s)) for s in (False, True))
    return Run(cards, rank, mask, (loose, strict), (rank, argue))


# Every sequence of the deck, by its cards ordered by number: 2 or 3 cards with consecutive
# numbers (12, 123, 789; never 11, 122 or 912).
_CARD_IDS = range(len(CARDS))
SEQUENCES: dict[tuple[int, ...], Run] = {
    run: _run(run)
    for a in _CARD_IDS
    for b in _CARD_IDS
    if NUMBER[b] == NUMBER[a] + 1
    for run in ((a, b), *((a, b, c) for c in _CARD_IDS if NUMBER[c] == NUMBER[b] + 1))
}


# The same, by a pair's cards and NO_CARD or a triple's cards; and by their cards in any order.
NO_CARD = -1
_RUN_AT = {(*cards, NO_CARD)[:3]: run for cards, run in SEQUENCES.items()}
_SEQUENCE_OF = {order: run for cards, run in SEQUENCES.items() for order in permutations(cards)}


def is_sequence(cards: tuple[int, ...]) -> bool:
    """2 or 3 cards with consecutive numbers, in any order."""
    return tuple(cards) in _SEQUENCE_OF


_FALLACY_RANK = _rank(len(FALLACY), FALLACY[-1])
_NOT_A_RANK = -1


def _bar(lying: tuple[int, ...]) -> tuple[int, int]:
    """What a sequence must beat on a table (its cards ordered by number): (a rank to exceed,
    one lower rank that wins too). An empty table or a single card is always beaten; more
    cards beat fewer; with as many cards the higher sequence wins (equal loses); the fallacy
    123 also beats 789."""
    if len(lying) < 2:
        return 0, _NOT_A_RANK
    top = NUMBER[lying[-1]]
    victim = len(lying) == len(FALLACY_VICTIM) and top == FALLACY_VICTIM[-1]
    return _rank(len(lying), top), _FALLACY_RANK if victim else _NOT_A_RANK


class _Bars(dict[tuple[int, ...], tuple[int, int]]):
    """`_bar` of what may lie on a table (nothing, a card, a sequence), worked out at import;
    anything else is worked out when asked."""

    def __missing__(self, lying: tuple[int, ...]) -> tuple[int, int]:
        return _bar(lying)


_BARS = _Bars({lying: _bar(lying) for lying in ((), *((c,) for c in _CARD_IDS), *SEQUENCES)})


# A let-go discards two or more cards of one number. The let-go actions of every group of
# cards of one number a hand may hold (in id order): every part of two or more of them; with
# two copies of a card, parts that differ only in which copy count once.
def _let_go_choices(cards: tuple[int, ...]) -> tuple[Action, ...]:
    groups = [g for k in range(2, len(cards) + 1) for g in combinations(cards, k)]
    if len({FIRST_COPY[c] for c in cards}) < len(cards):
        first: dict[tuple[int, ...], tuple[int, ...]] = {}
        for g in groups:  # by the topics the part shows
            first.setdefault(tuple(sorted(TOPIC[c] for c in g)), g)
        groups = sorted(first.values())
    return tuple(Action(LET_GO, NO_TABLE, g) for g in groups)


class NumberHeld(NamedTuple):
    """What a hand can do with the cards it holds of one number: those cards, a marked copy
    left out when its unmarked card is held too (the two play alike), the same after NO_CARD
    (the third numbers of a sequence: none, or one of these), and its let-gos."""

    distinct: tuple[int, ...]
    third: tuple[int, ...]
    let_gos: tuple[Action, ...]


# What a hand holds of one number, as bits: topic t's unmarked card 1 << 2t, its marked copy
# 2 << 2t; and for a marked copy, the bit of its unmarked card (0 for an unmarked card).
_HELD_BIT = tuple((1 if CARDS[c].mark == NO_MARK else 2) << 2 * TOPIC[c] for c in _CARD_IDS)
_COPY_OF_BIT = tuple(0 if FIRST_COPY[c] == c else _HELD_BIT[FIRST_COPY[c]] for c in _CARD_IDS)
# Each card's number, `_HELD_BIT`, topic and, for a marked copy, its unmarked card (else NO_CARD).
_HOLDING = tuple(
    (NUMBER[c], _HELD_BIT[c], TOPIC[c], NO_CARD if FIRST_COPY[c] == c else FIRST_COPY[c])
    for c in _CARD_IDS
)


def _number_held(number: int, bits: int) -> NumberHeld:
    cards = tuple(c for c in _CARD_IDS if NUMBER[c] == number and bits & _HELD_BIT[c])
    distinct = tuple(c for c in cards if not bits & _COPY_OF_BIT[c])
    let_gos = _let_go_choices(cards) if len(cards) > 1 else ()
    return NumberHeld(distinct, (NO_CARD, *distinct), let_gos)


# By number (0 to 10: above 9 nothing is held) and what a hand holds of it; its let-gos alone.
_NUMBER_HELD = tuple(tuple(_number_held(n, bits) for bits in range(64)) for n in range(11))
_LET_GOS = tuple(tuple(held.let_gos for held in by_bits) for by_bits in _NUMBER_HELD)
# What a hand holds of one number with a marked copy left out when its unmarked card is held
# (topic t's bit 2 << 2t cleared when 1 << 2t is set).
_ALIKE = tuple(bits & ~((bits & 0b010101) << 1) for bits in range(64))

# A hand's sequences as `_argues` reads them: by topic, the rank and the argue on each table of
# each sequence that `fits` a table of that topic.
Listed = tuple[tuple[tuple[int, tuple[Action, ...]], ...], ...]


def _listed(runs: Iterable[Run], strict: bool) -> Listed:
    by_topic: tuple[list[tuple[int, tuple[Action, ...]]], ...] = ([], [], [])
    for run in runs:
        for topic in run.fits_on[strict]:
            by_topic[topic].append(run.listed)
    return tuple(by_topic[0]), tuple(by_topic[1]), tuple(by_topic[2])


@lru_cache(maxsize=8192)  # the same holdings come again and again
def _runs_from(n: int, low: int, mid: int, high: int, strict: bool) -> Listed:
    """The sequences whose lowest number is `n`, from what a hand holds of the numbers n, n+1
    and n+2 (`_HELD_BIT`s, a marked copy left out when its unmarked card is held: `_ALIKE`):
    each pair, followed by the triples that extend it (`_RUN_AT`); as `_argues` reads them
    with "strict topics" or not."""
    pairs = _NUMBER_HELD[n][low].distinct, _NUMBER_HELD[n + 1][mid].distinct
    cards = product(*pairs, _NUMBER_HELD[n + 2][high].third)
    return _listed(map(_RUN_AT.__getitem__, cards), strict)


_TABLE_IDS = range(TABLES)

# The one-card actions, by table and card, and the actions of a table alone.
_BABBLE_ON = tuple(tuple(Action(BABBLE, t, (c,)) for c in _CARD_IDS) for t in range(TABLES))
_LISTEN_ON = tuple(tuple(Action(LISTEN, t, (c,)) for c in _CARD_IDS) for t in range(TABLES))
_CUT_OFF_ON = tuple(Action(CUT_OFF, t) for t in range(TABLES))
_FLIP_ON = tuple(Action(FLIP, t) for t in range(TABLES))

HandMoves = tuple[tuple[tuple[int, ...], ...], Listed, tuple[Action, ...]]


# A hand often stays the same from one turn to its next; small hands come again in other games.
@lru_cache(maxsize=4096)
def hand_moves(hand: tuple[int, ...], strict: bool) -> HandMoves:
    """What a sorted hand could do whatever lies on the tables, with "strict topics" or not: by
    topic, the cards it could babble (in hand order); its sequences as `_argues` reads them
    (`Listed`); its let-go actions. Two copies of a card count once (the marked one is left
    out); sequences and let-gos go by number, the numbers in the order they first appear in
    the hand."""
    held = [0] * 11  # by number, as `_HELD_BIT`s (above 9 nothing is held)
    numbers: list[int] = []
    babbles: tuple[list[int], list[int], list[int]] = ([], [], [])
    for c in hand:
        n, bit, topic, copy_of = _HOLDING[c]
        if not held[n]:
            numbers.append(n)
        held[n] += bit
        if copy_of == NO_CARD or copy_of not in hand:
            babbles[topic].append(c)
    listed: tuple[list[tuple[int, tuple[Action, ...]]], ...] = ([], [], [])
    let_gos: list[Action] = []
    for n in numbers:
        low, mid = held[n], held[n + 1]
        if mid:
            by_topic = _runs_from(n, _ALIKE[low], _ALIKE[mid], _ALIKE[held[n + 2]], strict)
            listed[0].extend(by_topic[0])
            listed[1].extend(by_topic[1])
            listed[2].extend(by_topic[2])
        let_gos += _LET_GOS[n][low]
    return (
        (tuple(babbles[0]), tuple(babbles[1]), tuple(babbles[2])),
        (tuple(listed[0]), tuple(listed[1]), tuple(listed[2])),
        tuple(let_gos),
    )


# --- legal actions -------------------------------------------------------------------------


def topics(state: State) -> tuple[int, ...]:
    """The topic each table shows now."""
    return _SHOWN[state.flipped]


# The topics the tables show, for each way they may lie flipped.
_SHOWN = {
    sides: tuple(table_topic(t, side) for t, side in enumerate(sides))
    for sides in product((False, True), repeat=TABLES)
}


def to_move(state: State) -> tuple[int, ...]:
    return () if state.over else (state.turn,)


def is_over(state: State) -> bool:
    return state.over


def timeout(state: State, player: int) -> None:
    """An idle player's turn is taken by a computer player."""
    return None


def legal_actions(state: State, player: int) -> list[Action]:
    """Every action `player` may take now; only the player to move ever has any: table by
    table the babbles, cut-off, listens and flip, then the argues on each table, then the
    let-gos."""
    if state.over or player != state.turn:
        return []
    babbles, listed, let_gos = hand_moves(state.hands[player], state.strict)
    shown = _SHOWN[state.flipped]
    out = _table_actions(state, babbles, shown)
    if listed != _NOTHING_LISTED:
        out += _argues(state, listed, shown)
    out += let_gos
    return out


def _table_actions(
    state: State, babbles: tuple[tuple[int, ...], ...], shown: tuple[int, ...]
) -> list[Action]:
    """Table by table (showing the topics `shown`), the babbles on an empty table (of the
    cards by topic `babbles`), the cut-off of a single card, the listens (3-4 players) of a
    table with 2 or more and the flip of 3."""
    out: list[Action] = []
    listen, flip = state.players >= 3, state.flip_mode
    for t, lying in enumerate(state.tables):
        size = len(lying)
        if size == 0:
            out += map(_BABBLE_ON[t].__getitem__, babbles[shown[t]])
        elif size == 1:
            out.append(_CUT_OFF_ON[t])
        elif listen:
            out += map(_LISTEN_ON[t].__getitem__, lying)
        if size == 3 and flip:
            out.append(_FLIP_ON[t])
    return out


_NOTHING_LISTED: Listed = ((), (), ())


def _argues(state: State, listed: Listed, shown: tuple[int, ...]) -> list[Action]:
    """Table by table (showing the topics `shown`), the argues of a hand's sequences that
    `fits` its topic (`listed`) and win on it."""
    out: list[Action] = []
    for t, lying in enumerate(state.tables):
        beat, fallacy = _BARS[lying]  # what a sequence must beat there
        for rank, argue in listed[shown[t]]:
            if rank > beat or rank == fallacy:
                out.append(argue[t])
    return out


def can_act(state: State, player: int) -> bool:  # docs/rulings.md#egonomy-a-stuck-player
    """Whether `player` would have any legal action with the turn: first what a table offers
    whatever the hand (a cut-off, a listen with 3-4 players, a flip: see `_table_actions`),
    then the hand's: a let-go, a babble on an empty table, an argue."""
    listen, flip = state.players >= 3, state.flip_mode
    for lying in state.tables:
        size = len(lying)
        if size == 1 or (size >= 2 and listen) or (size == 3 and flip):
            return True
    babbles, listed, let_gos = hand_moves(state.hands[player], state.strict)
    if let_gos:
        return True
    shown = _SHOWN[state.flipped]
    for t, lying in enumerate(state.tables):
        if not lying and babbles[shown[t]]:
            return True
    return bool(_argues(state, listed, shown))


# --- applying an action --------------------------------------------------------------------


# What an action did: the fields of the state it changes (by name), what happened, and
# whether it gains momentum.
Move = tuple[dict[str, Any], Event, bool]


def apply(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """Check and carry out one action; raises IllegalAction and changes nothing if refused."""
    if state.over:
        raise IllegalAction("game_over")
    if player != state.turn:
        raise IllegalAction("not_your_turn", player=state.turn)
    kind, table, cards = action
    rule = _RULES.get(kind)
    if rule is None or (kind in (CUT_OFF, FLIP) and cards):
        raise IllegalAction("bad_action")  # a cut-off or a flip names no cards
    if kind == LET_GO:
        if table != NO_TABLE:
            raise IllegalAction("bad_action")  # a let-go names no table
    elif table not in _TABLE_IDS:
        raise IllegalAction("no_such_table")
    changes, event, momentum = rule(state, player, table, cards)
    return _after(state, player, changes, event, momentum)


def _babble(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """Put one card on an empty topic table that matches the card's topic."""
    if len(cards) != 1:
        raise IllegalAction("babble_one_card")
    hand = without(state.hands[player], cards)
    lying = state.tables[t]
    if len(lying) == 1:
        raise IllegalAction("babble_on_single")  # single cards never beat each other
    if lying:
        raise IllegalAction("babble_needs_empty_table")
    (card,) = cards
    if TOPIC[card] != table_topic(t, state.flipped[t]):
        raise IllegalAction("babble_topic")
    changes = {
        "hands": with_item(state.hands, player, hand),
        "tables": with_item(state.tables, t, (card,)),
    }
    return changes, Babbled(player, t, card), False


def _cut_off(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """Take the card from a table holding exactly one card into your ego pile."""
    lying = state.tables[t]
    if len(lying) != 1:
        raise IllegalAction("cut_off_needs_single")
    changes = {
        "tables": with_item(state.tables, t, ()),
        "egos": with_item(state.egos, player, state.egos[player] + lying),
    }
    return changes, CutOff(player, t, lying[0]), False


def _argue(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """Play a sequence that wins on a table; collect what lay there; momentum if every card
    has the table's topic."""
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = without(state.hands[player], cards)
    run = _SEQUENCE_OF.get(cards)
    if run is None:
        raise IllegalAction("not_a_sequence")
    topic = table_topic(t, state.flipped[t])
    if not fits(run.topics, topic, state.strict):
        raise IllegalAction("argue_topic_strict" if state.strict else "argue_topic")
    lying = state.tables[t]
    beat, fallacy = _BARS[lying]
    if not (run.rank > beat or run.rank == fallacy):
        raise IllegalAction("argue_fewer_cards" if len(cards) < len(lying) else "argue_not_higher")
    changes = {
        "hands": with_item(state.hands, player, hand),
        "tables": with_item(state.tables, t, run.cards),
        "egos": with_item(state.egos, player, state.egos[player] + lying),
    }
    event = Argued(player, t, run.cards, lying, run.rank == fallacy)
    return changes, event, run.topics == 1 << topic


def _listen(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """3-4 players: take one card of a table with 2+ cards into your hand, discard the rest."""
    if state.players < 3:
        raise IllegalAction("listen_needs_three_players")
    lying = state.tables[t]
    if len(lying) < 2:
        raise IllegalAction("listen_needs_two_cards")
    if len(cards) != 1 or cards[0] not in lying:
        raise IllegalAction("listen_card_not_on_table")
    (card,) = cards
    rest = tuple(c for c in lying if c != card)
    changes = {
        "hands": with_item(state.hands, player, tuple(sorted((*state.hands[player], card)))),
        "tables": with_item(state.tables, t, ()),
        "discard": state.discard + rest,
    }
    return changes, Listened(player, t, card, rest), True


def _let_go(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """Discard two or more cards of one number from your hand, face up."""
    if len(cards) < 2:
        raise IllegalAction("let_go_needs_two")
    if len(set(cards)) != len(cards):
        raise IllegalAction("card_not_in_hand")
    hand = without(state.hands[player], cards)
    if len({NUMBER[c] for c in cards}) != 1:
        raise IllegalAction("let_go_one_number")
    cards = tuple(cards)
    changes = {"hands": with_item(state.hands, player, hand), "discard": state.discard + cards}
    return changes, LetGo(player, cards), False


def _flip(state: State, player: int, t: int, cards: tuple[int, ...]) -> Move:
    """Flip-table mode: flip a table holding exactly 3 cards, discard them, gain momentum."""
    if not state.flip_mode:
        raise IllegalAction("flip_mode_off")
    lying = state.tables[t]
    if len(lying) != 3:
        raise IllegalAction("flip_needs_three")
    side = not state.flipped[t]
    changes = {
        "tables": with_item(state.tables, t, ()),
        "flipped": with_item(state.flipped, t, side),
        "discard": state.discard + lying,
    }
    return changes, Flipped(player, t, lying, table_topic(t, side)), True


_RULES = {
    BABBLE: _babble,
    CUT_OFF: _cut_off,
    ARGUE: _argue,
    LISTEN: _listen,
    LET_GO: _let_go,
    FLIP: _flip,
}


def _after(
    state: State, player: int, changes: dict[str, Any], event: Event, momentum: bool
) -> tuple[State, list[Event]]:
    """After a `Move`: momentum (at most once a turn: the player acts again), else the next
    player's turn; the round ends when the player's hand is empty or the next player is
    stuck."""
    if not changes.get("hands", state.hands)[player]:
        return _end_round(replaced(state, changes), [event], emptied_by=player)
    if momentum and not state.momentum:
        changes["momentum"] = True
        events: list[Event] = [event, MomentumGained(player)]
    else:
        changes["turn"], changes["momentum"] = (player + 1) % state.players, False
        events = [event]
    state = replaced(state, changes)
    if not can_act(state, state.turn):
        events.append(Stuck(state.turn))
        return _end_round(state, events, emptied_by=None)
    return state, events


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
    state = replaced(state, {"trophies": tuple(trophies), "last_ranking": order})
    events.append(RoundEnded(state.round, emptied_by, tuple(scores), tuple(trophies)))
    if state.round >= ROUNDS or max(trophies) >= TROPHIES_TO_END:
        final = final_ranking(state)
        early = state.round < ROUNDS
        events.append(GameEnded(final, tuple(trophies), state.round, early))
        return replaced(state, {"momentum": False, "over": True}), events
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
