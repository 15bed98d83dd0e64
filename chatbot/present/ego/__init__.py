"""EGO in the chat: one group message with the question and everyone's secret picks as
buttons, a reveal after every turn, standings, and the final ranking."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from chatbot.i18n import N_, NP_, P_, Translator
from chatbot.present.base import Option, Options, told_lines
from chatbot.present.ego.questions import question
from engine.ego.events import GameEnded, Refused, Revealed, Skipped, TurnStarted
from engine.ego.rules import ANSWERS, REFUSAL_COST, REFUSE, STAKES, Action
from engine.ego.view import View

LOG_LINES = 3  # narrated events shown under the table
DIGITS = {1: "1️⃣", 2: "2️⃣", 3: "3️⃣"}
TURN_MARK = "▶️"
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}

# Why the engine refused a press: (msgid, rule section).
EXPLANATIONS: dict[str, tuple[str, str]] = {
    "game_over": (N_("The game is over."), "end"),
    "not_a_player": (N_("You are not playing in this game."), "turn"),
    "refuse_not_yours": (N_("Only the player who answers this turn may refuse."), "refusing"),
    "answerer_no_stake": (N_("You answer this turn: the others bet, not you."), "guessing"),
    "broke": (
        N_("You have no tokens left: wait for your own turn to answer and win some back."),
        "broke",
    ),
    "not_a_guesser": (N_("You cannot guess this turn."), "guessing"),
    "skipped": (N_("You were skipped this turn: you did not pick in time."), "guessing"),
    "stake_too_high": ("You cannot bet {stake}: you have {n} tokens.", "guessing"),  # a plural
    "bad_action": (N_("That is not a move in this game."), "turn"),
}
UNKNOWN_REFUSAL = (N_("That is not allowed now."), "turn")


def texts(card: str, tr: Translator) -> tuple[str, tuple[str, str, str]]:
    """The card's question and answers, HTML-escaped."""
    asked, answers = question(card, tr)
    a, b, c = (html.escape(x) for x in answers)
    return html.escape(asked), (a, b, c)


def answer_text(card: str, answer: int, tr: Translator) -> str:
    """ "2️⃣ Tea" for an answer of `card`."""
    return f"{DIGITS[answer]} {texts(card, tr)[1][answer - 1]}"


def tokens_text(n: int, tr: Translator) -> str:
    return tr.nt("{n} token", "{n} tokens", n)


def coins(name: str, n: int, tr: Translator) -> str:
    """ "Ann: 🪙 7", punctuated the language's way."""
    # TRANSLATORS: a player's name and their bet tokens.
    return tr.t("{name}: 🪙 {n}", name=name, n=tr.number(n))


def standings(tokens: Sequence[int], names: Sequence[str], tr: Translator) -> list[str]:
    """Players by tokens, most first; equal tokens share a place."""
    order = sorted(range(len(tokens)), key=lambda p: -tokens[p])
    lines = []
    for p in order:
        place = 1 + sum(t > tokens[p] for t in tokens)
        lines.append(f"{MEDALS.get(place, f'{place}.')} {coins(names[p], tokens[p], tr)}")
    return lines


def refuse_label(from_bank: bool, tr: Translator) -> str:
    """The refusal button, whose cost follows the lobby option."""
    if from_bank:
        # TRANSLATORS: a button (LINE allows 20 characters): the tray loses {n} tokens.
        return tr.t("🙅 Refuse (tray −{n})", n=REFUSAL_COST)
    # TRANSLATORS: a button (LINE allows 20 characters): the refuser pays {n} tokens.
    return tr.nt("🙅 Refuse (−{n} token)", "🙅 Refuse (−{n} tokens)", REFUSAL_COST)


def winner_line(winners: Sequence[str], tr: Translator) -> str:
    """ "🏆 Ann wins!", or the players who share the win."""
    if len(winners) == 1:
        return tr.t("🏆 {players} wins!", players=winners[0])
    return tr.t("🏆 {players} share the win!", players=tr.list(winners))


def nobody_won(tr: Translator) -> str:
    """Everyone broke: nobody is celebrated for holding no token."""
    return tr.gettext("Nobody wins.")


