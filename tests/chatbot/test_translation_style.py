"""Style defects a native reader trips over, caught in the catalogues and rendered texts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Message
from babel.messages.pofile import read_po

from chatbot.i18n import translator
from chatbot.present.egonomy import PRESENTER
from engine.ego import GAME as EGO_GAME
from engine.egonomy import GAME
from engine.egonomy.position import position

LOCALES = Path(__file__).resolve().parents[2] / "locales"
THAI_LETTER = "[\u0e00-\u0e7f]"


def pairs(lang: str, skip_context: str | None = None) -> list[tuple[str, str]]:
    """Every (msgid, msgstr) of the messages catalogue, plural forms one by one (but those
    in `skip_context`)."""
    with (LOCALES / lang / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale=lang)
    out: list[tuple[str, str]] = []
    for m in catalog:
        if not m.id or (skip_context is not None and m.context == skip_context):
            continue
        mid = m.id if isinstance(m.id, str) else m.id[-1]
        out += [(mid, s) for s in strings(m)]
    return out


def strings(m: Message) -> tuple[str, ...]:
    return (m.string,) if isinstance(m.string, str) else tuple(m.string)


def test_thai_placeholders_are_not_glued_to_thai_words() -> None:
    # "บน{table}ที่ว่าง" rendered "บนโต๊ะ 1ที่ว่าง": a name or number must be followed by a space.
    # Not in the second-person forms: there {player} is always คุณ, written as one with its
    # sentence ("ตาของคุณ", not "ตาของ คุณ").
    glued = [s for _, s in pairs("th", skip_context="you") if re.search(r"\}" + THAI_LETTER, s)]
    assert glued == []


def test_thai_rule_sections_are_not_called_topics() -> None:
    # หัวข้อ is the game's word for a topic; sections of the rules are ส่วน.
    wrong = [s for mid, s in pairs("th") if "section" in mid.lower() and "หัวข้อ" in s]
    assert wrong == []


def test_trophy_counts_take_a_counter_word() -> None:
    th = [s for _, s in pairs("th") if re.search(r"\d\s*ถ้วยรางวัล", s)]
    ja = [s for _, s in pairs("ja") if re.search(r"\dトロフィー", s)]
    assert th == [] and ja == []


def test_the_interface_never_says_lobby() -> None:
    th = [s for _, s in pairs("th") if "ล็อบบี้" in s]
    ja = [s for _, s in pairs("ja") if "ロビー" in s]
    assert th == [] and ja == []


def test_japanese_counts_use_full_width_parentheses() -> None:
    half = [s for _, s in pairs("ja") if re.search(r"\((\d|\{)", s)]
    assert half == []


@pytest.mark.parametrize("lang", ["ja", "th", "en"])
def test_the_rendered_hand_count_follows_the_language(lang: str) -> None:
    tr = translator(lang)
    state = position(3, hands=["C1 A9 B5 A1", "A5", "A6"])
    view = GAME.view(state, state.turn)
    text, _ = PRESENTER.hand(view, GAME.legal_actions(state, state.turn), "", ["A", "B", "C"], tr)
    peek = PRESENTER.peek(view, tr, 200)
    if lang == "ja":
        assert "（4）" in text and "（4）" in peek and "(4)" not in text + peek
    else:
        assert "(4)" in text and "(4)" in peek


def test_one_spelling_of_the_first_player_card() -> None:
    # Lookup-word lists may keep the other spelling as an alias next to the right one.
    ids = {mid for mid, _ in pairs("en")}
    other = [m for m in ids if re.search("first player card", m, re.I) and "first-player" not in m]
    assert other == [] and any("first-player card" in m for m in ids)


ROOT = LOCALES.parent
# Texts of the shared core that every game with private hands shows (its Thai names no card).
HAND_TEXTS = (
    "🃏 My hand",
    "Open a private chat with me first: your hand goes there.",
    "That button is outdated: here is your current hand.",
)


def ano_msgids() -> set[tuple[str | None, str]]:
    """(context, msgid) of every text in Ano's presenter and rule help."""
    from babel.messages.extract import extract

    keywords = {"t": None, "nt": (1, 2), "N_": None, "gettext": None, "ngettext": (1, 2)}
    keywords["pgettext"] = ((1, "c"), 2)
    files = [
        *(ROOT / "chatbot" / "present" / "ano").glob("*.py"),
        ROOT / "chatbot/rule_help/ano.py",
    ]
    out: set[tuple[str | None, str]] = set()
    for path in files:
        with path.open("rb") as fp:
            for _, msg, _, context in extract("python", fp, keywords):
                out.add((context, msg if isinstance(msg, str) else msg[0]))
    return out


