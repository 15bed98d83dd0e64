"""Egonomy's rules, one test per rule and per ruling, each quoting what it checks.

Quotes come from the rulebook (seeds 000 Thai, 001 Japanese; icons lost in extraction are put
back in [brackets]) or from the project's RULINGS.md. Positions are set up with `position`:
cards are named by label, topic letter + number ("A7"); tables 0, 1, 2 show topics A, B, C
on their white side.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from engine.core import IllegalAction, Placing, to_json
from engine.egonomy import GAME
from engine.egonomy.cards import (
    CARDS,
    MARK_3,
    MARK_4,
    NO_MARK,
    cards_in_play,
    parse,
    table_topic,
)
from engine.egonomy.events import (
    Argued,
    Babbled,
    CutOff,
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
from engine.egonomy.position import position
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    KINDS,
    LET_GO,
    LISTEN,
    NO_TABLE,
    Action,
    State,
    apply,
    can_act,
    decode_action,
    encode_action,
    final_ranking,
    is_sequence,
    legal_actions,
    new_game,
    result,
    round_ranking,
    topics,
)
from engine.egonomy.view import view

from .helpers import action, all_cards_accounted, key, keys, names, pick, play, refused

A, B, C = 0, 1, 2  # tables (and, on their white side, their topics)


def kinds(state: State) -> set[str]:
    return {a.kind for a in legal_actions(state, state.turn)}


def ego(state: State, player: int) -> int:
    return len(state.egos[player])


# --- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "in_play", "each", "marks"),
    [
        (2, 27, 13, {NO_MARK}),
        (3, 33, 11, {NO_MARK, MARK_3}),
        (4, 40, 10, {NO_MARK, MARK_3, MARK_4}),
    ],
)
def test_setup_returns_cards_marked_for_more_players_to_the_box(
    players: int, in_play: int, each: int, marks: set[int]
) -> None:
    """Rulebook: "คืน[การ์ด]ที่มีเครื่องหมายตามจำนวนผู้เล่นลงกล่อง ผู้เล่น 2 คน ➔ คืน 3-player mark และ
    4-player mark; ผู้เล่น 3 คน ➔ คืน 4-player mark; ผู้เล่น 4 คน ➔ ไม่ต้องคืน" / "プレイ人数に
    応じたマークの付いた[カード]を箱に戻します。" (return the cards marked for more players to the
    box) and "สับแล้วแจกให้ทุกคนเท่า ๆ กันจนหมด" (shuffle and deal evenly until none is left).
    RULINGS: "4 players use 40 cards (10 each), 3 players 33 (11 each), 2 players 27 less one
    random face-down discard = 26 (13 each)"."""
    for seed in range(20):
        state, _ = new_game(players, {}, seed)
        dealt = [c for hand in state.hands for c in hand]
        if players == 2:
            dealt.append(state.facedown)
        assert sorted(dealt) == sorted(cards_in_play(players))
        assert len(dealt) == in_play
        assert {CARDS[c].mark for c in dealt} == marks
        assert [len(hand) for hand in state.hands] == [each] * players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_players_set_one_random_card_aside_face_down(players: int) -> None:
    """Rulebook: "ผู้เล่น 2 คน ➔ สุ่มทิ้งการ์ดหนึ่งใบแบบคว่ำก่อนแจก; ผู้เล่น 3–4 คน ➔ ไม่ต้องทิ้ง" /
    "2人 ➔ 配る前に1枚をランダムに裏向きで捨てる" (2 players: before dealing, discard one
    random card face down; 3-4 players: discard none)."""
    aside = {new_game(players, {}, seed)[0].facedown for seed in range(30)}
    if players == 2:
        assert len(aside) > 5  # random, not always the same card
        assert aside <= set(cards_in_play(2))
    else:
        assert aside == {-1}


def test_setup_three_topic_tables_white_side_up() -> None:
    """Rulebook: "วาง[โต๊ะหัวข้อ]ทั้ง 3 ไว้ตรงกลาง หงายด้านไอคอนสีขาวขึ้น" / "3枚の[議題テーブル]を、
    白アイコン面を上にして中央に置きます。" (put the 3 topic tables in the middle, white side
    up). RULINGS: "Three topic tables, one per topic, white side up."""
    state, _ = new_game(3, {"flip": True}, 7)
    assert state.tables == ((), (), ())
    assert state.flipped == (False, False, False)
    assert topics(state) == (A, B, C)
    assert state.egos == ((), (), ()) and state.discard == ()
    assert state.trophies == (0, 0, 0) and state.round == 1 and not state.over


def test_card_list_ruling() -> None:
    """RULINGS: "27 unmarked: every topic has 1, 2, …, 9 once; 6 with the 3-player mark: every
    topic has a second 3 and a second 7; 7 with the 4-player mark: topics A and B have a second
    2, 5 and 8; topic C a second 5."""
    by_mark: dict[int, list[tuple[int, int]]] = {}
    for card in CARDS:
        by_mark.setdefault(card.mark, []).append((card.topic, card.number))
    assert len(CARDS) == 40
    assert sorted(by_mark[NO_MARK]) == [(t, n) for t in (A, B, C) for n in range(1, 10)]
    assert sorted(by_mark[MARK_3]) == [(t, n) for t in (A, B, C) for n in (3, 7)]
    assert sorted(by_mark[MARK_4]) == [(A, 2), (A, 5), (A, 8), (B, 2), (B, 5), (B, 8), (C, 5)]


def test_first_player_of_round_1_is_random_but_reproducible_by_seed() -> None:
    """Rulebook: "ใครในวงอีโก้น้อยที่สุด รับ[การ์ดผู้เล่นคนแรก]ไป" / "いちばんエゴが控えめな人が[スタート
    プレイヤーカード]を受け取ります。" (whoever has the least ego takes the first-player card).
    RULINGS: "the bot picks the first player of round 1 at random (and says, in the rulebook's
    spirit, that it found the humblest player)."""
    firsts = set()
    for seed in range(40):
        state, events = new_game(4, {}, seed)
        again, _ = new_game(4, {}, seed)
        assert again == state
        assert state.turn == state.first
        assert events == [RoundStarted(1, state.first, True)]
        firsts.add(state.first)
    assert firsts == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [1, 5])
def test_egonomy_is_for_2_to_4_players(players: int) -> None:
    """Rulebook: "ผู้เล่น 2–4 คน" / "2〜4人" (2-4 players)."""
    with pytest.raises(IllegalAction) as info:
        new_game(players, {}, 0)
    assert info.value.code == "player_count"


def test_unknown_lobby_option_is_refused() -> None:
    """RULINGS: the only lobby options are flip-table mode and "strict topics" (off by
    default)."""
    assert GAME.spec.resolve_options() == {"flip": False, "strict_topics": False}
    with pytest.raises(IllegalAction) as info:
        new_game(3, {"pass": True}, 0)
    assert info.value.code == "unknown_option"


# --- turns ---------------------------------------------------------------------------------


def test_play_goes_clockwise_from_the_first_player() -> None:
    """Rulebook: "ผู้เล่นที่ถือ[การ์ดผู้เล่นคนแรก]เริ่มก่อน แล้วเล่นต่อตามเข็มนาฬิกา" / "[スタートプレイヤー
    カード]を持つ人から始め、時計回りに進めます。" (the holder of the first-player card starts,
    then play goes clockwise)."""
    state = position(3, ["A1 B5", "B1 C5", "C1 A5"], turn=2, first=2)
    state, _ = play(state, BABBLE, C, "C1")
    assert state.turn == 0
    state, _ = play(state, BABBLE, A, "A1")
    assert state.turn == 1
    state, _ = play(state, BABBLE, B, "B1")
    assert state.turn == 2


def test_only_the_player_to_move_may_act() -> None:
    """Rulebook: "ในเทิร์นของคุณ คุณต้องทำหนึ่งในห้าแอ็คชัน" / "手番では5つのアクションのうち1つを必ず
    行います" (on your turn you must take one of the five actions): nobody else acts."""
    state = position(3, ["A1 B5", "B1 C5", "C1 A5"], turn=1)
    assert legal_actions(state, 0) == [] and legal_actions(state, 2) == []
    assert legal_actions(state, 1)
    refused(state, Action(BABBLE, A, pick(state.hands[0], "A1")), "not_your_turn", player=0)


