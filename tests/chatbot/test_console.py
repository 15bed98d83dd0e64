"""The terminal adapter (chatbot/console/play.py): a whole game against computer players.

"python -m chatbot console": the player's hand and numbered choices are shown, a number plays
it, and the game runs to its end.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chatbot.__main__ import build_parser, console_choices, main
from chatbot.console.play import EMPTY_ANSWER, NOT_A_CHOICE, Console, choice_number, plain, play
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


@pytest.mark.parametrize("answer", ["²", "①", "１", "٣", "0", "99", "-1", "1.0", "one"])
def test_only_ascii_digits_in_range_name_a_choice(answer: str) -> None:
    assert choice_number(answer, 5) is None
    assert choice_number("5", 5) == 5


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
    assert (
        feed.shown[0]
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
    """A real terminal game waiting at its prompt: one SIGINT ends it, with no traceback."""
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
    assert proc.returncode == 0, err
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
