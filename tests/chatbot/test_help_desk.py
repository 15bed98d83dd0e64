"""The help desk (chatbot/core/help.py) through a GameService on a MemoryStore.

/rules shows the rulebook's sections as buttons; a section button edits the message into that
section, in the chat's language, with a way back. /rule looks a term up in every language and
answers in the asker's. /language offers every language that has a catalogue, each named in
itself; a group's choice is the chat's, a private chat's is the player's (and reaches the seat
of a game they play); a code without a catalogue is refused.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from chatbot import i18n
from chatbot.core import buttons as b
from chatbot.core.buttons import OVERVIEW, SEND_PRIVATELY
from chatbot.core.help import COMMANDS, INTRO, language_name
from chatbot.core.model import Answer, Button, Command, Incoming, Message, Press, Reply, User
from chatbot.core.service import GameService
from chatbot.games import registry
from chatbot.i18n import available_locales, translator
from chatbot.rule_help import names as rule_names
from chatbot.rule_help import normalise
from chatbot.rule_help.egonomy import EGONOMY_RULES
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from tests.conftest import make_service

GROUP = "tg:-100777"
REPO = Path(__file__).resolve().parents[2]
LANGS = available_locales()
SECTION_KEYS = [s.key for s in EGONOMY_RULES.sections]
NO_LONGER = "This button is no longer in use."


@pytest.fixture
def service() -> GameService:
    """The bot with every hosted game (/rules then first offers a menu of games)."""
    return make_service(MemoryStore(), Settings())


def user(n: int = 1, language: str | None = "en") -> User:
    return User(f"tg:{n}", f"Player {n}", language)


def intro(code: str) -> str:
    """The help's first line in `code`: it names every hosted game."""
    tr = translator(code)
    return tr.t(INTRO, games=tr.list(g.presenter.title(tr) for g in registry()))


def command(name: str, args: str = "", who: User | None = None, chat: str = GROUP) -> Incoming:
    who = who or user()
    return Command(
        chat=chat if chat != "private" else who.id,
        private=chat == "private",
        user=who,
        name=name,
        args=args,
    )


def press(data: str, who: User | None = None, chat: str = GROUP, message: str = "7") -> Incoming:
    who = who or user()
    private = chat == "private"
    return Press(
        chat=who.id if private else chat, private=private, user=who, data=data, message=message
    )


def only(reply: Reply) -> Message:
    assert len(reply.messages) == 1, reply
    return reply.messages[0]


# --- /help and /rules ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
async def test_help_lists_every_command(service: GameService, lang: str) -> None:
    tr = translator(lang)
    text = only(await service.handle(command("help", who=user(1, lang)))).text
    for name, description in COMMANDS:
        assert f"/{name} — {tr.gettext(description)}" in text


@pytest.mark.parametrize("lang", LANGS)
async def test_rules_shows_every_section_three_to_a_row(service: GameService, lang: str) -> None:
    tr = translator(lang)
    overview = only(await service.handle(command("rules", "egonomy", who=user(1, lang))))
    assert overview.text.endswith(tr.gettext("📖 Which rule would you like to read?"))
    assert all(len(row) <= 3 for row in overview.buttons)
    buttons = [x for row in overview.buttons for x in row]
    other_games = Button(tr.gettext("🎲 Other games"), b.encode(b.RULE, "", b.GAMES_MENU))
    assert buttons == [
        *(
            Button(tr.gettext(s.title), b.encode(b.RULE, "egonomy", s.key))
            for s in EGONOMY_RULES.sections
        ),
        other_games,
    ]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", SECTION_KEYS)
async def test_every_section_opens(service: GameService, lang: str, key: str) -> None:
    tr = translator(lang)
    section = EGONOMY_RULES.section(key)
    reply = await service.handle(press(b.encode(b.RULE, "egonomy", key), user(1, lang), "private"))
    title, body = tr.gettext(section.title), tr.gettext(section.body)
    text = f"<b>{html.escape(title)}</b>\n\n{html.escape(body)}"
    if section.ruling:  # the house ruling, set apart, where a player would look for it
        text += f"\n\n<i>{html.escape(tr.gettext(section.ruling))}</i>"
    assert reply.answer == Answer()
    assert only(reply) == Message(
        "tg:1",
        text,
        ((Button(tr.gettext("⬅️ All rules"), b.encode(b.RULE, "egonomy", OVERVIEW)),),),
        edit="7",
    )
    if lang != "en":
        assert body != section.body, "translated"


