"""Neutral views within a platform's limits: long choice lists come in pages, long labels and
rows are cut to fit, lobby options beyond yes/no cycle through their values."""

from __future__ import annotations

from chatbot.core import buttons as b
from chatbot.core.model import Button, Capabilities
from chatbot.core.session import Seat, Session
from chatbot.core.views import choice_buttons, fit
from chatbot.i18n import translator
from chatbot.present.base import Option
from engine.core import GameSpec, IllegalAction, OptionSpec

SMALL = Capabilities(message_buttons=13, row_buttons=4, label_chars=8)


def session() -> Session:
    return Session("ano", "tg:-1", "tg:1", "en", {}, [Seat("Ann", "tg:1")], stamps=[77])


def test_a_long_list_of_choices_comes_in_pages_with_back_and_more() -> None:
    options = (tuple(Option(f"card {i}", act=f"c{i}") for i in range(30)),)
    tr = translator("en")
    first = choice_buttons(session(), 0, options, "", 0, SMALL, tr)
    flat = [x for row in first for x in row]
    assert len(flat) <= SMALL.message_buttons
    assert [x.label for x in first[-1]] == ["More ▶"]
    assert first[-1][0].data == b.encode(b.NAV, "tg:-1", f"{b.PAGE}1", stamp=77)
    pages = [first] + [choice_buttons(session(), 0, options, "", p, SMALL, tr) for p in (1, 2)]
    acts = [x.data for page in pages for row in page for x in row if x.data and x.data[0] == "m"]
    assert acts == [b.encode(b.MOVE, "tg:-1", f"c{i}", stamp=77) for i in range(30)]
    assert [x.label for x in pages[1][-1]] == ["◀ Back …", "More ▶"]
    assert [x.label for x in pages[2][-1]] == ["◀ Back …"], "the last page has no More"


def test_a_short_list_stays_as_the_presenter_laid_it_out() -> None:
    options = ((Option("a", act="a"), Option("b", act="b")), (Option("Back", nav=""),))
    keyboard = choice_buttons(session(), 0, options, "x", 0, SMALL, translator("en"))
    assert [[x.label for x in row] for row in keyboard] == [["a", "b"], ["Back"]]


def test_rows_and_labels_are_cut_to_the_platforms_limits() -> None:
    row = tuple(Button(f"button {i:02}", str(i)) for i in range(6))
    rows = fit((row,), SMALL)
    assert [len(r) for r in rows] == [4, 2]
    assert all(len(x.label) <= SMALL.label_chars for r in rows for x in r)
    labels = [x.label for r in rows for x in r]
    assert labels[0] == "but…n 00" and len(set(labels)) == 6, "cut alike, then told apart"


def test_an_option_of_several_values_cycles_and_refuses_what_it_does_not_offer() -> None:
    decks = OptionSpec("decks", 1, (1, 2))
    spec = GameSpec("ano", 2, 10, (OptionSpec("jokers", True), decks))
    assert spec.resolve_options() == {"jokers": True, "decks": 1}
    assert decks.next(1) == 2 and decks.next(2) == 1 and not decks.yes_no
    assert spec.option("jokers").yes_no
    for bad in ({"decks": 3}, {"decks": True}, {"jokers": 1}, {"colours": 2}):
        try:
            spec.resolve_options(bad)
        except IllegalAction as refused:
            assert refused.code in ("bad_option", "unknown_option")
        else:
            raise AssertionError(f"{bad} was accepted")


def test_shortened_labels_that_would_read_the_same_are_told_apart() -> None:
    """LINE allows 20 characters a label: two catches of long names that begin alike are cut in
    the middle (their ends differ), and labels alike at both ends are numbered."""
    line = Capabilities(label_chars=20)
    names = ["Somchai Wongsawat Junior", "Somchai Wongsawat Senior", "Ann"]
    row = tuple(Button(f"🫵 Caught {n}!", f"c|{i}") for i, n in enumerate(names))
    labels = [x.label for r in fit((row,), line) for x in r]
    assert len(set(labels)) == 3 and all(len(x) <= 20 for x in labels)
    assert labels[2] == "🫵 Caught Ann!" and labels[0].endswith("Junior!")
    twins = tuple(Button(f"{'x' * 30}{c}{'y' * 30}", c) for c in "ab")
    labels = [x.label for r in fit((twins,), line) for x in r]
    assert labels == ["x" * 18 + "…1", "x" * 18 + "…2"]
