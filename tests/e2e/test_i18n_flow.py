"""The language features through the real Telegram adapter and the fake Bot API.

"Every text comes from a catalogue, with the locale passed in explicitly: group messages in
the chat's language, private ones in the player's." /language in a group sets the group's
language, in a private chat the player's; the choice is kept in the store. Without a choice a
user's Telegram language_code decides (negotiated: "th-TH" -> th, "pt-br" -> English). The
command menu is registered in every language. /rules and /rule speak the chat's language and
quote the rulebooks; a refused press names the rule in the player's language.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import AsyncIterator

import pytest

from chatbot.core import buttons as b
from chatbot.core.help import COMMANDS, INTRO
from chatbot.core.session import Session
from chatbot.games import registry
from chatbot.i18n import Translator, translator
from chatbot.present.egonomy import TURN_CONTEXT
from chatbot.rule_help.egonomy import EGONOMY_RULES
from chatbot.store.redis import RedisStore
from engine.egonomy.rules import BABBLE, CUT_OFF, Action, encode_action
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import Harness
from tests.e2e.helpers import (
    GROUP,
    JSON,
    load,
    open_table,
    query_id,
    ready_to_move,
    state_of,
    table_id,
    to_move,
    user_of,
)

TH, JA, EN = translator("th"), translator("ja"), translator("en")
OWN_NAMES = {"th": "ไทย", "ja": "日本語", "en": "English"}  # each language in itself
THAI = re.compile(r"[\u0e00-\u0e7f]")
KANA = re.compile(r"[\u3040-\u30ff]")
OTHER_GROUP = -1005550001111
# A bot hosting Egonomy alone: /rules opens its rulebook at once, /help names one game.

# Sentences of the rulebooks (seeds 000 and 001), verbatim, that the rule sections quote.
RULEBOOK = {
    "th": {
        "babble": "ห้ามทำแอ็คชันเพ้อเจ้อบนโต๊ะที่มีการ์ดใบเดียว แม้จะมีแต้มสูงกว่า",
        "momentum": "คุณต้องทำอีกหนึ่งแอ็คชันทันที จะเป็นแอ็คชันเดิมก็ได้",
        "cut_off": "ที่มีการ์ดเพียงใบเดียว เก็บเป็น",
        "general": "ทุกคนดูกองทิ้งที่หงายอยู่ได้ตลอดเวลา",
    },
    "ja": {
        "babble": "1枚だけのカードの上に、1枚だけのカードを出すことはできません。",
        "momentum": "すぐにもう1回アクションを必ず行います。同じアクションでもかまいません。",
        "cut_off": "から、そのカードを取って",
        "general": "表向きの捨て札は、誰でもいつでも見られます。",
    },
}


def intro(tr: Translator) -> str:
    """The help's first line: it names every hosted game."""
    return tr.t(INTRO, games=tr.list(g.presenter.title(tr) for g in registry()))


@pytest.fixture
async def h(tg: FakeTelegram, redis_store: RedisStore) -> AsyncIterator[Harness]:
    harness = await Harness(tg, redis_store).start()
    try:
        yield harness
    finally:
        await harness.stop()


def data_of(message: StoredMessage, label: str) -> str:
    """The callback data of the button labelled `label`."""
    found = [str(x["callback_data"]) for x in message.buttons if x["text"] == label]
    assert found, (label, message.button_texts)
    return found[0]


def last(tg: FakeTelegram, chat_id: int) -> StoredMessage:
    """The bot's latest message in the chat."""
    message = tg.last_message(chat_id)
    assert message is not None, f"no bot message in {chat_id}"
    return message


def answer_to(tg: FakeTelegram, update: JSON) -> JSON:
    """What the bot answered to the button press of `update`."""
    answer = tg.callback_answer(query_id(update))
    assert answer is not None, "the press was answered"
    return answer


async def choose_language(
    h: Harness, tg: FakeTelegram, chat_id: int, user: JSON, language: str
) -> tuple[StoredMessage, JSON]:
    """`user` sends /language in the chat and presses the button of `language`."""
    await h.command(chat_id, user, "/language")
    menu = last(tg, chat_id)
    update = await h.press(user, menu, data_of(menu, OWN_NAMES[language]))
    return tg.message(chat_id, menu.message_id), answer_to(tg, update)


