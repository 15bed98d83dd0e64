"""One test per rule of the Thai Ano rulebook (seed 004), each quoting the sentence it checks
(with an English gloss), and the project's rulings (RULINGS.md, section Ano)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.ano import GAME
from engine.ano.cards import JOKER, POINTS, deck
from engine.ano.events import (
    AnoCalled,
    AnoOwed,
    Caught,
    ChainEnded,
    Dealt,
    Drew,
    FalseCatch,
    Finished,
    Fumbled,
    GameEnded,
    Kept,
    Played,
    Reshuffled,
    Reversed,
    Skipped,
    Stalled,
)
from engine.ano.rules import (
    CALL,
    CATCH,
    CLEAR,
    DRAW,
    FORGOT_CALL,
    KEEP,
    OWES,
    PLAY,
    Action,
    State,
    apply,
    legal_actions,
    new_game,
    result,
    timeout,
)
from engine.core import IllegalAction

from .helpers import card, cards, hand, position

HEARTS, CLUBS = 1, 3


def play(codes: str, suit: int = -1, call: bool = False) -> Action:
    return Action(PLAY, cards(codes), suit, call)


def refused(state: State, player: int, action: Action) -> str:
    with pytest.raises(IllegalAction) as info:
        apply(state, player, action)
    return info.value.code


def kinds(events: list[object]) -> list[str]:
    return [type(e).__name__ for e in events]


# --- equipment and the deal ------------------------------------------------------------------


def test_one_deck_with_or_without_jokers_or_two_decks() -> None:
    """ "ไพ่ป๊อก 1 สำรับ มี Joker หรือไม่มีก็ได้ (ถ้าเป็นไปได้ใช้ไพ่ 2 สำรับรวมกันจะสนุกกว่า)"
    (one deck, with or without jokers; two decks together are more fun)."""
    for decks, jokers, size in ((1, True, 54), (1, False, 52), (2, True, 108), (2, False, 104)):
        state, _ = new_game(4, {"decks": decks, "jokers": jokers}, seed=3)
        held = sum(map(len, state.hands)) + len(state.pile) + len(state.discard)
        assert held == size == len(deck(decks, jokers))


def test_two_to_ten_players() -> None:
    """ "เล่นได้ตั้งแต่ 2 คน ... แต่ไม่ควรเกิน 10 คน" (from 2 players, no more than 10)."""
    for players in (1, 11):
        with pytest.raises(IllegalAction) as info:
            new_game(players, {}, seed=1)
        assert info.value.code == "player_count"
    assert len(new_game(10, {"decks": 2}, seed=1)[0].hands) == 10


def test_deal_five_each_rest_is_the_draw_pile_top_card_turned_up() -> None:
    """ "แจกผู้เล่นแต่ละคนทีละใบจนครบคนละห้าใบ ไพ่ที่เหลือใช้เป็น กองจั่ว
    เปิดไพ่ใบบนสุดของกองจั่ววางหงายไว้ในกองกลาง" (deal five each, one at a time; the rest is
    the draw pile; turn its top card up in the middle)."""
    state, events = new_game(3, {}, seed=7)
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert len(state.discard) == 1 and len(state.pile) == 54 - 15 - 1
    assert events == [Dealt(0, state.discard[-1], events[0].jokers_back)]


def test_ruling_a_joker_turned_up_goes_back_to_the_bottom() -> None:
    """Ruling: a joker turned up at the deal goes to the bottom of the pile and another card is
    turned; the lobby opener (seat 0) starts."""
    backs = 0
    for seed in range(400):
        state, (dealt,) = new_game(2, {}, seed=seed)
        assert state.discard[-1] != JOKER and state.turn == 0
        if dealt.jokers_back:
            backs += 1
            assert state.pile[: dealt.jokers_back] == (JOKER,) * dealt.jokers_back
    assert backs > 0


def test_ruling_a_j_q_k_turned_up_has_no_effect() -> None:
    """Ruling: an A, J, Q or K turned up at the deal has no effect."""
    seen = set()
    for seed in range(200):
        state, (dealt,) = new_game(3, {}, seed=seed)
        seen.add(dealt.top % 13 + 1)
        assert (state.turn, state.direction, state.pending) == (0, 1, 0)
    assert {1, 11, 12, 13} <= seen


# --- a turn ------------------------------------------------------------------------------------


def test_play_same_rank_or_same_suit() -> None:
    """ "ลงไพ่ จากในมือ จะต้องเป็นตัวเลขเดียวกันหรือดอกไพ่เดียวกันกับไพ่ใบบนสุดของกองกลางจึงจะลง
    ไพ่ได้" (play a card of the same number or the same suit as the top card)."""
    state = position(["7S 3H 9D", "2C"], top="7H")
    legal = legal_actions(state, 0)
    assert play("7S") in legal and play("3H") in legal and play("9D") not in legal
    assert refused(state, 0, play("9D")) == "does_not_fit"
    after, _ = apply(state, 0, play("3H"))
    assert after.discard[-1] == card("3H") and after.turn == 1
    assert after.hands[0] == hand("7S 9D")


