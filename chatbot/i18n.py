"""Gettext through Babel with no global locale: one `Translator` per locale, passed explicitly.

Catalogues live in the top-level `locales/<lang>/LC_MESSAGES/<domain>.po`; a wheel carries them
as the package data `chatbot/locales/` (a link to them in the checkout), so every installation has
them; $EGOBOT_LOCALES overrides the folder: the bot's texts in the domain
`messages`, long content lists (a game's question deck) in domains of their own. The languages
are whatever folders hold a `messages.po`, so a new language needs no code change. The .po
files are compiled in memory the first time a locale and domain are asked for (no .mo files on
disk). English is the source language: the msgids are English and a locale without a catalogue
falls back to them. Placeholders are `str.format` fields (`{name}`), never %-format.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, lru_cache
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path

from babel import Locale, UnknownLocaleError, negotiate_locale
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

DOMAIN = "messages"
SOURCE_LOCALE = "en"
LOCALES_ENV = "EGOBOT_LOCALES"


def N_(s: str) -> str:
    """Mark a string for extraction; it is translated later, where the locale is known."""
    return s


def P_(context: str, msgid: str) -> tuple[str, str]:
    """Mark a text with its context for extraction; returns both."""
    return context, msgid


def NP_(context: str, singular: str, plural: str) -> tuple[str, str, str]:
    """Mark a plural message with its context for extraction; returns the three parts."""
    return context, singular, plural


# The context of a text's second-person form ("{player} answers." read by its player: "You
# answer."), and the fields that may name the reader.
YOU = "you"
ADDRESSED = ("player", "players")
_TAG = re.compile(r"<[^>]+>")
MINUS = "\u2212"  # the one minus sign of every text ("−2", as in "wrong, −2")
# Lists where Babel's patterns glue the conjunction to a name ("BและC", "🤖 Aและ🃏 B"):
# (two items, between the others, before the last).
LIST_PATTERNS = {"th": ("{0} และ {1}", "{0}, {1}", "{0} และ {1}")}


def locales_dir() -> Path:
    """The catalogue folder: $EGOBOT_LOCALES if set, else `chatbot/locales/` (in a checkout a
    link to the top-level `locales/`, in an installed wheel their copy)."""
    return _locales_dir(os.environ.get(LOCALES_ENV) or None)


@cache
def _locales_dir(override: str | None) -> Path:
    if override:
        return Path(override).resolve()
    return (Path(__file__).parent / "locales").resolve()


def available_locales(directory: Path | None = None) -> tuple[str, ...]:
    """The languages with a catalogue (plus the English source), sorted, "en" first."""
    return _discover(directory.resolve() if directory else locales_dir())


@cache
def _discover(directory: Path) -> tuple[str, ...]:
    found = {po.parent.parent.name for po in directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")}
    found.discard(SOURCE_LOCALE)
    return (SOURCE_LOCALE, *sorted(found))


def negotiate(code: str | None, directory: Path | None = None) -> str:
    """A supported locale for a platform language code ("th", "en-US", "pt-br", None)."""
    if not code or not code.strip():
        return SOURCE_LOCALE
    by_tag = {loc.replace("_", "-").lower(): loc for loc in available_locales(directory)}
    wanted = code.strip().replace("_", "-").lower()
    match = negotiate_locale([wanted], list(by_tag), sep="-")
    if match is None:
        base = wanted.split("-", 1)[0]
        match = next((tag for tag in by_tag if tag.split("-", 1)[0] == base), None)
    return by_tag.get(match.lower(), SOURCE_LOCALE) if match else SOURCE_LOCALE


@dataclass(frozen=True)
class Translator:
    """Everything a message needs in one locale: translations, plurals, numbers, lists."""

    locale: str
    catalogue: NullTranslations = field(repr=False, compare=False)
    domain: str = DOMAIN
    directory: Path | None = field(default=None, repr=False, compare=False)

    def in_domain(self, domain: str) -> Translator:
        """The translator for the same locale and catalogue folder in another gettext domain."""
        return translator(self.locale, self.directory, domain)

    def gettext(self, msgid: str) -> str:
        """The translation of `msgid` (the msgid itself when untranslated)."""
        return self.catalogue.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The plural form of a message for the count `n`, by the locale's plural rule."""
        return self.catalogue.ngettext(singular, plural, n)

    def pgettext(self, context: str, msgid: str) -> str:
        """The translation of `msgid` in a context (for words that differ by use)."""
        return self.catalogue.pgettext(context, msgid)

    def contextual(self, context: str | None, msgid: str) -> str:
        """The translation of `msgid` in a context; without a translation in that context
        (or with no context), the context-free translation."""
        if context is not None:
            found = self.catalogue.pgettext(context, msgid)
            if found != msgid:
                return found
        return self.gettext(msgid)

    def npgettext(self, context: str | None, singular: str, plural: str, n: int) -> str:
        """The plural form of a message in a context; without a translation in that context
        (or with no context), the context-free translation."""
        if context is not None:
            found = self.catalogue.npgettext(context, singular, plural, n)
            if found not in (singular, plural):
                return found
        return self.ngettext(singular, plural, n)

    def t(self, msgid: str, **kw: object) -> str:
        """Translate, then fill the `{name}` fields; a text whose player is the reader ("You")
        takes its second-person form where it has one ("You answer", not "You answers")."""
        if kw and self._addressed(kw):
            found = self.catalogue.pgettext(YOU, msgid)
            if found != msgid:
                return found.format(**kw)
        return self.gettext(msgid).format(**kw)

    def nt(self, singular: str, plural: str, n: int, **kw: object) -> str:
        """Translate the plural form for `n`, then fill `{n}` and the other `{name}` fields
        (in the second person where the player is the reader, as `t`)."""
        if kw and self._addressed(kw):
            found = self.catalogue.npgettext(YOU, singular, plural, n)
            if found not in (singular, plural):
                return found.format(n=n, **kw)
        return self.ngettext(singular, plural, n).format(n=n, **kw)

    def _addressed(self, kw: dict[str, object]) -> bool:
        """Whether the text's player is the reader: the terminal names its player "You"."""
        you = self.gettext("You")
        return any(isinstance(v := kw.get(f), str) and _TAG.sub("", v) == you for f in ADDRESSED)

    def number(self, n: int | float | Decimal) -> str:
        """A number written the locale's way ("1,234" / "1 234"), negative with "−"."""
        if type(n) is int:  # a game's scores and counts: written once each (Babel is slow)
            return _integer(self.locale, n)
        return _number(self.locale, n)

    def list(self, items: Iterable[str]) -> str:
        """Items joined the locale's way ("A, B and C" / "A、B、C" / "A, B และ C")."""
        shown = list(items)
        patterns = LIST_PATTERNS.get(self.locale)
        if patterns is None or len(shown) < 2:
            return format_list(shown, locale=_babel_locale(self.locale))
        two, middle, end = patterns
        if len(shown) == 2:
            return two.format(*shown)
        text = shown[0]
        for item in shown[1:-1]:
            text = middle.format(text, item)
        return end.format(text, shown[-1])

    def sep(self) -> str:
        """What stands between the parts of one line (" · "; Japanese writes "・")."""
        # TRANSLATORS: between the parts of one line, e.g. "Top card: 7♥ · 🔃 clockwise".
        return self.pgettext("separator", " · ")

    def sentences(self, *parts: str) -> str:
        """Sentences run together the locale's way: a space in English and Thai, none after
        a Japanese full stop."""
        parts = tuple(p for p in parts if p)
        if not parts:
            return ""
        # TRANSLATORS: how two sentences follow each other; Japanese writes no space after 。
        pattern = self.pgettext("sentences", "{first} {second}")
        # TRANSLATORS: the same after a first part that does not end in a full stop (but in
        # !, ? or a symbol, e.g. "+3 ✦"); Japanese writes a full-width space there.
        open_end = self.pgettext("sentences, no full stop", "{first} {second}")
        text = parts[0]
        for part in parts[1:]:
            stopped = _TAG.sub("", text).rstrip().endswith((".", "。"))
            text = (pattern if stopped else open_end).format(first=text, second=part)
        return text