def hand_of(tg: FakeTelegram, session: Session, user: JSON) -> StoredMessage:
    """The player's latest private hand message (the one with their ego ✦ line)."""
    return next(m for m in reversed(tg.sent_to(user["id"])) if "✦" in m.text)


def table_of(tg: FakeTelegram, session: Session) -> StoredMessage:
    return tg.message(GROUP, int(table_id(session)))


WAITING = "⏳ Not your turn yet: the table in the group shows the game."


def hand_speaks(text: str, tr: Translator) -> bool:
    """A hand message in `tr`'s language: the player's hand, then the tables (their turn) or
    the waiting line (not their turn)."""
    rest = table_line(tr) in text or tr.pgettext(TURN_CONTEXT, WAITING) in text
    return text.startswith(tr.gettext("Your hand")) and rest


def table_line(tr: Translator) -> str:
    """How the first topic table is named in a language, e.g. "โต๊ะ 1 · ⚖️ จริยศาสตร์"."""
    return (
        tr.gettext("{table} · {topic}: {cards}")
        .split("{cards}")[0]
        .format(table=tr.gettext("Table {n}").format(n=1), topic=f"⚖️ {tr.gettext('Ethics')}")
    )


def unchanged(before: Session, after: Session) -> bool:
    return (after.moves, after.state, after.log) == (before.moves, before.state, before.log)


# --- /language ---------------------------------------------------------------------------


