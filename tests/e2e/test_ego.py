"""EGO through the real Telegram adapter and Redis: secret picks on the group's table, all at
once, changeable until the reveal; refusals; a whole game with a computer player."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.present.ego.questions import question
from engine.core import restore, stored
from engine.ego.rules import State
from tests.clock import Clock
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import TEST_SETTINGS, Harness, two_processes
from tests.e2e.helpers import CHAT, GROUP, JSON, button, real_failures, table_id

GAMES = registry()
SETTINGS = replace(TEST_SETTINGS, bot_delay=2.0, remind_after=30.0, takeover_after=20.0)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def pair(
    tg: FakeTelegram, redis_url: str, redis_prefix: str, clock: Clock
) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two bot processes on one Redis."""
    async with two_processes(tg, redis_url, redis_prefix, SETTINGS, clock, GAMES) as pair:
        yield pair


def people(tg: FakeTelegram, *names: str) -> list[JSON]:
    return [tg.user(40 + i, name) for i, name in enumerate(names)]


async def load(h: Harness) -> Session:
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None
    return session


def state_of(session: Session) -> State:
    state: State = restore(GAMES["ego"].game, session.state)
    return state


def table_message(tg: FakeTelegram, session: Session) -> StoredMessage:
    return tg.message(GROUP, int(table_id(session)))


def code_button(table: StoredMessage, code: str) -> str:
    """The table's button that plays `code` ("2", "b2", "2b2", "x")."""
    return next(
        d for d in table.callback_data if d.startswith(b.GROUP_MOVE) and d.endswith(f"|{code}")
    )


async def open_ego(
    h: Harness, tg: FakeTelegram, humans: list[JSON], computers: int = 0, from_bank: bool = False
) -> StoredMessage:
    """The first human opens EGO in GROUP, the others join, computers fill, start."""
    host = humans[0]
    tg.group(GROUP, "Players", creator=host)
    await h.command(GROUP, host, "/newgame ego")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and lobby.callback_data
    for user in humans[1:]:
        await h.press(user, lobby, button(lobby, b.JOIN))
        lobby = tg.message(GROUP, lobby.message_id)
    for _ in range(computers):
        await h.press(host, lobby, button(lobby, b.ADD_BOT))
        lobby = tg.message(GROUP, lobby.message_id)
    if from_bank:
        await h.press(host, lobby, button(lobby, b.OPTION))
        lobby = tg.message(GROUP, lobby.message_id)
    await h.press(host, lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing" and session.game == "ego"
    assert session.options["refusal_from_bank"] is from_bank
    return table_message(tg, session)


def answer_text(tg: FakeTelegram, update: JSON) -> str:
    """The pop-up text the bot answered a press with."""
    qid = str(update["callback_query"]["id"])
    (call,) = [
        c for c in tg.calls_to("answerCallbackQuery") if c.params["callback_query_id"] == qid
    ]
    text: str = call.params.get("text", "")
    return text


async def test_three_people_pick_at_the_same_moment(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    """Ann answers while Bob and Cid guess, at the same instant on two processes: every pick
    counts, the reveal follows, and each presser is told their own pick privately. A pick's
    mark waits a table interval (the clock stands still here): the mark Bob's process holds
    when the other process reveals the turn is dropped, never edited over the reveal."""
    a, b2 = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid])
    for h in pair:
        delivery = h.bot.runner.delivery
        delivery.settings = replace(delivery.settings, table_interval=1.0)
    presses = [
        tg.callback_update(user, table, code_button(table, code))
        for user, code in ((ann, "2"), (bob, "2b2"), (cid, "3b1"))
    ]
    await asyncio.gather(*(h.feed(u) for h, u in zip((a, b2, a), presses, strict=True)))
    state = state_of(await load(a))
    assert state.turn == 2 and state.active == 1
    assert state.tokens == (11, 12, 9) and state.bank == 30 - 2 - 1 + 1
    assert [answer_text(tg, u) for u in presses] == [
        "You answered 2 🤫",
        "You picked 2 🤫, stake 2",
        "You picked 3 🤫, stake 1",
    ]
    reveal = next(m for m in tg.sent_to(GROUP) if "Reveal!" in m.text)
    assert reveal.message_id == table.message_id, "the turn's own table shows its reveal"
    assert "Bob guessed 2, bet 2: right! +2" in reveal.text
    assert "Cid guessed 3, bet 1: wrong, −1" in reveal.text
    assert "🧺 Tray: 28" in reveal.text
    table_now = table_message(tg, await load(a))
    assert table_now.message_id > reveal.message_id, "the next question comes below the reveal"
    assert not tg.message(GROUP, table.message_id).callback_data, "the old table has no buttons"
    later = [m for m in tg.sent_to(GROUP) if m.message_id > table.message_id]
    assert later == [table_now], "one new message a turn: the next question"
    asked = table_now.text.split("❓", 1)[1].split("\n", 1)[0]
    assert [m.message_id for m in tg.sent_to(GROUP) if asked in m.text] == [table_now.message_id]
    assert not real_failures(tg), real_failures(tg)


