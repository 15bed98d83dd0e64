"""Steps of the Ano harness tests: open a table with options, arrange a position, press the
cards a person would press (by their labels), read the table and the hands.

A position is arranged the way a saved game is restored: the stored state is replaced (every
card of the decks still in play exactly once: the cards not in a hand or the draw pile lie in
the discard pile under the top card) and each person asks for their hand again with the
table's "My hand" link (`/start h…`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from chatbot.core import buttons as b
from chatbot.core.progress import record
from chatbot.core.session import Session
from chatbot.present.ano.text import JOKER_TEXT, SUIT_SYMBOLS
from engine.ano import GAME
from engine.ano.cards import deck, face
from engine.ano.rules import CLEAR, JOKERS, NO_SUIT, State
from engine.core import restore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness
from tests.e2e.helpers import CHAT, GROUP, JSON, SEED, button, load, table_id

SUITS = {"♠": 0, "♥": 1, "♦": 2, "♣": 3}
RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def log_of(text: str) -> list[str]:
    """The table's last events, one line each."""
    return [line[2:] for line in text.splitlines() if line.startswith("• ")]


def cards(text: str) -> tuple[int, ...]:
    """Faces from "K♠ 10♥ 🃏" (rank then suit symbol; 🃏 a joker)."""
    out = []
    for token in text.split():
        if token == JOKER_TEXT:
            out.append(face(0, -1))
            continue
        rank, suit = token[:-1], SUITS[token[-1]]
        out.append(face(RANKS.get(rank) or int(rank), suit))
    return tuple(out)


def label(text: str) -> str:
    """A card's button label: "K♠" -> "K♠️" (suits with the emoji variation selector)."""
    if text == JOKER_TEXT:
        return text
    return text[:-1] + SUIT_SYMBOLS[SUITS[text[-1]]]


def people(tg: FakeTelegram, *names: str) -> list[JSON]:
    return [tg.user(61 + i, name) for i, name in enumerate(names)]


async def open_ano(
    h: Harness, tg: FakeTelegram, users: list[JSON], options: dict[str, Any] | None = None
) -> Session:
    """The first user opens an Ano table in GROUP, sets `options` in the lobby by pressing
    their buttons, the others join, and the host starts."""
    host = users[0]
    tg.group(GROUP, "Card night", creator=host)
    for user in users:
        await h.command(user["id"], user, "/start")
    await h.command(GROUP, host, "/newgame ano")
    lobby = tg.last_message(GROUP)
    assert lobby is not None and lobby.text.startswith("🎲 Ano")
    for user in users[1:]:
        await h.press(user, lobby, button(lobby, b.JOIN))
        lobby = tg.message(GROUP, lobby.message_id)
    for name, value in (options or {}).items():
        for _ in range(3):
            session, _ = await h.bot.sessions.load(CHAT)
            assert session is not None
            if session.options[name] == value:
                break
            data = next(d for d in lobby.callback_data if b.decode(d).fields[:1] == (name,))
            await h.press(host, lobby, data)
            lobby = tg.message(GROUP, lobby.message_id)
        else:
            raise AssertionError(f"option {name} could not be set")
    h.bot.sessions.seeds = lambda: SEED
    await h.press(host, lobby, button(lobby, b.START))
    session = await load(h)
    assert session.phase == "playing" and session.game == "ano"
    return session


async def arrange(
    h: Harness,
    tg: FakeTelegram,
    users: list[JSON],
    hands: list[str],
    top: str,
    pile: str = "",
    **changes: Any,
) -> State:
    """Put the game at a position: `hands` per seat, the `top` card, the draw pile (`pile`,
    the next card drawn first), the rest under the top card; then every person's hand comes
    anew. `changes`: other State fields (turn, pending, suit, ano...)."""
    session, version = await h.bot.sessions.load(CHAT)
    assert session is not None
    state: State = restore(GAME, session.state)
    held = [cards(hand) for hand in hands]
    drawn_first = cards(pile)
    rest = Counter(deck(state.decks, state.has(JOKERS)))
    for c in (*(c for hand in held for c in hand), *drawn_first, *cards(top)):
        rest[c] -= 1
        assert rest[c] >= 0, f"card {c} is not in the decks this often"
    state = state._replace(
        hands=tuple(tuple(sorted(hand)) for hand in held),
        pile=drawn_first[::-1],
        discard=(*sorted(rest.elements()), *cards(top)),
        suit=NO_SUIT,
        turn=0,
        direction=1,
        pending=0,
        drawn=-1,
        ano=(CLEAR,) * state.players,
        finished=(),
        idle=0,
        over=False,
    )._replace(**changes)
    sessions = h.bot.sessions
    record(session, sessions.bundle(session), state, [], None, sessions.clock(), sessions.settings)
    await h.bot.sessions.save(session, version)
    for user in users:
        await h.command(user["id"], user, "/start " + b.hand_payload(CHAT))
    return state


async def state_now(h: Harness) -> State:
    state: State = restore(GAME, (await load(h)).state)
    return state


def hand_of(tg: FakeTelegram, user: JSON) -> StoredMessage:
    """The user's latest hand message (as it looks now)."""
    for message in reversed(tg.sent_to(user["id"])):
        if "Your hand" in message.text:
            return message
    raise AssertionError(f"{user['first_name']} has no hand message")


def table_of(tg: FakeTelegram, session: Session) -> StoredMessage:
    return tg.message(GROUP, int(table_id(session)))


async def table_now(h: Harness, tg: FakeTelegram) -> StoredMessage:
    session, _ = await h.bot.sessions.load(CHAT)
    if session is None:  # the finished game left the chat: its table is the last one
        return next(m for m in reversed(tg.sent_to(GROUP)) if "Top card:" in m.text)
    return table_of(tg, session)


def data_of(message: StoredMessage, text: str) -> str:
    """The data of the button of `message` labelled `text`."""
    found = [x["callback_data"] for x in message.buttons if x["text"] == text]
    assert found, f"no button {text!r} on {message.button_texts}"
    return str(found[0])


async def press_label(h: Harness, tg: FakeTelegram, user: JSON, *texts: str) -> JSON:
    """Press the buttons labelled `texts` in turn on the user's hand message (a card, then
    the card on top or the suit); the last press's update."""
    update: JSON = {}
    for text in texts:
        hand = hand_of(tg, user)
        update = await h.press(user, hand, data_of(hand, text))
    return update


async def play(h: Harness, tg: FakeTelegram, user: JSON, card: str, *more: str) -> JSON:
    """Play `card` (as "K♠" or "🃏") from the user's hand, then press `more` (a suit…)."""
    return await press_label(h, tg, user, label(card), *more)


def answer_text(tg: FakeTelegram, update: JSON) -> str:
    """The pop-up text that answered a press (empty: a silent answer)."""
    qid = str(update["callback_query"]["id"])
    (call,) = [
        c for c in tg.calls_to("answerCallbackQuery") if c.params["callback_query_id"] == qid
    ]
    return str(call.params.get("text", ""))
