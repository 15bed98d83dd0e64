"""docs/rulings.md and the code that plays it: every `docs/rulings.md#...` the code cites is a
section there, and every section is cited by the code that plays it."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CITE = re.compile(r"docs/rulings\.md#([a-z0-9-]+)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def sections() -> set[str]:
    text = (REPO / "docs" / "rulings.md").read_text(encoding="utf-8")
    return {anchor(line[4:]) for line in text.splitlines() if line.startswith("### ")}


def cited() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for folder in ("engine", "chatbot"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for name in CITE.findall(path.read_text(encoding="utf-8")):
                out.setdefault(name, []).append(str(path.relative_to(REPO)))
    return out


def test_every_citation_names_a_section() -> None:
    missing = {name: where for name, where in cited().items() if name not in sections()}
    assert not missing


def test_every_ruling_is_cited_by_the_code_that_plays_it() -> None:
    assert sections() - set(cited()) == set()
