"""A player's choices as a tree of buttons, one step at a time.

A choice path is the action kind's letter, then one "."-separated key per choice already made,
level by level as `_LEVELS` lists them: "b.17" = babble card 17 (next: the table), "a.123" =
argue with numbers 1-2-3 (next: which cards), "a.123.3-4-5" = argue cards 3, 4, 5 (next: the
table), "l.1" = listen at table index 1 (next: the card to take), "g.5" = let go of 5s.
An option whose choice leaves one legal action plays it; a step with a single option is
skipped on the way down and on the way Back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from chatbot.i18n import N_, Translator
from chatbot.present.base import Option, Options
from chatbot.present.egonomy.text import action_name, card_text, cards_text, table_name
from chatbot.rule_help.egonomy import TOPIC_EMOJI
from engine.egonomy.cards import NUMBER, TOPIC
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    KINDS,
    LET_GO,
    LISTEN,
    Action,
    encode_action,
)
from engine.egonomy.view import View

MAX_PATH = 24  # a path rides in button data (64 bytes in all)
ONE_PRESS = 12  # at most this many moves under a step: one button per whole move (fits any
# platform's keyboard), instead of a step per choice

# --- the choice tree -----------------------------------------------------------------------

Label = Callable[[Sequence[Action], View, Translator], str]


@dataclass(frozen=True)
class _Level:
    """One step of a choice: how actions group (key, order), the button, the prompt."""

    key: Callable[[Action], str]
    order: Callable[[Action], tuple[int, ...]]
    label: Label
    prompt: str  # msgid; fields {card} {cards} {numbers} {table} come from the actions
    per_row: int
    whole: str = ""  # msgid of the prompt when each button is a whole move (cards and table)


def _numbers(action: Action) -> str:
    """The numbers of an action's cards, rulebook style ("123")."""
    return "".join(str(n) for n in sorted(NUMBER[c] for c in action.cards))


def _card_order(card: int) -> tuple[int, int]:
    return NUMBER[card], TOPIC[card]


def _cards_order(action: Action) -> tuple[int, ...]:
    return (len(action.cards), *(k for c in action.cards for k in _card_order(c)))


def _label_kind(group: Sequence[Action], view: View, tr: Translator) -> str:
    """The action's name; with one action left, the name and what it plays."""
    action = group[0]
    name = action_name(action.kind, tr)
    if len(group) > 1:
        return name
    if action.kind == CUT_OFF:
        return f"{name} {cards_text(view.tables[action.table])}"
    if action.kind == FLIP:
        return f"{name} {TOPIC_EMOJI[view.table_topics[action.table]]}"
    return f"{name} {cards_text(action.cards)}"


def _label_card(group: Sequence[Action], view: View, tr: Translator) -> str:
    return card_text(group[0].cards[0])


def _label_cards(group: Sequence[Action], view: View, tr: Translator) -> str:
    return cards_text(group[0].cards)


def _label_table(group: Sequence[Action], view: View, tr: Translator) -> str:
    table = group[0].table
    return f"{table_name(table, tr)} {TOPIC_EMOJI[view.table_topics[table]]}"


def _label_cut_off(group: Sequence[Action], view: View, tr: Translator) -> str:
    table = group[0].table
    return f"{table_name(table, tr)} {cards_text(view.tables[table])}"


def _label_sequence(group: Sequence[Action], view: View, tr: Translator) -> str:
    """A sequence's numbers ("123"), or its cards when only those cards have them."""
    if len({a.cards for a in group}) == 1:
        return cards_text(group[0].cards)
    return _numbers(group[0])


def _label_number(group: Sequence[Action], view: View, tr: Translator) -> str:
    """A number to let go of, with how many cards of it the hand holds ("5 ×3")."""
    if len(group) == 1:
        return cards_text(group[0].cards)
    return f"{NUMBER[group[0].cards[0]]} ×{max(len(a.cards) for a in group)}"


_KIND = _Level(
    key=lambda a: a.kind,
    order=lambda a: (KINDS.index(a.kind),),
    label=_label_kind,
    prompt=N_("Choose an action."),
    per_row=3,
)


def _table_key(action: Action) -> str:
    return str(action.table)


def _table_order(action: Action) -> tuple[int, ...]:
    return (action.table,)


def _card_key(action: Action) -> str:
    return str(action.cards[0])


def _card_key_order(action: Action) -> tuple[int, ...]:
    return _card_order(action.cards[0])


