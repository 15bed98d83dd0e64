"""Every Ano table option through the real Telegram application and Redis: set in the lobby by
its button, and its effect as the players see it on the table and in their hands."""

from __future__ import annotations

from chatbot.core import buttons as b
from engine.ano.rules import OWES
from tests.e2e.ano_table import (
    arrange,
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
from tests.e2e.harness import Harness, playable
from tests.e2e.helpers import GROUP, load


async def test_two_decks(tg: FakeTelegram, harness: Harness) -> None:
    """ "ถ้าเป็นไปได้ใช้ไพ่ 2 สำรับรวมกันจะสนุกกว่า" (if possible, two decks together are more
    fun): 108 cards, and twins go down together like any cards of one rank."""
    h = harness
    users = people(tg, "Ann", "Bob")
    ann = users[0]
    session = await open_ano(h, tg, users, {"decks": 2})
    lobby = tg.message(GROUP, int(session.message_ids["lobby"]))
    assert "Decks: 2" in lobby.text
    table = await table_now(h, tg)
    assert "Draw pile: 97 · discard pile: 1" in table.text, "108 - 2 × 5 - 1"
    await arrange(h, tg, users, hands=["7♥ 7♥ 2♣", "9♠ 3♣"], top="7♠")
    assert "7♥️ 7♥️" in hand_of(tg, ann).button_texts
    await press_label(h, tg, ann, "7♥️ 7♥️")
    assert log_of((await table_now(h, tg)).text)[-1] == "Ann played 7♥️ 7♥️."
    assert (
        len((await state_now(h)).hands[0]) == 1 and "Ann: 1 card" in (await table_now(h, tg)).text
    )


async def test_no_jokers(tg: FakeTelegram, harness: Harness) -> None:
    """ "ไพ่ป๊อก 1 สำรับ มี Joker หรือไม่มีก็ได้" (one deck of playing cards, with or without
    jokers): without them the deck has 52 cards."""
    h = harness
    users = people(tg, "Ann", "Bob")
    session = await open_ano(h, tg, users, {"jokers": False})
    lobby = tg.message(GROUP, int(session.message_ids["lobby"]))
    assert "⬜ Jokers" in lobby.text
    assert "Draw pile: 41 · discard pile: 1" in (await table_now(h, tg)).text, "52 - 10 - 1"
    state = await state_now(h)
    every = [c for hand in state.hands for c in hand] + [*state.pile, *state.discard]
    assert len(every) == 52 and 52 not in every


async def test_with_jokers_the_deck_has_two(tg: FakeTelegram, harness: Harness) -> None:
    """The default: "มี Joker" (with jokers), two per deck: 54 cards."""
    h = harness
    await open_ano(h, tg, people(tg, "Ann", "Bob"))
    assert "Draw pile: 43 · discard pile: 1" in (await table_now(h, tg)).text, "54 - 10 - 1"


async def test_uno_rules(tg: FakeTelegram, harness: Harness) -> None:
    """ "ไพ่ K ถ้าผู้เล่นคนถัดไปลงไพ่ไม่ได้ต้องจั่วสามใบ (ถ้าใช้กฎของ Uno ให้จั่วสี่ใบ)" (K: the
    next player, unable to play, draws three; with Uno rules four); "ผู้เล่น ที่ลืมพูด
    ต้องจั่วไพ่เพิ่มอีกห้าใบ (ถ้าใช้กฎของ Uno ให้จั่วสองใบ)" (a forgetter draws five more; with
    Uno rules two)."""
    h = harness
    ann, bob, cid = users = people(tg, "Ann", "Bob", "Cid")
    await open_ano(h, tg, users, {"uno_rules": True})
    await arrange(h, tg, users, hands=["K♠ 5♦", "2♥ 3♣", "8♦ 9♣"], top="7♠")
    await play(h, tg, ann, "K♠")  # and forgets "Ano!"
    assert "Top card: K♠️ · 🔃 clockwise · draw 4 pending" in (await table_now(h, tg)).text
    assert hand_of(tg, bob).button_texts == ["📥 Draw"]
    await press_label(h, tg, bob, "📥 Draw")
    table = await table_now(h, tg)
    assert "Bob drew 4 cards at once." in log_of(table.text) and "Bob: 6 cards" in table.text
    caught = next(d for d in table.callback_data if d.endswith("|c0"))
    await h.press(cid, table, caught)
    table = await table_now(h, tg)
    assert log_of(table.text)[-2:] == ["Cid caught Ann!", "Ann draws 2 cards as a penalty."]
    assert "Ann: 3 cards" in table.text


async def test_jump_in(tg: FakeTelegram, harness: Harness) -> None:
    """ "การแทรกไพ่(กรณีใช้สองสำรับ) ... แม้จะไม่ใช่ตาของตัวเอง คือเป็นการแทรกคิวและตาต่อไปก็
    เริ่มที่คนถัดจากคนแทรก" (jump-in, with two decks: even out of turn; the next turn starts
    with the player after the jumper)."""
    h = harness
    ann, bob, cid, dee = users = people(tg, "Ann", "Bob", "Cid", "Dee")
    await open_ano(h, tg, users, {"decks": 2, "jump_in": True})
    await arrange(h, tg, users, hands=["2♣ 3♣", "4♣ 5♣", "7♥ 8♦", "9♦ 10♦"], top="7♥")
    assert "Your turn!" not in hand_of(tg, cid).text
    assert hand_of(tg, cid).button_texts == ["7♥️"], "only the twin of the top card"
    assert not playable(hand_of(tg, bob)), "nothing to jump in with"
    await play(h, tg, cid, "7♥")
    table = await table_now(h, tg)
    assert log_of(table.text)[-1] == "Cid jumped in with 7♥️."
    assert "▶️ <b>Dee</b>" in (table.html or ""), "Dee, after the jumper, plays next"
    assert "Your turn!" in hand_of(tg, dee).text
    assert not playable(hand_of(tg, ann)), "Ann's turn was taken: her buttons are gone"


async def test_the_lobby_offers_jump_in_only_with_two_decks(
    tg: FakeTelegram, harness: Harness
) -> None:
    """ "การแทรกไพ่(กรณีใช้สองสำรับ)" (jump-in, when two decks are used); the ruling of 2026-12:
    "the lobby offers it only then". Back to one deck, jump-in goes off; its old button is
    refused with the reason, and the lobby stays as it is."""
    h = harness
    ann, bob = people(tg, "Ann", "Bob")
    tg.group(GROUP, "Card night", creator=ann)
    for user in (ann, bob):
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, ann, "/newgame ano")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and "Jump-in" not in lobby.text
    assert not any(b.decode(d).fields[:1] == ("jump_in",) for d in lobby.callback_data)

    def option(name: str) -> str:
        return next(d for d in lobby.callback_data if b.decode(d).fields[:1] == (name,))

    await h.press(ann, lobby, option("decks"))
    lobby = tg.message(GROUP, lobby.message_id)
    assert "Decks: 2" in lobby.text and "⬜ Jump-in" in lobby.text
    await h.press(ann, lobby, option("jump_in"))
    lobby = tg.message(GROUP, lobby.message_id)
    jump_in = option("jump_in")
    assert "✅ Jump-in" in lobby.text
    await h.press(ann, lobby, option("decks"))
    lobby = tg.message(GROUP, lobby.message_id)
    assert "Decks: 1" in lobby.text and "Jump-in" not in lobby.text
    session = await load(h)
    assert session.options["jump_in"] is False
    update = tg.callback_update(ann, lobby, jump_in, check=False)  # the button of a lobby before
    await h.feed(update)
    answer = tg.callback_answer(update["callback_query"]["id"])
    assert answer is not None and answer["show_alert"]
    assert answer["text"] == "Jump-in is played only with Decks: 2."
    assert (await load(h)).options == session.options


