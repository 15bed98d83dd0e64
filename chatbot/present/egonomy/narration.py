"""What happened, told in the table's log and in the round and game results."""

from __future__ import annotations

from collections.abc import Sequence

from chatbot.i18n import Translator
from chatbot.present.egonomy.text import card_text, cards_text, table_name, topic_name
from engine.egonomy.cards import TOPIC
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
    ROUNDS,
    TROPHIES_TO_END,
)

# --- narration -----------------------------------------------------------------------------


def narrate_action(event: object, names: Sequence[str], tr: Translator) -> str | None:
    """One line for an action event."""
    match event:
        case Babbled(player, table, card):
            return tr.t(
                "{player} babbled {card} onto {table} ({topic}).",
                player=names[player],
                card=card_text(card),
                table=table_name(table, tr),
                topic=topic_name(TOPIC[card], tr),
            )
        case CutOff(player, table, card):
            return tr.t(
                "{player} cut off {card} from {table}: +1 ✦",
                player=names[player],
                card=card_text(card),
                table=table_name(table, tr),
            )
        case Argued():
            return _narrate_argue(event, names, tr)
        case Listened(player, table, card, discarded):
            return tr.t(
                "{player} listened at {table}: took {card}, discarded {cards}.",
                player=names[player],
                table=table_name(table, tr),
                card=card_text(card),
                cards=cards_text(discarded),
            )
        case LetGo(player, cards):
            return tr.t(
                "{player} let go of {cards}.", player=names[player], cards=cards_text(cards)
            )
        case Flipped(player, table, discarded, topic):
            return tr.t(
                "{player} flipped {table}, discarding {cards}: it now shows {topic}.",
                player=names[player],
                table=table_name(table, tr),
                cards=cards_text(discarded),
                topic=topic_name(topic, tr),
            )
    return None


def _narrate_argue(event: Argued, names: Sequence[str], tr: Translator) -> str:
    """An argue: what was played where, what was collected, and a fallacy when it decided."""
    fields = {
        "player": names[event.player],
        "cards": cards_text(event.cards),
        "table": table_name(event.table, tr),
        "collected": cards_text(event.collected),
        "ego": len(event.collected),
    }
    if not event.collected:
        return tr.t("{player} argued {cards} on the empty {table}.", **fields)
    line = tr.t("{player} argued {cards} on {table} and collected {collected}: +{ego} ✦", **fields)
    if event.fallacy:
        fallacy = tr.gettext("Fallacy! 123 also beats 789.")
        line = tr.sentences(line, fallacy)
    return line


def narrate_turn(event: object, names: Sequence[str], tr: Translator) -> str | None:
    """Momentum, a stuck player, the start of a round."""
    match event:
        case MomentumGained(player):
            return tr.t("{player} gains momentum and must act again!", player=names[player])
        case Stuck(player):
            return tr.t("{player} cannot act: the round ends.", player=names[player])
        case RoundStarted(round_no, first, humblest) if humblest and round_no == 1:
            return tr.t(
                "The bot searched the circle for the least ego and found the humblest "
                "philosopher: {player} takes the first-player card and starts.",
                player=names[first],
            )
        case RoundStarted(round_no, first, _):
            return tr.t(
                "Round {round} begins; {player} holds the first-player card.",
                round=round_no,
                player=names[first],
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
            ego=tr.number(score.ego), collected=score.collected, left=score.left_in_hand
        ),
    ]
    if tied:
        parts.append(tr.gettext("hand sum {sum}").format(sum=score.hand_sum))
    # TRANSLATORS: trophies won this round, then the player's new total.
    parts.append(tr.gettext("🏆 +{won} → {total}").format(won=score.trophies_won, total=total))
    return tr.sep().join(parts)


def announce_round(event: RoundEnded, names: Sequence[str], tr: Translator) -> str:
    """A round's ranking, and why it ended."""
    head = tr.gettext("Round {round} of {rounds} is over.").format(round=event.round, rounds=ROUNDS)
    if event.emptied_by is None:
        why = tr.gettext("A player could not act, which ended the round.")
    else:
        why = tr.t("{player} emptied their hand.", player=names[event.emptied_by])
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


def announce_game(event: GameEnded, names: Sequence[str], tr: Translator) -> str:
    """The final ranking by trophies, and the winner celebrated."""
    over = tr.gettext("Game over!")
    lines = [f"<b>{over}</b>", ""]
    for place, player in enumerate(event.ranking, start=1):
        lines.append(f"{place}. {names[player]}{tr.sep()}🏆 {event.trophies[player]}")
    winner = event.ranking[0]
    if event.early:
        reached = [names[p] for p in event.ranking if event.trophies[p] >= TROPHIES_TO_END]
        lines.append(
            tr.nt(
                "The game ends after round {round}: {players} reached {n} trophy.",
                "The game ends after round {round}: {players} reached {n} trophies.",
                TROPHIES_TO_END,
                round=event.round,
                players=tr.list(reached),
            )
        )
    if len(event.ranking) > 1 and event.trophies[winner] == event.trophies[event.ranking[1]]:
        lines.append(tr.gettext("Tied on trophies: the better place in the last round wins."))
    lines.append("")
    lines.append(
        tr.nt(
            "🎉 {player} wins with {n} trophy, ego filled to the brim!",
            "🎉 {player} wins with {n} trophies, ego filled to the brim!",
            event.trophies[winner],
            player="<b>" + names[winner] + "</b>",
        )
    )
    return "\n".join(lines)
