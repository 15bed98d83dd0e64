"""Count what `/rule <name>` answers for every name of every glossary entry, in every language.

    .venv/bin/python scripts/rule_terms.py

Prints, per language, how many names there are, how many lead straight to one rule, how many
to the "which game?" prompt (and how many of those are an exact name of one game only), and
how many find nothing; then the names that still lead to the prompt. Asked outside a game.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chatbot.core.help import HelpDesk
from chatbot.core.sessions import Platform, Sessions
from chatbot.games import registry
from chatbot.i18n import translator, translators
from chatbot.rule_help import names, normalise
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore

SEVERAL = "is a rule of several games"


async def main() -> None:
    games = registry()
    desk = HelpDesk(Sessions(MemoryStore(), Settings(), games, Platform()))
    en = translator("en")
    several_all: set[str] = set()
    print("| language | names | one rule | which game? | of them exact in one game | nothing |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for tr in translators():
        owners: dict[str, set[str]] = {}
        for bundle in games:
            for entry in bundle.rules.glossary:
                for name in names(entry, tr):
                    owners.setdefault(name, set()).add(bundle.name)
        one = several = exact = nothing = 0
        for name, where in sorted(owners.items()):
            message = desk.lookup("chat", name, en)
            if SEVERAL in message.text:
                several += 1
                several_all.add(name)
                keys = {
                    g.name
                    for g in games
                    for e in g.rules.glossary
                    for n in names(e, tr)
                    if normalise(n) == normalise(name)
                }
                exact += len(keys) == 1 and len(where) == 1
            elif message.buttons and "I don't know" not in message.text:
                one += 1
            else:
                nothing += 1
        print(f"| {tr.locale} | {len(owners)} | {one} | {several} | {exact} | {nothing} |")
    print()
    print("Still asking which game:", ", ".join(sorted(several_all)) or "none")


if __name__ == "__main__":
    asyncio.run(main())
