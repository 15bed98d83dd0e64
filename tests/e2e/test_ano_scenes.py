"""Ano through the real Telegram application and Redis, at arranged positions: a 4-player game
to the end through a chain, a joker's suit, a caught Ano and a reshuffle; a jump-in race; the
end of a game, which takes the buttons off every hand."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from chatbot.store.redis import RedisStore
from engine.ano.rules import FORGOT_CALL, OWES
from tests.e2e.ano_table import (
    answer_text,
    arrange,
    cards,
    data_of,
    hand_of,
    log_of,
    open_ano,
    people,
    play,
    press_label,
    state_now,
    table_now,
)
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import TEST_SETTINGS, Harness, hand_message, pick, playable
from tests.e2e.helpers import CHAT, GROUP, JSON

MAX_STEPS = 3000


async def play_out(h: Harness, tg: FakeTelegram, users: list[JSON], seed: int) -> None:
    """The people press to the end: "Ano!" when they owe it, the most cards they can play
    (ties at random), and a forgetter is caught by the next in the list."""
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        session, _ = await h.bot.sessions.load(CHAT)
        if session is None:
            return
        state = await state_now(h)
        if OWES in state.ano:
            await press_label(h, tg, users[state.ano.index(OWES)], "📣 Ano!")
            continue
        if FORGOT_CALL in state.ano:
            forgot = state.ano.index(FORGOT_CALL)
            catcher = users[(forgot + 1) % len(users)]
            table = await table_now(h, tg)
            caught = next(d for d in table.callback_data if d.endswith(f"|c{forgot}"))
            await h.press(catcher, table, caught)
            continue
        user = users[state.turn]
        message = hand_message(tg, user["id"])
        assert message is not None and playable(message), "the player to move has buttons"
        texts = message.button_texts
        most = max(len(x.split()) for x in texts)
        if "⬅️ Back" not in texts:  # the list of cards
            biggest = [x for x in texts if len(x.split()) == most]
            await h.press(user, message, data_of(message, rng.choice(biggest)))
        else:  # the card on top, the suit
            await h.press(user, message, pick(message, rng), check=False)
    raise AssertionError("the game did not end")


def no_buttons_left(tg: FakeTelegram, users: list[JSON]) -> None:
    """After the end no hand offers a move: each person's latest hand lost its buttons."""
    for user in users:
        hand = hand_of(tg, user)
        assert not playable(hand), (user["first_name"], hand.button_texts)
        assert "The game is over." in hand.text


