"""The game page's JSON: a seat's (or a watcher's) view of a running game, drawn by the
game's presenter, with the seats, the last moves, the options and the rules; and a finished
game's result read back from its record."""

from __future__ import annotations

import html
import re
from typing import Any

from chatbot.core import views
from chatbot.core.fairness import Deal
from chatbot.core.record import Record, replay
from chatbot.core.registry import Bundle, Registry
from chatbot.core.render import deal_of_session
from chatbot.core.session import Seat, Session
from chatbot.i18n import N_, Translator
from engine.core import load_event

JSON = dict[str, Any]
LOG_LINES = 5  # the last moves shown
_TAG = re.compile(r"<[^>]*>")

# The page's own words (the rest comes from the game's presenter and the rule help).
WORDS = {
    "turn": N_("Your turn"),
    "chance": N_("Not your turn, but you may act now."),
    "waiting": N_("Waiting for {names}"),
    "watching": N_("You are watching: only the players see their cards."),
    "pick": N_("Tap a card to pick it, then choose the move."),
    "play": N_("Play"),
    "rules": N_("📖 Rules"),
    "moves": N_("Last moves"),
    "over": N_("The game is over."),
    "sending": N_("Sending your move…"),
    "failed": N_("Something went wrong on my side: please try again in a moment."),
    "unheard": N_("This page cannot post in the group: the bot tells the group itself."),
    "close": N_("Close"),
}


def words(tr: Translator) -> dict[str, str]:
    return {key: tr.gettext(msgid) for key, msgid in WORDS.items()}


def plain(text: str) -> str:
    """Our tiny HTML subset as plain text (the page sets text, never markup)."""
    return html.unescape(_TAG.sub("", text))


def table(session: Session, bundle: Bundle, seat: int | None, tr: Translator) -> JSON:
    """What the page shows of a running game to `seat` (None: a watcher)."""
    game = bundle.game
    state = views.state_of(session, bundle)
    legal = game.legal_actions(state, seat) if seat is not None else []
    names = views.names(session, tr)
    drawn = bundle.presenter.page_view(game.view(state, seat), legal, names, tr)
    awaited = set(game.to_move(state))
    seats = [
        {"name": plain(names[i]), "note": drawn["seats"][i], "turn": i in awaited, "me": i == seat}
        for i in range(len(session.seats))
    ]
    log = [load_event(game.event_types, e) for e in session.log]
    told = [plain(line) for e in log if (line := bundle.presenter.narrate(e, names, tr))]
    private = bundle.private_hands
    return {
        "title": bundle.presenter.title(tr),
        "options": plain(views.options_line(session, bundle, tr)),
        "lock": deal_of_session(session, bundle).commitment,
        "version": session.moves,
        "seat": seat,
        "stamp": (session.stamps[seat] if private else session.epoch) if seat is not None else -1,
        "seats": seats,
        "hand": drawn["hand"],
        "areas": drawn["areas"],
        "choices": drawn["choices"],
        "log": told[-LOG_LINES:],
        "over": False,
        "words": words(tr),
        "rules": rules(bundle, tr),
    }


def rules(bundle: Bundle, tr: Translator) -> list[JSON]:
    """The game's rule help, section by section, in the reader's language."""
    return [
        {"title": plain(tr.gettext(s.title)), "body": plain(tr.gettext(s.body))}
        for s in bundle.rules.sections
    ]


def result(record: Record, games: Registry, tr: Translator) -> JSON | None:
    """A finished game's result as its last step told the group (places, points), with the
    deal's key and its lock (None when the record cannot be read)."""
    bundle = games.get(record.game)
    if bundle is None:
        return None
    names = [
        views.seat_name(Seat(str(name), bot="computer" if bot else None), tr)
        for name, bot in record.seats
    ]
    events = list(replay(record, bundle))[-1] if record.trail else []
    told = [plain(t) for e in events if (t := bundle.presenter.announce(e, names, tr))]
    spec = bundle.game.spec
    options = tuple(record.options.get(o.name, o.default) for o in spec.options)
    deal = Deal(record.game, len(names), options, record.seed, record.salt)
    key = plain(
        tr.t(
            "🔓 The deal's key: <code>{key}</code> "
            "(its lock was <code>{lock}</code>; /verify checks it)",
            key=deal.key,
            lock=deal.commitment,
        )
    )
    return {
        "title": bundle.presenter.title(tr),
        "over": True,
        "result": told,
        "key": key,
        "words": words(tr),
        "rules": rules(bundle, tr),
    }
