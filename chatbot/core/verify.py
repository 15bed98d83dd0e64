"""Checking a finished game's deal: does the key revealed at the end match the lock?

`/verify <key> <lock>` in a chat and `python -m chatbot verify <key> <lock>` in a terminal say
whether the key revealed with the results matches the lock shown when the game began, and deal
the game again from the key.
"""

from __future__ import annotations

import html
import re

from chatbot.core.fairness import BadKey, matches, parse_key
from chatbot.core.registry import Registry
from chatbot.i18n import N_, Translator

BAD_LOCK = N_("A lock is 16 hex digits (0-9, a-f), as the game's first message shows it.")
USAGE = N_("Send the key and the lock from a game's results: /verify key lock")
LOCK = re.compile(r"[0-9a-fA-F]{16}")
WHY = {  # what a key's part holds that no deal here has (fairness.BadKey.why)
    "shape": N_("A key has five parts joined by dots: game.seats.options.seed.salt."),
    "game": N_("No game called {game} is played here."),
    "seats": N_("{game} is played by {low} to {high} players; this key says {seats}."),
    "count": N_("This key has {given} option values; {game} has {count}."),
    "option": N_("{game} has no “{value}” for its option “{option}”."),
    "together": N_("{game} is never played with “{option}” and the options beside it."),
    "numbers": N_("A key's seed is a whole number and its salt 16 hex digits (0-9, a-f)."),
}


def verify(games: Registry, key: str, lock: str, tr: Translator) -> tuple[bool, str]:
    """Whether `key` opens `lock`, and the text that says so (with the deal replayed); a key
    or lock no game here could have made is answered with what is wrong in it."""
    specs = {g.name: g.game.spec for g in games}
    if not key.strip() or not lock.strip():
        return False, tr.gettext(USAGE)
    try:
        deal = parse_key(key, specs)
    except BadKey as bad:
        return False, f"{_why(games, bad, tr)}\n{tr.gettext(USAGE)}"
    if not LOCK.fullmatch(lock.strip()):
        text = tr.gettext(BAD_LOCK)
        return False, f"{text}\n{tr.gettext(USAGE)}"
    if not matches(key, lock):
        return False, tr.gettext("❌ The key does not match the lock: this is not that deal.")
    bundle = games[deal.game]
    game = bundle.game
    spec = game.spec
    lines = [tr.gettext("✅ The key matches the lock: the deal was fixed before the game began.")]
    state, _ = game.new_game(deal.players, deal.named_options(spec), deal.seed)
    names = [tr.t("Seat {n}", n=p + 1) for p in range(deal.players)]
    lines += ["", tr.t("The deal of {game}:", game=bundle.presenter.title(tr)), ""]
    lines.append(bundle.presenter.table(game.view(state, None), names, [], tr))
    for seat in range(deal.players):
        text, _ = bundle.presenter.hand(game.view(state, seat), [], "", names, tr)
        lines += ["", f"<b>{names[seat]}</b>", text]
    return True, "\n".join(lines)


def _why(games: Registry, bad: BadKey, tr: Translator) -> str:
    """What is wrong in a key, in words (games and options by their shown names)."""
    params = {name: html.escape(str(value)) for name, value in bad.params.items()}
    bundle = games.get(str(bad.params.get("game", "")))
    if bundle is not None:
        params["game"] = bundle.presenter.title(tr)
        if option := bad.params.get("option"):
            params["option"] = bundle.presenter.option_label(str(option), tr)
    return tr.t(WHY[bad.why], **params)