def test_thai_ano_says_phai_for_playing_cards() -> None:
    # การ์ด is Egonomy's word; Thai players call playing cards ไพ่.
    with (LOCALES / "th" / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale="th")
    ids = ano_msgids() | {(None, mid) for mid in HAND_TEXTS}
    assert len(ids) > 100 and (("playing cards", "Your hand") in ids)
    found = [catalog.get(mid, context=ctx) for ctx, mid in sorted(ids, key=str)]
    assert None not in found
    wrong = [s for m in found if m is not None for s in strings(m) if "การ์ด" in s]
    assert wrong == []
    assert "ไพ่ในมือ" in translator("th").pgettext("playing cards", "Your hand")


def test_thai_ano_says_ta_for_a_turn() -> None:
    # เทิร์น is Egonomy's word for its turns; in a card game Thai players say ตา ("ถึงตาคุณ").
    with (LOCALES / "th" / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale="th")
    found = [catalog.get(mid, context=ctx) for ctx, mid in sorted(ano_msgids(), key=str)]
    wrong = [s for m in found if m is not None for s in strings(m) if "เทิร์น" in s]
    assert wrong == []
    assert "ตา" in translator("th").pgettext("playing cards", "Your turn!")


RULING_MARKS = {
    "en": "House ruling (this bot):",
    "th": "กติกาเฉพาะของบอทนี้:",
    "ja": "【このボットのハウスルール】",
}


@pytest.mark.parametrize("lang", sorted(RULING_MARKS))
def test_every_games_rulings_carry_one_label(lang: str) -> None:
    """RULINGS.md: a ruling of this bot is marked as the bot's. The three games once marked them
    three ways in Thai (two in Japanese and English): one label now, whatever the game."""
    from chatbot.rule_help.ano import ANO_RULES
    from chatbot.rule_help.ego import EGO_RULES
    from chatbot.rule_help.egonomy import EGONOMY_RULES

    tr = translator(lang)
    rulings = [
        tr.gettext(s.ruling)
        for book in (EGONOMY_RULES, EGO_RULES, ANO_RULES)
        for s in book.sections
        if s.ruling
    ]
    assert len(rulings) >= 15
    assert all(r.startswith(RULING_MARKS[lang]) for r in rulings), [r[:30] for r in rulings]


def test_thai_spells_bot_one_way() -> None:
    """ "Bot" is บอท throughout (บอต had crept into some texts)."""
    assert not [s for _, s in pairs("th") if "บอต" in s]


# --- issue 23: each kind of wording fix, so that it cannot come back ---------------------------


def msgids_of(*globs: str) -> set[tuple[str | None, str]]:
    """(context, msgid) of every text marked in the files matching the globs (under chatbot/)."""
    from babel.messages.extract import extract

    keywords: dict[str, object] = {"t": None, "nt": (1, 2), "N_": None, "gettext": None}
    keywords |= {"ngettext": (1, 2), "pgettext": ((1, "c"), 2), "P_": ((1, "c"), 2)}
    keywords |= {"NP_": ((1, "c"), 2, 3), "npgettext": ((1, "c"), 2, 3), "contextual": (2,)}
    out: set[tuple[str | None, str]] = set()
    for pattern in globs:
        paths = sorted((ROOT / "chatbot").glob(pattern))
        assert paths, f"no file matches chatbot/{pattern}"  # (a file moved: the test follows)
        for path in paths:
            with path.open("rb") as fp:
                for _, msg, _, context in extract("python", fp, keywords):  # type: ignore[arg-type]
                    out.add((context, msg if isinstance(msg, str) else msg[0]))
    return out


def translated(lang: str, ids: set[tuple[str | None, str]]) -> list[str]:
    """Every translation (each plural form) of the given (context, msgid)s."""
    with (LOCALES / lang / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale=lang)
    found = [catalog.get(mid, context=ctx) for ctx, mid in sorted(ids, key=str)]
    assert None not in found
    return [s for m in found if m is not None for s in strings(m)]


