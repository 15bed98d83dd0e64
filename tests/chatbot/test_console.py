"""The terminal adapter (chatbot/console/play.py): a whole game against computer players.

"python -m chatbot console": the player's hand and numbered choices are shown, a number plays
it, and the game runs to its end.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chatbot.__main__ import build_parser, console_choices, main
from chatbot.console.play import (
    EMPTY_ANSWER,
    EMPTY_ONE,
    NOT_A_CHOICE,
    NOT_THE_CHOICE,
    PLAY_ON,
    Console,
    choice_number,
    plain,
    play,
    wrong_answer,
)
from chatbot.core.registry import Registry
from chatbot.games import registry
from chatbot.i18n import available_locales, translator
from tests.games import pick, slap

REPO = Path(__file__).resolve().parents[2]
LANGS = available_locales()
WITH_TEST_GAMES = Registry([*registry(), pick.bundle(), slap.bundle()])


async def test_the_player_is_asked_for_choices_and_the_game_ends() -> None:
    shown: list[str] = []
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return "1"

    console = Console(ask=ask, show=shown.append, lang="en", seed=7)
    await console.setup("egonomy", players=3)
    for _ in range(2000):
        if not await console.play():
            break
    else:
        raise AssertionError("the game never ended")
    assert asked, "the player was asked for a choice"
    assert any(line.strip().startswith("1. ") for line in shown), "choices are numbered"
    assert any("Game over!" in line for line in shown)


# --- fed input ---------------------------------------------------------------------------


class Feed:
    """The terminal: answers typed in order (then Ctrl-D), and every line shown."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.log: list[tuple[str, str]] = []  # ("ask", prompt) or ("show", text)

    def ask(self, prompt: str) -> str:
        self.log.append(("ask", prompt))
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)

    def show(self, text: str) -> None:
        self.log.append(("show", text))

    @property
    def shown(self) -> list[str]:
        return [text for kind, text in self.log if kind == "show"]


def run(feed: Feed, game: str = "egonomy", games: Registry | None = None, **kw: Any) -> int:
    kw.setdefault("players", 3)
    kw.setdefault("seed", 7)
    return play(game, games=games, ask=feed.ask, show=feed.show, **kw)


@pytest.mark.parametrize("answer", ["²", "①", "٣", "0", "00", "99", "-1", "1.0", "one", "1" * 5000])
def test_only_digits_in_range_name_a_choice(answer: str) -> None:
    assert choice_number(answer, 5) is None
    assert choice_number("5", 5) == 5


@pytest.mark.parametrize(("answer", "number"), [("３", 3), ("๓", 3), ("０２", 2), ("๑๐", 10)])
def test_full_width_and_thai_digits_name_a_choice(answer: str, number: int) -> None:
    """Issue 23: a Japanese keyboard types ３, a Thai one ๓: both are the choice's number."""
    assert choice_number(answer, 10) == number


def test_a_line_of_thousands_of_digits_is_answered_and_the_game_goes_on() -> None:
    """Issue 23: 4,300+ digits ended the game with Python's message; now a clear answer, cut
    short, and the prompt again."""
    feed = Feed("7" * 5000, "")
    assert run(feed) == 0
    wrong = [t for t in feed.shown if t.startswith("“777")]
    assert len(wrong) == 1 and "…" in wrong[0] and len(wrong[0]) < 200
    assert feed.shown[-1] == translator("en").gettext("Game ended.")


@pytest.mark.parametrize("lang", LANGS)
def test_one_choice_is_asked_for_as_one(lang: str) -> None:
    """Issue 23: "type a number from 1 to 1" reads wrong: one choice says "type 1"."""
    tr = translator(lang)
    assert wrong_answer(tr, "x", 1) == tr.t(NOT_THE_CHOICE, answer="x")
    assert wrong_answer(tr, "", 1) == tr.gettext(EMPTY_ONE)
    assert wrong_answer(tr, "x", 3) == tr.t(NOT_A_CHOICE, answer="x", last=tr.number(3))


