"""Egonomy in the chat: the table message, a player's hand and choices, narration, refusals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.core.model import units
from chatbot.i18n import NP_, P_, Translator
from chatbot.present.base import Options, told_lines
from chatbot.present.egonomy import page
from chatbot.present.egonomy.choices import choices
from chatbot.present.egonomy.narration import (
    announce_game,
    announce_round,
    narrate_action,
    narrate_turn,
)
from chatbot.present.egonomy.refusals import EXPLANATIONS, UNKNOWN_REFUSAL
from chatbot.present.egonomy.text import by_number, card_text, cards_text, table_lines
from engine.egonomy.events import GameEnded, RoundEnded
from engine.egonomy.rules import ROUNDS, Action
from engine.egonomy.view import View

LOG_LINES = 4  # narrated events shown under the table
DISCARD_SHOWN = 4  # the top cards of the discard pile shown
TURN_MARK = "▶️"
FIRST_MARK = "🎴"  # the first-player card

# The shared reminders in Egonomy's own words (Thai: เทิร์น, where the card games say ตา).
TURN_CONTEXT = "Egonomy's turn"  # the marks below spell it out: extraction reads literals
REMINDERS = (
    NP_(
        "Egonomy's turn",
        "⏰ {name}, it is your turn: {n} second left.",
        "⏰ {name}, it is your turn: {n} seconds left.",
    ),
    NP_(
        "Egonomy's turn",
        "⏰ It is your turn! If you do not move in {n} second, "
        "a computer player will move for you.",
        "⏰ It is your turn! If you do not move in {n} seconds, "
        "a computer player will move for you.",
    ),
    P_("Egonomy's turn", "Your choices come here when it is your turn."),
    P_(
        "Egonomy's turn",
        "When it is your turn, press 🃏 My hand on the table in the group: "
        "your choices come with the answer.",
    ),
    P_("Egonomy's turn", "That turn is over."),
)

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
        name=name,
        cards=held,
        ego=tr.number(view.ego_piles[player]),
        trophies=view.trophies[player],
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
        return tr.t("{player} is to act: momentum, one more action!", player=name)
    return tr.t("{player} is to act.", player=name)


def _hand_line(view: View, tr: Translator) -> str:
    """The player's own hand, sorted by number."""
    cards = cards_text(by_number(view.hand)) or tr.gettext("(empty)")
    title = f"<b>{tr.gettext('Your hand')}</b>"
    return _counted(title, len(view.hand), cards, tr)