EGONOMY_FILES = ("present/egonomy/*.py", "rule_help/egonomy.py")


def test_thai_bot_calls_itself_bot() -> None:
    """The bot is บอท in every text; it never says ผม ("I", a man speaking)."""
    assert [s for _, s in pairs("th") if "ผม" in s] == []


def test_thai_egonomy_says_turn_its_own_way_in_shared_texts() -> None:
    """Egonomy's Thai says เทิร์น; the shared texts that name a turn (reminders, the waiting
    line) have an Egonomy context that says so, while Ano and EGO keep ตา."""
    from chatbot.present.egonomy import TURN_CONTEXT

    shared = {mid for ctx, mid in msgids_of("core/*.py") if ctx is None and "turn" in mid}
    egonomy = {mid for ctx, mid in msgids_of(*EGONOMY_FILES) if ctx == TURN_CONTEXT}
    assert len(shared) >= 4 and shared <= egonomy
    thai = translated("th", {(TURN_CONTEXT, mid) for mid in egonomy})
    assert all("เทิร์น" in s and "ถึงตา" not in s for s in thai), thai
    shared_thai = translated("th", {(None, mid) for mid in shared})
    assert all("ตา" in s and "เทิร์น" not in s for s in shared_thai), shared_thai
    th = translator("th")
    n, text = 30, "⏰ It is your turn! If you do not move in {n} second, a computer player"
    reminder = (
        text + " will move for you.",
        text.replace("second", "seconds") + " will move for you.",
    )
    assert "เทิร์น" in th.npgettext(TURN_CONTEXT, *reminder, n)
    assert "ถึงตา" in th.npgettext(None, *reminder, n)


def test_thai_a_game_session_is_wong_and_only_topic_tables_are_to() -> None:
    """โต๊ะ is Egonomy's topic table; the game session (opened, joined, left, its options) is
    วง, as Thai players say ตั้งวง."""
    others = msgids_of("core/*.py", "present/ano/*.py", "present/ego/*.py", "rule_help/ano.py")
    others |= msgids_of("rule_help/ego.py", "console/*.py", "*.py")
    assert [s for s in translated("th", others) if "โต๊ะ" in s] == []
    session = re.compile("เปิดโต๊ะ|เจ้าของโต๊ะ|โต๊ะในกลุ่ม|ตัวเลือกของโต๊ะ|ร่วมโต๊ะ|ลุกจากโต๊ะ|โต๊ะเต็ม")
    assert [s for _, s in pairs("th") if session.search(s)] == []


def test_thai_lists_set_the_last_and_apart() -> None:
    th = translator("th")
    assert th.list(["🤖 โสกราตีส", "🃏 ส้ม"]) == "🤖 โสกราตีส และ 🃏 ส้ม"
    assert th.list(["A", "B", "🤖 C"]) == "A, B และ 🤖 C"
    assert [s for _, s in pairs("th") if re.search(r"และ\{|\}และ", s)] == []


def test_thai_unnatural_phrases_stay_gone() -> None:
    gone = (
        "รอบนี้ไม่มีใครทาย",  # a turn of EGO is ตา
        "รายการถูกยกเลิก",
        "ไม่ใช่การเล่นในเกมนี้",
        "สิ่งที่อยู่ในมือ",
        "บอทจะแจกให้",
        "ในมือฉัน",
    )
    assert [s for _, s in pairs("th") if any(g in s for g in gone)] == []


def test_thai_ano_rule_help_has_no_stray_spaces_or_doubled_words() -> None:
    """The web page's text had spaces inside phrases and glued numbers ("ใช้เป็น กองจั่ว",
    "3+2+4=9ใบ", "และK = 50 พ้อย") and a doubled ลำดับลำดับ."""
    thai = translated("th", msgids_of("rule_help/ano.py"))
    stray = ("ใช้เป็น กองจั่ว", "ลงไพ่ จากในมือ", "เลือก ดอกไพ่ ที่", "ผู้เล่น ที่ลืมพูด", "ไพ่ที่ เหมือน")
    assert [s for s in thai if any(x in s for x in stray)] == []
    glued = re.compile(r"\d" + THAI_LETTER + r"|" + THAI_LETTER + r"[A-Z]|[A-Z],[A-Z]|\S\(")
    assert [s for s in thai if glued.search(s)] == []
    doubled = [w + w for w in ("ลำดับ", "ไพ่", "การ์ด", "เหรียญ", "กติกา", "รอบ", "โต๊ะ")]
    assert [s for _, s in pairs("th") if any(d in s for d in doubled)] == []