@pytest.mark.parametrize("lang", LANGS)
def test_bad_input_is_answered_in_the_language_then_only_the_prompt(lang: str) -> None:
    feed = Feed("²", "①", "", "9")
    assert run(feed, lang=lang) == 0
    tr = translator(lang)
    asks = [i for i, (kind, _) in enumerate(feed.log) if kind == "ask"]
    assert len(asks) == 5  # four bad answers, then Ctrl-D at the fifth prompt
    last = int(feed.log[asks[0] - 1][1].split(".")[0])  # the last numbered choice shown
    for at, typed in zip(asks[:4], ("²", "①", "", "9"), strict=True):
        between = feed.log[at + 1 : asks[asks.index(at) + 1]]
        wrong = NOT_A_CHOICE if typed else EMPTY_ANSWER
        expected = tr.t(wrong, answer=typed, last=tr.number(last))
        assert between == [("show", expected)], between  # the reason, then the prompt only
    assert feed.shown[-1] == tr.gettext("Game ended.")


@pytest.mark.parametrize("word", ["help", "?", "rules", "HELP"])
@pytest.mark.parametrize("lang", LANGS)
def test_help_at_the_prompt_shows_the_rule_sections_and_glossary(word: str, lang: str) -> None:
    book = registry()["egonomy"].rules
    glossary = str(len(book.sections) + 1)
    feed = Feed(word, "1", "x", glossary, "")
    run(feed, lang=lang)
    tr = translator(lang)
    text = "\n".join(feed.shown)
    assert all(tr.gettext(s.title) in text for s in book.sections)
    first = book.sections[0]
    assert tr.gettext(first.body) in text  # the same text as /rules shows
    assert all(tr.gettext(e.term) in text and tr.gettext(e.text) in text for e in book.glossary)
    bad = tr.t(NOT_A_CHOICE, answer="x", last=tr.number(len(book.sections) + 1))
    assert bad in feed.shown
    prompts = [p for kind, p in feed.log if kind == "ask"]
    assert prompts.count(tr.gettext("Section number (Enter: back to the game)> ")) == 4
    assert prompts[-1] == "> "  # back in the game, asked for a choice again


def test_tables_are_not_printed_twice() -> None:
    """Over a whole game, no screen part is printed twice in a row, and each state of the
    table is printed once."""
    feed = Feed(*["1"] * 3000)
    run(feed, seed=11)
    blocks = [text for text in feed.shown if text.startswith("\n")]
    assert any("Game over!" in block for block in blocks)
    assert all(a != b for a, b in itertools.pairwise(blocks))
    tables = [block for block in blocks if "Table 1" in block and "Your hand" not in block]
    assert tables and len(tables) == len(set(tables))


def test_the_options_in_force_are_shown_at_the_top() -> None:
    feed = Feed()
    run(feed, options={"flip": True})
    tr = translator("en")
    head, lock = feed.shown[0].rsplit("\n", 1)
    assert lock.startswith("🔒 ")  # the deal's lock, below the options
    assert (
        head
        == "\n"
        + plain(
            tr.t(
                "🎲 {game} begins! Players: {players}",
                game="Egonomy",
                players="You, 🤖 Socrates, and 🤖 Hypatia",
            )
        )
        + "\n✅ Flip-table mode · ⬜ Strict topics"
    )
    assert not any("Options changed" in text for text in feed.shown)  # the lobby's steps


@pytest.mark.parametrize("name", WITH_TEST_GAMES.names)
def test_every_registered_game_can_be_played_to_its_end(name: str) -> None:
    # seeded random numbers: a fixed cycle such as "4", "1" can go round a menu and its "Back"
    # for ever; "1" alone never stakes a bet in EGO
    pick_one = random.Random(name).choice
    feed = Feed(*[pick_one("1234") for _ in range(3000)])
    spec = WITH_TEST_GAMES[name].game.spec
    assert run(feed, name, games=WITH_TEST_GAMES, players=spec.min_players) == 0
    assert feed.answers, "the game ended before the answers ran out"
    assert any(kind == "ask" for kind, _ in feed.log)