class EgoPresenter:
    """EGO's texts and group buttons for the chat core."""

    game = "ego"

    def title(self, tr: Translator) -> str:
        return tr.gettext("EGO")

    def option_label(self, option: str, tr: Translator) -> str:
        labels = {"refusal_from_bank": tr.gettext("Refusal takes 2 from the tray")}
        return labels.get(option, option)

    def option_value(self, option: str, value: bool | int, tr: Translator) -> str:
        return tr.number(int(value))

    # --- the group's table --------------------------------------------------------------------

    def _player_line(self, view: View, p: int, names: Sequence[str], tr: Translator) -> str:
        name = names[p]
        if p == view.active and not view.over:
            name = f"{TURN_MARK} <b>{name}</b>"
        mark = ""
        if not view.over:
            if view.skipped[p]:
                mark = " 💤"
            elif view.locked[p]:
                mark = " ✅"
            elif p == view.active or p in view.guessers:
                mark = " ⏳"
            else:
                mark = " " + tr.gettext("(no tokens: waits)")
        return coins(name, view.tokens[p], tr) + mark

    def table(self, view: View, names: Sequence[str], log: Sequence[Any], tr: Translator) -> str:
        """Players with their tokens and who has locked in, the tray, the question and its
        answers, what to do, and the last events."""
        head = tr.t("Turn {turn}", turn=view.turn)
        sep = tr.sep()
        lines = [f"<b>{self.title(tr)}</b>{sep}{head}{sep}" + tr.t("🧺 Tray: {n}", n=view.bank)]
        lines += [self._player_line(view, p, names, tr) for p in range(view.players)]
        if view.over:
            lines += ["", tr.gettext("The game is over.")]
        else:
            asked, answers = texts(view.card, tr)
            active = f"<b>{names[view.active]}</b>"
            lines += ["", f"❓ <b>{asked}</b>"]
            lines += [f"{DIGITS[a]} {answers[a - 1]}" for a in ANSWERS]
            lines += [
                "",
                tr.t("{player}: secretly pick the answer you agree with most.", player=active),
            ]
            if view.guessers:
                lines.append(
                    tr.gettext(
                        "Everyone else: guess their answer and bet 1 or 2 tokens "
                        "(you may change your mind until everyone has locked in)."
                    )
                )
            else:
                lines.append(tr.gettext("Nobody has tokens to bet this turn."))
        if narrated := told_lines(self, log, names, tr, LOG_LINES):
            lines += ["", *narrated]
        return "\n".join(lines)

    def table_options(
        self, view: View, legal: Sequence[Sequence[Action]], names: Sequence[str], tr: Translator
    ) -> Options:
        """The picks, for whoever may make them: 1/2/3 (the answer, or a guess), a bet,
        both in one press, and the refusal."""
        if view.over:
            return ()
        offered = {a for actions in legal for a in actions}
        bet = tr.gettext("bet {n}")
        rows: list[tuple[Option, ...]] = [
            tuple(Option(DIGITS[a], act=str(a)) for a in ANSWERS if Action(a) in offered)
        ]
        for s in STAKES:
            rows.append(
                tuple(
                    Option(f"{a} · {bet.format(n=s)}", act=f"{a}b{s}")
                    for a in ANSWERS
                    if Action(a, s) in offered
                )
            )
        rows.append(
            tuple(
                Option("🪙 " + bet.format(n=s), act=f"b{s}")
                for s in STAKES
                if Action(0, s) in offered
            )
        )
        if REFUSE in offered:
            rows.append((Option(refuse_label(view.from_bank, tr), act="x"),))
        return tuple(r for r in rows if r)

    def hand(
        self,
        view: View,
        legal: Sequence[Any],
        path: str,
        names: Sequence[str],
        tr: Translator,
        label_chars: int = 64,
    ) -> tuple[str, Options]:
        """EGO has no private hand: everything is on the group's table."""
        return self.peek(view, tr, 0), ()

    def peek(self, view: View, tr: Translator, chars: int) -> str:
        """The player's tokens and own pick this turn (always short: `chars` is not needed)."""
        me = view.me if view.me is not None else 0
        text = tr.t("You have 🪙 {n}.", n=view.tokens[me])
        if view.my_answer:
            text = tr.sentences(text, tr.t("Your pick: {answer} 🤫", answer=DIGITS[view.my_answer]))
        return text

    def confirm(self, view: View, action: Action, tr: Translator, before: Any = None) -> str:
        """The presser's private confirmation: "You picked 2 🤫, stake 2". `view` is after the
        press, which may have revealed the turn and begun the next one; `before`, the view
        before the press, holds the half of a pick made earlier."""
        if action.refuse:
            return tr.gettext("You refused to answer.")
        prior = before if isinstance(before, View) else None
        if prior is not None and prior.me == prior.active:
            return tr.t("You answered {answer} 🤫", answer=action.answer)
        live = not view.over and view.me is not None
        if prior is None and live and view.me == view.active and view.my_answer == action.answer:
            return tr.t("You answered {answer} 🤫", answer=action.answer)
        if prior is not None:
            same_turn = live and view.turn == prior.turn
        else:
            same_turn = (
                live
                and view.me != view.active
                and action.answer in (0, view.my_answer)
                and action.stake in (0, view.my_stake)
            )
            answered = bool(view.history) and view.history[-1][0] == view.me
            if not same_turn and answered and not action.stake:
                return tr.t("You answered {answer} 🤫", answer=action.answer)
        if same_turn:  # the turn goes on: the view holds the whole pick so far
            answer, stake = view.my_answer, view.my_stake
        else:  # revealed at once: this press, and the half of the pick made before it
            answer = action.answer or (prior.my_answer if prior else 0)
            stake = action.stake or (prior.my_stake if prior else 0)
        if answer and stake:
            return tr.t("You picked {answer} 🤫, stake {stake}", answer=answer, stake=stake)
        if answer:
            bet = tr.gettext("bet {n}")
            return tr.t(
                "You picked {answer} 🤫: now bet with “{one}” or “{two}”.",
                answer=answer,
                one="🪙 " + bet.format(n=STAKES[0]),
                two="🪙 " + bet.format(n=STAKES[1]),
            )
        return tr.t("Stake {stake} 🤫: now pick 1, 2 or 3.", stake=stake)

    # --- events ----------------------------------------------------------------------------------

    def narrate(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        match event:
            case TurnStarted(turn=turn, player=player):
                return tr.t("Turn {turn}: {player} answers.", turn=turn, player=names[player])
            case Skipped(player=player):
                return tr.t(
                    "{player} did not pick in time: skipped this turn, no loss.",
                    player=names[player],
                )
            case Refused():
                return self._refused(event, names, tr)
            case Revealed(player=player, answer=answer, guesses=guesses, void=void):
                right = sum(1 for g in guesses if g.answer == answer)
                if not right and not void:
                    return tr.t(
                        "{player} answered {answer}: nobody guessed right.",
                        player=names[player],
                        answer=answer,
                    )
                if void:
                    return tr.t(
                        "{player} answered {answer}: the turn is void.",
                        player=names[player],
                        answer=answer,
                    )
                return tr.nt(
                    "{player} answered {answer}: {n} right guess.",
                    "{player} answered {answer}: {n} right guesses.",
                    right,
                    player=names[player],
                    answer=answer,
                )
        return None

    def _refused(self, event: Refused, names: Sequence[str], tr: Translator) -> str:
        player = names[event.player]
        late = ""
        if event.timed_out:
            late = tr.t(
                "{player} did not answer in time, so the turn counts as a refusal.", player=player
            )
        if event.from_bank:
            text = tr.nt(
                "{player} refused to answer: {n} token left the tray.",
                "{player} refused to answer: {n} tokens left the tray.",
                event.paid,
                player=player,
            )
        elif event.paid:
            text = tr.nt(
                "{player} refused to answer and paid {n} token into the tray.",
                "{player} refused to answer and paid {n} tokens into the tray.",
                event.paid,
                player=player,
            )
        else:
            text = tr.t("{player} refused to answer (no tokens to pay).", player=player)
        if event.withdrawn:
            withdrawn = tr.nt("{n} guess withdrawn.", "{n} guesses withdrawn.", event.withdrawn)
            text = tr.sentences(text, withdrawn)
        return tr.sentences(late, text) if late else text

    def announce(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        if isinstance(event, Revealed):
            return self._reveal(event, names, tr)
        if isinstance(event, GameEnded):
            return self._final(event, names, tr)
        return None

    def _reveal(self, event: Revealed, names: Sequence[str], tr: Translator) -> str:
        """The question, the answer, every guess with its stake and payout, the tray, the
        standings."""
        asked, _ = texts(event.card, tr)
        lines = [
            "🎉 <b>" + tr.gettext("Reveal!") + "</b>",
            f"❓ {asked}",
            tr.t(
                "{player} agrees most with: {answer}",
                player=f"<b>{names[event.player]}</b>",
                answer=f"<b>{answer_text(event.card, event.answer, tr)}</b>",
            ),
            "",
        ]
        for g in event.guesses:
            right = g.answer == event.answer
            if event.void:
                result = tr.gettext("stake returned")
            elif right:
                result = tr.t("right! +{n}", n=g.payout)
            else:
                result = tr.t("wrong, −{n}", n=-g.payout)
            lines.append(
                ("✅ " if right else "❌ ")
                + tr.t(
                    "{player} guessed {answer}, bet {stake}: {result}",
                    player=names[g.player],
                    answer=g.answer,
                    stake=g.stake,
                    result=result,
                )
            )
        if not event.guesses:
            lines.append(tr.gettext("Nobody could guess this time."))
        if event.void:
            lines += [
                "",
                tr.gettext(
                    "⚠️ The tray cannot pay every winner: nobody wins or loses, "
                    "and the game is over."
                ),
            ]
        elif event.gained:
            lines.append(
                tr.nt(
                    "{player} takes {n} token from the tray for the right guess.",
                    "{player} takes {n} tokens from the tray for the right guesses.",
                    event.gained,
                    player=names[event.player],
                )
            )
        lines += ["", tr.t("🧺 Tray: {n}", n=event.bank), *standings(event.tokens, names, tr)]
        return "\n".join(lines)

    def _final(self, event: GameEnded, names: Sequence[str], tr: Translator) -> str:
        reasons = {
            "bank_empty": tr.gettext("The tray is empty."),
            "bank_short": tr.gettext("The tray could not pay every winner."),
            "all_broke": tr.gettext("Every player is out of tokens."),
            "stalled": tr.gettext("A whole round went by with no token moving."),
        }
        over = tr.gettext("Game over!")
        lines = [f"🏁 <b>{over}</b> {reasons.get(event.reason, '')}", ""]
        if not any(event.tokens):  # everyone broke: no medals for holding nothing
            held = tokens_text(0, tr)
            lines += [tr.t("{name}: {tokens}", name=names[p], tokens=held) for p in event.ranking]
            return "\n".join([*lines, "", nobody_won(tr)])
        for player, place in zip(event.ranking, event.places, strict=True):
            medal = MEDALS.get(place, f"{place}.")
            held = tokens_text(event.tokens[player], tr)
            lines.append(f"{medal} " + tr.t("{name}: {tokens}", name=names[player], tokens=held))
        winners = [
            names[p] for p, place in zip(event.ranking, event.places, strict=True) if place == 1
        ]
        lines += ["", winner_line(winners, tr)]
        return "\n".join(lines)

    def page_view(
        self, view: View, legal: Sequence[Any], names: Sequence[str], tr: Translator
    ) -> dict[str, Any]:
        from chatbot.present.ego import page  # (it reads this module's texts)

        return page.page_view(view, legal, names, tr)

    def legend(self, tr: Translator, labels: Sequence[str] = ()) -> str:
        """The key to the picks shown (`labels`): the bets' part only to a guesser, who has
        the eleven picks; the answering player has only the answers."""
        bets = tr.gettext("bet {n}").format(n=STAKES[0])
        if labels and not any(bets in label for label in labels):
            return tr.gettext("1️⃣ 2️⃣ 3️⃣: your answer")
        return tr.gettext(
            "1️⃣ 2️⃣ 3️⃣: an answer (yours, or your guess) · “2 · bet 1”: a guess and its bet in "
            "one pick · 🪙 bet: the bet alone"
        )

    @staticmethod
    def _too_high(params: dict[str, Any], tr: Translator) -> str:
        return tr.nt(
            "You cannot bet {stake}: you have {n} token.",
            "You cannot bet {stake}: you have {n} tokens.",
            int(params.get("tokens", 0)),
            stake=params.get("stake", 0),
        )

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        msgid, section = EXPLANATIONS.get(code, UNKNOWN_REFUSAL)
        if code == "stake_too_high":  # "you have 1 token": the count's plural form
            return self._too_high(params, tr), section
        return tr.gettext(msgid).format(**params), section


PRESENTER = EgoPresenter()


# Second-person forms of the texts above, read when the player is the reader (the terminal
# names its player "You"): "You answer", not "You answers" (chatbot.i18n.YOU).
YOU_FORMS = (
    P_("you", "🏆 {players} wins!"),
    P_("you", "{player}: secretly pick the answer you agree with most."),
    P_("you", "Turn {turn}: {player} answers."),
    P_("you", "{player} did not pick in time: skipped this turn, no loss."),
    P_("you", "{player} answered {answer}: the turn is void."),
    P_("you", "{player} answered {answer}: nobody guessed right."),
    NP_(
        "you",
        "{player} answered {answer}: {n} right guess.",
        "{player} answered {answer}: {n} right guesses.",
    ),
    P_("you", "{player} did not answer in time, so the turn counts as a refusal."),
    NP_(
        "you",
        "{player} refused to answer: {n} token left the tray.",
        "{player} refused to answer: {n} tokens left the tray.",
    ),
    NP_(
        "you",
        "{player} refused to answer and paid {n} token into the tray.",
        "{player} refused to answer and paid {n} tokens into the tray.",
    ),
    P_("you", "{player} refused to answer (no tokens to pay)."),
    P_("you", "{player} agrees most with: {answer}"),
    P_("you", "{player} guessed {answer}, bet {stake}: {result}"),
    NP_(
        "you",
        "{player} takes {n} token from the tray for the right guess.",
        "{player} takes {n} tokens from the tray for the right guesses.",
    ),
)