def test_draw_one_only_when_unable_to_play_and_the_turn_ends() -> None:
    """ "ถ้าไม่สามารถลงไพ่ให้จั่วไพ่ขึ้นมาจากกองจั่วหนึ่งใบ" (if you cannot play, draw one card
    from the pile). Ruling: no voluntary draw, and the drawn card is not played."""
    state = position(["7S 9D", "2C"], top="7H", pile="5H")
    assert Action(DRAW) not in legal_actions(state, 0)
    assert refused(state, 0, Action(DRAW)) == "must_play"
    stuck = position(["2S 9D", "2C"], top="7H", pile="3C 5H")
    assert legal_actions(stuck, 0) == [Action(DRAW)]
    after, events = apply(stuck, 0, Action(DRAW))
    assert after.hands[0] == hand("2S 9D 5H") and after.turn == 1
    assert Drew(0, 1, "turn") in events


def test_option_play_drawn_card_not_from_the_rulebook() -> None:
    """Option "play the drawn card if it fits" (not from the rulebook, off by default): the
    drawn card may be played at once, or kept."""
    state = position(["2S 9D", "2C"], top="7H", pile="5H", play_drawn=True)
    after, _ = apply(state, 0, Action(DRAW))
    assert after.turn == 0 and after.drawn == card("5H")
    assert set(legal_actions(after, 0)) == {play("5H"), Action(KEEP)}
    assert refused(after, 0, play("2S")) == "play_drawn_only"
    played, _ = apply(after, 0, play("5H"))
    assert played.discard[-1] == card("5H") and played.turn == 1
    kept, _ = apply(after, 0, Action(KEEP))
    assert kept.turn == 1 and kept.hands[0] == hand("2S 9D 5H")
    unfit = position(["2S 9D", "2C"], top="7H", pile="5C", play_drawn=True)
    assert apply(unfit, 0, Action(DRAW))[0].turn == 1


def test_several_cards_of_one_rank_one_fits_and_goes_at_the_bottom() -> None:
    """ "ไพ่ที่มีตัวเลขเหมือนกันสามารถลงพร้อมกันได้โดยต้องมีใบใดใบหนึ่งสามารถลงได้ก็พอ โดยใบนั้น
    ต้องอยู่ล่างสุด" (cards of one number may go down together when one of them fits; that
    one goes at the bottom)."""
    state = position(["5H 5S 5C 9D", "2C"], top="7H")
    legal = legal_actions(state, 0)
    for top in ("5S", "5C"):  # the player picks the card left on top
        assert any(a.cards[-1] == card(top) and len(a.cards) == 3 for a in legal)
    assert refused(state, 0, play("5S 5H")) == "does_not_fit"
    assert refused(state, 0, play("5H 9D")) == "one_rank"
    after, _ = apply(state, 0, play("5H 5S 5C"))
    assert after.discard[-3:] == cards("5H 5S 5C") and after.hands[0] == hand("9D")


def test_joker_on_anything_names_a_suit_next_draws_four() -> None:
    """ "ไพ่โจ๊กเกอร์ สามารถลงต่อไพ่ใดๆก็ได้ ผู้ลงจะได้เลือก ดอกไพ่ ที่ผู้เล่นคนถัดไปต้องลงถ้าลง
    ไม่ได้ผู้เล่นคนนั้นจะต้องจั่วสี่ใบ" (a joker goes on anything; its player names the suit
    the next player must play; if unable, that player draws four)."""
    state = position(["JO 4D", "7H 9S", "3C"], top="7S", pile="2D 3D 4S 5D 6D")
    assert refused(state, 0, play("JO")) == "name_a_suit"
    after, _ = apply(state, 0, play("JO", suit=CLUBS))
    assert after.suit == CLUBS and after.pending == 4
    assert legal_actions(after, 1) == [Action(DRAW)]  # 7H/9S: the rank no longer counts
    drawn, events = apply(after, 1, Action(DRAW))
    assert Drew(1, 4, "chain") in events and len(drawn.hands[1]) == 6 and drawn.turn == 2