def test_ano_headings_are_the_thai_rulebooks() -> None:
    """The Thai Ano rulebook's headings are อุปกรณ์ and วิธีการเล่น (seed 004)."""
    from chatbot.rule_help.ano import ANO_RULES

    th = translator("th")
    titles = {s.key: th.gettext(s.title) for s in ANO_RULES.sections}
    assert titles["components"] == "อุปกรณ์" and titles["setup"] == "วิธีการเล่น"


def test_egonomy_round_end_rules_say_each_thing_once() -> None:
    from chatbot.rule_help.egonomy import EGONOMY_RULES, RULING_NOTES

    flip = next(s for s in EGONOMY_RULES.sections if s.key == "flip_mode")
    th, ja = translator("th"), translator("ja")
    assert th.gettext(flip.body).count("จบรอบ") == 1  # once in the lead-in, once in the rule
    assert ja.gettext(flip.body).count("ラウンド終了") == 2
    assert th.gettext(RULING_NOTES["round_end"]).count("แอ็คชัน") == 1


JAPANESE = "[\u3040-\u30ff\u4e00-\u9fff]"


def test_japanese_sets_no_space_between_a_name_and_japanese() -> None:
    """ "{player} の手番です。" read as a gap: a placeholder touches the Japanese around it."""
    spaced = re.compile(r"\} " + JAPANESE + "|" + JAPANESE + r" \{")
    assert [s for _, s in pairs("ja") if spaced.search(s)] == []
    games = re.compile(r"\b(Egonomy|EGO|Ano) [\u3040-\u309f]")  # a game's name and a particle
    assert [s for _, s in pairs("ja") if games.search(s)] == []


def test_japanese_punctuation_is_full_width_where_presenters_join_texts() -> None:
    """Colons and counts the presenters once wrote in ASCII go through the catalogue."""
    from chatbot.present.ano import PRESENTER as ANO
    from chatbot.present.ego import PRESENTER as EGO
    from chatbot.present.ego import standings
    from engine.ano import GAME as ANO_GAME
    from tests.engine.ano.helpers import position as ano_position

    ja = translator("ja")
    state = ano_position(["3H 9D 4S", "2C", "9C 4S"], top="3S")
    hand, _ = ANO.hand(ANO_GAME.view(state, 0), [], "", ["A", "B", "C"], ja)
    assert "（3）：" in hand and "(3)" not in hand
    assert standings([3, 5], ["A", "B"], ja) == ["🥇 B：🪙 5", "🥈 A：🪙 3"]
    ego_state, _ = EGO_GAME.new_game(3, {}, 1)
    table = EGO.table(EGO_GAME.view(ego_state, None), ["A", "B", "C"], [], ja)
    assert "B：🪙 10" in table and ": 🪙" not in table
    assert [s for _, s in pairs("ja") if re.search(JAPANESE + r": |\}: ", s)] == []


def test_japanese_sentences_run_on_without_a_space() -> None:
    ja, en = translator("ja"), translator("en")
    assert (
        ja.sentences("パスしました。", "予想2件は取り消し。") == "パスしました。予想2件は取り消し。"
    )
    assert en.sentences("A.", "B.") == "A. B."
    assert [s for _, s in pairs("ja") if "。 " in s or "！ " in s] == []


def test_ego_japanese_rule_help_says_turn_as_the_game_does() -> None:
    """EGO's texts call a turn ターン; its rule help never switches to ラウンド."""
    assert [s for s in translated("ja", msgids_of("rule_help/ego.py")) if "ラウンド" in s] == []


def test_japanese_names_go_without_san() -> None:
    """さん on one name and not another (or only on a list's last name) reads oddly; the
    terminal player is あなた: no name takes さん."""
    names = r"\{(player|players|name|names|catcher)\}さん"
    assert [s for _, s in pairs("ja") if re.search(names, s)] == []


def test_japanese_says_empty_one_way() -> None:
    assert [s for _, s in pairs("ja") if "（空）" in s] == []
    assert translator("ja").gettext("(empty)") == "なし"


