"""EGO's question deck: stable ids, every card's texts in every language, button-sized answers.

The rulebook's cards are not in the seed (RULINGS.md, EGO, "Components"): the project writes its
own deck, "a question and 3 answers per card", translated.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from chatbot import i18n
from chatbot.present.ego.questions import DOMAIN, TEXTS, question
from engine.ego.cards import CARDS, KINDS

LOCALES = Path(__file__).resolve().parents[2] / "locales"
LANGS = ("en", "th", "ja")
MIN_CARDS = 220  # the boxed game has 220 question cards (RULINGS.md, EGO, "Components")
ANSWER_MAX = 24  # characters (code points) on a button, in every language
QUESTION_MAX = 80


def texts(lang: str) -> dict[str, tuple[str, tuple[str, str, str]]]:
    tr = i18n.translator(lang, LOCALES)
    return {card.id: question(card.id, tr) for card in CARDS}


def test_ids_are_stable_dense_and_sorted() -> None:
    ids = [card.id for card in CARDS]
    assert len(ids) >= MIN_CARDS
    assert ids == [f"q{n:03d}" for n in range(1, len(ids) + 1)]


def test_every_card_has_texts_and_every_text_a_card() -> None:
    assert list(TEXTS) == [card.id for card in CARDS]


def test_kinds_are_listed_and_used() -> None:
    assert len(set(KINDS)) == len(KINDS)
    assert {card.kind for card in CARDS} == set(KINDS)


def test_the_catalogue_holds_each_card_under_its_own_id() -> None:
    """The msgctxt of every text is the id of the card it is written on."""
    with (LOCALES / f"{DOMAIN}.pot").open("rb") as fp:
        pot = read_po(fp)
    wanted = {(card_id, text) for card_id, card in TEXTS.items() for text in card}
    assert {(m.context, m.id) for m in pot if m.id} == wanted


@pytest.mark.parametrize("lang", LANGS)
def test_three_distinct_answers_in_every_language(lang: str) -> None:
    for card_id, (ask, answers) in texts(lang).items():
        assert ask.strip() and all(a.strip() for a in answers), card_id
        assert len(set(answers)) == 3, (card_id, answers)
        assert ask not in answers, card_id


@pytest.mark.parametrize("lang", LANGS)
def test_no_two_cards_ask_the_same(lang: str) -> None:
    asks = [ask for ask, _ in texts(lang).values()]
    assert len(set(asks)) == len(asks)


@pytest.mark.parametrize("lang", LANGS)
def test_texts_fit_buttons_and_messages(lang: str) -> None:
    for card_id, (ask, answers) in texts(lang).items():
        assert len(ask) <= QUESTION_MAX, (card_id, ask)
        assert max(len(a) for a in answers) <= ANSWER_MAX, (card_id, answers)


@pytest.mark.parametrize("lang", ["th", "ja"])
def test_thai_and_japanese_are_translated(lang: str) -> None:
    english, translated = texts("en"), texts(lang)
    for card in CARDS:
        assert translated[card.id][0] != english[card.id][0], card.id
        assert set(translated[card.id][1]).isdisjoint(english[card.id][1]), card.id


def test_a_card_follows_a_language_change() -> None:
    """A stored card id shows the same card in whatever language the chat switches to."""
    card_id = CARDS[0].id
    english = question(card_id, i18n.translator("en", LOCALES))
    thai = question(card_id, i18n.translator("th", LOCALES))
    assert english == (TEXTS[card_id][0], TEXTS[card_id][1:])
    assert thai != english
    assert question(card_id, i18n.translator("xx", LOCALES)) == english