def test_ruling_a_named_suit_holds_until_the_next_card() -> None:
    """Ruling: a named suit holds until the next card is played on it."""
    state = position(["JO 4D", "7H 9C", "3C"], top="7S")
    after, _ = apply(state, 0, play("JO", suit=CLUBS))
    after, _ = apply(after, 1, play("9C"))
    assert after.suit == -1 and after.pending == 0  # a number card answered: nobody draws
    assert play("3C") in legal_actions(after, 2)


def test_ace_reverses() -> None:
    """ "ไพ่ A ใช้รีเวิร์สหรือย้อน จะเปลี่ยนลำดับการเล่นจากซ้ายไปขวาเป็นขวาไปซ้ายหรือกลับกันผู้เล่น
    คนก่อนหน้าจะกลายเป็นคนถัดไปแทน" (an A reverses: the previous player becomes the next).
    Ruling: two As reverse twice; with 2 players an A changes nothing (it is not a skip)."""
    four = position(["2C", "AH AS 3D", "2D", "2S"], top="7H", turn=1)
    once, events = apply(four, 1, play("AH"))
    assert once.turn == 0 and once.direction == -1 and Reversed(-1) in events
    twice, _ = apply(four, 1, play("AH AS"))
    assert twice.turn == 2 and twice.direction == 1
    two = position(["AH 3D", "2C"], top="7H")
    assert apply(two, 0, play("AH"))[0].turn == 1


def test_jack_skips_one_player_per_jack() -> None:
    """ "ไพ่ J ใช้แล้วจะข้ามตาของผู้เล่นคนถัดไป ถ้าลงพร้อมกันหลายใบก็จะข้ามผู้เล่นไปตามจำนวนนั้น"
    (a J skips the next player; several together skip that many). Ruling: Js count round the
    circle past finished players and may come back to the J's player."""
    four = position(["JH JS JC 3D", "2C", "2D", "2S"], top="7H")
    one, events = apply(four, 0, play("JH"))
    assert one.turn == 2 and Skipped((1,)) in events
    assert apply(four, 0, play("JH JS"))[0].turn == 3
    three = position(["JH JS JC 3D", "2C", "2D"], top="7H")
    assert apply(three, 0, play("JH JS"))[0].turn == 0
    gone = position(["JH JS 3D", "", "2D", "2S"], top="7H", finished=(1,))
    after, events = apply(gone, 0, play("JH JS"))
    assert Skipped((2, 3)) in events and after.turn == 0


def test_queen_next_player_unable_draws_two() -> None:
    """ "ไพ่ Q ถ้าผู้เล่นคนถัดไปลงไพ่ไม่ได้ต้องจั่วสองใบ" (Q: the next player, if unable to
    play, draws two)."""
    state = position(["QH 3D", "2C 5S", "9D"], top="7H", pile="2D 3S 4S")
    after, _ = apply(state, 0, play("QH"))
    drawn, events = apply(after, 1, Action(DRAW))
    assert Drew(1, 2, "chain") in events and drawn.turn == 2 and drawn.pending == 0


def test_king_three_or_four_with_uno_rules() -> None:
    """ "ไพ่ K ถ้าผู้เล่นคนถัดไปลงไพ่ไม่ได้ต้องจั่วสามใบ (ถ้าใช้กฎของ Uno ให้จั่วสี่ใบ)" (K: the
    next player, unable to play, draws three; with Uno rules four)."""
    for uno, owed in ((False, 3), (True, 4)):
        state = position(["KH 3D", "2C 5S", "9D"], top="7H", pile="2D 3S 4S 5D", uno_rules=uno)
        after, _ = apply(state, 0, play("KH"))
        assert Drew(1, owed, "chain") in apply(after, 1, Action(DRAW))[1]


