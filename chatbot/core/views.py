"""Sessions rendered as neutral messages: the lobby, the group table, private hands."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from chatbot.core import buttons as b
from chatbot.core.model import Button, Capabilities, Keyboard, Message
from chatbot.core.registry import Bundle
from chatbot.core.session import TURN_TIMERS, Seat, Session
from chatbot.core.sessions import HAND_SLOT
from chatbot.i18n import N_, Translator, translator
from chatbot.present.base import Option, Options
from engine.core import OptionSpec, load_event, restore

LOBBY_SLOT = "lobby"


def table_slot(session: Session) -> str:
    """The slot of the group's table message of this game: each game has its own, so a new
    game's table never edits the last game's message."""
    return f"table:{session.seed}"


def hand_slot(session: Session, seat: int) -> str:
    """The slot of a seat's latest private hand message with buttons, in this game (a new game
    in the chat has new slots): its buttons are taken off when they can only be refused."""
    return f"{HAND_SLOT}{session.seed}:{seat}"


OPTION_ROW = 2  # lobby option buttons a row: long names stay readable


def seat_name(seat: Seat, tr: Translator) -> str:
    """The seat's name, HTML-escaped; computer players' names are translated and marked."""
    if seat.bot:
        return "🤖 " + html.escape(tr.gettext(seat.name))
    return html.escape(seat.name)


def names(session: Session, tr: Translator) -> list[str]:
    return [seat_name(s, tr) for s in session.seats]


def state_of(session: Session, bundle: Bundle) -> Any:
    """The session's engine state (BadState when it cannot be read)."""
    return restore(bundle.game, session.state)


def option_text(bundle: Bundle, name: str, value: bool | int, tr: Translator) -> str:
    """An option as shown in the lobby: "✅ Flip-table mode", "Decks: 2"."""
    label = bundle.presenter.option_label(name, tr)
    if bundle.game.spec.option(name).yes_no:
        return ("✅ " if value else "⬜ ") + label
    # TRANSLATORS: a lobby option and its value, e.g. "Decks: 2".
    return tr.t(
        "{label}: {value}", label=label, value=bundle.presenter.option_value(name, value, tr)
    )


# TRANSLATORS: an option that needs another one's value, e.g. "<option> is played only with
# Decks: 2."
OPTION_NEEDS = N_("{option} is played only with {needed}.")


def offered_options(session: Session, bundle: Bundle) -> list[OptionSpec]:
    """The game's options that may be set now (an option needing another's value is left out
    until that value is set, e.g. a rule played only with two decks)."""
    spec = bundle.game.spec
    return [o for o in spec.options if spec.offered(o, session.options)]


def option_needs(bundle: Bundle, name: str, tr: Translator) -> str:
    """Why option `name` cannot be set now: what it needs."""
    spec = bundle.game.spec
    needs = spec.option(name).needs
    if needs is None:
        return ""
    label = bundle.presenter.option_label(name, tr)
    return tr.t(OPTION_NEEDS, option=label, needed=option_text(bundle, needs[0], needs[1], tr))


def options_line(session: Session, bundle: Bundle, tr: Translator) -> str:
    """The options in force, on one line (the game's header and the console)."""
    shown = [
        option_text(bundle, o.name, session.options.get(o.name, o.default), tr)
        for o in offered_options(session, bundle)
    ]
    return tr.sep().join(shown)


