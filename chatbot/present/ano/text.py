"""Ano's cards and choices as text and buttons: suit symbols, same-rank groups, the order."""

from __future__ import annotations

from collections.abc import Sequence

from chatbot.i18n import Translator
from chatbot.present.base import Option, Options
from engine.ano.cards import CODE, FACE_OF, JOKER, RANK, SUIT
from engine.ano.rules import CALL, DRAW, KEEP, PLAY, Action, encode_action

SUIT_SYMBOLS = ("♠️", "♥️", "♦️", "♣️")
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
JOKER_TEXT = "🃏"
PER_ROW = 4


def card_text(card: int) -> str:
    """ "7♥️", "10♠️", "Q♣️", "🃏"."""
    if card == JOKER:
        return JOKER_TEXT
    rank = RANK[card]
    return f"{RANK_TEXT.get(rank, str(rank))}{SUIT_SYMBOLS[SUIT[card]]}"


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def by_suit(cards: Sequence[int]) -> list[int]:
    """A hand in reading order: by suit, then rank; jokers last."""
    return sorted(cards, key=lambda c: (c == JOKER, SUIT[c], RANK[c]))


def _key(action: Action) -> str:
    """A play's cards as a path step ("s" + card codes, sorted): the order comes later."""
    return "s" + "".join(CODE[c] for c in sorted(action.cards))


def _plays(legal: Sequence[Action]) -> list[Action]:
    """The plays a person is offered: "Ano!" is their own button, pressed after the play."""
    return [a for a in legal if a.kind == PLAY and not a.call]


def choices(legal: Sequence[Action], path: str, tr: Translator) -> tuple[str, Options]:
    """The prompt and buttons at `path`: "" lists the cards (a same-rank group as one
    button), "s…" the card left on top, "s….t" the suit a joker names."""
    plays = _plays(legal)
    step, _, top = path.partition(".")
    under = [a for a in plays if _key(a) == step] if step else []
    if under and top:
        under = [a for a in under if CODE[a.cards[-1]] == top] or under
    if not under:
        return _top(legal, plays, tr)
    back = Option("⬅️ " + tr.gettext("Back"), nav="")
    tops = sorted({a.cards[-1] for a in under})
    if len(tops) > 1:
        options = [
            _play_or_nav([a for a in under if a.cards[-1] == t], f"{step}.{CODE[t]}", t)
            for t in tops
        ]
        prompt = tr.t("Play {cards}: which card goes on top?", cards=cards_text(under[0].cards))
        return prompt, (*_rows(options), (back,))
    suits = [Option(SUIT_SYMBOLS[a.suit], act=encode_action(a)) for a in under]
    prompt = tr.t("Play {cards}: name a suit.", cards=cards_text(under[0].cards))
    return prompt, (tuple(suits), (back,))


def _play_or_nav(group: list[Action], path: str, top: int) -> Option:
    label = card_text(top)
    if len(group) == 1:
        return Option(label, act=encode_action(group[0]))
    return Option(label, nav=path)


def _top(legal: Sequence[Action], plays: list[Action], tr: Translator) -> tuple[str, Options]:
    groups: dict[str, list[Action]] = {}
    for action in plays:
        groups.setdefault(_key(action), []).append(action)
    options: list[Option] = []
    for key, group in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        label = cards_text(by_suit([FACE_OF[c] for c in key[1:]]))
        options.append(
            Option(label, act=encode_action(group[0]))
            if len(group) == 1
            else Option(label, nav=key)
        )
    rows = list(_rows(options))
    extra = []
    if any(a.kind == DRAW for a in legal):
        extra.append(Option("📥 " + tr.gettext("Draw"), act=encode_action(Action(DRAW))))
    if any(a.kind == KEEP for a in legal):
        extra.append(Option("✋ " + tr.gettext("Keep it"), act=encode_action(Action(KEEP))))
    if any(a.kind == CALL for a in legal):
        extra.append(Option("📣 " + tr.gettext("Ano!"), act=encode_action(Action(CALL))))
    if extra:
        rows.append(tuple(extra))
    prompt = tr.gettext("Choose a card to play.") if plays else ""
    return prompt, tuple(rows)


def _order(key: str) -> tuple[int, ...]:
    cards = [FACE_OF[c] for c in key[1:]]
    first = by_suit(cards)[0]
    return (first == JOKER, SUIT[first], RANK[first], len(cards))


def _rows(options: Sequence[Option]) -> Options:
    return tuple(tuple(options[i : i + PER_ROW]) for i in range(0, len(options), PER_ROW))