def _cards_key(action: Action) -> str:
    return "-".join(str(c) for c in action.cards)


_LEVELS: dict[str, tuple[_Level, ...]] = {
    BABBLE: (
        _Level(
            _card_key,
            _card_key_order,
            _label_card,
            N_("Babble: choose a card."),
            5,
            N_("Babble: choose a card and a table."),
        ),
        _Level(_table_key, _table_order, _label_table, N_("Babble {card}: choose a table."), 3),
    ),
    CUT_OFF: (_Level(_table_key, _table_order, _label_cut_off, N_("Cut off: choose a table."), 3),),
    ARGUE: (
        _Level(
            _numbers,
            lambda a: (len(a.cards), NUMBER[a.cards[0]]),
            _label_sequence,
            N_("Argue: choose a sequence."),
            4,
            N_("Argue: choose the cards and a table."),
        ),
        _Level(
            _cards_key,
            _cards_order,
            _label_cards,
            N_("Argue {numbers}: choose the cards."),
            3,
            N_("Argue {numbers}: choose the cards and a table."),
        ),
        _Level(_table_key, _table_order, _label_table, N_("Argue {cards}: choose a table."), 3),
    ),
    LISTEN: (
        _Level(
            _table_key,
            _table_order,
            _label_table,
            N_("Listen: choose a table."),
            3,
            N_("Listen: choose the card to take and its table; the rest are discarded."),
        ),
        _Level(
            _card_key,
            _card_key_order,
            _label_card,
            N_("Listen at {table}: choose the card to take; the rest are discarded."),
            4,
        ),
    ),
    LET_GO: (
        _Level(
            lambda a: str(NUMBER[a.cards[0]]),
            lambda a: (NUMBER[a.cards[0]],),
            _label_number,
            N_("Let go: choose a number."),
            5,
        ),
        _Level(_cards_key, _cards_order, _label_cards, N_("Let go: choose the cards."), 3),
    ),
    FLIP: (
        _Level(_table_key, _table_order, _label_table, N_("Flip the table: choose a table."), 3),
    ),
}


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _parent(path: str) -> str:
    return path.rpartition(".")[0]


def _next_level(path: str) -> _Level:
    """The level chosen at `path` (a valid path)."""
    if not path:
        return _KIND
    segments = path.split(".")
    return _LEVELS[segments[0]][len(segments) - 1]


def _resolve(path: str, legal: Sequence[Action]) -> tuple[str, list[Action]]:
    """The path and the legal actions under it; a path that matches none falls back to ""."""
    segments = path.split(".")
    levels = _LEVELS.get(segments[0], ())
    if path.isascii() and len(path) <= MAX_PATH and len(segments) <= len(levels):
        chain = (_KIND, *levels)
        under = [
            a
            for a in legal
            if all(lv.key(a) == s for lv, s in zip(chain[: len(segments)], segments, strict=True))
        ]
        if under:
            return path, under
    return "", list(legal)


def _groups(actions: Sequence[Action], level: _Level) -> list[list[Action]]:
    """Actions grouped by the level's key, in the level's order."""
    groups: dict[str, list[Action]] = {}
    for action in actions:
        groups.setdefault(level.key(action), []).append(action)
    return sorted(groups.values(), key=lambda g: level.order(g[0]))


def _descend(path: str, actions: Sequence[Action]) -> str:
    """The first path below `path` that offers more than one option."""
    groups = _groups(actions, _next_level(path))
    while len(groups) == 1:
        path = _child(path, _next_level(path).key(actions[0]))
        groups = _groups(actions, _next_level(path))
    return path


def _back(path: str, legal: Sequence[Action]) -> str:
    """The nearest ancestor of `path` that offers more than one option (or the top)."""
    parent = _parent(path)
    while parent:
        _, under = _resolve(parent, legal)
        if len(_groups(under, _next_level(parent))) > 1:
            break
        parent = _parent(parent)
    return parent


def _option(
    path: str, group: Sequence[Action], level: _Level, view: View, tr: Translator
) -> Option:
    """A button: play the group's only action, or go to the group's next choice."""
    label = level.label(group, view, tr)
    if len(group) == 1:
        return Option(label, act=encode_action(group[0]))
    return Option(label, nav=_descend(_child(path, level.key(group[0])), group))