async def test_the_back_button_edits_the_section_into_the_overview(service: GameService) -> None:
    reply = await service.handle(press(b.encode(b.RULE, "egonomy", OVERVIEW), user(1, "ja")))
    overview = only(reply)
    assert overview.edit == "7" and overview.chat == GROUP
    assert overview.text.endswith(translator("ja").gettext("📖 Which rule would you like to read?"))


async def test_a_section_that_does_not_exist_is_refused(service: GameService) -> None:
    reply = await service.handle(press(b.encode(b.RULE, "egonomy", "nope"), user(1, "th")))
    assert reply == Reply(Answer(translator("th").gettext(NO_LONGER)))


async def test_rules_asked_from_a_table_go_to_the_private_chat(service: GameService) -> None:
    """The table's button: the overview goes to the presser, in their language; the group's
    shared message (the table) is not edited."""
    await service.sessions._store.set_setting(f"chat:{GROUP}", "lang", "th")
    await service.sessions._store.set_setting(
        "user:tg:1", "dm", "1"
    )  # has a private chat with the bot
    reply = await service.handle(press(b.encode(b.RULE, "egonomy", SEND_PRIVATELY), user(1, "ja")))
    ja = translator("ja")
    assert reply.answer == Answer(ja.gettext("I sent the rules to our private chat."))
    overview = only(reply)
    assert overview.chat == "tg:1" and overview.edit is None
    assert overview.text.endswith(ja.gettext("📖 Which rule would you like to read?"))


async def test_rules_asked_by_someone_the_bot_cannot_write_to_open_the_private_chat(
    service: GameService,
) -> None:
    """A bot cannot start a private chat: the pop-up asks to open one, and sends nothing."""
    reply = await service.handle(press(b.encode(b.RULE, "egonomy", SEND_PRIVATELY), user(2, "th")))
    text = translator("th").gettext("Open a private chat with me first, then press again.")
    assert reply.answer is not None and reply.answer.text == text
    assert reply.messages == []


@pytest.mark.parametrize("key", ["components", "flip", "round_end", "general"])
def test_the_rulings_a_player_asks_about_stand_in_their_sections(key: str) -> None:
    """RULINGS.md: name each ruling in the rule help where a player would ask (card list,
    flip sides, the stuck-player ending), marked as the bot's house ruling."""
    for lang, mark in (
        ("en", "House ruling"),
        ("th", "กติกาเฉพาะของบอทนี้"),
        ("ja", "ハウスルール"),
    ):
        assert mark in translator(lang).gettext(EGONOMY_RULES.section(key).ruling)


# --- /rule ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("query", ["momentum", "MOMENTUM", "勢い", "いきおい", "โมเมนตัม"])
async def test_rule_finds_a_term_by_any_name_and_answers_in_the_chats_language(
    service: GameService, lang: str, query: str
) -> None:
    tr = translator(lang)
    entry = next(g for g in EGONOMY_RULES.glossary if g.key == "momentum")
    found = only(await service.handle(command("rule", query, user(1, lang))))
    term, text = html.escape(tr.gettext(entry.term)), html.escape(tr.gettext(entry.text))
    assert found.text == f"<b>{term}</b>\n{text}"
    assert found.buttons == (
        (Button(tr.gettext("📖 Read more"), b.encode(b.RULE, "egonomy", "momentum")),),
    )


async def test_rule_with_a_typo_offers_buttons(service: GameService) -> None:
    th = translator("th")
    offer = only(await service.handle(command("rule", "fallicy", user(1, "th"))))
    assert offer.text == th.t("I don't know “{query}”. Did you mean:", query="fallicy")
    fallacy = Button("Egonomy: ตรรกะวิบัติ", b.encode(b.RULE, "egonomy", "fallacy"))
    assert offer.buttons[0] == (fallacy,)


async def test_rule_without_a_match_or_a_word(service: GameService) -> None:
    ja = translator("ja")
    nothing = only(await service.handle(command("rule", "<zzzz>", user(1, "ja"))))
    assert nothing.text == ja.t(
        "I don't know “{query}”. /rules lists every section.", query="&lt;zzzz&gt;"
    )
    assert nothing.buttons == ()
    empty = only(await service.handle(command("rule", "", user(1, "ja"))))
    assert empty.text == ja.gettext("Which term? For example: /rule momentum")


def visible_length(text: str) -> int:
    """A message's length as Telegram counts it: UTF-16 units of the text after HTML parsing."""
    return len(html.unescape(re.sub(r"<[^>]+>", "", text)).encode("utf-16-le")) // 2


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    "query", ["<" * 4090, ("momentum fallacy " * 241)[:4090]], ids=["unknown", "suggestions"]
)
async def test_a_rule_query_of_any_length_gets_an_answer_that_fits_one_message(
    service: GameService, lang: str, query: str
) -> None:
    """A user may send 4096 characters: the answer echoes only the start of the query."""
    reply = only(await service.handle(command("rule", query, user(1, lang))))
    assert visible_length(reply.text) <= 4096
    assert "…" in reply.text