def test_there_is_no_pass_action() -> None:
    """Rulebook: "ห้ามผ่าน" / "パスはできません。" (no passing)."""
    assert set(KINDS) == {BABBLE, CUT_OFF, ARGUE, LISTEN, LET_GO, FLIP}
    state = position(3, ["A1 B5", "B1 C5", "C1 A5"])
    for code in ("p", "pass", "x0"):
        with pytest.raises(IllegalAction) as info:
            decode_action(code)
        assert info.value.code == "bad_action"
    refused(state, Action("p"), "bad_action")


@pytest.mark.parametrize("table", [-1, 3, 7])
def test_there_are_three_tables(table: int) -> None:
    """Rulebook: "โต๊ะหัวข้อ ×3" / "議題テーブル ×3" (3 topic tables): other table numbers
    are refused."""
    state = position(3, ["A1 B5", "B1 C5", "C1 A5"], tables=["A2", "A3 A4", ""])
    for act in (Action(CUT_OFF, table), Action(BABBLE, table, pick(state.hands[0], "A1"))):
        refused(state, act, "no_such_table")


# --- babble --------------------------------------------------------------------------------


def test_babble_onto_empty_table_of_the_cards_topic() -> None:
    """Rulebook: "ลงการ์ดหนึ่งใบบน[โต๊ะ]ที่ว่างและตรงกับหัวข้อของการ์ด" / "カード1枚を、その議題と一致する
    空の[テーブル]に出します。" (put one card onto an empty table of the card's topic)."""
    state = position(3, ["A1 B2 C3", "A4 A6", "B5 B7"])
    hand = state.hands[0]
    assert keys(a for a in legal_actions(state, 0) if a.kind == BABBLE) == {
        (BABBLE, A, ("A1",)),
        (BABBLE, B, ("B2",)),
        (BABBLE, C, ("C3",)),
    }
    after, events = play(state, BABBLE, A, "A1")
    (card,) = pick(hand, "A1")
    assert after.tables[A] == (card,)
    assert names(after.hands[0]) == "B2 C3"
    assert events == [Babbled(0, A, card)]
    assert after.turn == 1 and not after.momentum


def test_babble_onto_a_table_of_another_topic_is_refused() -> None:
    """Rulebook: "ลงการ์ดหนึ่งใบบน[โต๊ะ]ที่ว่างและตรงกับหัวข้อของการ์ด" / "その議題と一致する空の
    [テーブル]に出します" (only onto a table of the card's own topic)."""
    state = position(3, ["A1 B2 C3", "A4 A6", "B5 B7"])
    refused(state, action(state, BABBLE, B, "A1"), "babble_topic")
    refused(state, action(state, BABBLE, C, "A1"), "babble_topic")


def test_single_cards_never_beat_each_other() -> None:
    """Rulebook: "ห้ามทำแอ็คชันเพ้อเจ้อบนโต๊ะที่มีการ์ดใบเดียว แม้จะมีแต้มสูงกว่า" / "1枚だけのカードの
    上に、1枚だけのカードを出すことはできません。" (never babble onto a table holding one card,
    even with a higher number); "การ์ดใบเดียว ไม่มีทางชนะกันเอง" / "1枚どうしは決して勝ち負け
    しない" (single cards never beat each other)."""
    state = position(3, ["A9 B2", "A4 A6", "B5 B7"], tables=["A2", "", ""])
    refused(state, action(state, BABBLE, A, "A9"), "babble_on_single")


def test_babble_needs_an_empty_table() -> None:
    """Rulebook: "ลงการ์ดหนึ่งใบบน[โต๊ะ]ที่ว่าง" / "空の[テーブル]に出します" (onto an empty table)."""
    state = position(3, ["A9 B2", "A4 A6", "B5 B7"], tables=["A2 A3", "B6 B7 B8", ""])
    refused(state, action(state, BABBLE, A, "A9"), "babble_needs_empty_table")
    refused(state, action(state, BABBLE, B, "B2"), "babble_needs_empty_table")


def test_babble_is_exactly_one_card() -> None:
    """Rulebook: "ลงการ์ดหนึ่งใบ" / "カード1枚を…出します" (put one card)."""
    state = position(3, ["A1 A2 B2", "A4 A6", "B5 B7"])
    refused(state, action(state, BABBLE, A, "A1 A2"), "babble_one_card")
    refused(state, Action(BABBLE, A), "babble_one_card")


def test_babble_a_card_not_in_hand_is_refused() -> None:
    """Rulebook: "ลงการ์ดหนึ่งใบ" (play one card — from your own hand)."""
    state = position(3, ["A1 B2", "A4 A6", "B5 B7"])
    refused(state, Action(BABBLE, A, pick(state.hands[1], "A4")), "card_not_in_hand")


# --- cut off -------------------------------------------------------------------------------


def test_cut_off_takes_the_single_card_into_the_ego_pile() -> None:
    """Rulebook: "หยิบการ์ดจาก[โต๊ะ]ที่มีการ์ดเพียงใบเดียว เก็บเป็น ✦" / "カードがちょうど1枚の[テーブル]
    から、そのカードを取って ✦ として獲得します。" (take the card from a table holding exactly one
    card, as ego)."""
    state = position(3, ["B1 B3", "C1 C3", "A5 A7"], tables=["A9", "", ""], egos=["C9", "", ""])
    (card,) = state.tables[A]
    after, events = play(state, CUT_OFF, A)
    assert after.tables[A] == ()
    assert after.egos[0] == (*state.egos[0], card) and ego(after, 0) == ego(state, 0) + 1
    assert after.hands[0] == state.hands[0]
    assert events == [CutOff(0, A, card)]
    assert after.turn == 1 and not after.momentum


def test_cut_off_needs_a_table_with_exactly_one_card() -> None:
    """Rulebook: "หยิบการ์ดจาก[โต๊ะ]ที่มีการ์ดเพียงใบเดียว" / "カードがちょうど1枚の[テーブル]から"
    (from a table holding exactly one card)."""
    state = position(3, ["B1 B3", "C1 C3", "A5 A7"], tables=["A8 A9", "", "C4 C5 C6"])
    for table in (A, B, C):
        refused(state, Action(CUT_OFF, table), "cut_off_needs_single")


# --- sequences -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sequence"),
    [
        ("A1 A2", True),
        ("A1 A2 A3", True),
        ("A7 A8 A9", True),
        ("A3 B1 C2", True),  # order and topics do not matter
        ("A1 B1", False),
        ("A1 B1 C1", False),
        ("A1 A2 B2", False),
        ("A9 A1 A2", False),
        ("A1", False),
        ("A1 A3", False),
        ("A1 A2 A3 A4", False),
    ],
)
def test_a_sequence_is_two_or_three_consecutive_numbers(text: str, sequence: bool) -> None:
    """Rulebook: "ชุดเรียงคือการ์ดสองหรือสามใบที่เลขเรียงต่อกัน ✓ 12, 123 ✗ 11, 111, 122, 912" /
    "連番とは、数字が連続した2枚か3枚のカードのことです。" (a sequence is 2 or 3 cards with
    consecutive numbers: 12 and 123 are, 11, 111, 122 and 912 are not)."""
    assert is_sequence(parse(text)) is sequence


@pytest.mark.parametrize(
    "text", ["A1 B1", "A1 B1 C1", "A1 A2 B2", "A9 A1 A2", "A1", "A1 A3", "A1 A2 A3 A4"]
)
def test_argue_with_something_else_than_a_sequence_is_refused(text: str) -> None:
    """Rulebook: "ลงชุดเรียงสองหรือสามใบบนโต๊ะหัวข้อ" / "2〜3枚の連番を議題テーブルに出します。" (play a
    sequence of two or three cards onto a topic table)."""
    state = position(3, ["A1 A2 A3 A4 A9 B1 B2 C1", "B4 B6", "C4 C6"])
    refused(state, action(state, ARGUE, A, text), "not_a_sequence")


