"""The EGO presenter and rule help: group buttons over real engine positions, every event told
in every language, refusals explained, the reveal and the final ranking."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine.ego.rules as rules_module
from chatbot.i18n import available_locales, translator
from chatbot.present.ego import EXPLANATIONS, PRESENTER
from chatbot.present.ego.questions import question
from chatbot.rule_help.ego import EGO_RULES
from engine.ego import GAME
from engine.ego.events import GameEnded, Guess, Revealed
from engine.ego.rules import REFUSE, Action, State

NAMES = ("Ann", "Bob", "&lt;b&gt;Cy", "Dee", "Eve", "Fay")
LANGS = available_locales()
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
PROPER = {"Ann", "Bob", "Dee", "Eve", "Fay", "EGO"}  # words a Thai or Japanese text may hold


def random_games(count: int, seed: int = 1) -> Iterator[tuple[State, list[object]]]:
    """Positions and the events that led to them, from seeded random games."""
    rng = random.Random(seed)
    for g in range(count):
        players = 2 + g % 5
        state, events = GAME.new_game(players, {"refusal_from_bank": bool(g % 2)}, g)
        yield state, events
        while not state.over:
            p = rng.choice(GAME.to_move(state))
            legal = GAME.legal_actions(state, p)
            if rng.random() < 0.03:
                state, events = GAME.timeout(state, p)
            else:
                state, events = GAME.apply(state, p, rng.choice(legal))
            yield state, events


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_and_table_is_told_in_every_language(lang: str) -> None:
    tr = translator(lang)
    seen: set[str] = set()
    for state, events in random_games(5):
        names = NAMES[: state.players]
        view = GAME.view(state, None)
        table = PRESENTER.table(view, names, events, tr)
        assert "{" not in table and PRESENTER.title(tr) in table
        for event in events:
            for text in (PRESENTER.narrate(event, names, tr), PRESENTER.announce(event, names, tr)):
                if text is not None:
                    assert text and "{" not in text
                    assert lang == "en" or set(LATIN_WORD.findall(text)) <= PROPER, text
                    seen.add(type(event).__name__)
    assert {"TurnStarted", "Revealed", "Refused", "Skipped", "GameEnded"} <= seen


def test_the_table_offers_exactly_the_legal_picks() -> None:
    """Every button plays an action some seat may take, and every seat's actions are there."""
    tr = translator("en")
    for state, _ in random_games(6, seed=2):
        if state.over:
            assert PRESENTER.table_options(GAME.view(state, None), [], NAMES, tr) == ()
            continue
        legal = [GAME.legal_actions(state, p) for p in range(state.players)]
        options = PRESENTER.table_options(GAME.view(state, None), legal, NAMES, tr)
        acts = [o.act for row in options for o in row]
        assert all(a is not None for a in acts) and len(acts) == len(set(acts))
        offered = {GAME.decode_action(a) for a in acts if a is not None}
        assert offered == {a for actions in legal for a in actions}
        assert all(len(row) <= 3 for row in options)


@pytest.mark.parametrize("from_bank", [False, True])
def test_the_refusal_button_follows_the_option(from_bank: bool) -> None:
    tr = translator("en")
    state, _ = GAME.new_game(3, {"refusal_from_bank": from_bank}, 1)
    legal = [GAME.legal_actions(state, p) for p in range(3)]
    options = PRESENTER.table_options(GAME.view(state, None), legal, NAMES, tr)
    (refuse,) = [o for row in options for o in row if o.act == GAME.encode_action(REFUSE)]
    wanted = "tray −2" if from_bank else "−2 tokens"
    assert wanted in refuse.label


def test_the_table_never_shows_a_pick_only_who_locked_in() -> None:
    tr = translator("en")
    state, _ = GAME.new_game(3, {}, 4)
    before = PRESENTER.table(GAME.view(state, None), NAMES[:3], [], tr)
    picked, _ = GAME.apply(state, 1, Action(3, 2))
    other, _ = GAME.apply(state, 1, Action(1, 1))
    after = PRESENTER.table(GAME.view(picked, None), NAMES[:3], [], tr)
    assert after == PRESENTER.table(GAME.view(other, None), NAMES[:3], [], tr)
    assert after != before and "Bob: 🪙 10 ✅" in after


