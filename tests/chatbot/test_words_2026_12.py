"""The native reader's review of December 2026 (docs/words.md lists every finding): one test per
kind of finding, over the catalogues and over what the terminal shows, so that none comes back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from chatbot.__main__ import main
from chatbot.console.play import play
from chatbot.i18n import translator
from chatbot.present.ano import PRESENTER as ANO
from chatbot.present.ego import PRESENTER as EGO
from chatbot.rule_help.ano import ANO_RULES
from chatbot.rule_help.ego import EGO_RULES
from engine.ano.events import GameEnded as AnoEnded
from engine.ego import GAME as EGO_GAME
from engine.ego.events import GameEnded as EgoEnded
from engine.ego.events import Guess, Revealed
from engine.ego.rules import Action as EgoAction

LOCALES = Path(__file__).resolve().parents[2] / "locales"
THAI = "[\u0e00-\u0e7f]"
NAMES = ["Ann", "Bob", "Cy"]


def catalogue(lang: str, domain: str = "messages") -> list[tuple[str | None, str, str]]:
    """(context, msgid, msgstr) of every entry, plural forms one by one."""
    with (LOCALES / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as fp:
        cat = read_po(fp, locale=lang)
    out = []
    for m in cat:
        if not m.id:
            continue
        mid = m.id if isinstance(m.id, str) else m.id[0]
        strings = (m.string,) if isinstance(m.string, str) else tuple(m.string)
        out += [(m.context, mid, s) for s in strings]
    return out


def texts(lang: str, domain: str = "messages") -> list[str]:
    return [s for _, _, s in catalogue(lang, domain)]


class Feed:
    """A terminal whose answers are worked out from what it has shown (`answer`)."""

    def __init__(self, answer, limit: int = 400) -> None:  # type: ignore[no-untyped-def]
        self.answer, self.limit, self.shown = answer, limit, []  # type: ignore[var-annotated]

    def ask(self, prompt: str) -> str:
        self.limit -= 1
        if self.limit < 0:
            raise EOFError
        return str(self.answer(self.shown))

    def show(self, text: str) -> None:
        self.shown.append(text)


# --- the words of the game (JA1, R2, TH0) -----------------------------------------------------


def test_ja_the_game_and_its_call_are_not_the_filler_anoo() -> None:
    """JA1: アノー reads as the filler あのー; the game is エーノー, its call 「エーノー！」."""
    ja = translator("ja")
    assert [s for s in texts("ja") if "アノー" in s] == []
    assert ja.gettext("Ano") == "エーノー" and ja.gettext("Ano!") == "エーノー！"
    assert "エーノー" in ja.t("{player}: “Ano!”", player="Ann")


def test_egos_screens_say_the_rules_word_for_the_tray() -> None:
    """R2: the screens say tray / ถาด / トレイ, as every rule section does; bank only as an
    alias to look the term up by."""
    wrong = {"en": r"\bbank\b", "th": "ธนาคาร", "ja": "銀行"}
    for lang, word in wrong.items():
        tr = translator(lang)
        state, _ = EGO_GAME.new_game(3, {"refusal_from_bank": True}, 4)
        table = EGO.table(EGO_GAME.view(state, None), NAMES, [], tr)
        rules = [tr.gettext(s.body) for s in EGO_RULES.sections]
        rules += [tr.gettext(s.ruling) for s in EGO_RULES.sections if s.ruling]
        shown = [table, EGO.option_label("refusal_from_bank", tr), *rules]
        assert [t for t in shown if re.search(word, t, re.I)] == [], lang
        tray = {"en": "Tray", "th": "ถาด", "ja": "トレイ"}[lang]
        assert tray in table and tray.lower() in tr.gettext(EGO_RULES.section("setup").body).lower()


def test_thai_name_lists_are_set_apart_with_commas() -> None:
    """TH0: names joined with spaces ran together ("คุณ 🤖 โมจิ" read as "Khun Mochi")."""
    th = translator("th")
    assert th.list(["คุณ", "🤖 โมจิ", "🤖 เปปเปอร์"]) == "คุณ, 🤖 โมจิ และ 🤖 เปปเปอร์"


# --- what a screen says (R1, R3, R4, R5, R6) ----------------------------------------------------


def test_egonomy_round_results_come_before_the_next_round_begins() -> None:
    """R1: in the terminal "Round 2 begins…" came before "Round 1 of 3 is over"."""
    shown: list[str] = []
    play("egonomy", players=3, seed=5, watch=True, ask=input, show=shown.append)
    text = "\n".join(shown)
    ends = [m.start() for m in re.finditer(r"Round (\d) of 3 is over", text)]
    begins = [m.start() for m in re.finditer(r"Round (\d) begins", text)]
    assert ends and begins
    for n, end in enumerate(ends, start=2):
        began = re.search(rf"Round {n} begins", text)
        if began is not None:
            assert end < began.start(), f"round {n - 1}'s results come first"


def test_no_medals_when_every_ego_player_is_broke() -> None:
    """R3: three 🥇 with "0 tokens" and then "Nobody wins"."""
    for lang in ("en", "th", "ja"):
        tr = translator(lang)
        text = EGO.announce(EgoEnded("all_broke", (0, 0, 0), 60, (0, 1, 2), (1, 1, 1)), NAMES, tr)
        assert text is not None and "🥇" not in text and tr.gettext("Nobody wins.") in text


def test_ano_points_in_hand_only_in_points_mode() -> None:
    """R4: "68 points left" shown for the loser of a normal game."""
    tr = translator("en")
    normal = ANO.announce(AnoEnded((0, 1), (1, 2), (0, 68)), NAMES, tr) or ""
    points = ANO.announce(AnoEnded((0, 1), (1, 2), (0, 68), True), NAMES, tr) or ""
    assert "68" not in normal and "68 points in hand" in points
    assert "left" not in points


def test_the_bet_legend_only_for_those_who_bet() -> None:
    """R5: the answering player has no bet buttons; the key to them is not shown to them."""
    tr = translator("en")
    answering = EGO.legend(tr, ["1️⃣", "2️⃣", "3️⃣", "🙅 Refuse (−2 tokens)"])
    guessing = EGO.legend(tr, ["1️⃣", "2 · bet 1", "🪙 bet 1"])
    assert "bet" not in answering and "bet" in guessing


def test_ano_says_its_direction_in_words() -> None:
    """R6: 🔃/🔄 were never explained."""
    from engine.ano import GAME as ANO_GAME

    state, _ = ANO_GAME.new_game(3, {}, 1)
    for lang, word in (("en", "clockwise"), ("th", "เข็มนาฬิกา"), ("ja", "時計回り")):
        table = ANO.table(ANO_GAME.view(state, None), NAMES, [], translator(lang))
        assert word in table, lang


# --- "You" (TH1 and the terminal's second person) -------------------------------------------

THIRD_PERSON = re.compile(
    r"\bYou (?:is|answers|wins|agrees|takes|draws|holds|gains|has|emptied their)\b"
)


def test_every_text_of_a_player_has_its_second_person_form() -> None:
    """ "You is to act", "You answers", "🏆 You wins!": each text whose {player} may be the
    reader has a "you" form in every language; in Thai คุณ is written with its sentence."""
    ids = {mid for ctx, mid, _ in catalogue("en") if ctx is None}
    subject = {m for m in ids if re.match(r"^(?:🏆 |🎉 |Turn \{turn\}: )?\{players?\} ", m)}
    subject -= {"🏆 {players} share the win!"}  # a plural verb already
    forms = {mid for ctx, mid, _ in catalogue("en") if ctx == "you"}
    assert subject and subject <= forms
    en = [s for ctx, _, s in catalogue("en") if ctx == "you"]
    assert [s for s in en if THIRD_PERSON.search(s.replace("{player}", "You"))] == []
    th = [s for ctx, _, s in catalogue("th") if ctx == "you"]
    # "ตาของ คุณ", "คุณ ลง…" looked like typos; a space stays where a new clause begins
    # ("เทิร์นของคุณ ได้โมเมนตัม…", "รอบที่ 2 เริ่มแล้ว คุณถือ…")
    glued = THAI + r"(?<!แล้ว) \{player\}|^\{player\} " + THAI
    assert [s for s in th if re.search(glued, s)] == []
    tr = translator("en")
    assert tr.t("Turn {turn}: {player} answers.", turn=1, player="You") == "Turn 1: You answer."
    assert tr.t("Turn {turn}: {player} answers.", turn=1, player="Ann") == "Turn 1: Ann answers."
    assert tr.t("🏆 {players} wins!", players="You") == "🏆 You win!"
    assert tr.t("{catcher} caught {player}!", catcher="Ann", player="You") == "Ann caught you!"
    assert tr.t("{catcher} caught {player}!", catcher="You", player="Ann") == "You caught Ann!"
    assert translator("th").t("{player} is to play.", player="คุณ") == "ตาของคุณ"


@pytest.mark.parametrize("game", ["ego", "ano", "egonomy"])
def test_no_english_line_says_you_with_a_third_person_verb(game: str) -> None:
    shown: list[str] = []
    feed = Feed(lambda _: "1", limit=150)
    play(game, players=3, seed=4, lang="en", ask=feed.ask, show=shown.append)
    text = "\n".join(shown)
    assert "You" in text and THIRD_PERSON.findall(text) == []


# --- the terminal ------------------------------------------------------------------------------


def test_ego_guess_then_the_bet_the_prompt_suggests_makes_the_pick() -> None:
    """The bet trap: after a guess alone the reply named "bet 1 or 2" and typing 2 changed the
    guess. Now the reply names the bet buttons and the choices are listed again; typing the
    number shown beside "🪙 bet 1" makes the pick: guess 2, bet 1."""
    state = {"guessed": False, "bet": False}

    def answer(shown: list[str]) -> str:
        replies = [i for i, t in enumerate(shown) if t.startswith("» ")]
        last = replies[-1] if replies else -1
        if state["guessed"] and not state["bet"] and "“🪙 bet 1”" in shown[last]:
            listed = [re.match(r"\s+(\d+)\. 🪙 bet 1$", t) for t in shown[last:]]
            state["bet"] = True
            return next(m.group(1) for m in listed if m)
        menu = [t for t in shown[last + 1 :] if re.match(r"\s+\d+\. ", t)]
        if not state["guessed"] and any("🪙 bet 1" in t for t in menu):
            state["guessed"] = True
            return "2"
        if state["bet"]:
            raise EOFError
        return "1"

    feed = Feed(answer, limit=40)
    play("ego", players=3, seed=7, lang="en", ask=feed.ask, show=feed.show)
    shown = feed.shown
    assert state["bet"], "a guess alone was typed, then the bet the reply named"
    assert "» You picked 2 🤫, stake 1" in shown
    assert any(re.search(r"You guessed 2, bet 1", t) for t in shown)


def test_the_egos_reply_to_a_completing_bet_says_the_whole_pick() -> None:
    """A bet that completes the pick and reveals the turn at once said "now pick 1, 2 or 3"."""
    tr = translator("en")
    state, _ = EGO_GAME.new_game(3, {}, 4)
    state, _ = EGO_GAME.apply(state, 0, EgoAction(3))
    state, _ = EGO_GAME.apply(state, 2, EgoAction(1, 1))
    state, _ = EGO_GAME.apply(state, 1, EgoAction(2))
    before = EGO_GAME.view(state, 1)
    done, _ = EGO_GAME.apply(state, 1, EgoAction(0, 2))  # the last pick: revealed at once
    assert done.turn != state.turn
    said = EGO.confirm(EGO_GAME.view(done, 1), EgoAction(0, 2), tr, before)
    assert said == "You picked 2 🤫, stake 2"


def test_a_finished_terminal_game_shows_its_key_and_record_that_verify_and_replay_take(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown: list[str] = []
    assert play("ano", players=3, seed=3, watch=True, ask=input, show=shown.append) == 0
    text = "\n".join(shown)
    check = re.search(r"python -m chatbot verify (\S+) (\S+)", text)
    replay = re.search(r"python -m chatbot replay (\S+)", text)
    assert "🔓" in text and check and replay
    assert main(["verify", check.group(1), check.group(2)]) == 0
    assert main(["replay", replay.group(1), "--pace", "0"]) == 0
    assert "wins!" in capsys.readouterr().out


def test_the_first_screen_prints_the_table_once() -> None:
    shown: list[str] = []
    feed = Feed(lambda _: "", limit=0)  # the first prompt gets Ctrl-D
    play("ego", players=3, seed=3, lang="en", ask=feed.ask, show=shown.append)
    assert sum("EGO · Turn 1 ·" in t for t in shown) == 1


# --- Thai wording (TH2–TH13) -------------------------------------------------------------------


def test_thai_wording() -> None:
    th = translator("th")
    strings = texts("th")
    # TH2: "ของในมือ" (the stuff in your hand) for cards
    assert [s for s in strings if re.search(r"(?<!ไพ่)(?<!การ์ด)ของในมือ", s)] == []
    assert th.gettext("🃏 My hand") == "🃏 ดูไพ่ในมือ"
    # TH3: Egonomy's hand is การ์ด
    assert th.gettext("Your hand").startswith("การ์ดในมือ")
    # TH4: an unticked option still read as a rule ("ไม่ตอบ = ธนาคาร −2")
    assert "=" not in th.gettext("Refusal takes 2 from the tray")
    # TH5: "เล่นผิดด้วย" / "played wrong" twice
    assert [s for s in strings if "เล่นผิดด้วย" in s] == []
    assert "เฟอะฟะ" in th.nt(
        "{player} draws {n} card for the fumble.",
        "{player} draws {n} cards for the fumble.",
        2,
        player="A",
    )
    # TH6: "ทายถูก 0 คน"
    zero = Revealed(0, "q001", 3, (Guess(1, 1, 1, -1),), 0, False, 31, (10, 9, 10))
    assert "ไม่มีใครทายถูก" in (EGO.narrate(zero, NAMES, th) or "")
    # TH7: "แจก" is to deal cards
    assert not th.gettext("Sharing out the bet tokens").startswith("แจก")
    # TH8: "กติกาเสริม" reads as an add-on rule: the bot's rulings say กติกาเฉพาะของบอทนี้
    assert [s for s in strings if "กติกาเสริม" in s] == []
    # TH11, TH12, TH13: one spelling of แชต, one form of "empty", no literal "press counted"
    assert [s for s in strings if "แชท" in s] == []
    assert [s for s in strings if "(ว่าง)" in s] == []
    assert th.gettext("That press was already counted.") == "กดไปแล้ว ไม่ต้องกดซ้ำ"


# Words a Thai colon may follow: labels ("ตัวอย่าง: …"), names, the game's action names.
THAI_LABELS = {
    "ตัวอย่าง", "อีกตัวอย่าง", "หมายเหตุ", "อ่านกติกา", "กติกาเฉพาะของบอทนี้", "เวลาต่อตา",
    "กองทิ้ง", "หลังโจ๊กเกอร์", "ไพ่โจ๊กเกอร์", "กฎเฟอะฟะ", "วัดกันด้วยพ้อย", "กรณีใช้สองสำรับ",
    "ถาดกลางวง", "โต๊ะว่าง", "หัวข้อ", "รอบแรก", "การ์ดในมือ", "จบรอบ", "รับโมเมนตัมได้สามทาง",
    "ๆ", "เดิมพัน", "คน", "ชนะการถกเถียง", "เสมอ", "ถกเถียง", "เพ้อเจ้อ", "รับฟัง", "ปล่อยวาง",
    "ตัดบท", "ล้มโต๊ะ", "โหมดเสริมที่เพิ่มแอ็คชันที่หก", "ผู้เล่น", "ข้ามตา", "ถาดเหรียญ",
}  # fmt: skip


def test_thai_puts_no_colon_after_a_whole_clause() -> None:
    """TH9: "ช้าไป: ไม่มีใครให้จับแล้ว"; Thai sets clauses apart with a space."""
    found = set()
    for s in texts("th"):
        for m in re.finditer(r"(?:^|(?<=[\s(]))([^\s(]*?" + THAI + "): (?=" + THAI + ")", s):
            word = m.group(1)
            if word not in THAI_LABELS and not re.fullmatch(r".*\{\w+\}", word):
                found.add(word)
    assert found == set()
    assert translator("th").gettext("Too late: there is nobody to catch.") == ("ช้าไปแล้ว ไม่มีใครให้จับ")


def test_ano_rules_say_what_the_rulebook_says_of_crazy_eights() -> None:
    """TH10 and the issue: the rulebook's suggestion for two players is in the rule help,
    with the bot's reason for not offering Crazy Eights."""
    section = ANO_RULES.section("components")
    for lang, word in (("en", "Crazy Eights"), ("th", "Crazy Eights"), ("ja", "クレイジーエイト")):
        tr = translator(lang)
        assert word in tr.gettext(section.body) and word in tr.gettext(section.ruling), lang