def test_argue_with_a_card_not_in_hand_is_refused() -> None:
    """Rulebook: "ลงสองหรือสามใบบน[โต๊ะ]" (play two or three cards — from your own hand)."""
    state = position(3, ["A1 A2 B6", "A3 B4", "C4 C6"])
    mine, theirs = pick(state.hands[0], "A1 A2"), pick(state.hands[1], "A3")
    refused(state, Action(ARGUE, A, (*mine, *theirs)), "card_not_in_hand")
    refused(state, Action(ARGUE, A, (mine[0], mine[1], mine[1])), "card_not_in_hand")


# --- argue: topics and momentum ------------------------------------------------------------


def test_argue_needs_a_card_of_the_tables_topic() -> None:
    """Glossary: "ต้องตรงกับหัวข้อของโต๊ะ" / "テーブルの議題と一致し" (must match the table's
    topic). RULINGS: "at least one must have the table's topic"."""
    state = position(3, ["B1 B2 A5", "A3 B4", "C4 C6"])
    refused(state, action(state, ARGUE, A, "B1 B2"), "argue_topic")
    refused(state, action(state, ARGUE, C, "B1 B2"), "argue_topic")


def test_mixed_topic_argue_is_allowed_with_one_matching_card_but_gains_no_momentum() -> None:
    """RULINGS: "the cards of a sequence may have different topics; at least one must have the
    table's topic; if *every* card has the table's topic, the player gains momentum"."""
    state = position(3, ["A1 B2 C9", "A5 B5", "C4 C6"])
    for table in (A, B):
        after, events = play(state, ARGUE, table, "A1 B2")
        assert [type(e) for e in events] == [Argued]
        assert after.turn == 1 and not after.momentum
    refused(state, action(state, ARGUE, C, "A1 B2"), "argue_topic")


def test_all_matching_argue_gains_momentum() -> None:
    """Rulebook: "หัวข้อเดียวกัน ลง 12 รับ [momentum]" / "同じ議題 12 を出す [momentum] を得る" (same
    topic: play 12, gain momentum). RULINGS: "if *every* card has the table's topic, the player
    gains momentum"."""
    state = position(3, ["A1 A2 B7", "A5 B5", "C4 C6"])
    after, events = play(state, ARGUE, A, "A1 A2")
    assert events[-1] == MomentumGained(0)
    assert after.turn == 0 and after.momentum


def test_strict_topics_option_needs_every_card_on_topic() -> None:
    """RULINGS: "Offer a lobby option "strict topics" (every card must match the table; then
    every argue gains momentum), off by default."""
    state = position(3, ["A1 A2 B2 C9", "A5 B5", "C4 C6"], strict=True)
    refused(state, action(state, ARGUE, A, "A1 B2"), "argue_topic_strict")
    refused(state, action(state, ARGUE, B, "A1 B2"), "argue_topic_strict")
    argues = [a for a in legal_actions(state, 0) if a.kind == ARGUE]
    assert keys(argues) == {(ARGUE, A, ("A1", "A2"))}
    after, events = play(state, ARGUE, A, "A1 A2")
    assert events[-1] == MomentumGained(0) and after.momentum


def test_strict_topics_is_set_by_the_lobby_option() -> None:
    """RULINGS: "Offer a lobby option "strict topics" …, off by default."""
    assert not new_game(3, {}, 0)[0].strict
    assert new_game(3, {"strict_topics": True}, 0)[0].strict


# --- argue: winning ------------------------------------------------------------------------


def test_argue_always_wins_an_empty_table() -> None:
    """Winning an argument: "โต๊ะว่าง" / "空のテーブル" (an empty table). RULINGS: "an empty
    table is always won"."""
    state = position(3, ["A1 A2 B7", "A5 B5", "C4 C6"])
    cards = pick(state.hands[0], "A1 A2")
    after, events = play(state, ARGUE, A, "A1 A2")
    assert events[0] == Argued(0, A, cards, (), False)
    assert after.tables[A] == cards and ego(after, 0) == 0


def test_more_cards_beat_fewer() -> None:
    """Glossary: "การ์ดมากกว่าชนะ" / "枚数が多いほうが勝ち。" (more cards win)."""
    state = position(3, ["A1 A2 A3 C1", "A5 B5", "C4 C6"], tables=["A8 A9", "", ""])
    after, _ = play(state, ARGUE, A, "A1 A2 A3")
    assert names(after.tables[A]) == "A1 A2 A3"
    assert names(after.egos[0]) == "A8 A9"


def test_a_sequence_beats_a_single_babbled_card() -> None:
    """Rulebook: "การ์ดมากกว่าชนะ" (more cards win). RULINGS: "a sequence always beats a single
    babbled card"."""
    state = position(3, ["A1 A2 C1", "A5 B5", "C4 C6"], tables=["A9", "", ""])
    after, _ = play(state, ARGUE, A, "A1 A2")
    assert names(after.egos[0]) == "A9"


def test_fewer_cards_never_win() -> None:
    """Rulebook: "การ์ดมากกว่าชนะ" / "枚数が多いほうが勝ち。" (more cards win, so fewer lose, however
    high)."""
    state = position(3, ["A8 A9 C1", "A5 B5", "C4 C6"], tables=["A1 A2 A3", "", ""])
    refused(state, action(state, ARGUE, A, "A8 A9"), "argue_fewer_cards")


def test_equal_count_higher_sequence_wins() -> None:
    """Rulebook: "ถ้าจำนวนเท่ากัน ชุดเรียงที่สูงกว่าชนะ" / "同じ枚数なら数字の大きい連番が勝ち。" (with equal
    counts the higher sequence wins). RULINGS: "compare the highest numbers"."""
    state = position(3, ["A5 A6 A1 A2 C1", "A7 B7", "C4 C6"], tables=["A3 A4", "", ""])
    after, _ = play(state, ARGUE, A, "A5 A6")
    assert names(after.tables[A]) == "A5 A6" and names(after.egos[0]) == "A3 A4"
    refused(state, action(state, ARGUE, A, "A1 A2"), "argue_not_higher")


def test_equal_highest_loses() -> None:
    """RULINGS: "equal counts: the higher sequence wins (compare the highest numbers); equal
    highest loses"."""
    state = position(3, ["B4 A5 C1", "A7 B7", "C4 C6"], tables=["A4 B5", "", ""])
    refused(state, action(state, ARGUE, A, "B4 A5"), "argue_not_higher")


def test_fallacy_123_beats_789() -> None:
    """Rulebook: "ชุดเรียง 123 นอกจากกฎปกติแล้ว ยังชนะ 789 ได้ด้วย" / "連番 123
    のこと。通常のルールに加えて、 789 にも勝ちます。" (the sequence 123, in addition to the normal
    rules, also beats 789)."""
    state = position(3, ["A1 A2 A3 C1", "A5 B5", "C4 C6"], tables=["A7 A8 A9", "", ""])
    lying, cards = state.tables[A], pick(state.hands[0], "A1 A2 A3")
    after, events = play(state, ARGUE, A, "A1 A2 A3")
    assert events[0] == Argued(0, A, cards, lying, True)
    assert after.egos[0] == lying and after.tables[A] == cards


def test_789_still_beats_123_lying_on_the_table() -> None:
    """RULINGS: "fallacy: the sequence 123 also beats 789 ("in addition to the normal rules":
    789 still beats a 123 lying on the table)"."""
    state = position(3, ["A7 A8 A9 C1", "A5 B5", "C4 C6"], tables=["A1 A2 A3", "", ""])
    after, events = play(state, ARGUE, A, "A7 A8 A9")
    assert isinstance(events[0], Argued) and not events[0].fallacy
    assert names(after.egos[0]) == "A1 A2 A3"