def test_an_unknown_game_or_player_count_says_what_exists() -> None:
    feed = Feed()
    assert run(feed, "chess", games=WITH_TEST_GAMES) == 2
    assert feed.shown == [f"unknown game 'chess': the games are {', '.join(WITH_TEST_GAMES.names)}"]
    feed = Feed()
    assert run(feed, players=5) == 2
    assert feed.shown == ["egonomy takes 2 to 4 players"]


def test_ctrl_c_ends_the_game_at_once() -> None:
    """A real terminal game waiting at its prompt: one SIGINT ends it, with no traceback and
    with the status a shell gives a command ended by Ctrl-C (130, 128 + SIGINT)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TELEGRAM_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatbot", "console", "--seed", "3"],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 30
    while not seen.endswith(b"> ") and time.monotonic() < deadline:
        seen += os.read(proc.stdout.fileno(), 4096)
    assert seen.endswith(b"> "), seen
    time.sleep(0.5)  # as a person would: the prompt is written just before input() waits
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=10)  # stdin stays open: no end of input comes to help
    finally:
        proc.kill()
    out = seen + proc.stdout.read()
    err = proc.stderr.read() if proc.stderr else b""
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    assert out.decode().strip().endswith("Game ended.")


# --- the command line ----------------------------------------------------------------------


def test_option_flags_come_from_the_games_options(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(registry())
    with pytest.raises(SystemExit):
        parser.parse_args(["console", "--help"])
    text = capsys.readouterr().out
    assert "--flip" in text and "--strict-topics" in text and "default" in text
    games = Registry([*registry(), pick.bundle()])
    parser = build_parser(games)
    args = parser.parse_args(["console", "pick", "--flip"])
    with pytest.raises(SystemExit):
        console_choices(parser, games, args)
    assert "pick has no such option" in capsys.readouterr().err
    args = parser.parse_args(["console", "--flip", "--players", "4"])
    assert console_choices(parser, games, args) == (4, {"flip": True})


@pytest.mark.parametrize("players", ["0", "1", "5"])
def test_a_player_count_outside_the_range_is_refused(
    players: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["console", "--players", players])
    assert ended.value.code == 2
    assert "egonomy takes 2 to 4 players" in capsys.readouterr().err


def test_an_unknown_game_on_the_command_line_lists_the_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["console", "chess"])
    err = capsys.readouterr().err
    assert "invalid choice: 'chess'" in err and "egonomy" in err


@pytest.mark.parametrize(("lang", "word"), [("th", "กติกา"), ("ja", "ルール"), ("ja", "ヘルプ")])
def test_the_rules_open_with_the_languages_own_word(lang: str, word: str) -> None:
    feed = Feed(word, "")
    run(feed, lang=lang)
    prompt = translator(lang).gettext("Section number (Enter: back to the game)> ")
    assert ("ask", prompt) in feed.log


def test_watching_shows_every_move() -> None:
    feed = Feed()
    assert run(feed, watch=True, seed=5) == 0
    tables = [t for t in feed.shown if "Table 1" in t and "is to act" in t]
    assert len(tables) > 20, "a table for each computer move, not only round results"
    assert any("Game over!" in text for text in feed.shown)
    assert not any(kind == "ask" for kind, _ in feed.log)


def test_fast_and_pace_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(registry())
    assert parser.parse_args(["console", "--watch", "--fast"]).fast
    with pytest.raises(SystemExit):
        parser.parse_args(["console", "--help"])
    assert "--fast" in capsys.readouterr().out


def test_the_group_table_offers_only_your_own_moves() -> None:
    """EGO's table carries everyone's buttons; the terminal lists only the ones you may press:
    answering first (the opener starts), then guessing and betting."""
    feed = Feed(*["4", "1"] * 200)
    run(feed, "ego", games=WITH_TEST_GAMES, players=2)
    menus: list[list[str]] = [[]]
    for kind, text in feed.log:
        if kind == "ask":
            menus.append([])
        elif text.startswith("  "):
            menus[-1].append(text)
    answering, guessing = menus[0], next(m for m in menus[1:] if any("bet" in o for o in m))
    assert any("Refuse" in o for o in answering) and not any("bet" in o for o in answering)
    assert not any("Refuse" in o for o in guessing)


# --- out-of-turn moves, every event, the command line (issue 23) -----------------------------


def menus(feed: Feed) -> list[list[str]]:
    """The numbered choices shown before each prompt."""
    out: list[list[str]] = [[]]
    for kind, text in feed.log:
        if kind == "ask":
            out.append([])
        else:
            out[-1] += [line.strip() for line in text.splitlines() if line.startswith("  ")]
    return out


async def played(console: Console, feed: Feed, game: str, players: int, **options: Any) -> None:
    await console.setup(game, players, options)
    for _ in range(3000):
        if not await console.play():
            return
    raise AssertionError("the game never ended")


async def test_ano_the_call_is_offered_after_your_own_play_before_the_computers() -> None:
    """Issue 23: "the computers move at once after your play, so the call window is zero".
    Ruling (Ano, calling): the call is possible until the next player acts; so the terminal
    offers "Ano!" after your play, before any computer acts, and the call is made."""
    feed = Feed(*["1"] * 3000)
    console = Console(ask=feed.ask, show=feed.show, lang="en", seed=5)
    await played(console, feed, "ano", 3)
    play_on = translator("en").gettext(PLAY_ON)
    offered = [m for m in menus(feed) if m[:1] == ["1. 📣 Ano!"]]
    assert offered and all(m[-1].endswith(play_on) for m in offered)
    text = "\n".join(feed.shown)
    me = console.me.name
    assert text.count(f"• {me}: “Ano!”") == len(offered), "each call offered was made"
    assert f"caught {me}!" not in text


async def test_a_jump_in_is_offered_out_of_turn_when_it_opens() -> None:
    """ "การแทรกไพ่ ... แม้จะไม่ใช่ตาของตัวเอง" (jump-in, even when it is not your turn): with
    two decks and jump-in the terminal offers the identical card when it comes up, with a way
    to let the others play on."""
    feed = Feed(*["1"] * 3000)
    console = Console(ask=feed.ask, show=feed.show, lang="en", seed=2)
    await played(console, feed, "ano", 4, decks=2, jump_in=True)
    play_on = "2. " + translator("en").gettext(PLAY_ON)
    jumps = [m for m in menus(feed) if m[-1:] == [play_on] and "Ano!" not in m[0]]
    assert jumps, "an identical card was offered out of turn"
    assert f"• {console.me.name} jumped in with" in "\n".join(feed.shown)


COUNT = re.compile(r"^(?:▶️ )?(.+?): (\d+) cards?$")
DREW = re.compile(r"^(.+?) (?:drew|draws|drew the chain:) (\d+) cards?\b")
PLAYED = re.compile(r"^(.+?) (?:played|jumped in with) (.+)\.$")


def test_ano_every_event_is_printed_in_a_four_player_game() -> None:
    """Issue 23: the table showed the last few events only, so a third of them were never
    seen. Now every event is printed: each player's cards on every table printed are the 5
    dealt plus every draw printed, less every card printed as played."""
    feed = Feed(*["1"] * 3000)
    assert run(feed, "ano", players=4, seed=3) == 0
    delta: dict[str, int] = {}
    checked = 0
    due: dict[str, int] | None = None

    def check(counts: dict[str, int]) -> None:
        nonlocal checked
        assert counts == {name: 5 + delta.get(name, 0) for name in counts}, counts
        checked += 1

    for text in feed.shown:
        lines = text.strip("\n").splitlines()
        if lines and lines[0].startswith("• "):
            for line in (line[2:] for line in lines):
                if m := DREW.match(line):
                    delta[m[1]] = delta.get(m[1], 0) + int(m[2])
                elif m := PLAYED.match(line):
                    tokens = m[2].split()
                    cards = len(tokens) - 2 * tokens.count("→")
                    delta[m[1]] = delta.get(m[1], 0) - cards
        if due is not None:
            check(due)
            due = None
        if any(line.startswith("Draw pile:") for line in lines):
            due = {m[1]: int(m[2]) for line in lines if (m := COUNT.match(line))}
    assert checked > 20


def test_ego_shows_a_key_to_its_eleven_choices() -> None:
    """Issue 23: EGO's eleven choices need a one-line legend."""
    feed = Feed("4", "1", "")
    run(feed, "ego", players=3)
    legend = registry()["ego"].presenter.legend(translator("en"))
    eleven = next(m for m in menus(feed) if len(m) == 11)
    under = [feed.shown[i - 1].strip() for i, t in enumerate(feed.shown) if t == legend]
    assert eleven[-1] in under, "right under the eleven choices"