# --- /language -----------------------------------------------------------------------------


def test_languages_are_named_in_themselves() -> None:
    assert {code: language_name(code) for code in LANGS} == {
        "en": "English",
        "th": "ไทย",
        "ja": "日本語",
    }


async def test_the_menu_keeps_within_telegrams_eight_buttons_a_row(
    service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new language needs no code change: with a dozen catalogues the menu still fits."""
    po = (REPO / "locales" / "ja" / "LC_MESSAGES" / "messages.po").read_text(encoding="utf-8")
    codes = ["de", "es", "fr", "id", "it", "ja", "ko", "pt", "ru", "th", "vi", "zh"]
    for code in codes:
        folder = tmp_path / code / "LC_MESSAGES"
        folder.mkdir(parents=True)
        (folder / "messages.po").write_text(po, encoding="utf-8")
    monkeypatch.setenv(i18n.LOCALES_ENV, str(tmp_path))
    menu = only(await service.handle(command("language", who=user(1, "en"), chat="private")))
    assert all(len(row) <= 8 for row in menu.buttons)
    offered = [x.data for row in menu.buttons for x in row]
    assert offered == [b.encode(b.LANGUAGE, "u", c) for c in ["en", *codes]]


@pytest.mark.parametrize(("chat", "scope"), [(GROUP, "c"), ("private", "u")])
async def test_the_menu_offers_every_language(service: GameService, chat: str, scope: str) -> None:
    menu = only(await service.handle(command("language", who=user(1, "th"), chat=chat)))
    th = translator("th")
    asked = (
        "Which language should I use in this group?"
        if scope == "c"
        else ("Which language should I use with you?")
    )
    assert menu.text == th.gettext(asked)
    assert menu.buttons == (
        tuple(Button(language_name(c), b.encode(b.LANGUAGE, scope, c)) for c in LANGS),
    )


@pytest.mark.parametrize("code", LANGS)
async def test_a_group_language_button_sets_the_chats_language(
    service: GameService, code: str
) -> None:
    reply = await service.handle(press(b.encode(b.LANGUAGE, "c", code), user(1, "en")))
    done = translator(code).gettext("Done: I will write in English in this group.")
    assert reply == Reply(Answer(done), [Message(GROUP, done, edit="7")])
    assert await service.sessions._store.get_setting(f"chat:{GROUP}", "lang") == code
    assert await service.sessions._store.get_setting("user:tg:1", "lang") is None
    help_text = only(await service.handle(command("help", who=user(2, "en")))).text
    assert help_text.startswith(intro(code))


@pytest.mark.parametrize("code", LANGS)
async def test_a_private_language_button_sets_the_players_language(
    service: GameService, code: str
) -> None:
    reply = await service.handle(press(b.encode(b.LANGUAGE, "u", code), user(1, "en"), "private"))
    done = translator(code).gettext("Done: I will write to you in English.")
    assert reply == Reply(Answer(done), [Message("tg:1", done, edit="7")])
    assert await service.sessions._store.get_setting("user:tg:1", "lang") == code
    assert await service.sessions._store.get_setting(f"chat:{GROUP}", "lang") is None


@pytest.mark.parametrize("code", ["xx", "", "TH", "th-TH", "../th"])
async def test_a_language_without_a_catalogue_is_refused(service: GameService, code: str) -> None:
    for scope, chat in (("c", GROUP), ("u", "private")):
        reply = await service.handle(press(b.encode(b.LANGUAGE, scope, code), user(1, "ja"), chat))
        assert reply == Reply(Answer(translator("ja").gettext(NO_LONGER)))
    assert await service.sessions._store.get_setting(f"chat:{GROUP}", "lang") is None
    assert await service.sessions._store.get_setting("user:tg:1", "lang") is None


async def open_lobby(service: GameService, host: User, guest: User) -> None:
    """Both start the bot privately; the host opens a table in GROUP; the guest joins."""
    for who in (host, guest):
        await service.handle(command("start", who=who, chat="private"))
    await service.handle(command("newgame", who=host))
    await service.handle(press(b.encode(b.JOIN), guest))


@pytest.mark.parametrize("who", [1, 2], ids=["host", "guest"])
async def test_a_private_choice_reaches_the_seat_of_a_game(service: GameService, who: int) -> None:
    await open_lobby(service, user(1, "en"), user(2, "en"))
    await service.handle(press(b.encode(b.LANGUAGE, "u", "th"), user(who, "en"), "private"))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    assert {s.user: s.language for s in session.seats} == {
        "tg:1": "th" if who == 1 else "en",
        "tg:2": "th" if who == 2 else "en",
    }
    assert session.language == "en", "the group keeps its language"


async def test_a_group_choice_reaches_the_open_session(service: GameService) -> None:
    await open_lobby(service, user(1, "en"), user(2, "ja"))
    await service.handle(press(b.encode(b.LANGUAGE, "c", "th"), user(2, "ja")))
    session, _ = await service.sessions.load(GROUP)
    assert session is not None
    assert session.language == "th"
    assert [s.language for s in session.seats] == ["en", "ja"], "private messages unchanged"


async def test_an_unknown_command_in_a_private_chat_gets_the_help(service: GameService) -> None:
    """Bad input gets a clear answer: in a private chat, an unknown command shows the help."""
    reply = await service.handle(command("dance", who=user(1, "ja"), chat="private"))
    assert only(reply).text.startswith(intro("ja"))


async def test_an_unknown_command_in_a_group_is_left_to_other_bots(service: GameService) -> None:
    assert await service.handle(command("dance", who=user(1, "ja"))) == Reply()


# --- /rule: the best match, the game in the chat, the words players type (issue 23) ---------


def read_more(message: Message) -> tuple[str, str]:
    """(game, section) of a single answer's "Read more" button."""
    assert len(message.buttons) == 1 and len(message.buttons[0]) == 1, message
    press = b.decode(message.buttons[0][0].data or "")
    assert press is not None
    return press.fields[0], press.fields[1]


@pytest.mark.parametrize(
    ("query", "game", "section"),
    [
        ("ラウンド終了", "egonomy", "round_end"),  # EGO's "win" merely contains 終了
        ("การ์ดคำถาม", "ego", "turn"),  # not Egonomy's argument cards
        ("A", "ano", "specials"),  # not EGO's answer tokens
    ],
)
async def test_an_exact_name_of_one_game_wins_over_a_part_of_anothers(
    service: GameService, query: str, game: str, section: str
) -> None:
    found = only(await service.handle(command("rule", query)))
    assert "several games" not in found.text
    assert read_more(found) == (game, section)


@pytest.mark.parametrize(
    ("query", "term"),
    [
        ("กองจั่ว", "Draw pile"),
        ("山札", "Draw pile"),
        ("กองทิ้ง", "Discard pile"),
        ("กองกลาง", "Discard pile"),
        ("捨て札", "Discard pile"),
        ("ป๊อก", "Playing cards"),
        ("ไพ่ป๊อก", "Playing cards"),
        ("トランプ", "Playing cards"),
        ("ไพ่", "Playing cards"),  # not "ไพ่โจ๊กเกอร์", the joker
    ],
)
async def test_the_words_players_type_find_ano_terms(
    service: GameService, query: str, term: str
) -> None:
    th = translator("th")
    found = only(await service.handle(command("rule", query, user(1, "th"))))
    assert found.text.startswith(f"<b>{html.escape(th.gettext(term))}</b>\n"), found.text
    assert read_more(found)[0] == "ano"


async def test_the_game_being_played_in_the_chat_wins_next(service: GameService) -> None:
    """A word of several games ("turn": ตา, 手番) asks which game outside a game, and answers
    with the game open in the chat."""
    for query in ("ตา", "手番", "turn"):
        asked = only(await service.handle(command("rule", query)))
        assert "several games" in asked.text and len(asked.buttons) >= 2
    await service.handle(command("newgame", "ano"))
    for query in ("ตา", "手番", "turn"):
        found = only(await service.handle(command("rule", query)))
        assert read_more(found) == ("ano", "turn")
    found = only(await service.handle(command("rule", "เทิร์น")))
    assert read_more(found) == ("egonomy", "turn"), "an exact name of one game still wins"


async def test_no_exact_name_of_one_game_asks_which_game(service: GameService) -> None:
    """Issue 23: 45 exact terms of one game led to the several-games prompt. Every name of
    every entry, in every language: a name exact in one game alone answers at once."""
    games = registry()
    asked: list[str] = []
    for tr in i18n.translators():
        owners: dict[str, set[str]] = {}
        for bundle in games:
            for entry in bundle.rules.glossary:
                for name in rule_names(entry, tr):
                    owners.setdefault(normalise(name), set()).add(bundle.name)
        for key, where in owners.items():
            if len(where) > 1:
                continue
            found = only(await service.handle(command("rule", key)))
            if "several games" in found.text:
                asked.append(key)
    assert asked == []