async def test_without_jump_in_nobody_plays_out_of_turn(tg: FakeTelegram, harness: Harness) -> None:
    """Jump-in is an option ("ลองเพิ่มความสนุกด้วยการเพิ่มกฎพิเศษเข้าไป": try adding special
    rules for more fun): off, the twin of the top card waits for its turn."""
    h = harness
    users = people(tg, "Ann", "Bob", "Cid")
    await open_ano(h, tg, users, {"decks": 2})
    await arrange(h, tg, users, hands=["2♣ 3♣", "4♣ 5♣", "7♥ 8♦"], top="7♥")
    assert not playable(hand_of(tg, users[2]))


async def test_fumble(tg: FakeTelegram, harness: Harness) -> None:
    """ "กฎเฟอะฟะ หากผู้เล่นเล่นผิด เช่น ลงผิดหรือ แทรกไพ่ผิด ต้องถูกทำโทษโดยให้จั่วเพิ่มอีก
    สองใบ" (fumble: a wrong play, such as a wrong card or a wrong jump-in, draws two more):
    the whole hand is offered; a wrong card stays in the hand and the turn goes on."""
    h = harness
    users = people(tg, "Ann", "Bob")
    ann = users[0]
    await open_ano(h, tg, users, {"fumble": True})
    await arrange(h, tg, users, hands=["7♥ 9♣ 4♦", "2♥ 3♣"], top="7♠", pile="5♦ 6♦")
    assert hand_of(tg, ann).button_texts == ["7♥️", "4♦️", "9♣️"], "the whole hand"
    await play(h, tg, ann, "9♣")
    table = await table_now(h, tg)
    assert log_of(table.text)[-2:] == [
        "Ann fumbled with 9♣️.",
        "Ann draws 2 cards for the fumble.",
    ]
    assert "Ann: 5 cards" in table.text and "Top card: 7♠️" in table.text
    assert "Your turn!" in hand_of(tg, ann).text and "9♣️" in hand_of(tg, ann).button_texts
    await play(h, tg, ann, "7♥")
    assert (await state_now(h)).turn == 1


