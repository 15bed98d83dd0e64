"""Egonomy in the chat: the table message, a player's hand and choices, narration, refusals.

A choice path is the action kind's letter, then one "."-separated key per choice already made,
level by level as `_LEVELS` lists them: "b.17" = babble card 17 (next: the table), "a.123" =
argue with numbers 1-2-3 (next: which cards), "a.123.3-4-5" = argue cards 3, 4, 5 (next: the
table), "l.1" = listen at table index 1 (next: the card to take), "g.5" = let go of 5s.
An option whose choice leaves one legal action plays it; a step with a single option is
skipped on the way down and on the way Back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from chatbot.i18n import N_, Translator
from chatbot.present.base import Option, Options
from chatbot.rules.egonomy import TOPIC_EMOJI, TOPIC_NAMES
from engine.egonomy.cards import NUMBER, TOPIC
from engine.egonomy.events import (
    Argued,
    Babbled,
    CutOff,
    Flipped,
    GameEnded,
    LetGo,
    Listened,
    MomentumGained,
    RoundEnded,
    RoundScore,
    RoundStarted,
    Stuck,
)
from engine.egonomy.rules import (
    ARGUE,
    BABBLE,
    CUT_OFF,
    FLIP,
    KINDS,
    LET_GO,
    LISTEN,
    ROUNDS,
    Action,
    encode_action,
)
from engine.egonomy.view import View

MAX_PATH = 24
LOG_LINES = 4
DISCARD_SHOWN = 4
PEEK_LIMIT = 200
FLIPPED_MARK = "↩️"
TURN_MARK = "▶️"
FIRST_MARK = "🎴"  # the first-player card

# --- cards and tables ----------------------------------------------------------------------


def card_text(card: int) -> str:
    """A card as topic emoji + number, e.g. "⚖️3"."""
    return f"{TOPIC_EMOJI[TOPIC[card]]}{NUMBER[card]}"


def cards_text(cards: Iterable[int]) -> str:
    """Cards in the given order, space-separated."""
    return " ".join(card_text(c) for c in cards)


def by_number(cards: Iterable[int]) -> list[int]:
    """Cards sorted by number, then topic."""
    return sorted(cards, key=lambda c: (NUMBER[c], TOPIC[c]))


def _table_name(table: int, tr: Translator) -> str:
    """The short distinct label of a table (1-based), e.g. "Table 2"."""
    # TRANSLATORS: the short label of topic table 1, 2 or 3 (also used on buttons).
    return tr.gettext("Table {n}").format(n=table + 1)


def _topic(topic: int, tr: Translator) -> str:
    """A topic as emoji + name, e.g. "🧩 Logic"."""
    return f"{TOPIC_EMOJI[topic]} {tr.gettext(TOPIC_NAMES[topic])}"


def _table_line(view: View, table: int, tr: Translator) -> str:
    """One table: label, topic (marked when flipped) and the cards lying there."""
    topic = _topic(view.table_topics[table], tr)
    if view.flipped[table]:
        topic = f"{topic} {FLIPPED_MARK}"
    lying = cards_text(view.tables[table]) or tr.gettext("(empty)")
    # TRANSLATORS: e.g. "Table 2 · 🧩 Logic: 🧩4 🧩5"; the cards lying on that table.
    return tr.gettext("{table} · {topic}: {cards}").format(
        table=_table_name(table, tr), topic=topic, cards=lying
    )


def _table_lines(view: View, tr: Translator) -> list[str]:
    """The three topic tables, one line each."""
    return [_table_line(view, t, tr) for t in range(len(view.tables))]


def action_name(kind: str, tr: Translator) -> str:
    """The rulebook's name of an action kind, as on buttons."""
    names = {
        BABBLE: tr.pgettext("action", "Babble"),
        CUT_OFF: tr.pgettext("action", "Cut off"),
        ARGUE: tr.pgettext("action", "Argue"),
        LISTEN: tr.pgettext("action", "Listen"),
        LET_GO: tr.pgettext("action", "Let go"),
        FLIP: tr.pgettext("action", "Flip the table"),
    }
    return names[kind]


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
    return f"{_table_name(table, tr)} {TOPIC_EMOJI[view.table_topics[table]]}"


