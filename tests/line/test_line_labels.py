"""LINE cuts nothing: it refuses a button label over 20 characters (the fake does too), so every
label the games make for LINE fits, in every language, and no two buttons of one message read
the same (a label cut short could make the buttons of tables 1, 2 and 3 identical).

Random positions of every game in th, ja and en: the group's table options, and each player's
private choices at every step of the choice tree (Egonomy's one-press moves included)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from chatbot.core.registry import Bundle
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.line.bot import LineBot
from chatbot.present.base import Options
from chatbot.present.egonomy.text import card_text

LIMIT = LineBot.capabilities.label_chars
LANGUAGES = ("th", "ja", "en")
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]


def positions(bundle: Bundle, count: int, seed: int) -> Iterator[tuple[int, Any]]:
    """(players, state) of seeded random games of `bundle`'s game, every player count,
    unfinished."""
    game, rng = bundle.game, random.Random(seed)
    spec = game.spec
    for i in range(count):
        players = spec.min_players + i % (spec.max_players - spec.min_players + 1)
        state, _ = game.new_game(players, spec.resolve_options(), rng.randrange(10**6))
        for _ in range(rng.randrange(80)):
            movers = [p for p in range(players) if game.legal_actions(state, p)]
            if not movers:
                break
            player = rng.choice(movers)
            nxt, _ = game.apply(state, player, rng.choice(game.legal_actions(state, player)))
            if game.is_over(nxt):
                break
            state = nxt
        yield players, state


def checked(options: Options, where: str) -> list[str]:
    """The labels of one message's options: each within LINE's limit, none twice."""
    labels = [o.label for row in options for o in row]
    for label in labels:
        assert 1 <= len(label) <= LIMIT, f"{where}: {label!r} is {len(label)} characters"
    assert len(set(labels)) == len(labels), f"{where}: {labels}"
    return labels


def look(bundle: Bundle, action: Any) -> Any:
    """What a move looks like to its player: Egonomy's twin cards (same topic and number)
    read the same, and playing either does the same."""
    cards = getattr(action, "cards", None)
    if bundle.name != "egonomy" or cards is None:
        return bundle.game.encode_action(action)
    return action.kind, action.table, tuple(sorted(card_text(c) for c in cards))


def every_label(count: int, seed: int) -> int:
    """Check the labels of `count` random positions of each game in each language; how many
    messages were checked."""
    messages = 0
    for bundle in registry():
        game, presenter = bundle.game, bundle.presenter
        for i, (players, state) in enumerate(positions(bundle, count, seed)):
            tr = translator(LANGUAGES[i % len(LANGUAGES)])
            legal = [game.legal_actions(state, p) for p in range(players)]
            shown = presenter.table_options(game.view(state, None), legal, NAMES[:players], tr)
            checked(shown, bundle.name)
            messages += 1
            for player in range(players):
                if not legal[player]:
                    continue
                view = game.view(state, player)
                reached: set[Any] = set()
                todo, shown = [""], set()
                while todo:
                    path = todo.pop()
                    _, options = presenter.hand(view, legal[player], path, NAMES, tr, LIMIT)
                    checked(options, f"{bundle.name} {tr.locale} {path!r}")
                    messages += 1
                    shown.add(path)
                    for option in (o for row in options for o in row):
                        if option.act is not None:
                            reached.add(look(bundle, game.decode_action(option.act)))
                        elif option.nav is not None and option.nav not in shown | set(todo):
                            todo.append(option.nav)  # a step further (Back leads to a seen one)
                if bundle.name == "egonomy":  # its compact labels drop only twins' moves
                    wanted = {look(bundle, a) for a in legal[player]}
                    assert wanted == reached, f"unreachable: {wanted - reached}"
    return messages


def test_labels_fit_line_and_differ_in_every_language() -> None:
    assert every_label(40, seed=3) > 100


@pytest.mark.slow
def test_labels_fit_line_and_differ_over_thousands_of_positions() -> None:
    assert every_label(1200, seed=17) > 3000
