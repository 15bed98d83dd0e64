"""Every catalogue in locales/ loads, is complete and clean, and matches the msgids.

Runs for every language folder and every gettext domain (`messages` from babel.cfg, another
domain from its babel.<domain>.cfg), so a new language or domain is checked the day it comes.
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
LOCALES = REPO / "locales"
LANGS = sorted(po.parent.parent.name for po in LOCALES.glob("*/LC_MESSAGES/messages.po"))
CONFIGS = {"messages": "babel.cfg"} | {
    cfg.name.removeprefix("babel.").removesuffix(".cfg"): cfg.name
    for cfg in sorted(REPO.glob("babel.*.cfg"))
}
DOMAINS = sorted(CONFIGS)
CATALOGUES = [(domain, lang) for domain in DOMAINS for lang in LANGS]
PLURAL_FORMS = {  # the project's three languages (others: Babel's rule for the language)
    "th": (1, "0"),
    "ja": (1, "0"),
    "en": (2, "(n != 1)"),
}

Key = tuple[str | None, str | tuple[str, ...] | list[str]]


def load(lang: str, domain: str = "messages") -> Catalog:
    with (LOCALES / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as fp:
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
def extractions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Catalog]:
    """The msgids in the code now, per domain, extracted as scripts/i18n does."""
    folder = tmp_path_factory.mktemp("extract")
    found = {}
    for domain, cfg in CONFIGS.items():
        pot = folder / f"{domain}.pot"
        subprocess.run(
            [
                *(sys.executable, "-m", "babel.messages.frontend", "-q", "extract"),
                *("-F", str(REPO / cfg), "--no-location", "-o", str(pot), str(REPO)),
            ],
            check=True,
        )
        with pot.open("rb") as fp:
            found[domain] = read_po(fp)
    return found


def test_the_project_languages_have_catalogues() -> None:
    assert {"en", "th", "ja"} <= set(LANGS)
    assert i18n.available_locales(LOCALES) == ("en", *sorted(set(LANGS) - {"en"}))


def test_the_domains_are_there() -> None:
    assert {"messages", "ego_questions"} <= set(DOMAINS)


def test_no_msgid_is_in_two_domains(extractions: dict[str, Catalog]) -> None:
    """A domain's mapping reads only its own files: no text is extracted twice."""
    for first in DOMAINS:
        for second in DOMAINS:
            if first < second:
                assert keys(extractions[first]) & keys(extractions[second]) == set()


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_catalogue_loads_for_real(domain: str, lang: str) -> None:
    tr = i18n.translator(lang, LOCALES, domain)
    assert (tr.locale, tr.domain) == (lang, domain)
    assert isinstance(tr.catalogue, Translations)
    assert tr.in_domain("messages") is i18n.translator(lang, LOCALES)
    catalog = load(lang, domain)
    plural = gettext.c2py(catalog.plural_expr)
    for m in entries(catalog):
        if m.fuzzy or not all(forms(m.string)):
            continue  # left out on purpose; the tests below report them
        if m.pluralizable:
            singular, plural_id = forms(m.id)[:2]
            for n in range(30):
                got = tr.npgettext(m.context, singular, plural_id, n)
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


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_plural_forms(domain: str, lang: str) -> None:
    catalog = load(lang, domain)
    rule = get_plural(lang)
    expected = PLURAL_FORMS.get(lang, (rule.num_plurals, rule.plural_expr))
    assert (catalog.num_plurals, catalog.plural_expr) == expected


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_no_fuzzy_entries(domain: str, lang: str) -> None:
    catalog = load(lang, domain)
    assert not catalog.fuzzy, "the header is marked fuzzy"
    assert [m.id for m in entries(catalog) if m.fuzzy] == []


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_every_msgstr_is_filled(domain: str, lang: str) -> None:
    catalog = load(lang, domain)
    for m in entries(catalog):
        strings = forms(m.string)
        assert all(strings), f"untranslated: {m.id!r}"
        if m.pluralizable:
            assert len(strings) == catalog.num_plurals, f"plural forms: {m.id!r}"


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_babel_checkers_find_nothing(domain: str, lang: str) -> None:
    catalog = load(lang, domain)
    problems = {str(m.id): [str(e) for e in m.check(catalog)] for m in entries(catalog)}
    assert {k: v for k, v in problems.items() if v} == {}


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_placeholders_match(domain: str, lang: str) -> None:
    """Every `{name}` of the msgid is in the msgstr and nothing else (per plural form).

    A plural form may drop a field only when the singular msgid drops it too ("one card"); a
    second-person form (context "you") may drop the field that names the reader ("Caught
    you!").
    """
    catalog = load(lang, domain)
    for m in entries(catalog):
        ids = forms(m.id)
        wanted = set().union(*(fields(i) for i in ids))
        assert all(f and not f.isdigit() for f in wanted), f"positional field: {m.id!r}"
        required = set.intersection(*(fields(i) for i in ids))
        reader = set(i18n.ADDRESSED) if m.context == i18n.YOU else set()
        strings = forms(m.string)
        for index, text in enumerate(strings):
            got = fields(text)
            must = fields(ids[-1]) if m.pluralizable and index == len(strings) - 1 else required
            assert must - reader <= got <= wanted, (lang, m.id, text)


@pytest.mark.parametrize("domain", DOMAINS)
def test_pot_is_up_to_date(domain: str, extractions: dict[str, Catalog]) -> None:
    with (LOCALES / f"{domain}.pot").open("rb") as fp:
        pot = read_po(fp)
    assert keys(pot) == keys(extractions[domain]), "run scripts/i18n update"


@pytest.mark.parametrize(("domain", "lang"), CATALOGUES)
def test_catalogue_matches_the_code(
    domain: str, lang: str, extractions: dict[str, Catalog]
) -> None:
    catalog = load(lang, domain)
    extracted = extractions[domain]
    assert keys(extracted) - keys(catalog) == set(), "missing: run scripts/i18n update"
    assert keys(catalog) - keys(extracted) == set(), "no longer in the code"
    assert not catalog.obsolete, "obsolete (#~) entries: run scripts/i18n update"