@pytest.mark.parametrize(("hand", "table"), [("A1 A2", "A8 A9"), ("A2 A3 A4", "A7 A8 A9")])
def test_the_fallacy_is_only_123_over_789(hand: str, table: str) -> None:
    """Rulebook: "ชุดเรียง 123 … ยังชนะ 789 ได้ด้วย" / "連番 123 … 789 にも勝ちます" (only the sequence
    123 beats 789; 12 does not beat 89, 234 does not beat 789)."""
    state = position(3, [f"{hand} C1", "A5 B5", "C4 C6"], tables=[table, "", ""])
    refused(state, action(state, ARGUE, A, hand), "argue_not_higher")


def test_rulebook_example_play_123_collect_45_plus_2() -> None:
    """Rulebook: "ลง 123 เก็บ 45 123 ชนะ 45 +2 ✦" / "123 を出す 45 を獲得 123 が 45 に勝つ +2 ✦"
    (play 123, collect 45: 123 beats 45, +2 ego). RULINGS: "The cards that were on the table go to
    the winner's ego pile (+1 ego each)"."""
    state = position(3, ["B1 B2 B3 C9", "A5 A6", "C4 C6"], tables=["", "B4 B5", ""])
    lying = state.tables[B]
    after, events = play(state, ARGUE, B, "B1 B2 B3")
    assert ego(after, 0) == ego(state, 0) + 2
    assert after.egos[0] == lying
    assert isinstance(events[0], Argued) and events[0].collected == lying


def test_the_winning_sequence_stays_on_the_table() -> None:
    """RULINGS: "The winning sequence stays on the table."""
    state = position(3, ["B3 B1 B2 C9", "A5 A6", "C4 C6"], tables=["", "B4 B5", ""])
    after, _ = play(state, ARGUE, B, "B3 B1 B2")
    assert names(after.tables[B]) == "B1 B2 B3"  # kept in number order
    assert names(after.hands[0]) == "C9"
    assert sorted(after.tables[B] + after.egos[0] + after.hands[0]) == sorted(
        state.tables[B] + state.hands[0]
    )


def test_rulebook_turn_example_12_then_234_with_momentum() -> None:
    """The turn example: "แอ็คชันที่ 1 จาก 2: หัวข้อเดียวกัน ลง 12 รับ [momentum]; แอ็คชันที่ 2
    จาก 2: ใช้ [momentum] ลง 234 เก็บ 12 234 ชนะ 12 +2 ✦" / "アクション 1/2: 同じ議題 12 を出す
    [momentum] を得る; アクション 2/2: [momentum] を使い 234 を出す 12 を獲得 234 が 12 に勝つ
    +2 ✦" (action 1 of 2: same topic, play 12, gain momentum; action 2 of 2: use momentum, play
    234, collect 12, 234 beats 12, +2 ego). RULINGS: "A player may beat their own sequence (the
    turn example does exactly that)."""
    state = position(4, ["A1 A2 A2 A3 A4 C9", "B1 B2", "B3 B4", "C4 C6"])
    first, _ = play(state, ARGUE, A, "A1 A2")
    assert first.turn == 0 and first.momentum
    twelve = first.tables[A]
    second, events = play(first, ARGUE, A, "A2 A3 A4")
    assert events[0] == Argued(0, A, pick(first.hands[0], "A2 A3 A4"), twelve, False)
    assert ego(second, 0) == 2 and second.egos[0] == twelve
    assert names(second.tables[A]) == "A2 A3 A4" and names(second.hands[0]) == "C9"
    assert MomentumGained(0) not in events  # the turn's momentum is spent
    assert second.turn == 1 and not second.momentum


# --- listen --------------------------------------------------------------------------------


def test_listen_takes_one_card_into_hand_discards_the_rest_face_up_and_gains_momentum() -> None:
    """Rulebook: "หยิบการ์ดหนึ่งใบจาก[โต๊ะ]ที่มีการ์ดตั้งแต่สองใบขึ้นไปขึ้นมือ ทิ้งการ์ดที่เหลือแบบหงาย …
    รับ [momentum]" / "カードが2枚以上ある[テーブル]から1枚を手札に加え、残りは表向きで捨てます。
    … [momentum] を得ます。" (from a table with 2 or more cards take one card into your hand,
    discard the rest face up; gain momentum)."""
    state = position(3, ["C1", "B1 B2", "C2 C3"], tables=["A4 A5 A6", "", ""], discard="B9")
    (card,) = pick(state.tables[A], "A5")
    after, events = play(state, LISTEN, A, "A5")
    assert names(after.hands[0]) == "A5 C1"
    assert after.tables[A] == ()
    assert names(after.discard) == "B9 A4 A6"
    assert events == [Listened(0, A, card, pick(state.tables[A], "A4 A6")), MomentumGained(0)]
    assert after.turn == 0 and after.momentum


def test_listen_is_for_three_or_four_players_only() -> None:
    """Rulebook: "สำหรับผู้เล่น 3–4 คนเท่านั้น" / "3〜4人プレイのみ。" (3-4 players only)."""
    state = position(2, ["C1 C5", "B1 B5"], tables=["A4 A5 A6", "", ""])
    assert LISTEN not in kinds(state)
    refused(state, Action(LISTEN, A, pick(state.tables[A], "A5")), "listen_needs_three_players")
    four = position(4, ["C1", "B1", "B2", "C2"], tables=["A4 A5", "", ""])
    assert LISTEN in kinds(four)


def test_listen_needs_a_table_with_two_or_more_cards() -> None:
    """Rulebook: "จาก[โต๊ะ]ที่มีการ์ดตั้งแต่สองใบขึ้นไป" / "カードが2枚以上ある[テーブル]から" (from a
    table with two or more cards)."""
    state = position(3, ["C1 C5", "B1 B5", "C2 C3"], tables=["A4", "", "C7 C8"])
    refused(state, Action(LISTEN, A, state.tables[A]), "listen_needs_two_cards")
    refused(state, Action(LISTEN, B, pick(state.hands[0], "C1")), "listen_needs_two_cards")


def test_listen_takes_one_card_lying_on_that_table() -> None:
    """Rulebook: "หยิบการ์ดหนึ่งใบจาก[โต๊ะ]" / "[テーブル]から1枚を手札に加え" (take one card from the
    table)."""
    state = position(3, ["C1 C5", "B1 B5", "C2 C3"], tables=["A4 A5", "", "C7 C8"])
    refused(state, Action(LISTEN, A, state.tables[C][:1]), "listen_card_not_on_table")
    refused(state, Action(LISTEN, A, state.tables[A]), "listen_card_not_on_table")
    refused(state, Action(LISTEN, A), "listen_card_not_on_table")


# --- let go --------------------------------------------------------------------------------


def test_let_go_discards_two_or_more_cards_of_one_number_face_up_whatever_their_topics() -> None:
    """Rulebook: "ทิ้งการ์ดจากมือสองใบขึ้นไปที่มีแต้มเดียวกันลงกองทิ้งแบบหงาย เช่น ทิ้ง 111 หัวข้อของการ์ด
    ไม่สำคัญ" / "同じ数字のカード2枚以上を、手札から捨て札の山に表向きで捨てます。例:111 を捨てる。
    議題は関係ありません。" (discard 2 or more cards of one number from your hand face up, e.g.
    111; topics do not matter)."""
    state = position(3, ["A1 B1 C1 A2 B2 C5", "A5 A6", "C4 C6"], tables=["A9", "", ""])
    cards = pick(state.hands[0], "A1 B1 C1")
    after, events = play(state, LET_GO, NO_TABLE, "A1 B1 C1")
    assert names(after.hands[0]) == "A2 B2 C5"
    assert after.discard == cards
    assert events == [LetGo(0, cards)]
    assert after.turn == 1 and not after.momentum
    pair, _ = play(state, LET_GO, NO_TABLE, "B2 A2")
    assert names(pair.discard) == "B2 A2"


def test_let_go_needs_two_cards() -> None:
    """Rulebook: "ทิ้งการ์ดจากมือสองใบขึ้นไป" / "同じ数字のカード2枚以上を" (two or more cards)."""
    state = position(3, ["A1 B1 C5", "A5 A6", "C4 C6"], tables=["A9", "", ""])
    refused(state, action(state, LET_GO, NO_TABLE, "A1"), "let_go_needs_two")
    refused(state, Action(LET_GO), "let_go_needs_two")