def lobby(
    session: Session,
    bundle: Bundle,
    tr: Translator,
    deep_link: Callable[[str], str | None],
    caps: Capabilities,
) -> Message:
    """The lobby: game, options, seats, and the buttons to join, fill seats and start."""
    spec = bundle.game.spec
    lines = [tr.t("🎲 <b>{game}</b>: a new table is open!", game=bundle.presenter.title(tr)), ""]
    offered = offered_options(session, bundle)
    lines += [option_text(bundle, o.name, session.options[o.name], tr) for o in offered]
    lines += [
        "",
        tr.t(
            "Players ({count}/{most}):",
            count=tr.number(len(session.seats)),
            most=tr.number(spec.max_players),
        ),
    ]
    lines.extend(f"{i + 1}. {name}" for i, name in enumerate(names(session, tr)))
    lines += ["", tr.gettext("Join, then the host presses Start. Empty seats get computers.")]
    link = deep_link(b.deep_link_payload(session.chat)) if bundle.private_hands else None
    join = [Button(tr.gettext("🙋 Join"), b.encode(b.JOIN))]
    if link:
        join.insert(0, Button(tr.gettext("🙋 Join (private chat)"), url=link))
    rows: list[tuple[Button, ...]] = [
        tuple(join),
        (
            Button(tr.gettext("🚪 Leave"), b.encode(b.LEAVE)),
            Button(tr.gettext("🤖 Add"), b.encode(b.ADD_BOT)),
            Button(tr.gettext("🤖 Remove"), b.encode(b.REMOVE_BOT)),
        ),
    ]
    # A lobby button carries what it means (the value it sets, the seats it starts with), not
    # the picture it was drawn on: a press on a copy that lags still does what it said.
    option_buttons = [
        Button(option_text(bundle, o.name, session.options[o.name], tr), option_data(o, session))
        for o in offered
    ]
    rows += [
        tuple(option_buttons[i : i + OPTION_ROW]) for i in range(0, len(option_buttons), OPTION_ROW)
    ]
    if bundle.presets:
        rows.append(tuple(preset_buttons(session, bundle, tr)))
    timer = b.encode(b.TIMER, str(TURN_TIMERS.index(next_timer(session.turn_timer))))
    rows.append((Button(timer_label(session.turn_timer, tr), timer),))
    start = b.encode(b.START, str(len(session.seats)))
    rows.append((Button(tr.gettext("▶️ Start"), start),))
    return Message(session.chat, "\n".join(lines), fit(tuple(rows), caps))


def option_data(option: OptionSpec, session: Session) -> str:
    """An option button's data: the option and the index of the value a press sets (the one
    after the value shown)."""
    after = option.next(session.options[option.name])
    return b.encode(b.OPTION, option.name, str(option.choices.index(after)))


def next_timer(seconds: int) -> int:
    """The turn timer after `seconds` when its lobby button cycles."""
    at = TURN_TIMERS.index(seconds) if seconds in TURN_TIMERS else -1
    return TURN_TIMERS[(at + 1) % len(TURN_TIMERS)]


def preset_buttons(session: Session, bundle: Bundle, tr: Translator) -> list[Button]:
    """One button per preset of the game's options; the one in force is marked."""
    spec = bundle.game.spec
    out = []
    for i, preset in enumerate(bundle.presets):
        label = tr.gettext(preset.label)
        if spec.resolve_options(preset.options) == session.options:
            label = "✓ " + label
        out.append(Button(label, b.encode(b.PRESET, str(i))))
    return out


def timer_label(seconds: int, tr: Translator) -> str:
    """The lobby's turn timer button: "⏱ Turn: 60 s" (0: the bot's standard time)."""
    if not seconds:
        return tr.gettext("⏱ Turn: standard")
    return tr.t("⏱ Turn: {time}", time=duration(seconds, tr))


