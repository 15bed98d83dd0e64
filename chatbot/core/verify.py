"""Checking a finished game's deal: does the key revealed at the end match the lock?

`/verify <key> <lock>` in a chat and `python -m chatbot verify <key> <lock>` in a terminal say
whether the key revealed with the results matches the lock shown when the game began, and deal
the game again from the key.
"""

from __future__ import annotations

from chatbot.core.fairness import matches, parse
from chatbot.core.registry import Registry
from chatbot.i18n import Translator


def verify(games: Registry, key: str, lock: str, tr: Translator) -> tuple[bool, str]:
    """Whether `key` opens `lock`, and the text that says so (with the deal replayed)."""
    specs = {g.name: g.game.spec for g in games}
    deal = parse(key, specs)
    if deal is None or not lock.strip():
        usage = tr.gettext("Send the key and the lock from a game's results: /verify key lock")
        return False, usage
    if not matches(key, lock):
        return False, tr.gettext("❌ The key does not match the lock: this is not that deal.")
    bundle = games[deal.game]
    game = bundle.game
    spec = game.spec
    lines = [tr.gettext("✅ The key matches the lock: the deal was fixed before the game began.")]
    if not spec.min_players <= deal.players <= spec.max_players:
        return True, lines[0]
    state, _ = game.new_game(deal.players, deal.named_options(spec), deal.seed)
    names = [tr.t("Seat {n}", n=p + 1) for p in range(deal.players)]
    lines += ["", tr.t("The deal of {game}:", game=bundle.presenter.title(tr)), ""]
    lines.append(bundle.presenter.table(game.view(state, None), names, [], tr))
    for seat in range(deal.players):
        text, _ = bundle.presenter.hand(game.view(state, seat), [], "", names, tr)
        lines += ["", f"<b>{names[seat]}</b>", text]
    return True, "\n".join(lines)