def _counted(label: str, n: int, items: str, tr: Translator) -> str:
    """A heading with its count, then the items: "Your hand (4): …"."""
    # TRANSLATORS: {label} is a heading such as "Your hand", {n} how many, {items} the list.
    return tr.gettext("{label} ({n}): {items}").format(label=label, n=n, items=items)


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
        return tr.sentences(f"<b>{momentum}</b>", again)
    yours = tr.gettext("Your turn!")
    return f"<b>{yours}</b>"


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

    def option_value(self, option: str, value: bool | int, tr: Translator) -> str:
        """Egonomy's options are all yes/no."""
        return tr.number(int(value))

    def table_options(
        self, view: View, legal: Sequence[Sequence[Action]], names: Sequence[str], tr: Translator
    ) -> Options:
        """Egonomy is played from the private hands only."""
        return ()

    def confirm(self, view: View, action: Action, tr: Translator, before: Any = None) -> str:
        """The hand message shows the move; nothing more to say."""
        return ""

    def table(self, view: View, names: Sequence[str], log: Sequence[object], tr: Translator) -> str:
        """The group's table message: players, tables, discard pile, turn, recent events."""
        round_no = tr.gettext("Round {round} of {rounds}").format(round=view.round, rounds=ROUNDS)
        lines = [f"<b>{self.title(tr)}</b>{tr.sep()}{round_no}"]
        lines += [_player_line(view, p, names, tr) for p in range(view.players)]
        lines += [
            "",
            *table_lines(view, tr),
            _discard_line(view, tr),
            "",
            _turn_line(view, names, tr),
        ]
        if narrated := told_lines(self, log, names, tr, LOG_LINES):
            lines += ["", *narrated]
        return "\n".join(lines)

    def hand(
        self,
        view: View,
        legal: Sequence[Action],
        path: str,
        names: Sequence[str],
        tr: Translator,
        label_chars: int = 64,
    ) -> tuple[str, Options]:
        """The private hand message, and the choices at `path` when the player must act."""
        lines = [_hand_line(view, tr), _own_line(view, tr), ""]
        if not legal:  # only what stays true until this player acts again: nothing goes stale
            if view.over:
                return "\n".join([*lines, tr.gettext("The game is over.")]), ()
            wait = tr.pgettext(
                "Egonomy's turn", "⏳ Not your turn yet: the table in the group shows the game."
            )
            return "\n".join([*lines, wait]), ()
        _, prompt, options = choices(view, legal, path, tr, label_chars)
        lines += [*table_lines(view, tr), "", _to_act_line(view, tr), prompt]
        return "\n".join(lines), options

    def peek(self, view: View, tr: Translator, chars: int) -> str:
        """The hand in one line of at most `chars` UTF-16 units (as platforms count them)."""
        cards = [card_text(c) for c in by_number(view.hand)]
        ego = view.ego_piles[view.me] if view.me is not None else 0
        tail = tr.sep() + tr.gettext("ego ✦ {ego}").format(ego=ego)

        def line(shown: list[str], more: str) -> str:
            return _counted(tr.gettext("Your hand"), len(cards), " ".join(shown) + more, tr) + tail

        shown = list(cards)
        text = line(shown, "")
        while units(text) > chars and shown:
            shown.pop()
            text = line(shown, " …")
        return text

    def narrate(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        """One log line per action, momentum, stuck player and round start; else None."""
        return narrate_action(event, names, tr) or narrate_turn(event, names, tr)

    def announce(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        """A new group message at a round's end and the game's end; else None."""
        if isinstance(event, RoundEnded):
            return announce_round(event, names, tr)
        if isinstance(event, GameEnded):
            return announce_game(event, names, tr)
        return None

    def page_view(
        self, view: View, legal: Sequence[Any], names: Sequence[str], tr: Translator
    ) -> dict[str, Any]:
        return page.page_view(view, legal, names, tr)

    def legend(self, tr: Translator, labels: Sequence[str] = ()) -> str:
        return ""

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        """Why the engine refused an action, and the rule section that says so."""
        msgid, section = EXPLANATIONS.get(code, UNKNOWN_REFUSAL)
        return tr.gettext(msgid).format(**params), section


PRESENTER = EgonomyPresenter()


# Second-person forms of the texts above, read when the player is the reader (the terminal
# names its player "You"): "You answer", not "You answers" (chatbot.i18n.YOU).
YOU_FORMS = (
    P_("you", "{player} is to act: momentum, one more action!"),
    P_("you", "{player} is to act."),
    P_("you", "{player} babbled {card} onto {table} ({topic})."),
    P_("you", "{player} cut off {card} from {table}: +1 ✦"),
    P_("you", "{player} listened at {table}: took {card}, discarded {cards}."),
    P_("you", "{player} let go of {cards}."),
    P_("you", "{player} flipped {table}, discarding {cards}: it now shows {topic}."),
    P_("you", "{player} argued {cards} on the empty {table}."),
    P_("you", "{player} argued {cards} on {table} and collected {collected}: +{ego} ✦"),
    P_("you", "{player} gains momentum and must act again!"),
    P_("you", "{player} cannot act: the round ends."),
    P_(
        "you",
        "The bot searched the circle for the least ego and found the humblest philosopher: "
        "{player} takes the first-player card and starts.",
    ),
    P_("you", "Round {round} begins; {player} holds the first-player card."),
    P_("you", "{player} emptied their hand."),
    NP_(
        "you",
        "🎉 {player} wins with {n} trophy, ego filled to the brim!",
        "🎉 {player} wins with {n} trophies, ego filled to the brim!",
    ),
)