async def test_group_language_makes_the_group_thai_and_hands_stay_personal(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    ann = tg.user(21, "Ann", language_code="en")
    kenji = tg.user(22, "Kenji", language_code="ja")
    tg.group(GROUP, "Symposium", creator=ann)
    first = RedisStore.from_url(redis_url, redis_prefix)
    h = await Harness(tg, first).start()
    try:
        await h.command(GROUP, ann, "/language")
        menu = last(tg, GROUP)
        assert menu.text == EN.gettext("Which language should I use in this group?")
        assert sorted(menu.button_texts) == sorted(OWN_NAMES.values())
        update = await h.press(ann, menu, data_of(menu, "ไทย"))
        done = TH.gettext("Done: I will write in English in this group.")
        assert THAI.search(done)
        assert answer_to(tg, update) == {
            "text": done,
            "show_alert": False,
            "url": None,
        }
        assert tg.message(GROUP, menu.message_id).text == done, "the menu becomes the answer"

        lobby = await open_table(h, tg, [ann, kenji], computers=1)
        lobby = tg.message(GROUP, lobby.message_id)
        assert lobby.history[0].startswith("🎲 Egonomy: ")
        assert "ตั้งวงใหม่แล้ว" in lobby.history[0], "the lobby speaks Thai"
        assert lobby.text.startswith("🎲 Egonomy เริ่มแล้ว!") and "🤖 โสกราตีส" in lobby.text
        session = await load(h)
        assert session.language == "th"
        assert [s.language for s in session.seats if s.user] == ["en", "ja"]
        table = table_of(tg, session)
        assert table_line(TH) in table.text and table_line(TH).startswith("โต๊ะ 1 · ⚖️ ")
        assert table.button_texts == [TH.gettext("🃏 My hand"), TH.gettext("📖 Rules")]
        update = await h.press(kenji, table, data_of(table, "📖 กติกา"))
        assert answer_to(tg, update)["text"] == "ルールを個別チャットに送りました。"
        assert last(tg, kenji["id"]).text.endswith("📖 どのルールを読みますか？")
        assert tg.message(GROUP, table.message_id).text == table.text, "the table stays"
        kenji_hand = hand_of(tg, session, kenji)
        assert kenji_hand.text.startswith("あなたの手札") and hand_speaks(kenji_hand.text, JA)
        ann_hand = hand_of(tg, session, ann)
        assert ann_hand.text.startswith("Your hand") and hand_speaks(ann_hand.text, EN)

        mover = user_of(session, to_move(session), [ann, kenji])
        hand = await ready_to_move(h, tg, mover, random.Random(1))
        await h.press(mover, hand, next(d for d in hand.callback_data if d[0] == b.MOVE))
        narrated = table_of(tg, await load(h)).text.splitlines()[-1]
        assert narrated.startswith("• ") and THAI.search(narrated), narrated
    finally:
        await h.stop()
        await first.close()

    # A new process on the same store: the group's choice is still there. (Kenji asks: Ann's
    # /language moments ago began a burst of hers, which got its one reply.)
    store = RedisStore.from_url(redis_url, redis_prefix)
    h2 = await Harness(tg, store).start()
    try:
        await h2.command(GROUP, kenji, "/help")
        assert last(tg, GROUP).text.startswith(intro(TH))
        await h2.command(GROUP, ann, "/stop")
        await h2.command(GROUP, ann, "/newgame")
        lobby = last(tg, GROUP)
        assert lobby is not None and "ตั้งวงใหม่แล้ว" in lobby.text
        assert TH.gettext("🙋 Join") in lobby.button_texts
    finally:
        await h2.stop()
        await store.close()


async def test_private_language_reaches_the_hand_of_a_running_game(
    h: Harness, tg: FakeTelegram
) -> None:
    ann = tg.user(31, "Ann", language_code="en")
    bob = tg.user(32, "Bob", language_code="en")
    users = [ann, bob]
    await open_table(h, tg, users)  # Ann is the host, Bob joined
    menu, answer = await choose_language(h, tg, ann["id"], ann, "th")
    assert menu.history[0] == EN.gettext("Which language should I use with you?")
    assert answer["text"] == menu.text == TH.gettext("Done: I will write to you in English.")
    menu, answer = await choose_language(h, tg, bob["id"], bob, "ja")
    assert answer["text"] == menu.text == JA.gettext("Done: I will write to you in English.")
    session = await load(h)
    assert [s.language for s in session.seats] == ["th", "ja"], "the host's seat too"

    rng = random.Random(4)
    for _ in range(3):  # a player acts at most twice in a row (momentum): both hands are redrawn
        session = await load(h)
        mover = user_of(session, to_move(session), users)
        hand = await ready_to_move(h, tg, mover, rng)
        await h.press(mover, hand, next(d for d in hand.callback_data if d[0] == b.MOVE))
    session = await load(h)
    assert hand_of(tg, session, ann).text.startswith(TH.gettext("Your hand"))
    assert hand_speaks(hand_of(tg, session, ann).text, TH)
    assert hand_of(tg, session, bob).text.startswith("あなたの手札")
    assert hand_speaks(hand_of(tg, session, bob).text, JA)
    table = table_of(tg, session)
    assert table_line(EN) in table.text, "the group keeps its own language"
    update = await h.press(bob, table, data_of(table, "🃏 My hand"))
    assert answer_to(tg, update)["text"].startswith("あなたの手札")


@pytest.mark.parametrize(
    ("code", "language"),
    [("th", "th"), ("th-TH", "th"), ("ja", "ja"), ("en-US", "en"), ("pt-br", "en"), (None, "en")],
)
async def test_the_default_language_is_the_users_telegram_language(
    h: Harness, tg: FakeTelegram, code: str | None, language: str
) -> None:
    user = tg.user(41, "Noor", language_code=code)
    tr = translator(language)
    await h.command(user["id"], user, "/help")
    assert last(tg, user["id"]).text.startswith(intro(tr))
    tg.group(OTHER_GROUP, "Agora", creator=user)
    await h.command(OTHER_GROUP, user, "/rules egonomy")
    overview = last(tg, OTHER_GROUP)
    assert overview.text.endswith(tr.gettext("📖 Which rule would you like to read?"))
    assert tr.gettext("Momentum") in overview.button_texts
    assert ("โมเมนตัม" in overview.button_texts) == (language == "th")
    assert ("勢い" in overview.button_texts) == (language == "ja")


async def test_the_command_menu_is_registered_in_every_language(
    h: Harness, tg: FakeTelegram
) -> None:
    default_scope = json.dumps({"type": "default"}, sort_keys=True)
    languages = [c.params.get("language_code") for c in tg.calls_to("setMyCommands")]
    assert sorted(languages, key=str) == sorted(["en", "ja", "th", None], key=str)
    for language in ("th", "ja", "en"):
        tr = translator(language)
        menu = tg.commands[(default_scope, language)]
        assert menu == [{"command": n, "description": tr.gettext(d)} for n, d in COMMANDS]
    assert tg.commands[(default_scope, "")] == tg.commands[(default_scope, "en")]
    th = {c["command"]: c["description"] for c in tg.commands[(default_scope, "th")]}
    ja = {c["command"]: c["description"] for c in tg.commands[(default_scope, "ja")]}
    assert all(THAI.search(d) for d in th.values())
    assert all(KANA.search(d) for d in ja.values())
    assert "/rule โมเมนตัม" in th["rule"] and "/rule 勢い" in ja["rule"]


# --- /rules and /rule --------------------------------------------------------------------


async def test_rules_sections_speak_the_chat_language(h: Harness, tg: FakeTelegram) -> None:
    ann = tg.user(51, "Ann", language_code="en")
    kenji = tg.user(52, "Kenji", language_code="ja")
    tg.group(GROUP, "Symposium", creator=ann)
    await choose_language(h, tg, GROUP, ann, "th")
    await h.command(GROUP, kenji, "/rules egonomy")  # a Japanese user in a Thai group
    overview = last(tg, GROUP)
    assert overview.text == "Egonomy\n📖 อยากอ่านกติกาข้อไหน?"
    assert overview.button_texts == [
        *(TH.gettext(s.title) for s in EGONOMY_RULES.sections),
        TH.gettext("🎲 Other games"),
    ]
    assert {"เพ้อเจ้อ", "ตัดบท", "ถกเถียง", "รับฟัง", "ปล่อยวาง", "ล้มโต๊ะ"} <= set(overview.button_texts)
    await h.press(kenji, overview, data_of(overview, "เพ้อเจ้อ"))
    section = tg.message(GROUP, overview.message_id)
    assert section.text.startswith("เพ้อเจ้อ\n\n")
    assert RULEBOOK["th"]["babble"] in section.text
    assert section.button_texts == [TH.gettext("⬅️ All rules")]
    await h.press(kenji, section, section.callback_data[0])
    back = tg.message(GROUP, overview.message_id)
    assert back.text == overview.text and back.button_texts == overview.button_texts

    tg.group(OTHER_GROUP, "Agora", creator=kenji)
    await h.command(OTHER_GROUP, kenji, "/rules egonomy")  # no choice there: Kenji's Japanese
    overview = last(tg, OTHER_GROUP)
    assert overview.text == "Egonomy\n📖 どのルールを読みますか？"
    await h.press(kenji, overview, data_of(overview, "戯言"))
    section = tg.message(OTHER_GROUP, overview.message_id)
    assert section.text.startswith("戯言\n\n") and RULEBOOK["ja"]["babble"] in section.text
    assert section.button_texts == [JA.gettext("⬅️ All rules")]


@pytest.mark.parametrize("query", ["โมเมนตัม", "勢い", "momentum"])
async def test_rule_finds_momentum_by_any_of_its_names(
    h: Harness, tg: FakeTelegram, query: str
) -> None:
    ann = tg.user(61, "Ann", language_code="en")
    kenji = tg.user(62, "Kenji", language_code="ja")
    tg.group(GROUP, "Symposium", creator=ann)
    await choose_language(h, tg, GROUP, ann, "th")
    entry = next(g for g in EGONOMY_RULES.glossary if g.key == "momentum")
    more = b.encode(b.RULE, "egonomy", "momentum")
    for chat_id, tr in ((GROUP, TH), (kenji["id"], JA)):
        await h.command(chat_id, kenji, f"/rule {query}")
        found = last(tg, chat_id)
        assert found.text == f"{tr.gettext(entry.term)}\n{tr.gettext(entry.text)}"
        assert found.button_texts == [tr.gettext("📖 Read more")]
        assert found.callback_data == [more]
    assert last(tg, GROUP).text.startswith("โมเมนตัม\n")
    assert last(tg, kenji["id"]).text.startswith("勢い\n")


async def test_a_typo_offers_the_term_it_resembles(h: Harness, tg: FakeTelegram) -> None:
    som = tg.user(71, "Som", language_code="th")
    tg.group(GROUP, "Symposium", creator=som)
    await h.command(GROUP, som, "/rule momentun")
    offer = last(tg, GROUP)
    assert offer.text == TH.t("I don't know “{query}”. Did you mean:", query="momentun")
    assert THAI.search(offer.text)
    assert offer.button_texts[0] == "Egonomy: โมเมนตัม"
    assert offer.callback_data[0] == b.encode(b.RULE, "egonomy", "momentum")
    await h.press(som, offer, offer.callback_data[0])
    section = tg.message(GROUP, offer.message_id)
    assert section.text.startswith("โมเมนตัม\n\n") and RULEBOOK["th"]["momentum"] in section.text


# --- refusals ----------------------------------------------------------------------------


async def refused(
    h: Harness, tg: FakeTelegram, user: JSON, message: StoredMessage, data: str
) -> JSON:
    """A crafted press (no such button on `message`): nothing changes; the pop-up answer."""
    before = await load(h)
    update = tg.callback_update(user, message, data, check=False)
    await h.feed(update)
    assert unchanged(before, await load(h)), "nothing in the game changes"
    return answer_to(tg, update)


async def open_rule(
    h: Harness, tg: FakeTelegram, user: JSON, why: StoredMessage, lang: str, section: str
) -> None:
    """The refusal's rule button opens the rule section, in the player's language."""
    tr = translator(lang)
    assert why.button_texts == [tr.gettext("📖 Full rule")]
    assert why.callback_data == [b.encode(b.RULE, "egonomy", section)]
    await h.press(user, why, why.callback_data[0])
    shown = tg.message(user["id"], why.message_id)
    title = tr.gettext(EGONOMY_RULES.section(section).title)
    assert shown.text.startswith(f"{title}\n\n")
    assert RULEBOOK[lang][section] in shown.text
    assert shown.button_texts == [tr.gettext("⬅️ All rules")]


@pytest.mark.parametrize(("mover_lang", "other_lang"), [("th", "ja"), ("ja", "th")])
async def test_a_refused_press_names_the_rule_in_the_players_language(
    h: Harness, tg: FakeTelegram, mover_lang: str, other_lang: str
) -> None:
    ann = tg.user(81, "Ann", language_code="en")
    bob = tg.user(82, "Bob", language_code="en")
    users = [ann, bob]
    tg.group(GROUP, "Symposium", creator=ann)
    await choose_language(h, tg, GROUP, ann, "th")
    await open_table(h, tg, users)
    session = await load(h)
    seat = to_move(session)
    mover, other = user_of(session, seat, users), user_of(session, 1 - seat, users)
    await choose_language(h, tg, mover["id"], mover, mover_lang)
    await choose_language(h, tg, other["id"], other, other_lang)
    hand = await ready_to_move(h, tg, mover, random.Random(6))
    real_data = next(d for d in hand.callback_data if d[0] == b.MOVE)
    real = b.decode(real_data)
    assert real is not None
    state = state_of(await load(h))

    def crafted(action: Action) -> str:
        """The real button's data with another action code of the same format."""
        return b.encode(b.MOVE, real.fields[0], encode_action(action), stamp=real.stamp)

    mtr, otr = translator(mover_lang), translator(other_lang)
    empty = next(t for t, lying in enumerate(state.tables) if not lying)
    answer = await refused(h, tg, mover, hand, crafted(Action(CUT_OFF, empty)))
    text = mtr.gettext("You may cut off only from a topic table holding exactly one card.")
    assert answer == {"text": text, "show_alert": True, "url": None}
    assert (THAI if mover_lang == "th" else KANA).search(text)
    why = last(tg, mover["id"])
    assert why.text == text
    await open_rule(h, tg, mover, why, mover_lang, "cut_off")

    not_held = state.hands[1 - seat][0]
    answer = await refused(h, tg, mover, hand, crafted(Action(BABBLE, empty, (not_held,))))
    why = last(tg, mover["id"])
    assert answer["text"] == why.text == mtr.gettext("That card is not in your hand.")
    await open_rule(h, tg, mover, why, mover_lang, "general")

    # Out of turn: a pop-up in the other player's own language (no rule to read).
    own = last(tg, other["id"])
    answer = await refused(h, tg, other, own, real_data)  # the mover's button
    assert answer == {"text": otr.gettext("It's not your turn."), "show_alert": True, "url": None}
    assert (THAI if other_lang == "th" else KANA).search(answer["text"])