def duration(seconds: int, tr: Translator) -> str:
    """A short time: "30 s", "2 min"."""
    if seconds >= 60 and seconds % 60 == 0:
        return tr.t("{n} min", n=seconds // 60)
    return tr.t("{n} s", n=seconds)


def table(
    session: Session,
    bundle: Bundle,
    caps: Capabilities,
    state: Any = None,
    final: bool = False,
    deep_link: Callable[[str], str | None] = lambda payload: None,
    legal: Sequence[Sequence[Any]] | None = None,
) -> Message:
    """The group's table message, in the chat's language, edited in place after moves. Where
    unasked private messages cost, "My hand" opens the private chat with the request typed
    (or the game page, where there is one).
    `legal`: every seat's legal actions in `state`, when the caller has them."""
    tr = translator(session.language)
    game = bundle.game
    state = state_of(session, bundle) if state is None else state
    log = [load_event(game.event_types, e) for e in session.log]
    seen = game.view(state, None)
    shown = names(session, tr)
    text = bundle.presenter.table(seen, shown, log, tr)
    keyboard: Keyboard = ()
    if not final:
        if legal is None:
            legal = [game.legal_actions(state, p) for p in range(len(session.seats))]
        options = bundle.presenter.table_options(seen, legal, shown, tr)
        rows = [
            tuple(
                Button(o.label, b.encode(b.GROUP_MOVE, o.act or "", stamp=session.epoch))
                for o in row
            )
            for row in options
        ]
        tools = [Button(tr.gettext("📖 Rules"), b.encode(b.RULE, session.game, b.SEND_PRIVATELY))]
        if bundle.private_hands:
            paged = caps.hands_on_page or not caps.unasked_free
            link = deep_link(b.hand_payload(session.chat)) if paged else None
            mine = tr.gettext("🃏 My hand")
            peek = Button(mine, url=link) if link else Button(mine, b.encode(b.PEEK, session.chat))
            tools.insert(0, peek)
        keyboard = fit((*rows, tuple(tools)), caps)
    return Message(
        session.chat,
        text,
        keyboard,
        edit=session.message_ids.get(table_slot(session)) if caps.edits else None,
        slot=table_slot(session),
        host=session.chat,
        coalesce=True,
    )


def hand(
    session: Session,
    bundle: Bundle,
    seat: int,
    caps: Capabilities,
    state: Any = None,
    path: str = "",
    edit: str | None = None,
    legal: Sequence[Any] | None = None,
) -> Message:
    """A player's private hand message with their choices (when they may act); sent anew, or
    edited in place when `edit` names the message (the one the player pressed). `legal`: the
    seat's legal actions in `state`, when the caller has them."""
    player = session.seats[seat]
    assert player.user is not None
    tr = translator(player.language)
    game = bundle.game
    state = state_of(session, bundle) if state is None else state
    if legal is None:
        legal = game.legal_actions(state, seat)
    path, _, page = path.partition(b.PAGE)
    text, options = bundle.presenter.hand(
        game.view(state, seat), legal, path, names(session, tr), tr, caps.label_chars
    )
    if not legal and not options and not game.is_over(state):
        text += "\n" + waiting(bundle, caps, tr)
    keyboard = choice_buttons(session, seat, options, path, int(page or 0), caps, tr)
    if session.title:  # a player may sit in several groups' games at once
        text += "\n\n" + tr.t("📍 {group}", group=html.escape(session.title))
    if not caps.edits:
        return Message(player.user, text, keyboard)
    if edit is None and keyboard:  # its id is kept: its buttons go when they can only be refused
        slot = hand_slot(session, seat)
        return Message(player.user, text, keyboard, slot=slot, host=session.chat)
    return Message(player.user, text, keyboard, edit=edit)


def waiting(bundle: Bundle, caps: Capabilities, tr: Translator) -> str:
    """How a waiting player's choices will reach them: by themselves where an unasked message
    is free or the hand is on a page that looks again (`hold_unasked`), else with the answer
    to their own press of the table's "My hand"."""
    if caps.unasked_free or caps.hold_unasked:
        return tr.contextual(bundle.context, "Your choices come here when it is your turn.")
    return tr.contextual(
        bundle.context,
        "When it is your turn, press 🃏 My hand on the table in the group: "
        "your choices come with the answer.",
    )


def bare_hand(
    session: Session,
    bundle: Bundle,
    seat: int,
    caps: Capabilities,
    state: Any,
    legal: Sequence[Any] | None = None,
) -> Message:
    """The seat's latest hand message with buttons, edited to the hand as it is now without
    them (nothing is sent when no such message is known, or it was bared already)."""
    message = hand(session, bundle, seat, caps, state, legal=legal)
    slot = hand_slot(session, seat)
    return replace(message, buttons=(), edit=None, slot=slot, host=session.chat, only_edit=True)


def choice_buttons(
    session: Session,
    seat: int,
    options: Options,
    path: str,
    page: int,
    caps: Capabilities,
    tr: Translator,
) -> Keyboard:
    """A presenter's options as buttons carrying the seat's stamp and the group chat; a list
    longer than the platform's message holds comes in pages with ◀ ▶."""
    stamp = session.stamps[seat]

    def button(o: Option) -> Button:
        if o.act is not None:
            return Button(o.label, b.encode(b.MOVE, session.chat, o.act, stamp=stamp))
        return Button(o.label, b.encode(b.NAV, session.chat, o.nav or "", stamp=stamp))

    total = sum(len(row) for row in options)
    if total <= caps.message_buttons:
        return fit(tuple(tuple(button(o) for o in row) for row in options), caps)
    width = min(max(len(row) for row in options), caps.row_buttons)
    flat = [o for row in options for o in row]
    per_page = max(1, caps.message_buttons - 2)
    pages = (len(flat) + per_page - 1) // per_page
    page = min(max(page, 0), pages - 1)
    shown = flat[page * per_page : (page + 1) * per_page]
    rows = [tuple(button(o) for o in shown[i : i + width]) for i in range(0, len(shown), width)]
    turns = []
    if page > 0:
        turns.append(Option(tr.gettext("◀ Back a page"), nav=f"{path}{b.PAGE}{page - 1}"))
    if page < pages - 1:
        turns.append(Option(tr.gettext("More ▶"), nav=f"{path}{b.PAGE}{page + 1}"))
    rows.append(tuple(button(o) for o in turns))
    return fit(tuple(rows), caps)


def fit(rows: Sequence[tuple[Button, ...]], caps: Capabilities) -> Keyboard:
    """Rows within the platform's limits: long rows split, long labels shortened (and told
    apart where two shortened ones would read the same, e.g. two long names that begin
    alike: cut in the middle, else numbered)."""
    limit = caps.label_chars
    labels = [button.label for row in rows for button in row]
    short = {label: _short(label, limit) for label in labels}
    for cut in (_middle, _numbered):
        seen: dict[str, list[str]] = {}
        for label in dict.fromkeys(labels):
            seen.setdefault(short[label], []).append(label)
        for alike in (group for group in seen.values() if len(group) > 1):
            for i, label in enumerate(alike):
                if len(label) > limit:
                    short[label] = cut(label, limit, i)
    out: list[tuple[Button, ...]] = []
    for row in rows:
        row = tuple(Button(short[x.label], x.data, x.url) for x in row)
        out += [row[i : i + caps.row_buttons] for i in range(0, len(row), caps.row_buttons)]
    return tuple(r for r in out if r)


def _short(label: str, limit: int, _: int = 0) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _middle(label: str, limit: int, _: int = 0) -> str:
    """`label` within `limit` keeping its start and its end."""
    head = (limit - 1) // 2
    return label[:head] + "…" + label[len(label) - (limit - 1 - head) :]


def _numbered(label: str, limit: int, index: int) -> str:
    """`label` within `limit` ending with its number among labels that read the same."""
    mark = f"…{index + 1}"
    return label[: limit - len(mark)] + mark


def say(chat: str, text: str) -> Message:
    """A plain new message."""
    return Message(chat, text)


def with_slot(message: Message, slot: str, chat: str, edit: str | None = None) -> Message:
    """`message` as the slot message `slot` of `chat`'s game (edited in place when `edit`)."""
    return Message(message.chat, message.text, message.buttons, edit=edit, slot=slot, host=chat)


def fresh(message: Message) -> Message:
    """The same slot message sent anew (below newer messages) instead of edited."""
    return Message(
        message.chat, message.text, message.buttons, slot=message.slot, host=message.host
    )