def _label_cut_off(group: Sequence[Action], view: View, tr: Translator) -> str:
    table = group[0].table
    return f"{_table_name(table, tr)} {cards_text(view.tables[table])}"


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
        _Level(_card_key, _card_key_order, _label_card, N_("Babble: choose a card."), 5),
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
        ),
        _Level(_cards_key, _cards_order, _label_cards, N_("Argue {numbers}: choose the cards."), 3),
        _Level(_table_key, _table_order, _label_table, N_("Argue {cards}: choose a table."), 3),
    ),
    LISTEN: (
        _Level(_table_key, _table_order, _label_table, N_("Listen: choose a table."), 3),
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


def _choices(
    view: View, legal: Sequence[Action], path: str, tr: Translator
) -> tuple[str, str, Options]:
    """The path actually shown (stale paths fall back to ""), its prompt and its options."""
    legal = list(dict.fromkeys(legal))
    path, under = _resolve(path, legal)
    level = _next_level(path)
    options = [_option(path, g, level, view, tr) for g in _groups(under, level)]
    rows = _rows(options, level.per_row)
    if path:
        back = tr.gettext("Back")
        rows += ((Option(f"⬅️ {back}", nav=_back(path, legal)),),)
    return path, _prompt(level, under[0], tr), rows


def _prompt(level: _Level, action: Action, tr: Translator) -> str:
    """The level's prompt, filled from one of the actions under the path."""
    return tr.gettext(level.prompt).format(
        card=card_text(action.cards[0]) if action.cards else "",
        cards=cards_text(action.cards),
        numbers=_numbers(action),
        table=_table_name(action.table, tr),
    )


# --- narration -----------------------------------------------------------------------------


def _narrate_action(event: object, names: Sequence[str], tr: Translator) -> str | None:
    """One line for an action event."""
    match event:
        case Babbled(player, table, card):
            return tr.gettext("{player} babbled {card} onto {table} ({topic}).").format(
                player=names[player],
                card=card_text(card),
                table=_table_name(table, tr),
                topic=_topic(TOPIC[card], tr),
            )
        case CutOff(player, table, card):
            return tr.gettext("{player} cut off {card} from {table}: +1 ✦").format(
                player=names[player], card=card_text(card), table=_table_name(table, tr)
            )
        case Argued():
            return _narrate_argue(event, names, tr)
        case Listened(player, table, card, discarded):
            return tr.gettext(
                "{player} listened at {table}: took {card}, discarded {cards}."
            ).format(
                player=names[player],
                table=_table_name(table, tr),
                card=card_text(card),
                cards=cards_text(discarded),
            )
        case LetGo(player, cards):
            return tr.gettext("{player} let go of {cards}.").format(
                player=names[player], cards=cards_text(cards)
            )
        case Flipped(player, table, discarded, topic):
            return tr.gettext(
                "{player} flipped {table}, discarding {cards}: it now shows {topic}."
            ).format(
                player=names[player],
                table=_table_name(table, tr),
                cards=cards_text(discarded),
                topic=_topic(topic, tr),
            )
    return None


def _narrate_argue(event: Argued, names: Sequence[str], tr: Translator) -> str:
    """An argue: what was played where, what was collected, and a fallacy when it decided."""
    fields = {
        "player": names[event.player],
        "cards": cards_text(event.cards),
        "table": _table_name(event.table, tr),
        "collected": cards_text(event.collected),
        "ego": len(event.collected),
    }
    if not event.collected:
        return tr.gettext("{player} argued {cards} on the empty {table}.").format(**fields)
    line = tr.gettext(
        "{player} argued {cards} on {table} and collected {collected}: +{ego} ✦"
    ).format(**fields)
    if event.fallacy:
        fallacy = tr.gettext("Fallacy! 123 also beats 789.")
        line = f"{line} {fallacy}"
    return line


def _narrate_turn(event: object, names: Sequence[str], tr: Translator) -> str | None:
    """Momentum, a stuck player, the start of a round."""
    match event:
        case MomentumGained(player):
            return tr.gettext("{player} gains momentum and must act again!").format(
                player=names[player]
            )
        case Stuck(player):
            return tr.gettext("{player} cannot act: the round ends.").format(player=names[player])
        case RoundStarted(round_no, first, humblest) if humblest and round_no == 1:
            return tr.gettext(
                "The bot searched the circle for the least ego and found the humblest "
                "philosopher: {player} takes the first-player card and starts."
            ).format(player=names[first])
        case RoundStarted(round_no, first, _):
            return tr.gettext("Round {round} begins; {player} holds the first-player card.").format(
                round=round_no, player=names[first]
            )
    return None


# --- announcements -------------------------------------------------------------------------


def _score_line(
    score: RoundScore, tied: bool, total: int, names: Sequence[str], tr: Translator
) -> str:
    """One ranked row of a round's result."""
    parts = [
        f"{score.place}. {names[score.player]}",
        tr.gettext("ego ✦ {ego} ({collected} collected − {left} in hand)").format(
            ego=score.ego, collected=score.collected, left=score.left_in_hand
        ),
    ]
    if tied:
        parts.append(tr.gettext("hand sum {sum}").format(sum=score.hand_sum))
    # TRANSLATORS: trophies won this round, then the player's new total.
    parts.append(tr.gettext("🏆 +{won} → {total}").format(won=score.trophies_won, total=total))
    return " · ".join(parts)


def _announce_round(event: RoundEnded, names: Sequence[str], tr: Translator) -> str:
    """A round's ranking, and why it ended."""
    head = tr.gettext("Round {round} of {rounds} is over.").format(round=event.round, rounds=ROUNDS)
    if event.emptied_by is None:
        why = tr.gettext("A player could not act, which ended the round.")
    else:
        why = tr.gettext("{player} emptied their hand.").format(player=names[event.emptied_by])
    egos = [s.ego for s in event.scores]
    lines = [f"<b>{head}</b>", why, ""]
    for s in event.scores:
        tied = egos.count(s.ego) > 1
        lines.append(_score_line(s, tied, event.trophies[s.player], names, tr))
    pairs = [(s.ego, s.hand_sum) for s in event.scores]
    if len(set(pairs)) < len(pairs):
        lines.append(
            tr.gettext(
                "Tied on ego and hand sum: the player farther clockwise from the first player "
                "ranks higher."
            )
        )
    return "\n".join(lines)


def _announce_game(event: GameEnded, names: Sequence[str], tr: Translator) -> str:
    """The final ranking by trophies, and the winner celebrated."""
    over = tr.gettext("Game over!")
    lines = [f"<b>{over}</b>", ""]
    for place, player in enumerate(event.ranking, start=1):
        lines.append(f"{place}. {names[player]} · 🏆 {event.trophies[player]}")
    winner = event.ranking[0]
    if len(event.ranking) > 1 and event.trophies[winner] == event.trophies[event.ranking[1]]:
        lines.append(tr.gettext("Tied on trophies: the better place in the last round wins."))
    lines.append("")
    lines.append(
        tr.nt(
            "🎉 {player} wins with {n} trophy, ego filled to the brim!",
            "🎉 {player} wins with {n} trophies, ego filled to the brim!",
            event.trophies[winner],
            player=f"<b>{names[winner]}</b>",
        )
    )
    return "\n".join(lines)


# --- refusals ------------------------------------------------------------------------------

EXPLANATIONS: dict[str, tuple[str, str]] = {
    "babble_one_card": (N_("Babble plays exactly one card."), "babble"),
    "babble_on_single": (
        N_(
            "Single cards never beat each other: you cannot babble onto a table that holds "
            "one card, even a higher one."
        ),
        "babble",
    ),
    "babble_needs_empty_table": (
        N_("You may babble only onto an empty topic table."),
        "babble",
    ),
    "babble_topic": (
        N_("Babble onto the empty topic table that matches the card's topic."),
        "babble",
    ),
    "cut_off_needs_single": (
        N_("You may cut off only from a topic table holding exactly one card."),
        "cut_off",
    ),
    "not_a_sequence": (
        N_(
            "Argue with a sequence: two or three cards with consecutive numbers, such as 12 "
            "or 123 (not 11, 122 or 912)."
        ),
        "sequence",
    ),
    "argue_topic": (
        N_(
            "Your sequence must match the table's topic: at least one of its cards must have "
            "that topic."
        ),
        "argue",
    ),
    "argue_topic_strict": (
        N_("Strict topics: every card of your sequence must have the table's topic."),
        "rulings",
    ),
    "argue_fewer_cards": (
        N_("More cards win: your sequence has fewer cards than the table holds."),
        "winning",
    ),
    "argue_not_higher": (
        N_(
            "With the same number of cards, only the higher sequence wins (and 123 also "
            "beats 789): yours does not."
        ),
        "winning",
    ),
    "listen_needs_three_players": (N_("Listen is for 3–4 players only."), "listen"),
    "listen_needs_two_cards": (
        N_("You may listen only at a topic table holding two or more cards."),
        "listen",
    ),
    "listen_card_not_on_table": (
        N_("When you listen, take one of the cards lying on that table."),
        "listen",
    ),
    "let_go_needs_two": (
        N_("Let go discards two or more cards of the same number."),
        "let_go",
    ),
    "let_go_one_number": (
        N_("Let go discards cards of one number only: not 11 and 22 in one go."),
        "let_go",
    ),
    "flip_mode_off": (
        N_("Flipping the table is for flip-table mode only, and this game is not in it."),
        "flip_mode",
    ),
    "flip_needs_three": (
        N_("You may flip only a topic table holding exactly three cards."),
        "flip",
    ),
    "card_not_in_hand": (N_("That card is not in your hand."), "general"),
    "not_your_turn": (N_("It's not your turn."), "turn"),
    "game_over": (N_("The game is over."), "game_end"),
    "no_such_table": (N_("There is no such topic table: there are three."), "components"),
    "bad_action": (N_("That is not one of the actions of your turn."), "turn"),
    "player_count": (N_("Egonomy is for {min}–{max} players."), "components"),
    "unknown_option": (
        N_("Egonomy has no such option: only flip-table mode and strict topics."),
        "rulings",
    ),
}
_UNKNOWN_REFUSAL = (N_("That is not allowed now."), "turn")


# --- the presenter -------------------------------------------------------------------------


def _player_line(view: View, player: int, names: Sequence[str], tr: Translator) -> str:
    """A player's public line: markers, name, hand size, ego collected, trophies."""
    name = names[player]
    if player == view.turn and not view.over:
        name = f"{TURN_MARK} <b>{name}</b>"
    if player == view.first:
        name = f"{name} {FIRST_MARK}"
    held = tr.nt("{n} card", "{n} cards", view.hand_sizes[player])
    return tr.gettext("{name}: {cards} in hand · ✦ {ego} · 🏆 {trophies}").format(
        name=name, cards=held, ego=view.ego_piles[player], trophies=view.trophies[player]
    )


def _discard_line(view: View, tr: Translator) -> str:
    """The discard pile's size and its last cards (face up: everyone may look)."""
    if not view.discard:
        return tr.gettext("Discard pile: empty")
    shown = cards_text(view.discard[-DISCARD_SHOWN:])
    if len(view.discard) > DISCARD_SHOWN:
        shown = f"… {shown}"
    return tr.gettext("Discard pile ({n}): {cards}").format(n=len(view.discard), cards=shown)


def _turn_line(view: View, names: Sequence[str], tr: Translator) -> str:
    """Who is to act, and whether it is their momentum extra action."""
    if view.over:
        return tr.gettext("The game is over.")
    name = f"<b>{names[view.turn]}</b>"
    if view.momentum:
        return tr.gettext("{player} is to act: momentum, one more action!").format(player=name)
    return tr.gettext("{player} is to act.").format(player=name)


def _hand_line(view: View, tr: Translator) -> str:
    """The player's own hand, sorted by number."""
    cards = cards_text(by_number(view.hand)) or tr.gettext("(empty)")
    title = tr.gettext("Your hand")
    return f"<b>{title}</b> ({len(view.hand)}): {cards}"


def _own_line(view: View, tr: Translator) -> str:
    """The player's own ego collected so far and trophies."""
    me = view.me if view.me is not None else 0
    return tr.gettext("Your ego ✦ {ego} · trophies 🏆 {trophies}").format(
        ego=view.ego_piles[me], trophies=view.trophies[me]
    )


def _to_act_line(view: View, tr: Translator) -> str:
    """The player's own turn: a fresh action or the momentum extra one."""
    if view.momentum:
        momentum, again = tr.gettext("Momentum!"), tr.gettext("Take one more action.")
        return f"<b>{momentum}</b> {again}"
    yours = tr.gettext("Your turn!")
    return f"<b>{yours}</b>"


def _units(text: str) -> int:
    """A text's length in UTF-16 code units (an emoji outside the BMP counts 2)."""
    return len(text.encode("utf-16-le")) // 2


class EgonomyPresenter:
    """Egonomy's texts and choices for the chat core."""

    game = "egonomy"

    def title(self, tr: Translator) -> str:
        """The game's name."""
        return tr.gettext("Egonomy")

    def option_label(self, option: str, tr: Translator) -> str:
        """A lobby option's name."""
        labels = {
            "flip": tr.gettext("Flip-table mode"),
            "strict_topics": tr.gettext("Strict topics"),
        }
        return labels.get(option, option)

    def table(self, view: View, names: Sequence[str], log: Sequence[object], tr: Translator) -> str:
        """The group's table message: players, tables, discard pile, turn, recent events."""
        round_no = tr.gettext("Round {round} of {rounds}").format(round=view.round, rounds=ROUNDS)
        lines = [f"<b>{self.title(tr)}</b> · {round_no}"]
        lines += [_player_line(view, p, names, tr) for p in range(view.players)]
        lines += [
            "",
            *_table_lines(view, tr),
            _discard_line(view, tr),
            "",
            _turn_line(view, names, tr),
        ]
        narrated = [line for e in log if (line := self.narrate(e, names, tr))]
        if narrated:
            lines += ["", *(f"• {line}" for line in narrated[-LOG_LINES:])]
        return "\n".join(lines)

    def hand(
        self, view: View, legal: Sequence[Action], path: str, names: Sequence[str], tr: Translator
    ) -> tuple[str, Options]:
        """The private hand message, and the choices at `path` when the player must act."""
        lines = [_hand_line(view, tr), _own_line(view, tr), ""]
        if not legal:  # only what stays true until this player acts again: nothing goes stale
            if view.over:
                return "\n".join([*lines, tr.gettext("The game is over.")]), ()
            wait = tr.gettext(
                "⏳ Not your turn yet: the table in the group shows the game. "
                "Your choices come here when it is your turn."
            )
            return "\n".join([*lines, wait]), ()
        _, prompt, options = _choices(view, legal, path, tr)
        lines += [*_table_lines(view, tr), "", _to_act_line(view, tr), prompt]
        return "\n".join(lines), options

    def peek(self, view: View, tr: Translator) -> str:
        """The hand in one short line (at most 200 UTF-16 units, as platforms count them)."""
        cards = [card_text(c) for c in by_number(view.hand)]
        ego = view.ego_piles[view.me] if view.me is not None else 0
        title, ego_text = tr.gettext("Your hand"), tr.gettext("ego ✦ {ego}").format(ego=ego)
        head, tail = f"{title} ({len(cards)}): ", f" · {ego_text}"
        text = head + " ".join(cards) + tail
        while _units(text) > PEEK_LIMIT and cards:
            cards.pop()
            text = f"{head}{' '.join(cards)} …{tail}"
        return text

    def narrate(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        """One log line per action, momentum, stuck player and round start; else None."""
        return _narrate_action(event, names, tr) or _narrate_turn(event, names, tr)

    def announce(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        """A new group message at a round's end and the game's end; else None."""
        if isinstance(event, RoundEnded):
            return _announce_round(event, names, tr)
        if isinstance(event, GameEnded):
            return _announce_game(event, names, tr)
        return None

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        """Why the engine refused an action, and the rule section that says so."""
        msgid, section = EXPLANATIONS.get(code, _UNKNOWN_REFUSAL)
        return tr.gettext(msgid).format(**params), section


PRESENTER = EgonomyPresenter()