def translator(locale: str, directory: Path | None = None, domain: str = DOMAIN) -> Translator:
    """The translator for a locale in a domain; an unknown locale gets English."""
    if directory is None:
        return _translator(locale, locales_dir(), domain)
    return _translator(locale, directory.resolve(), domain)


def translators(directory: Path | None = None) -> tuple[Translator, ...]:
    """A translator for every available locale: call at start-up to compile them all once."""
    return tuple(translator(locale, directory) for locale in available_locales(directory))


@cache
def _translator(locale: str, directory: Path, domain: str) -> Translator:
    if locale not in _discover(directory):
        locale = SOURCE_LOCALE
    po = directory / locale / "LC_MESSAGES" / f"{domain}.po"
    if not po.is_file():
        return Translator(locale, NullTranslations(), domain, directory)
    return Translator(locale, _compile(po, locale, domain), domain, directory)


def _compile(po: Path, locale: str, domain: str) -> Translations:
    """Compile a .po file in memory (fuzzy entries left out, as msgfmt does)."""
    with po.open("rb") as fp:
        catalog = read_po(fp, locale=locale, domain=domain)
    mo = BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return Translations(fp=mo, domain=domain)


@cache
def _babel_locale(code: str) -> Locale:
    """Babel's locale data for a catalogue folder name; English if Babel does not know it."""
    try:
        return Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        return Locale.parse(SOURCE_LOCALE)


def _number(locale: str, n: int | float | Decimal) -> str:
    text = format_decimal(n, locale=_babel_locale(locale))
    return MINUS + text[1:] if text.startswith("-") else text


@lru_cache(maxsize=4096)
def _integer(locale: str, n: int) -> str:
    return _number(locale, n)
