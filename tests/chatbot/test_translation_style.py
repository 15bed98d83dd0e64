"""Style defects a native reader trips over, caught in the catalogues and rendered texts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Message
from babel.messages.pofile import read_po

from chatbot.i18n import translator
from chatbot.present.egonomy import PRESENTER
from engine.egonomy import GAME
from engine.egonomy.position import position

LOCALES = Path(__file__).resolve().parents[2] / "locales"
THAI_LETTER = "[\u0e00-\u0e7f]"


def pairs(lang: str) -> list[tuple[str, str]]:
    """Every (msgid, msgstr) of the messages catalogue, plural forms one by one."""
    with (LOCALES / lang / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        catalog = read_po(fp, locale=lang)
    out: list[tuple[str, str]] = []
    for m in catalog:
        if not m.id:
            continue
        mid = m.id if isinstance(m.id, str) else m.id[-1]
        out += [(mid, s) for s in strings(m)]
    return out


def strings(m: Message) -> tuple[str, ...]:
    return (m.string,) if isinstance(m.string, str) else tuple(m.string)


def test_thai_placeholders_are_not_glued_to_thai_words() -> None:
    # "บน{table}ที่ว่าง" rendered "บนโต๊ะ 1ที่ว่าง": a name or number must be followed by a space.
    glued = [s for _, s in pairs("th") if re.search(r"\}" + THAI_LETTER, s)]
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
    peek = PRESENTER.peek(view, tr)
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
    files = [*(ROOT / "chatbot" / "present" / "ano").glob("*.py"), ROOT / "chatbot/rules/ano.py"]
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
    "th": "กติกาเสริม (ของบอทนี้):",
    "ja": "ハウスルール（このボット）：",
}


@pytest.mark.parametrize("lang", sorted(RULING_MARKS))
def test_every_games_rulings_carry_one_label(lang: str) -> None:
    """RULINGS.md: a ruling of this bot is marked as the bot's. The three games once marked them
    three ways in Thai (two in Japanese and English): one label now, whatever the game."""
    from chatbot.rules.ano import ANO_RULES
    from chatbot.rules.ego import EGO_RULES
    from chatbot.rules.egonomy import EGONOMY_RULES

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