async def test_the_group_sees_only_who_locked_in_and_a_pick_may_change(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    """Bob picks 1, bets 2, then changes to 3 before the reveal; the table shows only that
    he has locked in; the changed pick is the one paid."""
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid])
    before = table.text
    await a.press(bob, table, code_button(table, "1"))
    update = await a.press(bob, table, code_button(table, "b2"), check=False)
    assert answer_text(tg, update) == "You picked 1 🤫, stake 2"
    table = table_message(tg, await load(a))
    assert "Bob: 🪙 10 ✅" in table.text and "Ann: 🪙 10 ⏳" in table.text
    assert table.text.replace("✅", "⏳") == before, "nothing but the lock-in mark shows"
    assert not any("🤫" in m.text for m in tg.sent_to(GROUP)), "picks are never said in the group"
    update = await a.press(bob, table, code_button(table, "3"), check=False)
    assert answer_text(tg, update) == "You picked 3 🤫, stake 2"
    await a.press(cid, table, code_button(table, "1b1"), check=False)
    await a.press(ann, table, code_button(table, "3"), check=False)
    state = state_of(await load(a))
    assert state.turn == 2 and state.tokens == (11, 12, 9)


@pytest.mark.parametrize("from_bank", [False, True])
async def test_a_refusal_follows_the_lobby_option(
    tg: FakeTelegram, pair: tuple[Harness, Harness], from_bank: bool
) -> None:
    """Ann refuses after Bob guessed: his guess is withdrawn; the refusal costs Ann 2 tokens
    paid into the bank, or with the option takes 2 out of the bank."""
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid], from_bank=from_bank)
    label = "Refuse (tray −2)" if from_bank else "Refuse (−2 tokens)"
    assert any(label in button["text"] for button in table.buttons), table.buttons
    await a.press(bob, table, code_button(table, "2b2"))
    update = await a.press(bob, table, code_button(table, "x"), check=False)
    assert answer_text(tg, update) == "Only the player who answers this turn may refuse."
    await a.press(ann, table, code_button(table, "x"), check=False)
    session = await load(a)
    state = state_of(session)
    assert state.active == 1 and state.turn == 2
    if from_bank:
        assert state.tokens == (10, 10, 10) and state.bank == 28 and state.removed == 2
        said = "Ann refused to answer: 2 tokens left the tray. 1 guess withdrawn."
    else:
        assert state.tokens == (8, 10, 10) and state.bank == 32
        said = "Ann refused to answer and paid 2 tokens into the tray. 1 guess withdrawn."
    assert said in table_message(tg, session).text


async def test_a_whole_game_with_a_computer_player(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    """Ann and Bob play a whole game with a computer: reveals after every turn, a final
    ranking with a Play again button, and the finished game leaves the store. Bob asks for
    Onlookers ask for /status now and then: the table shown anew takes the buttons off the
    copy above, so at most one message of the group offers picks; a table a reveal finished
    is not edited again for that."""
    a, _ = pair
    ann, bob = people(tg, "Ann", "Bob")
    await open_ego(a, tg, [ann, bob], computers=1)
    rng = random.Random(5)
    users = {0: ann, 1: bob}
    statuses = 0
    for i in range(3000):
        session, _ = await a.bot.sessions.load(CHAT)
        if session is None or session.phase != "playing":
            break
        live = [m for m in tg.sent_to(GROUP) if any(d[0] == b.GROUP_MOVE for d in m.callback_data)]
        assert len(live) <= 1, [m.message_id for m in live]
        if i % 7 == 3:
            await a.command(GROUP, tg.user(60 + i, f"Onlooker {i}"), "/status")
            statuses += 1
            continue
        state = state_of(session)
        table = table_message(tg, session)
        awaited = [p for p in GAMES["ego"].game.to_move(state) if p in users]
        if not awaited:
            clock.now += SETTINGS.bot_delay
            await a.tick()
            continue
        p = awaited[0]
        stake = min(2, state.tokens[p])
        code = str(rng.randint(1, 3)) if p == state.active else f"{rng.randint(1, 3)}b{stake}"
        await a.press(users[p], table, code_button(table, code), check=False)
    else:
        raise AssertionError("the game did not end")
    group = tg.sent_to(GROUP)
    assert sum("Reveal!" in m.text for m in group) >= 2
    final = next(m for m in reversed(group) if "Game over!" in m.text)
    assert any(d.startswith(b.AGAIN) for d in final.callback_data), "Play again"
    assert all(name in final.text for name in ("Ann", "Bob", "🤖"))
    assert 0 < len(tg.calls_to("editMessageReplyMarkup")) <= statuses
    assert not real_failures(tg), real_failures(tg)


async def rig(h: Harness, **changes: Any) -> State:
    """Change the stored game's state (a position the test needs), as a saved change."""
    session, version = await h.bot.sessions.load(CHAT)
    assert session is not None
    state = state_of(session)._replace(**changes)
    session.state = stored(GAMES["ego"].game, state)
    await h.bot.sessions.save(session, version)
    return state


async def test_a_void_final_turn_ends_the_game_with_nothing_lost(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    """The bank holds 1 token and two guesses are right: the turn is void, every stake
    returns, and the game ends with the places shared."""
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid])
    await rig(a, bank=1)
    await a.press(bob, table, code_button(table, "1b2"))
    await a.press(cid, table, code_button(table, "1b1"), check=False)
    await a.press(ann, table, code_button(table, "1"), check=False)
    session, _ = await a.bot.sessions.load(CHAT)
    assert session is None, "the finished game left the store"
    reveal = next(m for m in tg.sent_to(GROUP) if "Reveal!" in m.text)
    assert "nobody wins or loses" in reveal.text and "stake returned" in reveal.text
    final = tg.last_message(GROUP)
    assert final is not None and "Game over!" in final.text
    assert "share the win" in final.text and final.text.count("🥇") == 3


