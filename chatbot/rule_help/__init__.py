"""Rule help as data, for any game: sections and a glossary whose texts are msgids.

Every title, body, term, text and alias list is an English msgid marked with `N_`; a
presenter translates it with the reader's `Translator`. A glossary entry's `aliases` is one
msgid that each language translates into its own comma-separated list of names, so a new
language brings its own search words with no code change.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from chatbot.i18n import Translator

ALIAS_SEPARATORS = re.compile(r"[,、;]")
SUGGESTION_CUTOFF = 0.7
MAX_SUGGESTIONS = 5
_KATAKANA = range(0x30A1, 0x30F7)  # ァ..ヶ, one block above their hiragana
_KANA_OFFSET = 0x60


@dataclass(frozen=True)
class Section:
    """A part of the rulebook: a title and its text (msgids)."""

    key: str
    title: str
    body: str
    ruling: str = ""  # the bot's house ruling on this part, where a player would look for it


@dataclass(frozen=True)
class GlossaryEntry:
    """A glossary term, its one-paragraph rule, the section that says more, its other names."""

    key: str
    term: str
    text: str
    section: str
    aliases: str


@dataclass(frozen=True)
class RuleBook:
    """A game's rule help: its sections in reading order and its glossary."""

    game: str
    sections: tuple[Section, ...]
    glossary: tuple[GlossaryEntry, ...]

    def section(self, key: str) -> Section:
        """The section with this key (KeyError if there is none)."""
        for section in self.sections:
            if section.key == key:
                return section
        raise KeyError(key)


def normalise(text: str) -> str:
    """A search key: NFKC, casefolded, only letters, marks and digits, katakana as hiragana."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(
        chr(ord(c) - _KANA_OFFSET) if ord(c) in _KATAKANA else c
        for c in folded
        if unicodedata.category(c)[0] in "LMN"
    )


def names(entry: GlossaryEntry, tr: Translator) -> tuple[str, ...]:
    """The names of a glossary entry in one language: its term, then its aliases."""
    aliases = ALIAS_SEPARATORS.split(tr.gettext(entry.aliases))
    return (tr.gettext(entry.term), *(a.strip() for a in aliases if a.strip()))


EXACT, PREFIX, PART, CLOSE = range(4)  # how well a query matched a name, best first


def find_term(
    book: RuleBook, query: str, translators: Iterable[Translator]
) -> tuple[GlossaryEntry | None, list[GlossaryEntry]]:
    """Look a term up in every language: exact name, then prefix, then part of a name.

    Returns the entry found (or None) and suggestions: other exact matches, the candidates when
    a prefix or a part is ambiguous, or close spellings when nothing matched (typos).
    """
    _, entry, suggestions = match_term(book, query, translators)
    return entry, suggestions


def match_term(
    book: RuleBook, query: str, translators: Iterable[Translator]
) -> tuple[int, GlossaryEntry | None, list[GlossaryEntry]]:
    """`find_term`, with how well it matched (EXACT, PREFIX, PART or CLOSE): an exact name of
    one game wins over a prefix or a part of another game's name."""
    wanted = normalise(query)
    if not wanted:
        return CLOSE, None, []
    index = _index(book, tuple(translators))
    exact = [entry for entry, keys in index if wanted in keys]
    if exact:
        return EXACT, exact[0], exact[1:]
    for rank, tier in (
        (PREFIX, [entry for entry, keys in index if any(k.startswith(wanted) for k in keys)]),
        (
            PART,
            [
                entry
                for entry, keys in index
                if any(wanted in k or (len(k) > 1 and k in wanted) for k in keys)
            ],
        ),
    ):
        if len(tier) == 1:
            return rank, tier[0], []
        if tier:
            return rank, None, tier
    by_key = {key: entry for entry, keys in index for key in keys}
    close = difflib.get_close_matches(wanted, by_key, MAX_SUGGESTIONS * 3, SUGGESTION_CUTOFF)
    suggestions = list(dict.fromkeys(by_key[key] for key in close))
    return CLOSE, None, suggestions[:MAX_SUGGESTIONS]


def _index(
    book: RuleBook, translators: tuple[Translator, ...]
) -> list[tuple[GlossaryEntry, frozenset[str]]]:
    """Every entry with the normalised names it has in any language (English msgids included)."""
    index = []
    for entry in book.glossary:
        keys = {normalise(entry.term), *(normalise(a) for a in entry.aliases.split(","))}
        for tr in translators:
            keys.update(normalise(name) for name in names(entry, tr))
        keys.discard("")
        index.append((entry, frozenset(keys)))
    return index