def test_let_go_never_two_numbers_at_once() -> None:
    """Rulebook: "แต่ทิ้งทั้ง 11 และ 22 ในครั้งเดียวไม่ได้" / "ただし 11 と 22 を1回の[水に流す]でまとめて
    捨てることはできません。" (but 11 and 22 may not be discarded together)."""
    state = position(3, ["A1 B1 A2 B2 C5", "A5 A6", "C4 C6"], tables=["A9", "", ""])
    refused(state, action(state, LET_GO, NO_TABLE, "A1 B1 A2 B2"), "let_go_one_number")
    refused(state, action(state, LET_GO, NO_TABLE, "A1 C5"), "let_go_one_number")


def test_let_go_only_from_your_own_hand() -> None:
    """Rulebook: "ทิ้งการ์ดจากมือ" / "手札から…捨てます" (discard from your hand)."""
    state = position(3, ["A1 C5", "B1 A6", "C4 C6"], tables=["C1", "", ""])
    mine, theirs = pick(state.hands[0], "A1"), pick(state.hands[1], "B1")
    refused(state, Action(LET_GO, NO_TABLE, mine + theirs), "card_not_in_hand")
    refused(state, Action(LET_GO, NO_TABLE, mine + state.tables[A]), "card_not_in_hand")
    refused(state, Action(LET_GO, NO_TABLE, mine + mine), "card_not_in_hand")


def test_let_go_of_two_copies_of_one_card() -> None:
    """Rulebook: "ทิ้งการ์ดจากมือสองใบขึ้นไปที่มีแต้มเดียวกัน" (two or more cards of one number): with 4
    players topic A has two 5s, and topics do not matter either."""
    state = position(4, ["A5 A5 C1", "B1 B2", "B3 B4", "C4 C6"], tables=["A9", "", ""])
    after, _ = play(state, LET_GO, NO_TABLE, "A5 A5")
    assert names(after.discard) == "A5 A5" and names(after.hands[0]) == "C1"


# --- flip the table ------------------------------------------------------------------------


def test_flip_is_for_flip_table_mode_only() -> None:
    """Rulebook: "เฉพาะโหมดล้มโต๊ะ" / "ちゃぶ台返しモードのみ。" (flip-table mode only)."""
    state = position(3, ["C1 C5", "B1 B5", "C2 C3"], tables=["A4 A5 A6", "", ""])
    assert FLIP not in kinds(state)
    refused(state, Action(FLIP, A), "flip_mode_off")
    assert FLIP in kinds(state._replace(flip_mode=True))
    assert new_game(3, {"flip": True}, 0)[0].flip_mode and not new_game(3, {}, 0)[0].flip_mode


def test_flip_needs_a_table_with_exactly_three_cards() -> None:
    """Rulebook: "พลิก[โต๊ะ]ที่มีการ์ดพอดีสามใบ" / "カードがちょうど3枚ある[テーブル]を裏返し" (flip a
    table holding exactly three cards)."""
    state = position(3, ["C1 C5", "B1 B5", "C2 C3"], tables=["A4 A5", "B6", ""], flip=True)
    for table in (A, B, C):
        refused(state, Action(FLIP, table), "flip_needs_three")


def test_flip_discards_the_three_cards_and_gains_momentum() -> None:
    """Rulebook: "พลิก[โต๊ะ]ที่มีการ์ดพอดีสามใบ ทิ้ง[การ์ด]เหล่านั้น แล้วรับ [momentum]" / "カードがちょうど
    3枚ある[テーブル]を裏返し、その[カード]を捨てて [momentum] を得ます。" (flip a table holding
    exactly three cards, discard them, gain momentum)."""
    state = position(3, ["C1 C5", "B1 B5", "C2 C3"], tables=["A4 A5 A6", "", ""], flip=True)
    lying = state.tables[A]
    after, events = play(state, FLIP, A)
    assert after.tables[A] == () and after.discard == lying and after.flipped[A]
    assert events == [Flipped(0, A, lying, B), MomentumGained(0)]
    assert after.turn == 0 and after.momentum and after.hands == state.hands


@pytest.mark.parametrize("table", [A, B, C])
def test_a_flipped_table_shows_the_next_topic(table: int) -> None:
    """Rulebook: "พลิกแล้ว โต๊ะจะเปลี่ยนหัวข้อ" / "裏返すと議題が変わる" (a flipped table changes topic).
    RULINGS: "The back of table *i* shows topic *i+1* (mod 3). After a flip two tables can share
    a topic and one topic has no table."""
    tables = ["", "", ""]
    tables[table] = "A4 A5 A6"
    state = position(3, ["A1 B2 C3", "B1 B5", "C2 C5"], tables=tables, flip=True)
    after, events = play(state, FLIP, table)
    assert after.momentum and after.round == 1  # still the same turn
    shown = topics(after)
    assert shown[table] == (table + 1) % 3 == table_topic(table, True)
    assert isinstance(events[0], Flipped) and events[0].topic == shown[table]
    assert len(set(shown)) == 2 and table not in shown
    assert view(after, None).table_topics == shown


def test_cards_may_be_played_on_the_just_flipped_table_in_the_same_turn() -> None:
    """Rulebook: "ในเทิร์นเดียวกัน คุณสามารถลงการ์ดบนโต๊ะที่เพิ่งพลิกได้" / "同じ手番のうちに、裏返した
    ばかりのテーブルにカードを出すこともできます。" (in the same turn you may play cards onto the
    table you just flipped)."""
    state = position(3, ["A1 B2 C3", "B1 B5", "C2 C6"], tables=["A4 A5 A6", "", "C9"], flip=True)
    flipped, _ = play(state, FLIP, A)
    refused(flipped, action(flipped, BABBLE, A, "A1"), "babble_topic")  # now shows topic B
    after, events = play(flipped, BABBLE, A, "B2")
    assert names(after.tables[A]) == "B2" and events == [
        Babbled(0, A, pick(state.hands[0], "B2")[0])
    ]
    assert after.turn == 1


def test_flipping_a_flipped_table_turns_it_back() -> None:
    """Glossary: "แต่ละโต๊ะมีด้านไอคอนสีขาวและด้านที่พลิก" / "白アイコン面と裏面があります" (each
    table has a white side and a flip side), so flipping the back shows the white side again."""
    state = position(
        3,
        ["A1 B2", "B1 B8", "C2 C6"],
        tables=["B4 B5 B6", "", ""],
        flipped=(True, False, False),
        flip=True,
    )
    assert topics(state)[A] == B
    after, _ = play(state, FLIP, A)
    assert not after.flipped[A] and topics(after)[A] == A


# --- momentum ------------------------------------------------------------------------------

MOMENTUM_CASES = [
    # (what, players, hands, tables, kind, table, cards, gains momentum)
    ("argue all on topic", 3, "A1 A2 C9", ["", "", ""], ARGUE, A, "A1 A2", True),
    ("listen", 3, "C9 A1", ["A4 A5", "", ""], LISTEN, A, "A4", True),
    ("flip", 3, "C9 A1", ["A4 A5 A6", "", ""], FLIP, A, "", True),
    ("argue mixed topics", 3, "A1 B2 C9", ["", "", ""], ARGUE, A, "A1 B2", False),
    ("babble", 3, "A1 C9", ["", "", ""], BABBLE, A, "A1", False),
    ("cut off", 3, "A1 C9", ["A4", "", ""], CUT_OFF, A, "", False),
    ("let go", 3, "A1 B1 C9", ["A4", "", ""], LET_GO, NO_TABLE, "A1 B1", False),
]


