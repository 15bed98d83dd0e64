"""Ano in the chat: the table message, a player's hand and choices, narration, refusals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatbot.core.model import units
from chatbot.i18n import N_, NP_, P_, Translator
from chatbot.present.ano import page
from chatbot.present.ano.text import SUIT_SYMBOLS, by_suit, card_text, cards_text, choices
from chatbot.present.base import Option, Options, told_lines
from engine.ano.events import (
    CAUGHT,
    CHAIN,
    FUMBLE,
    AnoCalled,
    AnoForgotten,
    Caught,
    ChainEnded,
    Dealt,
    DrawPending,
    Drew,
    FalseCatch,
    Finished,
    Fumbled,
    GameEnded,
    Kept,
    MayPlayDrawn,
    Played,
    Reshuffled,
    Reversed,
    Skipped,
    Stalled,
)
from engine.ano.rules import CATCH, FORGOT_CALL, OWES, Action, encode_action
from engine.ano.view import View

LOG_LINES = 5
TURN_MARK = "▶️"

EXPLANATIONS: dict[str, tuple[str, str]] = {
    "not_your_turn": (N_("It is not your turn."), "turn"),
    "does_not_fit": (
        N_("Play a card of the top card's rank or suit (after a joker: the named suit)."),
        "turn",
    ),
    "must_play": (N_("You can play a card, so you may not draw."), "turn"),
    "one_rank": (N_("Only cards of one rank may go down together."), "turn"),
    "name_a_suit": (N_("Name a suit with your joker."), "specials"),
    "special_last": (N_("Special cards may not be your last card (table option)."), "options"),
    "jump_one_card": (N_("Jump in with one card at a time."), "options"),
    "jump_no_joker": (N_("A joker never jumps in."), "options"),
    "jump_not_identical": (
        N_("Jump in only with a card identical to the top card, rank and suit."),
        "options",
    ),
    "nothing_to_call": (N_("You have nothing to call."), "ano"),
    "nothing_to_catch": (N_("Too late: there is nobody to catch."), "ano"),
    "play_drawn_only": (N_("You may play only the card you drew, or keep it."), "options"),
    "play_or_keep_drawn": (N_("Play the card you drew, or keep it."), "options"),
    "nothing_drawn": (N_("You drew no card to keep."), "options"),
    "card_not_in_hand": (N_("You do not hold that card."), "turn"),
    "finished": (N_("You have finished: well done!"), "end"),
    "game_over": (N_("The game is over."), "end"),
    "option_needs": (N_("Jump-in is played only with two decks."), "options"),
}
UNKNOWN_REFUSAL = (N_("That is not possible now."), "turn")

OPTION_LABELS = {
    "decks": N_("Decks"),
    "jokers": N_("Jokers"),
    "uno_rules": N_("Uno rules"),
    "jump_in": N_("Jump-in"),
    "fumble": N_("Fumble"),
    "special_last": N_("No special card last"),
    "points": N_("Points"),
    "play_drawn": N_("Play the drawn card"),
}


def _direction(view: View, tr: Translator) -> str:
    """The direction of play, in words beside its icon."""
    if view.direction > 0:
        # TRANSLATORS: Ano's direction of play, beside the top card.
        return tr.gettext("🔃 clockwise")
    # TRANSLATORS: Ano's direction of play after an A reversed it.
    return tr.gettext("🔄 anticlockwise")


def _player_line(view: View, p: int, names: Sequence[str], tr: Translator) -> str:
    name = names[p]
    if p == view.turn and not view.over:
        name = f"{TURN_MARK} <b>{name}</b>"
    if p in view.finished:
        place = view.finished.index(p) + 1
        return tr.t("{name}: finished, place {place}", name=name, place=place)
    line = tr.t(
        "{name}: {cards}", name=name, cards=tr.nt("{n} card", "{n} cards", view.hand_sizes[p])
    )
    if view.ano[p] == OWES:
        line += tr.sep() + tr.gettext("must call Ano!")
    elif view.ano[p] == FORGOT_CALL:
        line += tr.sep() + tr.gettext("forgot Ano: catch!")
    return line


def _top_line(view: View, tr: Translator) -> str:
    top = card_text(view.top)
    if view.named >= 0:
        top += " → " + SUIT_SYMBOLS[view.named]
    line = tr.t("Top card: {card}", card=top) + tr.sep() + _direction(view, tr)
    if view.pending:
        line += tr.sep() + tr.t("draw {n} pending", n=view.pending)
    return line


def _pile_line(view: View, tr: Translator) -> str:
    return tr.t("Draw pile: {pile} · discard pile: {discard}", pile=view.pile, discard=view.discard)


def _counted(label: str, n: int, items: str, tr: Translator) -> str:
    """A heading with its count, then the items: "Your hand (4): …"."""
    return tr.t("{label} ({n}): {items}", label=label, n=n, items=items)


class AnoPresenter:
    """Ano's texts and choices for the chat core."""

    game = "ano"

    def title(self, tr: Translator) -> str:
        return tr.gettext("Ano")

    def option_label(self, option: str, tr: Translator) -> str:
        msgid = OPTION_LABELS.get(option)
        return tr.gettext(msgid) if msgid else option

    def option_value(self, option: str, value: bool | int, tr: Translator) -> str:
        """The number of decks."""
        return tr.number(int(value))

    def table(self, view: View, names: Sequence[str], log: Sequence[Any], tr: Translator) -> str:
        lines = [f"<b>{self.title(tr)}</b>", _top_line(view, tr)]
        lines += [_player_line(view, p, names, tr) for p in range(view.players)]
        lines += [_pile_line(view, tr)]
        if view.over:
            lines.append(tr.gettext("The game is over."))
        else:
            lines.append(tr.t("{player} is to play.", player=f"<b>{names[view.turn]}</b>"))
        if narrated := told_lines(self, log, names, tr, LOG_LINES):
            lines += ["", *narrated]
        return "\n".join(lines)

    def table_options(
        self, view: View, legal: Sequence[Sequence[Action]], names: Sequence[str], tr: Translator
    ) -> Options:
        """A "Caught!" button per player who forgot to call Ano, for every other player."""
        targets = sorted({a.target for seat in legal for a in seat if a.kind == CATCH})
        targets = [t for t in targets if view.ano[t] == FORGOT_CALL]
        if not targets:
            return ()
        buttons = tuple(
            Option(
                "🫵 " + tr.t("Caught {player}!", player=names[t]),
                act=encode_action(Action(CATCH, target=t)),
            )
            for t in targets
        )
        return (buttons,)

    def hand(
        self,
        view: View,
        legal: Sequence[Action],
        path: str,
        names: Sequence[str],
        tr: Translator,
        label_chars: int = 64,
    ) -> tuple[str, Options]:
        cards = cards_text(by_suit(view.hand)) or tr.gettext("(empty)")
        # the context: Thai says ไพ่ for playing cards where other games say การ์ด
        head = tr.pgettext("playing cards", "Your hand")
        lines = [_counted(f"<b>{head}</b>", len(view.hand), cards, tr), _top_line(view, tr)]
        if view.drawn >= 0:
            lines.append(tr.t("You drew {card}: play it or keep it.", card=card_text(view.drawn)))
        if not legal:
            if view.over:
                lines.append(tr.gettext("The game is over."))
            else:
                lines.append(
                    tr.gettext("⏳ Not your turn yet: the table in the group shows the game.")
                )
            return "\n".join(lines), ()
        if view.me == view.turn:
            lines.append("<b>" + tr.pgettext("playing cards", "Your turn!") + "</b>")
        prompt, options = choices(legal, path, tr)
        if prompt:
            lines.append(prompt)
        return "\n".join(lines), options

    def peek(self, view: View, tr: Translator, chars: int) -> str:
        cards = [card_text(c) for c in by_suit(view.hand)]
        head, n = tr.pgettext("playing cards", "Your hand"), len(cards)
        text = _counted(head, n, " ".join(cards), tr)
        while units(text) > chars and cards:
            cards.pop()
            text = _counted(head, n, " ".join(cards) + " …", tr)
        return text

    def confirm(self, view: View, action: Action, tr: Translator, before: Any = None) -> str:
        return ""

    def narrate(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        return _narrate(event, names, tr)

    def announce(self, event: object, names: Sequence[str], tr: Translator) -> str | None:
        if not isinstance(event, GameEnded):
            return None
        lines = ["<b>" + tr.gettext("Ano: the game is over.") + "</b>"]
        for player, place, score in zip(event.ranking, event.places, event.scores, strict=True):
            line = tr.t("{place}. {name}", place=place, name=names[player])
            if score and event.points:  # points mode: the points still in hand count
                line += tr.sep() + tr.nt("{n} point in hand", "{n} points in hand", score)
            lines.append(line)
        winners = [
            names[p] for p, place in zip(event.ranking, event.places, strict=True) if place == 1
        ]
        if len(winners) == 1:
            lines += ["", tr.t("🏆 {players} wins!", players=winners[0])]
        elif winners:
            lines += ["", tr.t("🏆 {players} share the win!", players=tr.list(winners))]
        return "\n".join(lines)

    def page_view(
        self, view: View, legal: Sequence[Any], names: Sequence[str], tr: Translator
    ) -> dict[str, Any]:
        return page.page_view(view, legal, names, tr)

    def legend(self, tr: Translator, labels: Sequence[str] = ()) -> str:
        return ""

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        msgid, section = EXPLANATIONS.get(code, UNKNOWN_REFUSAL)
        return tr.gettext(msgid), section


def _narrate(event: object, names: Sequence[str], tr: Translator) -> str | None:
    """One log line per event worth telling."""
    if isinstance(event, Dealt):
        return tr.t("Five cards each; the top card is {card}.", card=card_text(event.top))
    if isinstance(event, Played):
        text = cards_text(event.cards)
        if event.suit >= 0:
            text += " → " + SUIT_SYMBOLS[event.suit]
        if event.jump:
            return tr.t("{player} jumped in with {cards}.", player=names[event.player], cards=text)
        return tr.t("{player} played {cards}.", player=names[event.player], cards=text)
    if isinstance(event, Reversed):
        return tr.gettext("The direction is reversed.")
    if isinstance(event, Skipped):
        return tr.t("Skipped: {players}.", players=tr.list(names[p] for p in event.players))
    if isinstance(event, DrawPending):
        return tr.t("The next player draws {n} if unable to play.", n=event.total)
    if isinstance(event, ChainEnded):
        return tr.t("{player} ended the chain: nobody draws.", player=names[event.player])
    if isinstance(event, Drew):
        return _narrate_draw(event, names, tr)
    if isinstance(event, MayPlayDrawn):
        return tr.t("{player} may play the drawn card.", player=names[event.player])
    if isinstance(event, Kept):
        return tr.t("{player} kept the drawn card.", player=names[event.player])
    if isinstance(event, Fumbled):
        return tr.t(
            "{player} fumbled with {cards}.",
            player=names[event.player],
            cards=cards_text(event.cards),
        )
    if isinstance(event, Reshuffled):
        return tr.t("The discard pile was shuffled into a new draw pile.")
    if isinstance(event, AnoCalled):
        return tr.t("{player}: “Ano!”", player=names[event.player])
    if isinstance(event, AnoForgotten):
        return tr.t("{player} forgot to call Ano!", player=names[event.player])
    if isinstance(event, Caught):
        return tr.t(
            "{catcher} caught {player}!", catcher=names[event.catcher], player=names[event.player]
        )
    if isinstance(event, FalseCatch):
        return tr.t(
            "{catcher} called a false catch on {player}.",
            catcher=names[event.catcher],
            player=names[event.player],
        )
    if isinstance(event, Finished):
        return tr.t(
            "{player} finished: place {place}!", player=names[event.player], place=event.place
        )
    if isinstance(event, Stalled):
        return tr.gettext("Nobody can play and no card is left to draw: the game ends.")
    return None


def _narrate_draw(event: Drew, names: Sequence[str], tr: Translator) -> str:
    name = names[event.player]
    if event.reason == CHAIN:
        return tr.nt(
            "{player} drew {n} card at once.",
            "{player} drew {n} cards at once.",
            event.count,
            player=name,
        )
    if event.reason == CAUGHT:
        return tr.nt(
            "{player} draws {n} card as a penalty.",
            "{player} draws {n} cards as a penalty.",
            event.count,
            player=name,
        )
    if event.reason == FUMBLE:
        return tr.nt(
            "{player} draws {n} card for the fumble.",
            "{player} draws {n} cards for the fumble.",
            event.count,
            player=name,
        )
    return tr.nt("{player} drew {n} card.", "{player} drew {n} cards.", event.count, player=name)


PRESENTER = AnoPresenter()


# Second-person forms of the texts above, read when the player is the reader (the terminal
# names its player "You"): "You answer", not "You answers" (chatbot.i18n.YOU).
YOU_FORMS = (
    P_("you", "{player} is to play."),
    P_("you", "Caught {player}!"),
    P_("you", "🏆 {players} wins!"),
    P_("you", "{player} jumped in with {cards}."),
    P_("you", "{player} played {cards}."),
    P_("you", "{player} ended the chain: nobody draws."),
    P_("you", "{player} may play the drawn card."),
    P_("you", "{player} kept the drawn card."),
    P_("you", "{player} fumbled with {cards}."),
    P_("you", "{player}: “Ano!”"),
    P_("you", "{player} forgot to call Ano!"),
    P_("you", "{catcher} caught {player}!"),
    P_("you", "{catcher} called a false catch on {player}."),
    P_("you", "{player} finished: place {place}!"),
    NP_("you", "{player} drew {n} card at once.", "{player} drew {n} cards at once."),
    NP_("you", "{player} draws {n} card as a penalty.", "{player} draws {n} cards as a penalty."),
    NP_(
        "you", "{player} draws {n} card for the fumble.", "{player} draws {n} cards for the fumble."
    ),
    NP_("you", "{player} drew {n} card.", "{player} drew {n} cards."),
)