# --- Japanese wording (JA2–JA13) ---------------------------------------------------------------


def test_japanese_wording() -> None:
    ja = translator("ja")
    strings = texts("ja")
    assert [s for s in strings if "共感" in s] == []  # JA2
    assert [s for s in strings if " · " in s] == [] and ja.sep() == "・"  # JA3
    assert ja.t("Your ego ✦ {ego} · trophies 🏆 {trophies}", ego=0, trophies=0) == (
        "あなたのエゴ ✦0・トロフィー 🏆0"
    )  # JA4
    assert ja.sentences("+3 ✦", "詭弁！") == "+3 ✦\u3000詭弁！"  # JA5
    assert ja.sentences("終わりです。", "次へ") == "終わりです。次へ"
    assert ja.gettext("Chain") == ja.gettext("Chains") == "連鎖"  # JA6
    drew = ja.nt(
        "{player} drew {n} card at once.", "{player} drew {n} cards at once.", 2, player="A"
    )
    assert "連鎖" not in drew  # JA7
    assert "：" not in ja.gettext("⏳ Not your turn yet: the table in the group shows the game.")
    assert ja.gettext("Too late: there is nobody to catch.").count("もう") == 0  # JA9
    assert "配り" not in ja.gettext("The deal of {game}:")  # JA10
    assert ja.gettext("House rulings") == "このボットのハウスルール"  # JA11
    assert [s for s in strings if "～" in s] == []  # JA12
    assert ja.gettext("Discard pile") == "捨て札（場札）"  # JA13