@pytest.mark.parametrize(
    ("players", "hand", "tables", "kind", "table", "text", "gains"),
    [case[1:] for case in MOMENTUM_CASES],
    ids=[case[0] for case in MOMENTUM_CASES],
)
def test_three_ways_to_gain_momentum(
    players: int, hand: str, tables: list[str], kind: str, table: int, text: str, gains: bool
) -> None:
    """Rulebook: "รับ [momentum] ได้สามทาง" / "[momentum] を得る方法は3つあります。" (there are three
    ways to gain momentum). RULINGS: "Gained by: an argue whose cards all have the table's topic,
    listen, flip."""
    state = position(players, [hand, "B5 B6", "C5 C6"], tables=tables, flip=True)
    after, events = play(state, kind, table, text)
    assert (MomentumGained(0) in events) is gains
    assert after.momentum is gains
    assert after.turn == (0 if gains else 1)


def test_momentum_means_the_same_player_must_act_again_at_once() -> None:
    """Rulebook: "เมื่อได้ [momentum] คุณต้องทำอีกหนึ่งแอ็คชันทันที" / "[momentum] を得たら、すぐにもう1回
    アクションを必ず行います。" (when you gain momentum you must take one more action at once).
    RULINGS: "The player must take one more action at once (any action, the same one too)."""
    state = position(3, ["A1 B2 B3 C7 C7", "B5 B6", "C5 C6"], tables=["A4 A5", "B9", ""], flip=True)
    after, _ = play(state, LISTEN, A, "A4")
    assert after.turn == 0 and after.momentum
    assert legal_actions(after, 1) == [] and legal_actions(after, 2) == []
    refused(after, Action(CUT_OFF, B), "not_your_turn", player=1)
    assert kinds(after) == {BABBLE, CUT_OFF, ARGUE, LET_GO}  # any action
    for act in legal_actions(after, 0):
        done, _ = apply(after, 0, act)
        assert done.turn == 1 and not done.momentum  # the turn ends after the extra action


def test_momentum_extra_action_may_be_the_same_action() -> None:
    """Rulebook: "จะเป็นแอ็คชันเดิมก็ได้" / "同じアクションでもかまいません。" (it may be the same
    action)."""
    state = position(3, ["C9", "B5 B6", "C5 C6"], tables=["A4 A5", "B7 B8", ""])
    once, _ = play(state, LISTEN, A, "A4")
    assert once.momentum and once.turn == 0
    twice, events = play(once, LISTEN, B, "B8")
    assert names(twice.hands[0]) == "A4 B8 C9"
    assert MomentumGained(0) not in events
    assert twice.turn == 1 and not twice.momentum


def test_momentum_at_most_once_a_turn() -> None:
    """Rulebook: "รับ [momentum] ได้ครั้งเดียวต่อเทิร์น แม้จะทำเงื่อนไขได้อีกก็ตาม" / "[momentum] は条件を
    再び満たしても、1手番に1回だけしか得られません。" (momentum can be gained only once a turn,
    even if its condition is met again)."""
    state = position(3, ["B1 B2 C9", "B5 C5", "C6 C7"], tables=["A4 A5 A6", "", ""])
    once, events = play(state, ARGUE, B, "B1 B2")
    assert MomentumGained(0) in events and once.momentum
    second, events = play(once, LISTEN, A, "A6")  # would gain momentum again
    assert not any(isinstance(e, MomentumGained) for e in events)
    assert second.turn == 1 and not second.momentum
    third, events = play(second, LISTEN, B, "B2")  # the next player's turn may gain it again
    assert MomentumGained(1) in events and third.turn == 1 and third.momentum


# --- a stuck player ------------------------------------------------------------------------


def test_a_stuck_player_ends_the_round_in_the_base_game() -> None:
    """Flip-table mode: "รอบจะจบด้วยถ้าทำแอ็คชันไม่ได้" / "アクションを行えないときもラウンド
    終了。" (the round also ends when a player cannot act). RULINGS: "that ending applies in
    every mode (in the base game with 2 players it can happen)"."""
    state = position(2, ["B6 C7 A5", "A1 B3 C9"], tables=["A8 A9", "B7 B8 B9", "C5 C6"], first=1)
    after, events = play(state, ARGUE, C, "B6 C7")
    assert Stuck(1) in events
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.emptied_by is None and ended.round == 1
    assert [(s.player, s.ego) for s in ended.scores] == [(0, 2 - 1), (1, 0 - 3)]
    assert after.round == 2 and events[-1] == RoundStarted(2, 1, False)


def test_a_stuck_player_ends_the_round_in_flip_table_mode() -> None:
    """Rulebook: "จบรอบ: โหมดล้มโต๊ะ … รอบจะจบด้วยถ้าทำแอ็คชันไม่ได้" / "ラウンド終了:ちゃぶ台返しモード
    … アクションを行えないときもラウンド終了。" (flip-table mode: the round also ends when a player
    cannot take an action). Here a flip left topic A without a table."""
    state = position(
        3,
        ["B2 C6", "A1 A3 A5", "B7 C8"],
        tables=["", "", "C4"],
        flipped=(True, False, False),
        flip=True,
    )
    assert topics(state) == (B, B, C)
    after, events = play(state, CUT_OFF, C)
    assert not can_act(state._replace(tables=((), (), ()), turn=1), 1)
    assert events[1] == Stuck(1)
    assert isinstance(events[2], RoundEnded) and events[2].emptied_by is None
    assert after.round == 2 and after.flipped == (False, False, False)


def test_a_stuck_player_ends_the_round_when_the_momentum_action_is_impossible() -> None:
    """RULINGS: "the momentum action is compulsory … that ending applies … also when a player
    who gained momentum has no legal action left"."""
    state = position(2, ["A2 A3 B5 C9", "B1 C2"], tables=["A1", "B7 B8", "C6 C7 C8"])
    after, events = play(state, ARGUE, A, "A2 A3")
    assert [type(e) for e in events[:4]] == [Argued, MomentumGained, Stuck, RoundEnded]
    assert events[2] == Stuck(0)
    assert after.round == 2


def test_the_player_to_move_always_has_an_action() -> None:
    """Rulebook: "คุณต้องทำหนึ่งในห้าแอ็คชัน … ห้ามผ่าน" / "1つを必ず行います…パスはできません。" (you must
    take one of the actions; no passing): a stuck player never waits, the round ends instead."""
    for seed in range(30):
        state, _ = new_game(2 + seed % 3, {"flip": seed % 2 == 0}, seed)
        steps = 0
        while not state.over:
            legal = legal_actions(state, state.turn)
            assert legal and can_act(state, state.turn)
            state, _ = apply(state, state.turn, legal[(seed + steps) % len(legal)])
            steps += 1
        assert state.over


# --- round end and scoring -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "table", "text"),
    [(BABBLE, A, "A1"), (ARGUE, B, "B1 C2"), (LET_GO, NO_TABLE, "A4 C4")],
)
def test_round_ends_at_once_when_a_hand_empties(kind: str, table: int, text: str) -> None:
    """Rulebook: "รอบจบทันทีเมื่อมีผู้เล่นคนใดลงการ์ดจากมือจนหมด" / "誰かの手札がなくなったら、そのラウンド
    はただちに終了します。" (the round ends at once when any player has played out their
    hand)."""
    hand = text
    state = position(3, [hand, "B5 B6", "C5 C6"], tables=["", "B9", ""])
    after, events = play(state, kind, table, text)
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.emptied_by == 0 and ended.round == 1
    assert after.round == 2 and events[-1] == RoundStarted(2, after.first, False)


def test_round_ends_at_once_when_a_hand_empties_even_mid_momentum() -> None:
    """RULINGS: "Round end. At once when a hand becomes empty, even in the middle of a momentum
    turn."""
    state = position(3, ["A8 A9", "B5 B6", "C5 C6"], tables=["A6 A7", "B9", ""])
    listened, _ = play(state, LISTEN, A, "A7")
    assert listened.momentum and names(listened.hands[0]) == "A7 A8 A9"
    after, events = play(listened, ARGUE, A, "A7 A8 A9")
    assert [type(e) for e in events] == [Argued, RoundEnded, RoundStarted]
    assert isinstance(events[1], RoundEnded) and events[1].emptied_by == 0
    assert after.round == 2 and not after.momentum
    # also when the emptying action would itself gain momentum
    fresh = position(3, ["A1 A2", "B5 B6", "C5 C6"], tables=["", "B9", ""])
    done, events = play(fresh, ARGUE, A, "A1 A2")
    assert [type(e) for e in events] == [Argued, RoundEnded, RoundStarted]
    assert done.round == 2 and not done.momentum