async def test_a_broke_player_is_skipped_as_a_guesser_and_back_after_their_turn(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid])
    await rig(a, tokens=(10, 0, 10), bank=40, guessers=(2,))
    update = await a.press(bob, table, code_button(table, "1b1"), check=False)
    assert answer_text(tg, update).startswith("You have no tokens left")
    await a.press(ann, table, code_button(table, "2"), check=False)
    table = table_message(tg, await load(a))
    assert "Bob: 🪙 0 (no tokens: waits)" in table.text
    await a.press(cid, table, code_button(table, "2b1"), check=False)
    state = state_of(await load(a))
    assert state.active == 1 and state.tokens == (11, 0, 11), "Bob's turn to answer"
    table = table_message(tg, await load(a))
    await a.press(bob, table, code_button(table, "3"), check=False)
    await a.press(ann, table, code_button(table, "3b1"), check=False)
    await a.press(cid, table, code_button(table, "3b2"), check=False)
    state = state_of(await load(a))
    assert state.tokens[1] == 2 and state.active == 2 and 1 in state.guessers, "Bob is back"
    table = table_message(tg, await load(a))
    update = await a.press(bob, table, code_button(table, "1b2"), check=False)
    assert answer_text(tg, update) == "You picked 1 🤫, stake 2"


async def test_a_language_switch_mid_game_shows_the_card_in_the_new_language(
    tg: FakeTelegram, pair: tuple[Harness, Harness]
) -> None:
    a, _ = pair
    ann, bob = people(tg, "Ann", "Bob")
    table = await open_ego(a, tg, [ann, bob])
    card = state_of(await load(a)).card
    english, _ = question(card, translator("en"))
    thai, _ = question(card, translator("th"))
    assert english in table.text
    await a.command(GROUP, ann, "/language")
    menu = tg.last_message(GROUP)
    assert menu is not None
    data = next(d for d, t in zip(menu.callback_data, menu.button_texts, strict=True) if "ไทย" in t)
    await a.press(ann, menu, data)
    await a.press(bob, table, code_button(table, "2b1"), check=False)
    table = table_message(tg, await load(a))
    assert thai in table.text and english not in table.text


async def test_idle_players_are_reminded_then_passed_or_skipped(
    tg: FakeTelegram, pair: tuple[Harness, Harness], clock: Clock
) -> None:
    """RULINGS.md, EGO, "An idle active player": an idle answerer's turn counts as their
    refusal, at its cost (Ann pays 2 into the bank; Bob's guess withdrawn); an idle guesser is
    skipped (no stake, no loss) and the others' picks are revealed."""
    a, _ = pair
    ann, bob, cid = people(tg, "Ann", "Bob", "Cid")
    table = await open_ego(a, tg, [ann, bob, cid])
    await a.press(bob, table, code_button(table, "2b2"))
    sent = len(tg.sent_to(GROUP))
    clock.now += SETTINGS.remind_after
    await a.tick()
    reminders = [m.text for m in tg.sent_to(GROUP)[sent:]]
    assert sorted(t[:5] for t in reminders) == ["⏰ Ann", "⏰ Cid"], reminders
    clock.now += SETTINGS.takeover_after
    await a.tick()
    session = await load(a)
    state = state_of(session)
    assert state.active == 1 and state.tokens == (8, 10, 10) and state.bank == 32
    said = (
        "Ann did not answer in time, so the turn counts as a refusal. Ann refused to answer "
        "and paid 2 tokens into the tray. 1 guess withdrawn."
    )
    assert said in table_message(tg, session).text
    table = table_message(tg, session)
    await a.press(bob, table, code_button(table, "1"))
    await a.press(ann, table, code_button(table, "1b1"), check=False)
    clock.now += SETTINGS.remind_after
    await a.tick()
    clock.now += SETTINGS.takeover_after
    await a.tick()
    state = state_of(await load(a))
    assert state.active == 2 and state.tokens == (9, 11, 10), "Cid skipped, no loss"
    reveal = [m for m in tg.sent_to(GROUP) if "Reveal!" in m.text][-1]
    assert "Ann guessed 1, bet 1: right! +1" in reveal.text and "Cid guessed" not in reveal.text