def test_ruling_several_draw_cards_each_count() -> None:
    """Ruling: several Qs, Ks or jokers together each count (two Qs: 4; two jokers: 8, the last
    one names the suit)."""
    qs = position(["QH QS 3D", "2C"], top="7H")
    assert apply(qs, 0, play("QH QS"))[0].pending == 4
    jokers = position(["JO JO 3D", "2C"], top="7H")
    after, _ = apply(jokers, 0, play("JO JO", suit=HEARTS))
    assert after.pending == 8 and after.suit == HEARTS


def test_chain_k_q_a_joker_is_nine_cards() -> None:
    """ "คนแรกลง K คนที่สองลง Q คนที่สามลง A ย้อนไปตาผู้เล่นคนที่สอง เขาลง โจ๊กเกอร์เลือกดอกจิก
    ตาผู้เล่นหนึ่ง เขาลงไพ่ไม่ได้จึงต้องจั่วทั้งหมด ([K+Q+Joker] = 3+2+4=9ใบ)" (the first plays
    K, the second Q, the third A back to the second, who plays a joker naming clubs; the first
    cannot play and draws them all: 3 + 2 + 4 = 9)."""
    state = position(
        ["KS 2H 5H", "QS JO 9D 8H", "AS 5D 6H"], top="7S", pile="2D 3D 4D 5H 6D 7D 8D 9H 10D"
    )
    state, _ = apply(state, 0, play("KS"))
    state, _ = apply(state, 1, play("QS"))
    state, _ = apply(state, 2, play("AS"))
    assert state.turn == 1 and state.pending == 5  # an A adds nothing, it sends it back
    state, _ = apply(state, 1, play("JO", suit=CLUBS))
    assert state.turn == 0 and legal_actions(state, 0) == [Action(DRAW)]
    state, events = apply(state, 0, Action(DRAW))
    assert Drew(0, 9, "chain") in events and len(state.hands[0]) == 11


def test_ruling_a_number_card_ends_the_chain_and_nobody_draws() -> None:
    """Ruling: "the draw falls only on a player unable to play": a fitting number card ends
    a chain, and nobody draws."""
    state = position(["KS 2H", "5S 9D", "3C"], top="7S", pending=0)
    state, _ = apply(state, 0, play("KS"))
    state, events = apply(state, 1, play("5S"))
    assert ChainEnded(1, 3) in events and state.pending == 0 and state.turn == 2


def test_ruling_a_jack_passes_the_chain_on_and_back_with_two_players() -> None:
    """Ruling: with 2 players a J sends the draw back to its own player, who must answer or
    draw."""
    state = position(["QS 2H", "JS 9D"], top="7S", pile="3D 4D")
    state, _ = apply(state, 0, play("QS"))
    state, _ = apply(state, 1, play("JS"))
    assert state.turn == 1 and state.pending == 2


# --- calling Ano --------------------------------------------------------------------------------


def test_one_card_left_must_call_ano() -> None:
    """ "เมื่อใดก็ตามที่ผู้เล่นเหลือไพ่ในมือใบเดียวหรือเหลือไพ่ที่ลงครั้งเดียวชนะต้องพูดว่าอีโง่"
    (whenever a player has one card left, or cards that win in one play, they must say it)."""
    state = position(["3H 9D", "2C 5S", "9C"], top="7H")
    after, events = apply(state, 0, play("3H"))
    assert after.ano[0] == OWES and AnoOwed(0) in events
    assert Action(CALL) in legal_actions(after, 0)
    called, events = apply(after, 0, Action(CALL))
    assert called.ano[0] == CLEAR and events == [AnoCalled(0)]
    pair = position(["3H 9D 9S", "2C 5S", "9C"], top="7H")
    assert apply(pair, 0, play("3H"))[0].ano[0] == OWES  # 9D 9S go down at once
    mixed = position(["3H 9D 8S", "2C 5S", "9C"], top="7H")
    assert apply(mixed, 0, play("3H"))[0].ano[0] == CLEAR


def test_calling_with_the_play_itself() -> None:
    """ "Ano!" may be said while the card goes down (a play offered with the call)."""
    state = position(["3H 9D", "2C 5S", "9C"], top="7H")
    assert play("3H", call=True) in legal_actions(state, 0)
    after, events = apply(state, 0, play("3H", call=True))
    assert after.ano[0] == CLEAR and AnoCalled(0) in events
    assert refused(position(["3H 9D 8S", "2C"], top="7H"), 0, play("3H", call=True)) == (
        "nothing_to_call"
    )