def test_ego_is_collected_cards_minus_cards_left_in_hand() -> None:
    """Rulebook: "เสีย 1 ✦ ต่อการ์ดหนึ่งใบที่เหลือในมือ จากนั้นเทียบ ✦ ที่เหลือกัน" / "手札に残ったカード1枚
    につき1 ✦ を失います。そのあと、残った ✦ を比べます。" (lose 1 ego per card left in hand, then
    compare the ego left). RULINGS: "ego = cards in the ego pile − cards left in hand"."""
    state = position(3, ["A9", "B8 B9", "C1 C2 C3"], egos=["A1 A2 A3", "B1", "C7 C8 C9 C6"], turn=0)
    _, events = play(state, BABBLE, A, "A9")
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.scores == (
        RoundScore(0, 1, 3, 3, 0, 0, 2),
        RoundScore(2, 2, 1, 4, 3, 6, 1),
        RoundScore(1, 3, -1, 1, 2, 17, 0),
    )
    assert round_ranking(state._replace(hands=((), *state.hands[1:]))) == [
        (0, 3, 0),
        (2, 1, 6),
        (1, -1, 17),
    ]


def test_tie_on_ego_goes_to_the_smaller_hand_sum() -> None:
    """Rulebook: "ถ้าเสมอกัน คนที่ผลรวมแต้มของการ์ดที่เหลือในมือน้อยกว่าชนะ" / "同点の場合は、手札に残った
    カードの数字の合計が小さい人が上位です。" (on a tie, the smaller sum of the numbers left in
    hand ranks higher)."""
    state = position(3, ["A9", "B2 B3", "C1 C5"], egos=["", "B8 B9", "C8 C9"], first=1)
    assert round_ranking(state) == [(1, 0, 5), (2, 0, 6), (0, -1, 9)]


def test_tie_on_ego_and_hand_sum_goes_to_the_player_farther_clockwise_from_the_first() -> None:
    """Rulebook: "ถ้ายังเสมออีก คนที่อยู่ห่างจากผู้เริ่มรอบตามเข็มนาฬิกามากที่สุดชนะ" / "それでも同点なら、
    スタートプレイヤーから時計回りに遠い人が上位です。" (if still tied, the player farthest
    clockwise from the round's first player ranks higher)."""
    for first, order in ((0, [3, 2, 1, 0]), (2, [1, 0, 3, 2])):
        state = position(4, ["A3", "B3", "C3", "A3"], first=first, turn=first)
        assert [row[0] for row in round_ranking(state)] == order


@pytest.mark.parametrize(("players", "won"), [(2, [2, 1]), (3, [2, 1, 0]), (4, [2, 1, 0, 0])])
def test_first_gets_2_trophies_second_gets_1(players: int, won: list[int]) -> None:
    """Glossary: "อันดับหนึ่งของรอบได้ 2 trophy อันดับสองได้ 1 trophy" / "ラウンド1位は2 trophy、
    2位は1 trophy。" (1st of the round gets 2 trophies, 2nd gets 1). RULINGS: "with 2 players
    both get them"."""
    hands = ["A1", "B1 B2", "C1 C2 C3", "A5 A6 A7 A8"][:players]
    state = position(players, hands, tables=["", "B9", ""], trophies=[1] * players)
    after, events = play(state, BABBLE, A, "A1")
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert [s.trophies_won for s in ended.scores] == won
    assert [s.player for s in ended.scores] == list(range(players))
    assert after.trophies == tuple(1 + w for w in won) == ended.trophies


def test_first_player_card_goes_to_the_last_placed_player() -> None:
    """Rulebook: "หลังจบแต่ละรอบจะส่งต่อให้ผู้เล่นอันดับสุดท้าย" / "各ラウンドのあと、最下位の人に渡ります。"
    (after each round the first-player card passes to the last placed player)."""
    state = position(4, ["A1", "B1 B2 B3 B4", "C1 C2", "A5 A6 A7"], tables=["", "B9", ""])
    after, events = play(state, BABBLE, A, "A1")
    assert after.first == after.turn == 1
    assert events[-1] == RoundStarted(2, 1, False)


def test_between_rounds_everything_is_reshuffled_and_trophies_kept() -> None:
    """RULINGS: "every card comes back; tables, ego piles and discards are cleared, flipped
    tables turned back, the deck reshuffled, a new face-down card set aside with 2 players, and
    the hands dealt again. Trophies stay." Flip-table mode: "โต๊ะที่ถูกพลิกต้องพลิกกลับก่อนเริ่ม
    รอบถัดไป" / "裏返したテーブルは次のラウンドの前に戻します。" (flipped tables are turned back
    before the next round)."""
    state = position(
        2,
        ["A1", "B1 B2"],
        tables=["", "B9", "C4 C5"],
        flipped=(False, True, True),
        egos=["A8 A9", "C9"],
        discard="A4 A5",
        facedown="A6",
        trophies=[1, 1],
        flip=True,
        first=1,
    )
    after, _ = play(state, BABBLE, A, "A1")
    assert after.round == 2 and after.first == after.turn == 1
    assert after.tables == ((), (), ()) and after.flipped == (False, False, False)
    assert after.egos == ((), ()) and after.discard == ()
    assert [len(h) for h in after.hands] == [13, 13] and after.facedown >= 0
    assert all_cards_accounted(after)
    assert after.trophies == (1 + 2, 1 + 1)
    again, _ = play(state._replace(rng=state.rng + 1), BABBLE, A, "A1")
    assert again.hands != after.hands  # the deal depends on the generator: a real reshuffle


def test_the_game_ends_after_three_rounds() -> None:
    """Rulebook: "เล่น 3 รอบ" / "3ラウンド遊ぶ" (play 3 rounds)."""
    state = position(3, ["A1", "B1 B2", "C1 C2 C3"], tables=["", "B9", ""], round=3)
    after, events = play(state, BABBLE, A, "A1")
    assert after.over and after.round == 3
    assert events[-1] == GameEnded((0, 1, 2), (2, 1, 0), round=3, early=False)
    assert not any(isinstance(e, RoundStarted) for e in events)
    assert all(legal_actions(after, p) == [] for p in range(3))
    for player in range(3):
        with pytest.raises(IllegalAction) as info:
            apply(after, player, Action(CUT_OFF, B))
        assert info.value.code == "game_over"
    assert GAME.is_over(after) and GAME.to_move(after) == ()


def test_the_game_ends_after_a_round_in_which_someone_reached_4_trophies() -> None:
    """Rulebook: "เล่น 3 รอบ หรือจนกว่าจะมีผู้เล่นได้ 4 [trophy]" / "3ラウンド遊ぶか、誰かが4 [trophy] を
    集めたら終了です。" (play 3 rounds, or until someone has 4 trophies). RULINGS: "or at the end
    of a round in which somebody reached 4 trophies"."""
    state = position(
        3, ["A1", "B1 B2", "C1 C2 C3"], tables=["", "B9", ""], round=2, trophies=[2, 1, 0]
    )
    after, events = play(state, BABBLE, A, "A1")
    assert after.over and after.trophies == (4, 2, 0)
    assert events[-1] == GameEnded((0, 1, 2), (4, 2, 0), round=2, early=True)


def test_the_game_goes_on_while_nobody_has_4_trophies_before_round_3() -> None:
    """Rulebook: "เล่น 3 รอบ หรือจนกว่าจะมีผู้เล่นได้ 4 [trophy]" (3 rounds, or until someone has 4)."""
    state = position(
        3, ["A1", "B1 B2", "C1 C2 C3"], tables=["", "B9", ""], round=2, trophies=[1, 2, 0]
    )
    after, events = play(state, BABBLE, A, "A1")
    assert not after.over and after.round == 3 and after.trophies == (3, 3, 0)
    assert events[-1] == RoundStarted(3, 2, False)


