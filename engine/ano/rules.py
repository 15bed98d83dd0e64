"""Ano's rules: state, actions, legality, and what each action does.

The Thai rulebook (seed 004) and the project's rulings (docs/rulings.md, "Ano") are quoted in
the tests; each rule lives in one function or constant here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations
from operator import attrgetter
from typing import Any, NamedTuple

from engine.ano.cards import (
    ACE,
    CODE,
    FACE_OF,
    FACES,
    JACK,
    JOKER,
    KING,
    QUEEN,
    RANK,
    SPECIAL,
    SUIT,
    SUITS,
    deck,
    points,
)
from engine.ano.events import (
    CAUGHT,
    CHAIN,
    FALSE_CATCH,
    FUMBLE,
    TURN,
    AnoCalled,
    AnoForgotten,
    AnoOwed,
    Caught,
    ChainEnded,
    Dealt,
    DrawPending,
    Drew,
    Event,
    FalseCatch,
    Finished,
    Fumbled,
    GameEnded,
    Kept,
    MayPlayDrawn,
    Played,
    Reshuffled,
    Reversed,
    Skipped,
    Stalled,
)
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

HAND = 5  # "แจกผู้เล่นแต่ละคนทีละใบจนครบคนละห้าใบ"
DRAW_AFTER = {QUEEN: 2, KING: 3, 0: 4}  # Q, K, joker: what the next player draws if unable
UNO_KING = 4  # "ถ้าใช้กฎของ Uno ให้จั่วสี่ใบ"
FORGOT = 5  # forgetting Ano: "ต้องจั่วไพ่เพิ่มอีกห้าใบ"
UNO_FORGOT = 2  # "(ถ้าใช้กฎของ Uno ให้จั่วสองใบ)"
FUMBLE_COST = 2  # "ต้องถูกทำโทษโดยให้จั่วเพิ่มอีกสองใบ"

PLAY, DRAW, KEEP, CALL, CATCH = "p", "d", "k", "a", "c"
KINDS = (PLAY, DRAW, KEEP, CALL, CATCH)
NO_SUIT = -1

# Ano status per player
CLEAR, OWES, FORGOT_CALL = 0, 1, 2

# Option flags (bits of State.flags)
JOKERS, UNO, PLAY_DRAWN, JUMP_IN, FUMBLE_RULE, SPECIAL_LAST, POINTS = (1 << i for i in range(7))
FLAG_OPTIONS = (
    ("jokers", JOKERS),
    ("uno_rules", UNO),
    ("play_drawn", PLAY_DRAWN),
    ("jump_in", JUMP_IN),
    ("fumble", FUMBLE_RULE),
    ("special_last", SPECIAL_LAST),
    ("points", POINTS),
)

SPEC = GameSpec(
    name="ano",
    min_players=2,
    max_players=10,
    options=(
        OptionSpec("decks", 1, (1, 2)),  # "ถ้าเป็นไปได้ใช้ไพ่ 2 สำรับรวมกันจะสนุกกว่า"
        OptionSpec("jokers", True),  # "มี Joker หรือไม่มีก็ได้"
        OptionSpec("uno_rules"),  # K draws 4, forgetting Ano costs 2
        # "การแทรกไพ่(กรณีใช้สองสำรับ)": two decks only (docs/rulings.md#ano-jump-in)
        OptionSpec("jump_in", needs=("decks", 2)),
        OptionSpec("fumble"),  # "กฎเฟอะฟะ"
        OptionSpec("special_last"),  # "กฎไพ่พิเศษ": no special card as the last card
        OptionSpec("points"),  # "วัดกันด้วยพ้อย"
        OptionSpec("play_drawn"),  # NOT from the rulebook: play the drawn card if it fits
    ),
)


class Action(NamedTuple):
    """PLAY `cards` (bottom first, the new top last; `suit` named with a joker on top; `call`:
    "Ano!" said with the play), DRAW, KEEP (the drawn card), CALL "Ano!", CATCH `target`."""

    kind: str
    cards: tuple[int, ...] = ()
    suit: int = NO_SUIT
    call: bool = False
    target: int = -1


class State(NamedTuple):
    """A whole game; hands are sorted tuples of faces (copies repeat); tuples everywhere."""

    players: int
    decks: int
    flags: int
    rng: int
    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]  # the draw pile, drawn from the end
    discard: tuple[int, ...]  # the discard pile, its top card last
    suit: int  # the suit named with the joker on top, else NO_SUIT
    turn: int
    direction: int  # 1: seat order, -1: the other way
    pending: int  # cards the player to move draws if unable to play (0: the usual 1)
    drawn: int  # option play_drawn: the fitting card just drawn, playable now; else -1
    ano: tuple[int, ...]  # CLEAR, OWES (may still call) or FORGOT_CALL (may be caught)
    finished: tuple[int, ...]  # players who emptied their hands, in order
    idle: int  # consecutive draws that found no card
    over: bool

    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)


# --- setup -------------------------------------------------------------------------------


def new_game(players: int, options: Options, seed: int) -> tuple[State, list[Event]]:
    """Shuffle, deal 5 each one at a time, turn up the pile's top card (a joker goes back to
    the bottom and another is turned); seat 0 (the lobby opener) starts
    (docs/rulings.md#ano-the-deal-and-who-starts)."""
    if not SPEC.min_players <= players <= SPEC.max_players:
        raise IllegalAction("player_count", min=SPEC.min_players, max=SPEC.max_players)
    opts = SPEC.resolve_options(options)
    flags = sum(bit for name, bit in FLAG_OPTIONS if opts[name])
    rng = Rng(seed_state(seed))
    pile = rng.shuffled(deck(int(opts["decks"]), bool(opts["jokers"])))
    hands = [sorted(pile[-1 - i :: -players][:HAND]) for i in range(players)]
    del pile[len(pile) - HAND * players :]
    back = 0
    while pile[-1] == JOKER:
        pile.insert(0, pile.pop())
        back += 1
    top = pile.pop()
    state = State(
        players=players,
        decks=int(opts["decks"]),
        flags=flags,
        rng=rng.state,
        hands=tuple(tuple(h) for h in hands),
        pile=tuple(pile),
        discard=(top,),
        suit=NO_SUIT,
        turn=0,
        direction=1,
        pending=0,
        drawn=-1,
        ano=(CLEAR,) * players,
        finished=(),
        idle=0,
        over=False,
    )
    return state, [Dealt(0, top, back)]


# --- what fits ------------------------------------------------------------------------------


def follow(state: State) -> tuple[int, int]:
    """(suit, rank) a card must match: after a joker only its named suit (rank -1)."""
    top = state.discard[-1]
    if top == JOKER:
        return state.suit, -1
    return SUIT[top], RANK[top]


def fits(card: int, suit: int, rank: int) -> bool:
    """ "ต้องเป็นตัวเลขเดียวกันหรือดอกไพ่เดียวกัน": same rank or suit; a joker on anything."""
    return card == JOKER or SUIT[card] == suit or RANK[card] == rank


def _fit_row(suit: int, rank: int) -> tuple[bool, ...]:
    return tuple(fits(c, suit, rank) for c in range(FACES))


# `fits` for every face: _FITS[state.suit][top card] (a named suit counts after a joker only;
# NO_SUIT, -1, is the last row).
_FIT_TOP = tuple(_fit_row(SUIT[t], RANK[t]) for t in range(JOKER))
_FITS = tuple((*_FIT_TOP, _fit_row(s, -1)) for s in (*range(SUITS), NO_SUIT))


def ano_hand(hand: tuple[int, ...], special_last: bool) -> bool:
    """One card left, or cards of one rank that could all go down at once to win (never a hand
    of special cards when they may not be the last card)."""
    if not hand:
        return False
    rank = RANK[hand[-1]]  # the loop starts with the first card: a mixed hand stops at once
    for c in hand:
        if RANK[c] != rank:
            return False
    return not (special_last and SPECIAL[hand[0]])


def can_play(state: State, player: int) -> bool:
    """Whether `player`'s hand holds a card that may go down now (then drawing is refused)."""
    hand = state.hands[player]
    if len(hand) == 1 and state.flags & SPECIAL_LAST and SPECIAL[hand[0]]:
        return False
    fit = _FITS[state.suit][state.discard[-1]]
    for c in hand:  # noqa: SIM110 (cheaper than any() over a generator)
        if fit[c]:
            return True
    return False


# --- legal actions --------------------------------------------------------------------------


def _group_plays(
    group: tuple[int, ...], fit: Mapping[int, bool] | tuple[bool, ...], whole: bool
) -> tuple[tuple[Action, Action], ...]:
    """Every play from `group` (cards of one rank, sorted) and its twin calling "Ano!": any
    part of it whose bottom card fits (`fit[card]`); the rest in a fixed order but the top,
    which the player picks (a joker on top with each suit named). `whole`: the group is the
    whole hand and special cards may not be last."""
    out: list[tuple[Action, Action]] = []
    seen: set[tuple[int, ...]] = set()
    for k in range(1, len(group) + 1):
        if whole and k == len(group):
            break
        for part in combinations(group, k):
            if part in seen:
                continue
            seen.add(part)
            for top in sorted(set(part)):
                rest = list(part)
                rest.remove(top)
                if rest:
                    bottom = next((c for c in rest if fit[c]), None)
                    if bottom is None:
                        continue
                    rest.remove(bottom)
                    cards = (bottom, *rest, top)
                elif fit[top]:
                    cards = (top,)
                else:
                    continue
                for named in range(SUITS) if top == JOKER else (NO_SUIT,):
                    out.append((Action(PLAY, cards, named), Action(PLAY, cards, named, True)))
    return tuple(out)


# `_group_plays` of every pair of cards of one rank (the usual group), by the pair, whether
# each fits, and `whole`.
_PAIR_PLAYS = {
    (a, b, fit_a, fit_b, whole): _group_plays((a, b), {a: fit_a, b: fit_b}, whole)
    for a in range(FACES)
    for b in range(a, FACES)
    if RANK[a] == RANK[b]
    for fit_a in (False, True)
    for fit_b in ((fit_a,) if a == b else (False, True))
    for whole in (False, True)
}


def _turn_plays(hand: tuple[int, ...], fit: tuple[bool, ...], special_last: bool) -> list[Action]:
    """Every fitting play of the player to move, with a twin calling "Ano!" when it leaves an
    Ano hand. Plays come by rank, in the order the ranks first appear in the hand."""
    out: list[Action] = []
    for c in hand:
        if fit[c]:
            break
    else:
        return out  # no card fits: no play
    groups: dict[int, tuple[int, ...]] = {}
    for c in hand:
        rank = RANK[c]
        if rank in groups:
            groups[rank] += (c,)
        else:
            groups[rank] = _ALONE[c]
    one_rank, two_ranks = len(groups) == 1, len(groups) == 2
    for group in groups.values():
        first = group[0]
        if not fit[first] and len(group) == 1:
            continue  # a single card of its rank that does not fit: no play
        count = len(group)
        if one_rank:
            # a play leaves an Ano hand unless it is the whole hand (never special cards when
            # they may not be last)
            whole = special_last and SPECIAL[first]
            part_ano, whole_ano = not whole, False
        else:  # with two ranks, playing all of one leaves the other: an Ano hand
            whole, part_ano = False, False
            whole_ano = two_ranks and _other_ano(groups, RANK[first], special_last)
        if count == 1:
            if not whole:
                out += _SINGLE_PAIRS[first] if whole_ano else _SINGLES[first]
            continue
        if count == 2:
            second = group[1]
            plays = _PAIR_PLAYS[first, second, fit[first], fit[second], whole]
        else:
            plays = _group_plays(group, fit, whole)
        for play, calling in plays:
            out.append(play)
            if whole_ano if len(play.cards) == count else part_ano:
                out.append(calling)
    return out


_ALONE = tuple((i,) for i in range(FACES))  # each face (or seat) as a 1-tuple, made once

# A single card's plays (a joker's with each suit named), and the same followed by their
# calling twins.
_SINGLES = tuple(
    tuple(Action(PLAY, (c,), s) for s in (range(SUITS) if c == JOKER else (NO_SUIT,)))
    for c in range(JOKER + 1)
)
_SINGLE_PAIRS = tuple((*plays, *(a._replace(call=True) for a in plays)) for plays in _SINGLES)


# The actions that name no cards: draw, keep, call "Ano!", and catch each seat.
_DRAW, _KEEP, _CALL = Action(DRAW), Action(KEEP), Action(CALL)
_CATCH = tuple(Action(CATCH, target=target) for target in range(SPEC.max_players))


def _other_ano(groups: dict[int, tuple[int, ...]], played: int, special_last: bool) -> bool:
    """Of two ranks, whether the one not `played` makes an Ano hand left alone."""
    for rank, other in groups.items():
        if rank != played:
            return not (special_last and SPECIAL[other[0]])
    return False


def to_move(state: State) -> tuple[int, ...]:
    return () if state.over else _ALONE[state.turn]


# whether the game is over: `state.over` read without a Python call (one a self-play action)
is_over: Callable[[State], bool] = attrgetter("over")


def legal_actions(state: State, player: int) -> list[Action]:
    """Everything `player` may do now, in turn or out of it (jump-in, "Ano!", catching)."""
    players, _, flags, _, hands, _, discard, suit, turn, _, _, drawn, ano, finished, _, over = state
    if over or player in finished:
        return []
    hand = hands[player]
    fumble, special_last = flags & FUMBLE_RULE != 0, flags & SPECIAL_LAST != 0
    if player == turn:
        if drawn >= 0:
            out = _single(drawn, hand, special_last)
            out.append(_KEEP)
        else:
            out = _turn_plays(hand, _FITS[suit][discard[-1]], special_last)
            unable = not out  # the same as `not can_play(state, player)`, already known
            if fumble:
                out += _wrong_singles(hand, out)
            if unable:
                out.append(_DRAW)
    elif flags & JUMP_IN:
        out = _jumps(state, hand, fumble, special_last)
    else:
        out = []
    if ano[player] == OWES:
        out.append(_CALL)
    if fumble or FORGOT_CALL in ano:
        for target in range(players):
            if target == player or target in finished:
                continue
            if ano[target] == FORGOT_CALL or (fumble and ano_hand(hands[target], special_last)):
                out.append(_CATCH[target])
    return out


def _single(card: int, hand: tuple[int, ...], special_last: bool) -> list[Action]:
    """One card alone (after drawing it, or jumping in), with its calling twin."""
    if special_last and len(hand) == 1 and SPECIAL[card]:
        return []
    suits = range(SUITS) if card == JOKER else (NO_SUIT,)
    calls = (False, True) if ano_hand(without(hand, (card,)), special_last) else (False,)
    return [Action(PLAY, (card,), s, call) for s in suits for call in calls]


def _wrong_singles(hand: tuple[int, ...], plays: list[Action]) -> list[Action]:
    """Fumble option: every other card of the hand is offered too (and costs 2)."""
    good = {a.cards[0] for a in plays if len(a.cards) == 1}
    return [
        Action(PLAY, (c,), 0 if c == JOKER else NO_SUIT) for c in sorted(set(hand)) if c not in good
    ]


def _jumps(state: State, hand: tuple[int, ...], fumble: bool, special_last: bool) -> list[Action]:
    """Jump-in: a card identical to the top card (never a joker); with fumble, any card."""
    top = state.discard[-1]
    out: list[Action] = []
    if top != JOKER and top in hand:
        out += _single(top, hand, special_last)
    if fumble:
        out += [Action(PLAY, (c,)) for c in sorted(set(hand)) if c != JOKER and not _ok(out, c)]
    return out


def _ok(plays: list[Action], card: int) -> bool:
    return any(a.cards == (card,) for a in plays)


# --- applying an action --------------------------------------------------------------------


class _Table:
    """A state being changed by one action: its fields, and what happened. `done` makes the
    new state from them."""

    __slots__ = (*State._fields, "events")

    def __init__(self, state: State) -> None:
        (
            self.players, self.decks, self.flags, self.rng, hands, self.pile, self.discard,
            self.suit, self.turn, self.direction, self.pending, self.drawn, self.ano,
            self.finished, self.idle, self.over,
        ) = state  # fmt: skip
        self.hands = list(hands)
        self.events: list[Event] = []

    def set_ano(self, player: int, status: int) -> None:
        self.ano = with_item(self.ano, player, status)

    def draw(self, player: int, n: int, reason: str) -> int:
        """`player` draws `n` cards (`_draw`); how many they got."""
        got, self.ano, self.pile, self.discard, self.rng = _draw(
            self.hands, self.ano, self.pile, self.discard, self.rng, self.flags, player, n,
            reason, self.events,
        )  # fmt: skip
        return len(got)

    def done(self) -> tuple[State, list[Event]]:
        """The new state and the events."""
        fields = (
            self.players, self.decks, self.flags, self.rng, tuple(self.hands), self.pile,
            self.discard, self.suit, self.turn, self.direction, self.pending, self.drawn,
            self.ano, self.finished, self.idle, self.over,
        )  # fmt: skip
        return tuple.__new__(State, fields), self.events  # State(*fields), made more cheaply


def _draw(
    hands: list[tuple[int, ...]],
    ano: tuple[int, ...],
    pile: tuple[int, ...],
    discard: tuple[int, ...],
    rng: int,
    flags: int,
    player: int,
    n: int,
    reason: str,
    events: list[Event],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """`player` draws `n` cards, fewer if fewer exist; an empty pile is refilled from the
    discard pile under its top card (docs/rulings.md#ano-drawing-what-is-left). A hand left
    able to win at once owes "Ano". `hands` changes in place; returned: the cards drawn and
    the Ano statuses, pile, discard pile and rng state after."""
    got: tuple[int, ...] = ()
    while len(got) < n:
        if not pile:
            if len(discard) < 2:
                break
            generator = Rng(rng)
            pile = tuple(generator.shuffled(discard[:-1]))
            rng = generator.state
            discard = discard[-1:]
            events.append(Reshuffled(len(pile)))
        take = n - len(got)  # all that is left if fewer
        got += pile[: -take - 1 : -1]  # the last `take` cards, from the top down
        pile = pile[:-take]
    events.append(Drew(player, len(got), reason))
    if got:  # with none drawn a call made still holds: docs/rulings.md#ano-drawing-and-the-call
        hand = hands[player] = tuple(sorted(hands[player] + got))
        status = ano[player]
        if ano_hand(hand, flags & SPECIAL_LAST != 0):
            if status == CLEAR:  # any draw or penalty that leaves an Ano hand owes the call
                ano = with_item(ano, player, OWES)
                events.append(AnoOwed(player))
        elif status != CLEAR:
            ano = with_item(ano, player, CLEAR)
    return got, ano, pile, discard, rng


def _acted(ano: tuple[int, ...], player: int, events: list[Event]) -> tuple[int, ...]:
    """The Ano statuses after a play or draw by `player`: whoever else still owed "Ano" may
    now be caught (told in `events`); `player`'s own window ends. (Callers skip it when nobody
    owes and `player` is clear: nothing changes then.)"""
    after = list(ano)
    for q, status in enumerate(ano):
        if q != player and status == OWES:
            after[q] = FORGOT_CALL
            events.append(AnoForgotten(q))
    after[player] = CLEAR
    return tuple(after)


def apply(state: State, player: int, action: Action) -> tuple[State, list[Event]]:
    """Check and carry out one action; raises IllegalAction and changes nothing if refused."""
    if state.over:
        raise IllegalAction("game_over")
    if not 0 <= player < state.players:
        raise IllegalAction("bad_player")
    if player in state.finished:
        raise IllegalAction("finished")
    kind, cards, suit, call, target = action
    if kind == PLAY:
        return _play(state, player, cards, suit, call, target)
    if cards or suit != NO_SUIT or call:
        raise IllegalAction("bad_action")
    if kind == CATCH:
        return _catch(state, player, target)
    if target != -1:
        raise IllegalAction("bad_action")
    if kind == CALL:
        if state.ano[player] != OWES:
            raise IllegalAction("nothing_to_call")
        return replaced(state, {"ano": with_item(state.ano, player, CLEAR)}), [AnoCalled(player)]
    if player != state.turn:
        raise IllegalAction("not_your_turn", player=state.turn)
    if kind == DRAW:
        if state.drawn >= 0:
            raise IllegalAction("play_or_keep_drawn")
        if can_play(state, player):
            raise IllegalAction("must_play")  # "ถ้าไม่สามารถลงไพ่ให้จั่ว"
        return _draw_turn(state, player)
    if kind == KEEP:
        if state.drawn < 0:
            raise IllegalAction("nothing_drawn")
        turn = _next_seat(state.players, state.finished, player, state.direction)
        return replaced(state, {"turn": turn, "drawn": -1}), [Kept(player)]
    raise IllegalAction("bad_action")


def timeout(state: State, player: int) -> tuple[State, list[Event]] | None:
    """An idle player's turn: they keep a drawn card, or draw (what a player unable to play
    would draw) even if they could have played."""
    if state.over or player != state.turn:
        return None
    if state.drawn >= 0:
        return apply(state, player, _KEEP)
    return _draw_turn(state, player)


_FACE_SET = frozenset(range(FACES))


def _play(
    state: State, player: int, cards: tuple[int, ...], suit: int, call: bool, target: int
) -> tuple[State, list[Event]]:
    """A play is checked (its shape, then the hand, the turn and what fits) and the cards go
    down: an A reverses, a J skips, a Q, K or joker makes the next player draw (adding up), a
    number card ends that chain; an emptied hand finishes."""
    if not cards or not _FACE_SET.issuperset(cards):
        raise IllegalAction("bad_action")
    if len(cards) > 1 and len({RANK[c] for c in cards}) > 1:
        raise IllegalAction("one_rank")  # "ไพ่ที่มีตัวเลขเหมือนกันสามารถลงพร้อมกันได้"
    if (cards[-1] == JOKER) != (0 <= suit < SUITS) or target != -1:
        raise IllegalAction("name_a_suit" if cards[-1] == JOKER else "bad_action")
    (
        players, decks, flags, rng, hands, pile, discard, named, turn, direction, pending, drawn,
        ano, finished, _, _,  # idle and over: set anew below
    ) = state  # fmt: skip
    rest = without(hands[player], cards)
    jump = player != turn
    wrong = ""
    if jump:
        if not flags & JUMP_IN:
            raise IllegalAction("not_your_turn", player=turn)
        if len(cards) != 1:
            raise IllegalAction("jump_one_card")
        if cards[0] == JOKER:
            raise IllegalAction("jump_no_joker")
        if cards[0] != discard[-1]:
            wrong = "jump_not_identical"
    else:
        if drawn >= 0 and cards != (drawn,):
            raise IllegalAction("play_drawn_only")
        if not _FITS[named][discard[-1]][cards[0]]:
            wrong = "does_not_fit"
    special_last = flags & SPECIAL_LAST != 0
    if not wrong and not rest and special_last and SPECIAL[cards[0]]:
        wrong = "special_last"  # "ไพ่พิเศษทั้งหมดห้ามใช้เป็นใบสุดท้ายในการจบเกม"
    if wrong:
        if not flags & FUMBLE_RULE:
            raise IllegalAction(wrong)
        if len(cards) != 1 or call:
            raise IllegalAction(wrong)
        return _fumble(state, player, cards, jump)
    if call and not ano_hand(rest, special_last):
        raise IllegalAction("nothing_to_call")
    # the cards go down
    events: list[Event] = []
    if OWES in ano or ano[player] != CLEAR:
        ano = _acted(ano, player, events)
    events.append(Played(player, cards, suit, jump, len(rest)))
    rank, k = RANK[cards[0]], len(cards)
    skips = 0
    if rank == ACE:  # "จะเปลี่ยนลำดับการเล่น ... ผู้เล่นคนก่อนหน้าจะกลายเป็นคนถัดไปแทน"
        for _ in range(k):  # "ไพ่ A ใช้รีเวิร์สหรือย้อน": each A reverses once
            direction = -direction
            events.append(Reversed(direction))
    elif rank == JACK:  # "ถ้าลงพร้อมกันหลายใบก็จะข้ามผู้เล่นไปตามจำนวนนั้น"
        skips = k  # docs/rulings.md#ano-several-cards-and-two-players
    elif rank in DRAW_AFTER:
        each = UNO_KING if rank == KING and flags & UNO else DRAW_AFTER[rank]
        pending += each * k  # "ผลจะนับรวมไปเรื่อยๆ"
        events.append(DrawPending(pending))
    elif pending:  # docs/rulings.md#ano-chains
        events.append(ChainEnded(player, pending))
        pending = 0
    if not rest:
        finished = (*finished, player)
    seat = player
    if skips:
        skipped = []
        for _ in range(skips):
            seat = _next_seat(players, finished, seat, direction)
            skipped.append(seat)
        events.append(Skipped(tuple(skipped)))
    active = players - len(finished)
    turn = _next_seat(players, finished, seat, direction) if active else player
    if not rest:
        events.append(Finished(player, len(finished)))
    elif ano_hand(rest, special_last):  # they owe "Ano" (or called it)
        if call:
            events.append(AnoCalled(player))
        else:
            ano = with_item(ano, player, OWES)
            events.append(AnoOwed(player))
    hands_after = list(hands)
    hands_after[player] = rest
    fields = (
        players, decks, flags, rng, tuple(hands_after), pile, discard + cards, suit,
        turn, direction, pending, -1, ano, finished, 0, False,
    )  # fmt: skip
    after = tuple.__new__(State, fields)  # State(*fields), made more cheaply
    if not rest and (flags & POINTS or active <= 1):
        return _end(after, events)
    return after, events


def _fumble(
    state: State, player: int, cards: tuple[int, ...], jump: bool
) -> tuple[State, list[Event]]:
    """ "หากผู้เล่นเล่นผิด ... ต้องถูกทำโทษโดยให้จั่วเพิ่มอีกสองใบ": the card stays in the
    hand, the player draws 2, and a turn goes on (docs/rulings.md#ano-fumble)."""
    table = _Table(state)
    own = table.ano[player]
    table.ano = _acted(table.ano, player, table.events)
    table.events.append(Fumbled(player, cards, jump))
    if not table.draw(player, FUMBLE_COST, FUMBLE):
        table.set_ano(player, own)  # no card: nothing changes (docs/rulings.md, the call)
    return table.done()


def _draw_turn(state: State, player: int) -> tuple[State, list[Event]]:
    """Unable to play: draw one card (or the whole pending sum) and the turn ends; with the
    play_drawn option a fitting drawn card may be played at once instead
    (docs/rulings.md#ano-a-turn)."""
    (
        players, decks, flags, rng, hands, pile, discard, suit, turn, direction, pending, drawn,
        ano, finished, idle, over,
    ) = state  # fmt: skip
    events: list[Event] = []
    own = ano[player]
    if OWES in ano or own != CLEAR:
        ano = _acted(ano, player, events)
    hands_after = list(hands)
    got, ano, pile, discard, rng = _draw(
        hands_after, ano, pile, discard, rng, flags, player, pending or 1,
        CHAIN if pending else TURN, events,
    )  # fmt: skip
    if not got and ano[player] != own:  # a draw of no card changes nothing for the drawer:
        ano = with_item(ano, player, own)  # docs/rulings.md#ano-drawing-and-the-call
    # an idle player who could have played does not count towards the stall's round
    idle = 0 if got or can_play(state, player) else idle + 1
    if flags & PLAY_DRAWN and not pending and got:
        (card,) = got
        follow_suit, follow_rank = follow(state)
        if fits(card, follow_suit, follow_rank) and not (
            flags & SPECIAL_LAST and len(hands_after[player]) == 1 and SPECIAL[card]
        ):
            events.append(MayPlayDrawn(player))
            drawn = card
    stalled = drawn < 0 and idle >= players - len(finished)
    if stalled:
        events.append(Stalled())
    elif drawn < 0:
        turn = _next_seat(players, finished, player, direction)
    fields = (
        players, decks, flags, rng, tuple(hands_after), pile, discard, suit, turn, direction, 0,
        drawn, ano, finished, idle, over,
    )  # fmt: skip
    after = tuple.__new__(State, fields)  # State(*fields), made more cheaply
    return _end(after, events) if stalled else (after, events)


def _catch(state: State, player: int, target: int) -> tuple[State, list[Event]]:
    """ "ถ้าถูกจับได้ว่าลืมพูด ... ต้องจั่วไพ่เพิ่มอีกห้าใบ": the first catch counts
    (docs/rulings.md#ano-calling)."""
    if not 0 <= target < state.players or target == player or target in state.finished:
        raise IllegalAction("bad_action")
    table = _Table(state)
    if state.ano[target] == FORGOT_CALL:
        cost = UNO_FORGOT if state.has(UNO) else FORGOT
        table.set_ano(target, CLEAR)
        got = table.draw(target, cost, CAUGHT)
        table.events.insert(0, Caught(player, target, got))
        return table.done()
    if state.has(FUMBLE_RULE) and ano_hand(state.hands[target], state.has(SPECIAL_LAST)):
        got = table.draw(player, FUMBLE_COST, FALSE_CATCH)
        table.events.insert(0, FalseCatch(player, target, got))
        return table.done()
    raise IllegalAction("nothing_to_catch")


def _next_seat(players: int, finished: tuple[int, ...], seat: int, direction: int) -> int:
    """The next seat in `direction` whose player is still in the game (`seat` if none is)."""
    after = (seat + direction) % players
    while after in finished and after != seat:
        after = (after + direction) % players
    return after


# --- the end -------------------------------------------------------------------------------


def _end(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The game is over: nobody owes "Ano" any more; the ranking closes the events."""
    state = state._replace(ano=(CLEAR,) * state.players, over=True)
    rows = ranking(state)
    events.append(
        GameEnded(
            tuple(p for p, _, _ in rows),
            tuple(place for _, place, _ in rows),
            tuple(score for _, _, score in rows),
            state.has(POINTS),
        )
    )
    return state, events


def ranking(state: State) -> list[tuple[int, int, int]]:
    """(player, place, points left), best first: the finishing order, then the players left
    by fewest points (points mode) or fewest cards (a stalled game), equal counts sharing
    (docs/rulings.md#ano-the-end-of-a-stalled-game-and-ties)."""
    rows = [(p, i + 1, 0) for i, p in enumerate(state.finished)]
    left = [p for p in range(state.players) if p not in state.finished]

    def key(p: int) -> int:
        return points(state.hands[p]) if state.has(POINTS) else len(state.hands[p])

    left.sort(key=lambda p: (key(p), p))
    for p in left:
        place = len(state.finished) + 1 + sum(key(q) < key(p) for q in left)
        rows.append((p, place, points(state.hands[p])))
    return rows


def result(state: State) -> tuple[Placing, ...]:
    return tuple(Placing(p, place, score) for p, place, score in ranking(state))


# --- codes and stored form -----------------------------------------------------------------


def encode_action(action: Action) -> str:
    """ "p" + one character per card (+ "~" and the named suit) (+ "!" for "Ano!"), "d", "k",
    "a", "c" + the caught seat: e.g. "pa2~3!" (two cards, a suit, the call)."""
    if action.kind == PLAY:
        suit = f"~{action.suit}" if action.suit != NO_SUIT else ""
        return "p" + "".join(CODE[c] for c in action.cards) + suit + ("!" if action.call else "")
    if action.kind == CATCH:
        return f"c{action.target}"
    return action.kind


def decode_action(code: str) -> Action:
    try:
        kind = code[:1]
        if kind == PLAY:
            body = code[1:]
            call = body.endswith("!")
            body = body.removesuffix("!")
            cards, _, suit = body.partition("~")
            action = Action(
                PLAY, tuple(FACE_OF[c] for c in cards), int(suit) if suit else NO_SUIT, call
            )
        elif kind == CATCH:
            action = Action(CATCH, target=int(code[1:]))
        elif kind in KINDS and len(code) == 1:
            action = Action(kind)
        else:
            raise ValueError(code)
    except (ValueError, KeyError, IndexError):
        raise IllegalAction("bad_action") from None
    if encode_action(action) != code:  # int() also reads " 5", "05", "٥"
        raise IllegalAction("bad_action")
    return action


def dump(state: State) -> list[Any]:
    return [
        state.players,
        state.decks,
        state.flags,
        state.rng,
        ["".join(CODE[c] for c in h) for h in state.hands],
        "".join(CODE[c] for c in state.pile),
        "".join(CODE[c] for c in state.discard),
        state.suit,
        state.turn,
        state.direction,
        state.pending,
        state.drawn,
        list(state.ano),
        list(state.finished),
        state.idle,
        int(state.over),
    ]


def load(data: list[Any]) -> State:
    players, decks, flags, rng, hands, pile, discard, suit, turn = data[:9]
    direction, pending, drawn, ano, finished, idle, over = data[9:]
    return State(
        players=int(players),
        decks=int(decks),
        flags=int(flags),
        rng=int(rng),
        hands=tuple(tuple(FACE_OF[c] for c in h) for h in hands),
        pile=tuple(FACE_OF[c] for c in pile),
        discard=tuple(FACE_OF[c] for c in discard),
        suit=int(suit),
        turn=int(turn),
        direction=int(direction),
        pending=int(pending),
        drawn=int(drawn),
        ano=tuple(int(a) for a in ano),
        finished=tuple(int(p) for p in finished),
        idle=int(idle),
        over=bool(over),
    )