def test_forgetting_ano_caught_after_the_next_player_started_draws_five() -> None:
    """ "ถ้าถูกจับได้ว่าลืมพูด โดยผู้เล่นคนถัดไปเริ่มเล่นแล้ว ผู้เล่น ที่ลืมพูดต้องจั่วไพ่เพิ่มอีก
    ห้าใบ (ถ้าใช้กฎของ Uno ให้จั่วสองใบ)" (caught having forgotten, once the next player has
    started, the forgetter draws five; with Uno rules two)."""
    for uno, cost in ((False, 5), (True, 2)):
        state = position(
            ["3H 9D", "2C 5H", "9C 4S"], top="7H", pile="2D 3D 4D 5D 6D 7D", uno_rules=uno
        )
        state, _ = apply(state, 0, play("3H"))
        assert Action(CATCH, target=0) not in legal_actions(state, 2)  # not yet
        assert refused(state, 2, Action(CATCH, target=0)) == "nothing_to_catch"
        state, _ = apply(state, 1, play("5H"))  # the next player started
        assert state.ano[0] == FORGOT_CALL
        assert Action(CALL) not in legal_actions(state, 0)  # a late call does not protect
        assert Action(CATCH, target=0) in legal_actions(state, 2)
        assert Action(CATCH, target=0) in legal_actions(state, 1)
        caught, events = apply(state, 2, Action(CATCH, target=0))
        assert events[0] == Caught(2, 0, cost) and len(caught.hands[0]) == 1 + cost
        assert refused(caught, 1, Action(CATCH, target=0)) == "nothing_to_catch"  # first counts


def test_ruling_the_catch_window_ends_with_the_forgetters_own_next_action() -> None:
    """Ruling: from the next player's action until the forgetter's own next action any other
    player may catch them; calls and catches do not close the window."""
    state = position(["3H 9D", "2C 5H", "9C 4S"], top="7H", pile="2D 3D 4D")
    state, _ = apply(state, 0, play("3H"))
    state, _ = apply(state, 1, play("5H"))
    state, _ = apply(state, 2, Action(DRAW))
    assert state.ano[0] == FORGOT_CALL  # still catchable: it is their turn now
    state, _ = apply(state, 0, Action(DRAW))
    assert state.ano[0] == CLEAR
    assert all(Action(CATCH, target=0) not in legal_actions(state, p) for p in (1, 2))


def test_ruling_two_players_the_opponent_catches_after_their_own_action() -> None:
    """Ruling: with 2 players the opponent has a window after their own action."""
    state = position(["3H 9D", "2C 5H"], top="7H", pile="2D 3D 4D 5D 6D")
    state, _ = apply(state, 0, play("3H"))
    state, _ = apply(state, 1, play("5H"))
    assert state.turn == 0 and Action(CATCH, target=0) in legal_actions(state, 1)


def test_ruling_no_call_owed_for_specials_when_they_may_not_be_last() -> None:
    """Ruling: with "special cards may not be last" a hand of specials owes no call."""
    state = position(["3H QD", "2C 5S"], top="7H", special_last=True)
    assert apply(state, 0, play("3H"))[0].ano[0] == CLEAR


# --- the end --------------------------------------------------------------------------------------


def test_first_empty_hand_wins_play_goes_on_to_one_loser() -> None:
    """ "ผู้เล่นที่ไพ่หมดมือก่อนเป็นผู้ชนะ เล่นจนกว่าจะเหลือคนเดียวที่แพ้" (the first to empty
    their hand wins; play goes on until one loser is left)."""
    state = position(["3H", "5H 8H", "9C 2S"], top="7H", pile="4D")
    state, events = apply(state, 0, play("3H"))
    assert Finished(0, 1) in events and not state.over and state.turn == 1
    assert legal_actions(state, 0) == []
    state, _ = apply(state, 1, play("5H", call=True))
    state, _ = apply(state, 2, Action(DRAW))
    assert state.turn == 1  # the winner's seat is passed over
    state, events = apply(state, 1, play("8H"))
    assert state.over and Finished(1, 2) in events
    assert [(p.player, p.place) for p in result(state)] == [(0, 1), (1, 2), (2, 3)]
    assert isinstance(events[-1], GameEnded)