@pytest.mark.parametrize(
    ("flag", "help_text"), [("--jokers", "default: on"), ("--flip", "default: off")]
)
def test_each_option_says_its_own_default_and_can_be_turned_off(
    flag: str, help_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23: "--jokers says default: off while Ano starts with jokers on and cannot turn
    them off"."""
    parser = build_parser(registry())
    with pytest.raises(SystemExit):
        parser.parse_args(["console", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    name = flag[2:]
    assert f"--{name}, --no-{name}" in text
    assert re.search(rf"--no-{name} .*?; {help_text}", text)
    args = parser.parse_args(["console", "ano", "--no-jokers"])
    assert console_choices(parser, registry(), args) == (3, {"jokers": False})


def test_jump_in_with_one_deck_is_refused_with_the_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The ruling of 2026-12: jump-in only with two decks; the reason in the player's
    language."""
    for lang in ("en", "th"):
        with pytest.raises(SystemExit) as ended:
            main(["console", "ano", "--jump-in", "--lang", lang])
        assert ended.value.code == 2
        tr = translator(lang)
        err = capsys.readouterr().err
        assert (
            tr.t(
                "{option} is played only with {needed}.",
                option=tr.gettext("Jump-in"),
                needed=tr.gettext("Decks") + ": 2",
            )
            in err
        )
    parser = build_parser(registry())
    args = parser.parse_args(["console", "ano", "--jump-in", "--decks", "2"])
    assert console_choices(parser, registry(), args) == (3, {"jump_in": True, "decks": 2})


def test_a_language_without_a_catalogue_is_named_with_those_there_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23: `--lang fr` silently played English."""
    with pytest.raises(SystemExit) as ended:
        main(["console", "--lang", "fr"])
    assert ended.value.code == 2
    assert f"--lang fr: not available; the languages are {', '.join(LANGS)}" in (
        capsys.readouterr().err
    )
    parser = build_parser(registry())
    assert parser.parse_args(["console", "--lang", "th-TH"]).lang == "th-TH"


def test_egobot_help_names_egobot(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: `egobot --help` printed "usage: python -m chatbot"."""
    script = Path(sys.executable).parent / "egobot"
    done = subprocess.run([script, "--help"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("usage: egobot ")
    done = subprocess.run(
        [sys.executable, "-m", "chatbot", "--help"], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("usage: python -m chatbot ")


def test_ego_every_turns_reveal_is_printed() -> None:
    """Every event, EGO's too: each turn's reveal (the finished turn's table, edited into its
    results with a new table below) is printed, one for each answer revealed."""
    feed = Feed(*["1", "4"] * 40)
    run(feed, "ego", players=3, seed=5)
    text = "\n".join(feed.shown)
    revealed = re.findall(
        r"^• .+ answered \d: (?:\d+ right guess|nobody guessed right)", text, re.MULTILINE
    )
    assert len(revealed) > 5
    assert text.count("🎉 Reveal!") == len(revealed)