async def test_a_four_player_game_with_a_chain_a_joker_a_caught_ano_and_a_reshuffle(
    tg: FakeTelegram, harness: Harness
) -> None:
    """ "ไพ่ K ถ้าผู้เล่นคนถัดไปลงไพ่ไม่ได้ต้องจั่วสามใบ ... ถ้าผู้เล่นคนถัดไปลง A,J,Q,K
    ผลจะนับรวมไปเรื่อยๆ" (K: the next player, unable to play, draws three; answered with A, J,
    Q or K the effects add up); "ไพ่โจ๊กเกอร์ สามารถลงต่อไพ่ใดๆก็ได้ ผู้ลงจะได้เลือก ดอกไพ่"
    (a joker goes on anything and its player chooses the suit); "ถ้าถูกจับได้ว่าลืมพูด ...
    ผู้เล่น ที่ลืมพูดต้องจั่วไพ่เพิ่มอีกห้าใบ" (caught having forgotten to call: draw five
    more); "ถ้ากองจั่วหมดให้สับไพ่ในกองกลางมาเป็นกองจั่ว โดยไพ่ใบบนของกองกลางไม่ต้องเปลี่ยน"
    (an empty draw pile: shuffle the middle pile into a new one, its top card staying)."""
    h = harness
    ann, bob, cid, dee = users = people(tg, "Ann", "Bob", "Cid", "Dee")
    await open_ano(h, tg, users)
    await arrange(
        h,
        tg,
        users,
        hands=["K♠ 3♥ 9♦", "Q♠ 3♦ 6♣ 2♦", "4♥ 8♦ 10♣", "🃏 7♣ 8♣"],
        top="5♠",
        pile="2♣ 3♣ 4♣",
    )
    # the chain: Ann's K, Bob answers with a Q, Cid cannot answer and draws 3 + 2
    await play(h, tg, ann, "K♠")
    table = await table_now(h, tg)
    assert "Top card: K♠️ · 🔃 clockwise · draw 3 pending" in table.text
    assert "Ann played K♠️." in log_of(table.text)
    await play(h, tg, bob, "Q♠")
    table = await table_now(h, tg)
    assert "Top card: Q♠️ · 🔃 clockwise · draw 5 pending" in table.text
    assert "The next player draws 5 if unable to play." in log_of(table.text)
    assert "Your turn!" in hand_of(tg, cid).text and hand_of(tg, cid).button_texts == ["📥 Draw"]
    # the draw pile holds 3 cards: the discard pile (but the Q) becomes the new pile
    await h.press(cid, hand_of(tg, cid), hand_of(tg, cid).callback_data[0])
    state = await state_now(h)
    assert len(state.hands[2]) == 8 and set(cards("2♣ 3♣ 4♣")) <= set(state.hands[2])
    assert state.discard == cards("Q♠") and state.pending == 0
    table = await table_now(h, tg)
    assert log_of(table.text)[-2:] == [
        "The discard pile was shuffled into a new draw pile.",
        "Cid drew 5 cards at once.",
    ]
    assert "Cid: 8 cards" in table.text and "discard pile: 1" in table.text
    assert "Your hand</b> (8)" in hand_of(tg, cid).html
    # Dee's joker names hearts: Ann must answer the 4 or draw; her 3♥ ends the chain
    await play(h, tg, dee, "🃏")
    assert "name a suit" in hand_of(tg, dee).text
    await press_label(h, tg, dee, "♥️")
    table = await table_now(h, tg)
    assert "Top card: 🃏 → ♥️ · 🔃 clockwise · draw 4 pending" in table.text
    assert "Dee played 🃏 → ♥️." in log_of(table.text)
    assert "Top card: 🃏 → ♥️" in hand_of(tg, ann).text
    await play(h, tg, ann, "3♥")
    # Ann is left with one card and forgets to press "Ano!"
    state = await state_now(h)
    assert state.ano[0] == OWES and state.pending == 0
    assert "📣 Ano!" in hand_of(tg, ann).button_texts
    table = await table_now(h, tg)
    assert "Ann ended the chain: nobody draws." in log_of(table.text)
    assert "Ann: 1 card · must call Ano!" in table.text
    await play(h, tg, bob, "3♦")  # the next player acts: now Ann may be caught
    table = await table_now(h, tg)
    assert "Ann: 1 card · forgot Ano: catch!" in table.text
    assert "Ann forgot to call Ano!" in log_of(table.text)
    assert "📣 Ano!" not in hand_of(tg, ann).button_texts, "too late to call"
    caught = next(d for d in table.callback_data if d.endswith("|c0"))
    assert "🫵 Caught Ann!" in table.button_texts, "the button names the player"
    await h.press(cid, table, caught)
    state = await state_now(h)
    assert len(state.hands[0]) == 6 and state.ano[0] == 0
    table = await table_now(h, tg)
    assert log_of(table.text)[-2:] == ["Cid caught Ann!", "Ann draws 5 cards as a penalty."]
    assert not any(d.endswith("|c0") for d in table.callback_data), "caught once"
    assert "Ann: 6 cards" in table.text
    # and on to the end
    await play_out(h, tg, users, seed=3)
    final = tg.sent_to(GROUP)[-1].text
    assert final.startswith("Ano: the game is over.") and "4. " in final
    no_buttons_left(tg, users)