def test_empty_pile_reshuffles_the_discards_under_the_top_card() -> None:
    """ "ถ้ากองจั่วหมดให้สับไพ่ในกองกลางมาเป็นกองจั่ว โดยไพ่ใบบนของกองกลางไม่ต้องเปลี่ยน" (when
    the pile runs out, shuffle the middle pile into a new draw pile; its top card stays)."""
    state = position(["2S 9D", "2C"], top="7H", discard="4C 5C 6C")
    after, events = apply(state, 0, Action(DRAW))
    assert Reshuffled(3) in events and after.discard == (card("7H"),)
    assert len(after.pile) == 2 and len(after.hands[0]) == 3


def test_ruling_fewer_cards_than_owed_draws_what_there_is() -> None:
    """Ruling: if fewer cards exist than must be drawn, the player draws what there is."""
    state = position(["2S 9D", "2C"], top="7H", pending=4, pile="3C", discard="4C")
    after, events = apply(state, 0, Action(DRAW))
    assert Drew(0, 2, "chain") in events and after.pending == 0


def test_ruling_a_stalled_game_ends() -> None:
    """Ruling (the bot's): when nobody could play and no card was left to draw for a whole
    round, the game ends and the players left rank by fewest cards."""
    state = position(["2S 9D", "2C"], top="7H")
    state, events = apply(state, 0, Action(DRAW))
    assert not state.over
    state, events = apply(state, 1, Action(DRAW))
    assert state.over and Stalled() in events
    assert [(p.player, p.place) for p in result(state)] == [(1, 1), (0, 2)]


# --- options --------------------------------------------------------------------------------------


def test_jump_in_identical_card_out_of_turn_next_turn_after_the_jumper() -> None:
    """ "การแทรกไพ่(กรณีใช้สองสำรับ) ถ้าผู้เล่นคนใดมีไพ่ที่ เหมือนกับไพ่ล่าสุดทั้งแต้มและดอกให้
    สามารถลงไพ่เหมือนใบนั้นได้ทันที แม้จะไม่ใช่ตาของตัวเอง คือเป็นการแทรกคิวและตาต่อไปก็เริ่มที่
    คนถัดจากคนแทรก" (jump-in, two decks: a card identical to the last one, rank and suit, may
    be played at once out of turn; the next turn starts with the player after the jumper)."""
    state = position(["7H 2C", "3S", "7H 9D", "4S"], top="7H", decks=2, jump_in=True)
    assert play("7H") in legal_actions(state, 2)
    after, events = apply(state, 2, play("7H"))
    assert Played(2, cards("7H"), -1, True, 1) in events and after.turn == 3
    assert refused(state, 1, play("3S")) == "jump_not_identical"
    off = position(["7H 2C", "3S", "7H 9D", "4S"], top="7H", decks=2)
    assert legal_actions(off, 2) == [] and refused(off, 2, play("7H")) == "not_your_turn"
    joker = position(["7H 2C", "3S", "JO 9D", "4S"], top="JO", decks=2, jump_in=True, suit=1)
    assert refused(joker, 2, play("JO", suit=1)) == "jump_no_joker"


def test_fumble_a_wrong_play_draws_two() -> None:
    """ "กฎเฟอะฟะ หากผู้เล่นเล่นผิด เช่น ลงผิดหรือ แทรกไพ่ผิด ต้องถูกทำโทษโดยให้จั่วเพิ่มอีก
    สองใบ" (fumble: a wrong play, a wrong card or a wrong jump-in, draws two more). Ruling:
    the whole hand is offered, the card stays and the turn goes on."""
    state = position(["7S 9D", "2C"], top="7H", pile="2D 3D 4D 5D", fumble=True)
    assert play("9D") in legal_actions(state, 0)
    after, events = apply(state, 0, play("9D"))
    assert Fumbled(0, cards("9D"), False) in events and Drew(0, 2, "fumble") in events
    assert after.turn == 0 and after.hands[0] == hand("7S 9D 5D 4D")
    jump = position(["7S 9D", "2C 3S"], top="7H", pile="2D 3D", fumble=True, jump_in=True, decks=2)
    after, events = apply(jump, 1, play("3S"))
    assert Fumbled(1, cards("3S"), True) in events and len(after.hands[1]) == 4


def test_fumble_false_catch_costs_two_our_extension() -> None:
    """Ruling (our extension): with fumble on, a false "caught!" costs 2 too."""
    state = position(["3H 9D", "2C 5S", "9C"], top="7H", pile="2D 3D", fumble=True)
    state, _ = apply(state, 0, play("3H", call=True))
    after, events = apply(state, 2, Action(CATCH, target=0))
    assert events[0] == FalseCatch(2, 0, 2) and len(after.hands[2]) == 3