async def test_special_cards_may_not_be_last(tg: FakeTelegram, harness: Harness) -> None:
    """ "กฎไพ่พิเศษ กำหนดให้ไพ่พิเศษทั้งหมดห้ามใช้เป็นใบสุดท้ายในการจบเกม" (special cards
    may not be the last card that ends the game): a K left alone owes no "Ano!" and, though
    it fits, cannot be played: its player draws."""
    h = harness
    ann, bob = users = people(tg, "Ann", "Bob")
    await open_ano(h, tg, users, {"special_last": True})
    await arrange(h, tg, users, hands=["K♥ 5♥", "9♥ 2♣ 3♣"], top="7♥")
    await play(h, tg, ann, "5♥")
    assert (await state_now(h)).ano[0] != OWES
    assert "📣 Ano!" not in hand_of(tg, ann).button_texts
    assert "must call Ano!" not in (await table_now(h, tg)).text
    await play(h, tg, bob, "9♥")
    assert hand_of(tg, ann).button_texts == ["📥 Draw"], "K♥ fits 9♥ but may not be last"


async def test_points(tg: FakeTelegram, harness: Harness) -> None:
    """ "วัดกันด้วยพ้อย ... ไพ่โจ๊กเกอร์และK = 50 พ้อย ไพ่A,J,Q= 20 พ้อย ไพ่ตัวเลข = แต้มบนไพ่
    เมื่อมีผู้เล่นไพ่หมดมือก่อนถือว่าชนะและจบเกม จากนั้นผู้เล่นที่มีไพ่เหลือให้รวมพ้อย
    ผู้เล่นที่เหลือพ้อยน้อยกว่า ถือเป็นผู้ชนะเป็นลำดับ" (points: joker and K 50, A, J, Q 20,
    numbers their value; the first empty hand wins and ends the game; the others count their
    points, fewer ranking better)."""
    h = harness
    users = people(tg, "Ann", "Bob", "Cid")
    ann = users[0]
    await open_ano(h, tg, users, {"points": True})
    await arrange(h, tg, users, hands=["5♥", "K♠ 2♣", "Q♦ 3♣ 4♣"], top="7♥")
    await play(h, tg, ann, "5♥")
    final = tg.sent_to(GROUP)[-1].text.splitlines()
    assert final == [
        "Ano: the game is over.",
        "1. Ann",
        "2. Cid · 27 points in hand",
        "3. Bob · 52 points in hand",
        "",
        "🏆 Ann wins!",
    ], "fewer points rank better, not fewer cards"
    session, _ = await h.bot.sessions.load(f"tg:{GROUP}")
    assert session is None, "the game ended with the first empty hand"


async def test_play_the_drawn_card(tg: FakeTelegram, harness: Harness) -> None:
    """The bot's option, not the rulebook's, which says "ถ้าไม่สามารถลงไพ่ให้จั่วไพ่ขึ้นมาจาก
    กองจั่วหนึ่งใบ" (if unable to play, draw one card from the draw pile, and the turn ends):
    with it, a drawn card that fits may be played at once, or kept."""
    h = harness
    ann, bob = users = people(tg, "Ann", "Bob")
    await open_ano(h, tg, users, {"play_drawn": True})
    await arrange(h, tg, users, hands=["2♣ 3♣", "4♣ 5♣"], top="7♥", pile="9♥ 8♣")
    await press_label(h, tg, ann, "📥 Draw")
    hand = hand_of(tg, ann)
    assert "You drew 9♥️: play it or keep it." in hand.text
    assert hand.button_texts == ["9♥️", "✋ Keep it"]
    assert log_of((await table_now(h, tg)).text)[-1] == "Ann may play the drawn card."
    await play(h, tg, ann, "9♥")
    assert log_of((await table_now(h, tg)).text)[-1] == "Ann played 9♥️."
    assert (await state_now(h)).turn == 1
    await press_label(h, tg, bob, "📥 Draw")  # 8♣ does not fit 9♥: the turn ends
    assert (await state_now(h)).turn == 0 and not playable(hand_of(tg, bob))