def test_english_wording() -> None:
    en = translator("en")
    ids = {mid for _, mid, _ in catalogue("en")}
    assert [m for m in ids if "bet back twice" in m] == []  # EN1
    assert [m for m in ids if "drew the chain" in m] == []  # EN2
    assert [m for m in ids if "(Join (private chat))" in m] == []  # EN3
    assert [m for m in ids if "a catch of a player who called too" in m] == []  # EN4
    assert en.t("Turn {turn}: {player} answers.", turn=2, player="Bob") == "Turn 2: Bob answers."


# --- the EGO deck (D1–D8) ----------------------------------------------------------------------


def deck(lang: str) -> dict[str, list[str]]:
    """card -> [question, answer 1, answer 2, answer 3] in `lang`."""
    out: dict[str, list[str]] = {}
    for ctx, _, s in catalogue(lang, "ego_questions"):
        out.setdefault(ctx or "", []).append(s)
    return out


def test_the_deck_has_no_near_duplicates_and_the_answers_fit() -> None:
    th, ja, en = deck("th"), deck("ja"), deck("en")
    assert "ย้อน" not in th["q025"][0]  # D1: "travel back" with "the far future" as an answer
    assert "ใกล้หมดเกลี้ยง" not in th["q008"]  # D2
    assert "置いたところ" not in ja["q167"]  # D3
    # D4–D8: the second card of each near-duplicate pair asks something else now
    assert "Nothing, I save it all" not in en["q130"]  # D4 (q010: a windfall, save or spend)
    assert "Stay in bed a bit longer" not in en["q122"]  # D5 (q002: snooze)
    assert "Checking prices before buying?" not in en["q103"]  # D6 (q023: compare for days)
    assert "Stickers only" not in en["q101"]  # D7 (q032: sends stickers)
    assert "Sleeping late" not in en["q099"]  # D8 (q003: stay home and rest)