def test_most_trophies_win_the_game() -> None:
    """Rulebook: "คนที่มี [trophy] มากที่สุดชนะ" / "[trophy] がいちばん多い人の勝ちです。" (the player
    with the most trophies wins)."""
    state = position(
        3, ["A1", "B1 B2", "C1 C2 C3"], tables=["", "B9", ""], round=3, trophies=[0, 1, 3]
    )
    after, events = play(state, BABBLE, A, "A1")
    assert after.trophies == (2, 2, 3)
    assert final_ranking(after) == (2, 0, 1)
    assert result(after) == (Placing(2, 1, 3), Placing(0, 2, 2), Placing(1, 3, 2))
    assert events[-1] == GameEnded((2, 0, 1), (2, 2, 3))


def test_a_final_tie_goes_to_the_better_place_in_the_last_round() -> None:
    """Rulebook: "ถ้าเสมอ คนที่ได้อันดับดีกว่าในรอบสุดท้ายชนะ" / "同点なら、最終ラウンドの順位が上の人が
    勝ちます。" (on a tie, the better place in the last round wins)."""
    state = position(
        3,
        ["B1 B2 B3", "C9", "A1"],
        tables=["", "", "C8"],
        round=3,
        trophies=[1, 3, 2],
        turn=2,
        first=2,
    )
    after, _ = play(state, BABBLE, A, "A1")  # 2 wins the round, 1 second, 0 third
    assert after.trophies == (1, 4, 4)
    assert after.last_ranking == (2, 1, 0)
    assert final_ranking(after) == (2, 1, 0)


# --- what each player sees -----------------------------------------------------------------


def test_others_may_count_your_ego_and_hand_but_not_see_their_faces() -> None:
    """Rulebook: "ผู้เล่นคนอื่นนับ ✦ และ[การ์ด]ในมือของคุณได้ตลอด แต่ห้ามดูหน้าการ์ด" / "ほかのプレイヤーは、
    あなたの ✦ と手札の[カード]の枚数をいつでも数えられますが、カードの表を見ることはできません。"
    (others may count your ego and hand cards at any time, but not look at their faces)."""
    state = position(
        3,
        ["A1 A2", "B1 B2 B3", "C1"],
        tables=["A9", "B7 B8", ""],
        egos=["C9", "", "C7 C8"],
        discard="A5 B5",
    )
    for player in range(3):
        seen = view(state, player)
        assert seen.hand == state.hands[player]
        assert seen.hand_sizes == (2, 3, 1) and seen.ego_piles == (1, 0, 2)
        visible = set(seen.hand) | {c for t in seen.tables for c in t} | set(seen.discard)
        others = {c for p in range(3) if p != player for c in state.hands[p]}
        assert not visible & others
        assert not visible & {c for e in state.egos for c in e}
    public = view(state, None)
    assert public.me is None and public.hand == ()
    assert public.hand_sizes == (2, 3, 1) and public.ego_piles == (1, 0, 2)


def test_everyone_sees_the_tables_and_the_face_up_discard_pile() -> None:
    """Rulebook: "ทุกคนดูกองทิ้งที่หงายอยู่ได้ตลอดเวลา" / "表向きの捨て札は、誰でもいつでも見られます。"
    (everyone may look at the face-up discard pile at any time)."""
    state = position(
        3,
        ["A1 A2", "B1 B2 B3", "C1"],
        tables=["A9", "B7 B8", ""],
        discard="A5 B5",
        flipped=(False, False, True),
        flip=True,
    )
    for player in (None, 0, 1, 2):
        seen = view(state, player)
        assert seen.tables == state.tables and seen.discard == state.discard
        assert seen.table_topics == (A, B, A) and seen.flipped == state.flipped
        assert seen.turn == state.turn and seen.trophies == state.trophies


def test_nobody_sees_the_face_down_card() -> None:
    """RULINGS: "nobody sees the face-down 2-player card"."""
    for seed in range(10):
        state, _ = new_game(2, {}, seed)
        for player in (None, 0, 1):
            seen = view(state, player)
            shown = {c for pile in (seen.hand, *seen.tables, seen.discard) for c in pile}
            assert state.facedown not in shown and len(shown) in (0, 13)


# --- action codes and refusals ------------------------------------------------------------


def test_action_codes_round_trip() -> None:
    """DESIGN: "Actions are typed values with a short stable code for button data"."""
    seen = 0
    for seed in range(40):
        state, _ = new_game(2 + seed % 3, {"flip": True}, seed)
        while not state.over:
            legal = legal_actions(state, state.turn)
            for act in legal:
                code = encode_action(act)
                assert code.isascii() and len(code) <= 32  # button data is short
                assert decode_action(code) == act
                seen += 1
            state, _ = apply(state, state.turn, legal[seed % len(legal)])
    assert seen > 1000


@pytest.mark.parametrize(
    "code",
    [
        "",
        "x",
        "p0",
        "b0.",
        "a1..2",
        "b0.x",
        "bx",
        ".",
        "B0",
        "b 0",
        "b0. 5",
        "b1_0",
        "c-1",
        "b\u0660",
        "b00",
        "b0.05",
        "a0.1.2.",
        "\u00e90",
    ],
)
def test_garbage_decodes_to_bad_action(code: str) -> None:
    """core.Game.decode_action: "Raises IllegalAction("bad_action") on anything that is not an
    action code"."""
    with pytest.raises(IllegalAction) as info:
        decode_action(code)
    assert info.value.code == "bad_action"


def test_a_refused_action_changes_nothing() -> None:
    """core.Game.apply: "raises IllegalAction and changes nothing"."""
    state = position(3, ["A1 A2 B7 C1 C5", "B5 B6", "C6 C7"], tables=["A9", "B1 B2", ""])
    before = to_json(GAME, state)
    attempts = [
        Action(BABBLE, A, pick(state.hands[0], "A1")),
        Action(ARGUE, B, pick(state.hands[0], "A1 A2")),
        Action(ARGUE, A, pick(state.hands[0], "A1 C5")),
        Action(LET_GO, NO_TABLE, pick(state.hands[0], "A1 A2")),
        Action(LISTEN, A, state.tables[A]),
        Action(FLIP, B),
        Action(CUT_OFF, B),
        Action("z", A),
    ]
    for act in attempts:
        with pytest.raises(IllegalAction):
            apply(state, 0, act)
        assert to_json(GAME, state) == before
    with pytest.raises(IllegalAction):
        apply(state, 1, Action(CUT_OFF, A))
    assert to_json(GAME, state) == before


def test_only_listed_actions_are_accepted_in_an_exact_position() -> None:
    """core.Game.legal_actions: "Every action `player` may take now"; apply accepts exactly
    those (up to the order of the cards and which copy of a card is named)."""
    state = position(4, ["A2 A2 A3 B4 C5 C5", "B1", "B3", "C1"], tables=["A1", "B5 B6", ""])
    pool = [*state.hands[0], *(c for t in state.tables for c in t)]
    accepted = set()
    for kind in (*KINDS, "x"):
        for table in (NO_TABLE, A, B, C, 3):
            for size in range(4):
                for cards in combinations(pool, size):
                    try:
                        apply(state, 0, Action(kind, table, cards))
                    except IllegalAction:
                        continue
                    accepted.add(key(Action(kind, table, cards)))
    assert accepted == keys(legal_actions(state, 0))
    assert (ARGUE, A, ("A2", "A3")) in accepted and (LISTEN, B, ("B6",)) in accepted


def test_actions_carry_only_their_own_parts() -> None:
    """DESIGN: "Actions are typed values": a cut-off or a flip names no cards, a let-go no
    table; anything else is refused."""
    state = position(3, ["A1 B1 C5", "B5", "C6"], tables=["A9", "", "C1 C2 C3"], flip=True)
    refused(state, Action(CUT_OFF, A, state.tables[A]), "bad_action")
    refused(state, Action(FLIP, C, state.tables[C]), "bad_action")
    refused(state, Action(LET_GO, A, pick(state.hands[0], "A1 B1")), "bad_action")
