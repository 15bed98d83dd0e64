"""EGO's question deck: stable ids, every card's texts in every language, button-sized answers.

The rulebook's cards are not in the seed (RULINGS.md, EGO, "Components"): the project writes its
own deck, "a question and 3 answers per card", translated.
"""

from __future__ import annotations

import itertools
import re
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


# --- near-duplicates: two cards that share most of their words ask the same thing -----------

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "or",
        "and",
        "to",
        "in",
        "on",
        "at",
        "for",
        "you",
        "your",
        "you're",
        "i",
        "i'd",
        "i'll",
        "my",
        "me",
        "is",
        "are",
        "do",
        "be",
        "it",
        "with",
        "what",
        "which",
        "how",
    ]
)
SHARED_MOST = 0.6  # of the shorter card's words (or, in Thai and Japanese, letter pairs)
SHARED_AT_LEAST = {"en": 3, "th": 8, "ja": 8}


def words(lang: str, card: tuple[str, tuple[str, str, str]]) -> set[str]:
    """A card's words: English words less the stop words, plural -s dropped; Thai and
    Japanese have no spaces between words, so their letter pairs stand in."""
    ask, answers = card
    text = " ".join((ask, *answers)).lower()
    if lang == "en":
        found = re.findall(r"[a-z']+", text)
        return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in found} - STOP_WORDS
    letters = re.sub(r"[\W\d_]+", "", text)
    return {letters[i : i + 2] for i in range(len(letters) - 1)}


def near_duplicates(lang: str, cards: dict[str, tuple[str, tuple[str, str, str]]]) -> list[str]:
    """Pairs of cards whose question and answers share most of their words."""
    found = []
    bags = {card_id: words(lang, card) for card_id, card in cards.items()}
    for (a, x), (b, y) in itertools.combinations(bags.items(), 2):
        shared = len(x & y)
        if shared >= SHARED_AT_LEAST[lang] and shared >= SHARED_MOST * min(len(x), len(y)):
            found.append(f"{a}/{b}")
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_no_two_cards_share_most_of_their_words(lang: str) -> None:
    assert near_duplicates(lang, texts(lang)) == []


REWORDED = {  # a card asked again in other words: what the check above must catch
    "en": ("What's your go-to snack late at night?", "q001"),
    "th": ("ตอนดึก ๆ หิวขึ้นมา จะกินอะไร?", "q001"),
    "ja": ("夜中にお腹が空いたときは？", "q001"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_reworded_card_is_caught(lang: str) -> None:
    ask, card_id = REWORDED[lang]
    deck = texts(lang)
    copy = {"copy": (ask, deck[card_id][1]), card_id: deck[card_id]}
    assert near_duplicates(lang, copy) == [f"copy/{card_id}"]


def test_the_deck_holds_the_boxed_games_count() -> None:
    """The boxed game has 220 question cards; the bot's deck has as many, all distinct."""
    assert len(CARDS) >= 220 and len(set(TEXTS.values())) == len(CARDS)