def test_the_presser_is_told_their_own_pick() -> None:
    tr = translator("en")
    state, _ = GAME.new_game(3, {}, 4)
    step, _ = GAME.apply(state, 1, Action(2))
    assert PRESENTER.confirm(GAME.view(step, 1), Action(2), tr) == (
        "You picked 2 🤫: now bet with “🪙 bet 1” or “🪙 bet 2”."
    )
    step, _ = GAME.apply(step, 1, Action(0, 2))
    assert PRESENTER.confirm(GAME.view(step, 1), Action(0, 2), tr) == "You picked 2 🤫, stake 2"
    step, _ = GAME.apply(step, 0, Action(3))
    assert PRESENTER.confirm(GAME.view(step, 0), Action(3), tr) == "You answered 3 🤫"
    done, _ = GAME.apply(step, 2, Action(1, 1))  # the last pick reveals the turn
    assert PRESENTER.confirm(GAME.view(done, 2), Action(1, 1), tr) == "You picked 1 🤫, stake 1"


def test_the_reveal_shows_question_answer_guesses_bank_and_standings() -> None:
    tr = translator("en")
    asked, answers = question("q001", tr)
    event = Revealed(
        0, "q001", 2, (Guess(1, 2, 2, 2), Guess(2, 3, 1, -1)), 1, False, 28, (11, 12, 9)
    )
    text = PRESENTER.announce(event, NAMES[:3], tr)
    assert text is not None
    assert asked in text and answers[1] in text
    assert "Bob guessed 2, bet 2: right! +2" in text and "Cid" not in text
    assert "&lt;b&gt;Cy guessed 3, bet 1: wrong, −1" in text
    assert "🧺 Tray: 28" in text and text.index("Bob: 🪙 12") < text.index("Ann: 🪙 11")
    void = Revealed(0, "q001", 2, (Guess(1, 2, 2, 0),), 0, True, 1, (10, 10, 10))
    assert "stake returned" in (PRESENTER.announce(void, NAMES[:3], tr) or "")


def test_the_final_ranking_shares_places() -> None:
    tr = translator("en")
    ended = GameEnded("bank_empty", (9, 12, 12), 0, (1, 2, 0), (1, 1, 3))
    text = PRESENTER.announce(ended, NAMES[:3], tr) or ""
    assert "🥇 Bob" in text and "🥇 &lt;b&gt;Cy" in text and "🥉 Ann" in text
    assert "share the win" in text and "The tray is empty." in text


def test_every_refusal_code_is_explained_in_every_language() -> None:
    source = Path(rules_module.__file__).read_text()
    codes = set(re.findall(r'IllegalAction\(\s*"(\w+)"', source)) - {"player_count"}
    codes |= {"broke", "not_a_guesser"}
    assert codes <= set(EXPLANATIONS)
    sections = {s.key for s in EGO_RULES.sections}
    for lang in LANGS:
        tr = translator(lang)
        for code in EXPLANATIONS:
            text, section = PRESENTER.explain(code, {"stake": 2, "tokens": 1}, tr)
            assert text and "{" not in text and section in sections


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_keep_the_rulebook_examples_and_mark_the_rulings(lang: str) -> None:
    tr = translator(lang)
    setup = tr.gettext(EGO_RULES.section("setup").body)
    assert "30" in setup and "50" in setup, "three players: 30 tokens in the bank"
    marks = {
        "en": "House ruling (this bot):",
        "th": "กติกาเฉพาะของบอทนี้:",
        "ja": "【このボットのハウスルール】",
    }
    rulings = [tr.gettext(s.ruling) for s in EGO_RULES.sections if s.ruling]
    assert len(rulings) >= 5
    assert all(r.startswith(marks[lang]) for r in rulings), "the bot's rulings say so"
    assert {"refusing", "end", "guessing"} <= {s.key for s in EGO_RULES.sections if s.ruling}


def test_the_rule_help_says_an_idle_answerer_has_refused() -> None:
    """RULINGS.md, EGO, "An idle active player": the turn counts as their refusal, with its
    cost; "Changing a pick": an answer may be changed into a refusal. The help says both, as
    the bot's ruling, in every language."""
    from chatbot.rule_help.ego import EGO_RULES

    ruling = EGO_RULES.section("refusing").ruling
    assert "A player who does not answer in time has refused, and pays what a refusal costs" in (
        ruling
    )
    assert "you may change your answer into a refusal" in ruling
    assert "at no cost" not in ruling
    for lang in LANGS:
        text = translator(lang).gettext(ruling)
        assert lang == "en" or text != ruling
