"""Sessions rendered as neutral messages: the lobby, the group table, private hands."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from chatbot.core import buttons as b
from chatbot.core.help import SEND_PRIVATELY
from chatbot.core.model import Button, Keyboard, Message
from chatbot.core.session import Seat, Session
from chatbot.i18n import N_, Translator, translator
from chatbot.present.base import Options
from chatbot.present.registry import PRESENTERS
from engine.core import load_event
from engine.registry import GAMES

# Computer players are named after thinkers (the game is set at a philosophers' symposium).
BOT_NAMES = (
    N_("Socrates"),
    N_("Hypatia"),
    N_("Confucius"),
    N_("Nagarjuna"),
    N_("Simone"),
    N_("Avicenna"),
    N_("Laozi"),
    N_("Diogenes"),
    N_("Spinoza"),
)
TABLE_SLOT, LOBBY_SLOT = "table", "lobby"


def game_key(chat: str) -> str:
    return f"game:{chat}"


def seat_name(seat: Seat, tr: Translator) -> str:
    """The seat's name, HTML-escaped; computer players' names are translated and marked."""
    if seat.bot:
        return "🤖 " + html.escape(tr.gettext(seat.name))
    return html.escape(seat.name)


def names(session: Session, tr: Translator) -> list[str]:
    return [seat_name(s, tr) for s in session.seats]


def lobby(session: Session, tr: Translator, deep_link: Callable[[str], str | None]) -> Message:
    """The lobby: game, options, seats, and the buttons to join, fill seats and start."""
    spec = GAMES[session.game].spec
    presenter = PRESENTERS[session.game]
    lines = [
        tr.t("🎲 <b>{game}</b>: a new table is open!", game=presenter.title(tr)),
        "",
    ]
    for option in spec.options:
        mark = "✅" if session.options.get(option.name) else "⬜"
        lines.append(f"{mark} {presenter.option_label(option.name, tr)}")
    lines.append("")
    lines.append(
        tr.t(
            "Players ({count}/{most}):",
            count=tr.number(len(session.seats)),
            most=tr.number(spec.max_players),
        )
    )
    lines.extend(f"{i + 1}. {name}" for i, name in enumerate(names(session, tr)))
    lines.append("")
    lines.append(tr.gettext("Join, then the host presses Start. Empty seats get computers."))
    move = session.move
    rows: list[tuple[Button, ...]] = []
    link = deep_link(b.deep_link_payload(session.chat))
    join = [Button(tr.gettext("🙋 Join"), b.encode(b.JOIN))]
    if link:
        join.insert(0, Button(tr.gettext("🙋 Join (private chat)"), url=link))
    rows.append(tuple(join))
    rows.append(
        (
            Button(tr.gettext("🚪 Leave"), b.encode(b.LEAVE)),
            Button(tr.gettext("🤖 Add"), b.encode(b.ADD_BOT, move=move)),
            Button(tr.gettext("🤖 Remove"), b.encode(b.REMOVE_BOT, move=move)),
        )
    )
    rows.append(
        tuple(
            Button(
                ("✅ " if session.options.get(o.name) else "⬜ ")
                + presenter.option_label(o.name, tr),
                b.encode(b.OPTION, o.name, move=move),
            )
            for o in spec.options
        )
    )
    rows.append((Button(tr.gettext("▶️ Start"), b.encode(b.START, move=move)),))
    return Message(session.chat, "\n".join(lines), tuple(r for r in rows if r))


def _state(session: Session) -> Any:
    return GAMES[session.game].load(session.state)


def table(session: Session, final: bool = False) -> Message:
    """The group's table message, in the chat's language, edited in place after moves."""
    tr = translator(session.language)
    game = GAMES[session.game]
    state = _state(session)
    log = [load_event(game.event_types, e) for e in session.log]
    text = PRESENTERS[session.game].table(game.view(state, None), names(session, tr), log, tr)
    keyboard: Keyboard = ()
    if not final:
        keyboard = (
            (
                Button(tr.gettext("🃏 My hand"), b.encode(b.PEEK, session.chat)),
                Button(tr.gettext("📖 Rules"), b.encode(b.RULE, session.game, SEND_PRIVATELY)),
            ),
        )
    return Message(
        session.chat,
        text,
        keyboard,
        edit=session.messages.get(TABLE_SLOT),
        slot=TABLE_SLOT,
        game=session.chat,
        coalesce=True,
    )


def hand(session: Session, seat: int, path: str = "", edit: str | None = None) -> Message:
    """A player's private hand message with their choices (when they may act); sent anew, or
    edited in place when `edit` names the message (the one the player pressed)."""
    player = session.seats[seat]
    assert player.user is not None
    tr = translator(player.language)
    game = GAMES[session.game]
    state = _state(session)
    legal = game.legal_actions(state, seat)
    text, options = PRESENTERS[session.game].hand(
        game.view(state, seat), legal, path, names(session, tr), tr
    )
    return Message(player.user, text, option_buttons(session, options), edit=edit)


def option_buttons(session: Session, options: Options) -> Keyboard:
    """A presenter's options as buttons carrying the move counter and the group chat."""
    rows = []
    for row in options:
        out = []
        for o in row:
            if o.act is not None:
                data = b.encode(b.MOVE, session.chat, o.act, move=session.move)
            else:
                data = b.encode(b.NAV, session.chat, o.nav or "", move=session.move)
            out.append(Button(o.label, data))
        rows.append(tuple(out))
    return tuple(rows)


def say(chat: str, text: str) -> Message:
    """A plain new message."""
    return Message(chat, text)


def with_slot(message: Message, slot: str, chat: str, edit: str | None = None) -> Message:
    """`message` as the slot message `slot` of `chat`'s game (edited in place when `edit`)."""
    return Message(message.chat, message.text, message.buttons, edit=edit, slot=slot, game=chat)


def fresh(message: Message) -> Message:
    """The same slot message sent anew (below newer messages) instead of edited."""
    return Message(
        message.chat, message.text, message.buttons, slot=message.slot, game=message.game
    )