def _rows(options: Sequence[Option], per_row: int) -> Options:
    return tuple(tuple(options[i : i + per_row]) for i in range(0, len(options), per_row))


def choices(
    view: View, legal: Sequence[Action], path: str, tr: Translator, label_chars: int = 64
) -> tuple[str, str, Options]:
    """The path actually shown (stale paths fall back to ""), its prompt and its options:
    labels within `label_chars` (written compactly where the long form is longer), and
    distinct (moves that look the same, with twin cards, are offered once)."""
    legal = list(dict.fromkeys(legal))
    path, under = _resolve(path, legal)
    level = _next_level(path)
    groups = _groups(under, level)
    whole = len(under) <= ONE_PRESS and any(len(g) > 1 for g in groups)  # a button a move fits
    rows: Options = ()
    if whole:
        moves = sorted(under, key=_move_order)
        labels = _fitted([_move_label(a, view, tr) for a in moves], label_chars, tr)
        if labels is not None:
            options = [
                Option(lb, act=encode_action(a)) for lb, a in zip(labels, moves, strict=True)
            ]
            rows = _rows(_distinct(options), 1)
        whole = bool(rows)  # else the step tree: its labels fit
    if not rows:
        options = [_option(path, g, level, view, tr) for g in groups]
        labels = _fitted([o.label for o in options], label_chars, tr, always=True)
        assert labels is not None
        options = [replace(o, label=lb) for o, lb in zip(options, labels, strict=True)]
        rows = _rows(_distinct(options), level.per_row)
    if path:
        back = tr.gettext("Back")
        rows += ((Option(f"⬅️ {back}", nav=_back(path, legal)),),)
    prompt = level.whole if whole and level.whole else level.prompt
    return path, _prompt(prompt, under[0], tr), rows


CIRCLED = "①②③④⑤⑥⑦⑧⑨"  # a table's number on a compact label
_CARD_GAP = re.compile(r"(?<=\d) (?=[⚖🧩🌌])")


def compact(label: str, tr: Translator) -> str:
    """A label written short: tables as ①②③, cards without gaps or emoji variation marks
    ("Argue ⚖️1 🧩2 → Table 1 ⚖️" -> "Argue ⚖1🧩2→①⚖")."""
    for table in range(len(CIRCLED)):
        label = label.replace(table_name(table, tr), CIRCLED[table])
    label = label.replace("\ufe0f", "").replace(" → ", "→")
    return _CARD_GAP.sub("", label)


def _fitted(
    labels: list[str], limit: int, tr: Translator, always: bool = False
) -> list[str] | None:
    """The labels, each written compactly when it is over `limit`; None when one is still
    over it or two that stood for different moves now read the same (unless `always`: then
    they are cut to the limit)."""
    out = [lb if len(lb) <= limit else compact(lb, tr) for lb in labels]
    if all(len(lb) <= limit for lb in out) and _same_as_before(labels, out):
        return out
    if not always:
        return None
    return [lb if len(lb) <= limit else lb[: limit - 1] + "…" for lb in out]


def _same_as_before(before: list[str], after: list[str]) -> bool:
    """Whether shortening kept labels apart exactly as they were."""
    return len(set(zip(before, after, strict=True))) == len(set(before)) == len(set(after))


def _distinct(options: Sequence[Option]) -> list[Option]:
    """One option per label: moves that read the same play twin cards, to the same effect."""
    first: dict[str, Option] = {}
    for option in options:
        first.setdefault(option.label, option)
    return list(first.values())


def _move_order(action: Action) -> tuple[int, ...]:
    return (KINDS.index(action.kind), *_cards_order(action), action.table)


def _move_label(action: Action, view: View, tr: Translator) -> str:
    """A whole move on one button: "Babble 🧩3 → Table 1 ⚖️", "Listen 🌌1 ← Table 3 🌌" (the
    card comes from the table)."""
    label = _label_kind([action], view, tr)
    if action.kind in (BABBLE, ARGUE):
        label += f" → {_label_table([action], view, tr)}"
    elif action.kind == LISTEN:
        label += f" ← {_label_table([action], view, tr)}"
    return label


def _prompt(msgid: str, action: Action, tr: Translator) -> str:
    """A level's prompt, filled from one of the actions under the path."""
    return tr.gettext(msgid).format(
        card=card_text(action.cards[0]) if action.cards else "",
        cards=cards_text(action.cards),
        numbers=_numbers(action),
        table=table_name(action.table, tr),
    )