def test_one_minus_sign_everywhere() -> None:
    """U+2212 in every text and every number the bot writes, never the hyphen."""
    for lang in ("en", "th", "ja"):
        assert [s for _, s in pairs(lang) if re.search(r"(^|[\s(（])-[\d{]", s)] == []
        assert translator(lang).number(-3) == "−3"


PLURAL_NOUNS = re.compile(r"\{\w+\} (tokens?|cards?|points?|seconds?|trophies|trophy|guess(es)?)\b")


def test_counts_of_things_are_plural_messages() -> None:
    """ "you have 1 tokens": a count next to its noun goes through ngettext."""
    with (LOCALES / "en" / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale="en")
    singular = [m.id for m in catalog if isinstance(m.id, str) and PLURAL_NOUNS.search(m.id)]
    assert singular == []
    ego = translator("en")
    from chatbot.present.ego import PRESENTER as EGO

    text, _ = EGO.explain("stake_too_high", {"stake": 2, "tokens": 1}, ego)
    assert text == "You cannot bet 2: you have 1 token."


def test_the_terminal_player_is_you() -> None:
    assert translator("th").gettext("You") == "คุณ" and translator("ja").gettext("You") == "あなた"
    assert not [m for m, _ in pairs("en") if m == "Human"]


def test_the_waiting_line_follows_what_the_platform_can_do() -> None:
    """Where an unasked message costs (LINE), choices come only with the answer to the player's
    own press: the hand must not promise that they come by themselves."""
    from chatbot.core.model import Capabilities
    from chatbot.core.views import waiting
    from chatbot.games import registry

    for bundle in registry():
        for lang in ("en", "th", "ja"):
            tr = translator(lang)
            free = waiting(bundle, Capabilities(), tr)
            asked = waiting(bundle, Capabilities(unasked_free=False), tr)
            mark = tr.gettext("🃏 My hand")
            assert mark not in free and mark in asked, (bundle.name, lang)
    assert "come here" not in waiting(registry().default, Capabilities(unasked_free=False), EN)


EN = translator("en")


def test_egonomy_one_press_prompts_match_their_buttons() -> None:
    """Buttons that are whole moves (cards and table) get a prompt that asks for both; Listen
    takes a card from the table, so its arrow points from the table."""
    import random

    from chatbot.present.egonomy.choices import choices

    rng, whole = random.Random(23), 0
    for i in range(150):
        state, _ = GAME.new_game(3 + i % 2, {"flip": bool(i % 2)}, seed=rng.randrange(10**6))
        for _ in range(rng.randrange(40)):
            legal = GAME.legal_actions(state, state.turn)
            nxt, _ = GAME.apply(state, state.turn, rng.choice(legal))
            if nxt.over:
                break
            state = nxt
        view, legal = GAME.view(state, state.turn), GAME.legal_actions(state, state.turn)
        for path in ("b", "a", "l"):  # the top level's buttons name the action asked for
            shown, prompt, rows = choices(view, legal, path, EN)
            labels = [o.label for row in rows for o in row if o.act]
            if shown != path or not any("Table" in label for label in labels):
                continue
            whole += 1
            assert "table" in prompt.lower(), (prompt, labels)
            listen = [label for label in labels if label.startswith("Listen")]
            assert all("←" in label and "→" not in label for label in listen), listen
    assert whole > 20


def test_results_name_a_winner_or_say_nobody_won() -> None:
    """Ano's results end with the winner; EGO with everyone broke says nobody won."""
    from chatbot.present.ano import PRESENTER as ANO
    from chatbot.present.ego import PRESENTER as EGO
    from engine.ano.events import GameEnded as AnoEnded
    from engine.ego.events import GameEnded as EgoEnded

    names = ["Ann", "Bob", "Cid"]
    ano = ANO.announce(AnoEnded((1, 0, 2), (1, 2, 3), (0, 5, 9)), names, EN) or ""
    assert ano.endswith("🏆 Bob wins!")
    broke = EGO.announce(EgoEnded("all_broke", (0, 0, 0), 12, (0, 1, 2), (1, 1, 1)), names, EN)
    assert broke is not None and broke.endswith("Nobody wins.") and "share" not in broke
    shared = EGO.announce(EgoEnded("bank_empty", (4, 4, 1), 0, (0, 1, 2), (1, 1, 3)), names, EN)
    assert shared is not None and shared.endswith("🏆 Ann and Bob share the win!")
