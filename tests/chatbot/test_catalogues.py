"""Every catalogue in chatbot/locales/ loads, is complete and clean, and matches the msgids.

Runs for every language folder, so a new language is checked the day it is added.
"""

from __future__ import annotations

import gettext
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po
from babel.support import Translations

from chatbot import i18n

REPO = Path(__file__).resolve().parents[2]
LOCALES = REPO / "chatbot" / "locales"
LANGS = sorted(po.parent.parent.name for po in LOCALES.glob("*/LC_MESSAGES/messages.po"))
PLURAL_FORMS = {  # the project's three languages (others: Babel's rule for the language)
    "th": (1, "0"),
    "ja": (1, "0"),
    "en": (2, "(n != 1)"),
}

Key = tuple[str | None, str | tuple[str, ...] | list[str]]


def load(lang: str) -> Catalog:
    with (LOCALES / lang / "LC_MESSAGES" / "messages.po").open("rb") as fp:
        return read_po(fp, locale=lang)


def entries(catalog: Catalog) -> list[Message]:
    return [m for m in catalog if m.id]


def keys(catalog: Catalog) -> set[Key]:
    return {(m.context, m.id) for m in entries(catalog)}


def forms(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ("",)
    return (value,) if isinstance(value, str) else tuple(value)


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The msgids in the code now, extracted as scripts/i18n does."""
    pot = tmp_path_factory.mktemp("extract") / "messages.pot"
    subprocess.run(
        [
            *(sys.executable, "-m", "babel.messages.frontend", "-q", "extract"),
            *("-F", str(REPO / "babel.cfg"), "--no-location", "-o", str(pot), str(REPO)),
        ],
        check=True,
    )
    with pot.open("rb") as fp:
        return read_po(fp)


def test_the_project_languages_have_catalogues() -> None:
    assert {"en", "th", "ja"} <= set(LANGS)
    assert i18n.available_locales(LOCALES) == ("en", *sorted(set(LANGS) - {"en"}))


@pytest.mark.parametrize("lang", LANGS)
def test_catalogue_loads_for_real(lang: str) -> None:
    tr = i18n.translator(lang, LOCALES)
    assert tr.locale == lang
    assert isinstance(tr.catalogue, Translations)
    catalog = load(lang)
    plural = gettext.c2py(catalog.plural_expr)
    for m in entries(catalog):
        if m.fuzzy or not all(forms(m.string)):
            continue  # left out on purpose; the tests below report them
        if m.pluralizable:
            singular, plural_id = forms(m.id)[:2]
            for n in range(30):
                got = tr.ngettext(singular, plural_id, n)
                assert got == forms(m.string)[plural(n)], (m.id, n)
        elif m.context:
            assert tr.pgettext(m.context, str(m.id)) == m.string
        else:
            assert tr.gettext(str(m.id)) == m.string


@pytest.mark.parametrize("lang", ["th", "ja"])
def test_thai_and_japanese_are_translated(lang: str) -> None:
    tr = i18n.translator(lang, LOCALES)
    for msgid in ("Momentum", "Ethics", "Flip the table"):
        assert tr.gettext(msgid) not in ("", msgid)


@pytest.mark.parametrize("lang", LANGS)
def test_plural_forms(lang: str) -> None:
    catalog = load(lang)
    rule = get_plural(lang)
    expected = PLURAL_FORMS.get(lang, (rule.num_plurals, rule.plural_expr))
    assert (catalog.num_plurals, catalog.plural_expr) == expected


@pytest.mark.parametrize("lang", LANGS)
def test_no_fuzzy_entries(lang: str) -> None:
    catalog = load(lang)
    assert not catalog.fuzzy, "the header is marked fuzzy"
    assert [m.id for m in entries(catalog) if m.fuzzy] == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_msgstr_is_filled(lang: str) -> None:
    catalog = load(lang)
    for m in entries(catalog):
        strings = forms(m.string)
        assert all(strings), f"untranslated: {m.id!r}"
        if m.pluralizable:
            assert len(strings) == catalog.num_plurals, f"plural forms: {m.id!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_babel_checkers_find_nothing(lang: str) -> None:
    catalog = load(lang)
    problems = {str(m.id): [str(e) for e in m.check(catalog)] for m in entries(catalog)}
    assert {k: v for k, v in problems.items() if v} == {}


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_match(lang: str) -> None:
    """Every `{name}` of the msgid is in the msgstr and nothing else (per plural form).

    A plural form may drop a field only when the singular msgid drops it too ("one card").
    """
    catalog = load(lang)
    for m in entries(catalog):
        ids = forms(m.id)
        wanted = set().union(*(fields(i) for i in ids))
        assert all(f and not f.isdigit() for f in wanted), f"positional field: {m.id!r}"
        required = set.intersection(*(fields(i) for i in ids))
        strings = forms(m.string)
        for index, text in enumerate(strings):
            got = fields(text)
            must = fields(ids[-1]) if m.pluralizable and index == len(strings) - 1 else required
            assert must <= got <= wanted, (lang, m.id, text)


def test_pot_is_up_to_date(extracted: Catalog) -> None:
    with (LOCALES / "messages.pot").open("rb") as fp:
        pot = read_po(fp)
    assert keys(pot) == keys(extracted), "run scripts/i18n update"


@pytest.mark.parametrize("lang", LANGS)
def test_catalogue_matches_the_code(lang: str, extracted: Catalog) -> None:
    catalog = load(lang)
    assert keys(extracted) - keys(catalog) == set(), "missing: run scripts/i18n update"
    assert keys(catalog) - keys(extracted) == set(), "no longer in the code"
    assert not catalog.obsolete, "obsolete (#~) entries: run scripts/i18n update"