def test_special_cards_may_not_be_the_last_card() -> None:
    """ "กฎไพ่พิเศษ กำหนดให้ไพ่พิเศษทั้งหมดห้ามใช้เป็นใบสุดท้ายในการจบเกม" (special cards rule:
    no special card may be the last card that ends the game)."""
    state = position(["KH", "2C"], top="KS", pile="3D", special_last=True)
    assert legal_actions(state, 0) == [Action(DRAW)]
    assert refused(state, 0, play("KH")) == "special_last"
    pair = position(["QH QS", "2C"], top="7H", special_last=True)
    legal = legal_actions(pair, 0)
    assert play("QH") in legal and all(len(a.cards) == 1 for a in legal if a.kind == PLAY)


def test_points_first_empty_hand_ends_the_game_lowest_count_ranks_best() -> None:
    """ "วัดกันด้วยพ้อย ... ไพ่โจ๊กเกอร์และK = 50 พ้อย ไพ่A,J,Q= 20 พ้อย ไพ่ตัวเลข = แต้มบนไพ่
    เมื่อมีผู้เล่นไพ่หมดมือก่อนถือว่าชนะและจบเกม จากนั้นผู้เล่นที่มีไพ่เหลือให้รวมพ้อย ผู้เล่นที่
    เหลือพ้อยน้อยกว่า ถือเป็นผู้ชนะเป็นลำดับลำดับมาเรื่อยๆตามพ้อย" (points: joker and K 50,
    A/J/Q 20, numbers their value; the first empty hand wins and ends the game; the others
    rank by fewest points). Ruling: equal counts share a place."""
    assert [POINTS[card(c)] for c in ("JO", "KS", "AH", "JD", "QC", "7S", "10H")] == [
        50,
        50,
        20,
        20,
        20,
        7,
        10,
    ]
    state = position(["3H", "KC 5S", "AC 10D", "9C 4S 7D"], top="7H", points=True)
    state, _ = apply(state, 0, play("3H"))
    assert state.over
    placings = [(p.player, p.place, p.score) for p in result(state)]
    assert placings == [(0, 1, 0), (3, 2, 20), (2, 3, 30), (1, 4, 55)]
    tie = position(["3H", "9C", "4S 5D"], top="7H", points=True)
    tied = apply(tie, 0, play("3H"))[0]
    assert [(p.player, p.place) for p in result(tied)] == [(0, 1), (1, 2), (2, 2)]


# --- the chat's contract ----------------------------------------------------------------------


def test_timeout_an_idle_player_draws() -> None:
    """An idle player's turn becomes a draw (even if a card fits); a drawn card is kept."""
    state = position(["7S 9D", "2C"], top="7H", pile="5H")
    after, events = timeout(state, 0) or (state, [])
    assert Drew(0, 1, "turn") in events and after.turn == 1
    assert timeout(state, 1) is None
    drawn = position(["7S", "2C"], top="7H", drawn=card("7S"), play_drawn=True)
    assert timeout(drawn, 0) == (drawn._replace(turn=1, drawn=-1), [Kept(0)])


def test_action_codes_are_short_and_exact() -> None:
    """Button data: a play of 8 cards with a suit and a call stays short; codes round-trip."""
    longest = Action(PLAY, (JOKER,) * 8, 3, True)
    for action in (longest, play("10H"), Action(DRAW), Action(CATCH, target=9), Action(CALL)):
        code = GAME.encode_action(action)
        assert GAME.decode_action(code) == action and len(code) <= 13
    for bad in ("", "x", "p~", "c", "c 1", "c01", "pa~9~1", "d!", "pzz?"):
        with pytest.raises(IllegalAction):
            action = GAME.decode_action(bad)
            apply(position(["7S", "2C"], top="7H"), 0, action)


def test_views_hide_other_hands() -> None:
    state = position(["7S 9D", "2C"], top="7H", pile="5H")
    public, mine = GAME.view(state, None), GAME.view(state, 0)
    assert public.hand == () and mine.hand == hand("7S 9D")
    assert public.hand_sizes == mine.hand_sizes == (2, 1)
    assert Counter(mine.hand) == Counter(state.hands[0])