async def test_at_the_end_every_hand_loses_its_buttons(tg: FakeTelegram, harness: Harness) -> None:
    """ "ผู้เล่นที่ไพ่หมดมือก่อนเป็นผู้ชนะ เล่นจนกว่าจะเหลือคนเดียวที่แพ้" (the first empty
    hand wins; play on until one loser is left): with two players the game is over, and the
    loser's "Ano!" button, offered out of turn, goes too."""
    h = harness
    ann, bob = users = people(tg, "Ann", "Bob")
    await open_ano(h, tg, users)
    await arrange(h, tg, users, hands=["7♥", "5♥ 8♣"], top="5♠", turn=1)
    await play(h, tg, bob, "5♥")
    assert "📣 Ano!" in hand_of(tg, bob).button_texts
    update = await play(h, tg, ann, "7♥")
    assert answer_text(tg, update) == ""
    assert tg.sent_to(GROUP)[-1].text.startswith("Ano: the game is over.")
    no_buttons_left(tg, users)
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is None, "the finished game left the chat"


@pytest.fixture
async def pair(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Processes]:
    """Two bot processes on one Redis."""
    a = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix), TEST_SETTINGS).start()
    b2 = await Harness(tg, RedisStore.from_url(redis_url, redis_prefix), TEST_SETTINGS).start()
    try:
        yield a, b2
    finally:
        for h in (a, b2):
            await h.stop()
            await h.bot.sessions._store.close()


Processes = tuple[Harness, Harness]


OUTDATED = "That button is outdated: here is your current hand."


@pytest.mark.parametrize("bob_first", [False, True])
async def test_a_jump_in_race_the_first_saved_wins_and_the_other_is_told(
    tg: FakeTelegram, pair: Processes, bob_first: bool
) -> None:
    """ "การแทรกไพ่(กรณีใช้สองสำรับ) ถ้าผู้เล่นคนใดมีไพ่ที่ เหมือนกับไพ่ล่าสุดทั้งแต้มและดอก
    ให้สามารถลงไพ่เหมือนใบนั้นได้ทันที แม้จะไม่ใช่ตาของตัวเอง" (jump-in, with two decks: a
    player holding a card identical to the last one may put it down at once, even out of
    turn). Bob jumps in with the twin of the top card at the moment
    Ann, whose turn it is, plays her J (which would skip Bob): the presses reach two
    processes at once; whichever is saved first stands, the other is refused and told."""
    a, b2 = pair
    ann, bob, cid = users = people(tg, "Ann", "Bob", "Cid")
    await open_ano(a, tg, users, {"decks": 2, "jump_in": True})
    before = await arrange(a, tg, users, hands=["J♥ 2♣", "7♥ 4♠", "K♦ 3♣"], top="7♥")
    assert "7♥️" in hand_of(tg, bob).button_texts, "Bob may jump in out of turn"
    assert "Your turn!" not in hand_of(tg, bob).text
    jump = tg.callback_update(bob, hand_of(tg, bob), data_of(hand_of(tg, bob), "7♥️"))
    turn = tg.callback_update(ann, hand_of(tg, ann), data_of(hand_of(tg, ann), "J♥️"))
    first, second = (jump, turn) if bob_first else (turn, jump)
    for h in pair:  # open connections first, as a busy bot has them
        await asyncio.gather(*(h.bot.sessions._store.load("warm") for _ in range(4)))
    await asyncio.gather(a.feed(first), b2.feed(second))
    state = await state_now(a)
    assert len(state.discard) == len(before.discard) + 1, "one card went down, not two"
    assert sum(map(len, state.hands)) == sum(map(len, before.hands)) - 1
    jumped = state.discard[-1] == cards("7♥")[0]
    assert state.turn == 2, "Cid plays next: after the jumper, or after the skipped Bob"
    won, lost = (jump, turn) if jumped else (turn, jump)
    news = "Bob jumped in with 7♥️." if jumped else "Ann played J♥️."
    assert answer_text(tg, won) == ""
    assert answer_text(tg, lost) == f"{OUTDATED}\nMeanwhile: {news}", "told why"
    table = await table_now(a, tg)
    assert log_of(table.text)[-1 if jumped else -2] == news
    loser = bob if lost is jump else ann
    assert "Your turn!" not in hand_of(tg, loser).text and not playable(hand_of(tg, loser))
    assert "Your turn!" in hand_of(tg, cid).text
