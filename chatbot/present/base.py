"""What a game presenter gives the chat core: texts and choices, never platform details.

A presenter turns an engine view and events into localized text (tiny HTML subset: <b>, <i>,
<code>; every name passed in is already HTML-escaped) and into `Option`s that the core turns into
buttons (and pages of buttons, when a platform's message holds fewer). Choices are multi-step:
the private hand message shows the options of a `path` ("" = top level, then whatever the
presenter encodes, ASCII, at most 20 characters); an option either navigates to another path
or plays an action code (the engine's `encode_action`). Options on the group's table are for
whoever may play them (e.g. EGO's secret picks, Ano's "Caught!"): the core checks the presser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chatbot.i18n import Translator
from engine.core import Signal


@dataclass(frozen=True)
class Option:
    """One button: `nav` shows another step of the choice, `act` plays an action code."""

    label: str
    nav: str | None = None
    act: str | None = None


Options = tuple[tuple[Option, ...], ...]


class Presenter(Protocol):
    """One per game; everything returns already-translated text."""

    game: str  # the engine game name it presents

    def title(self, tr: Translator) -> str:
        """The game's name, e.g. "Egonomy"."""
        ...

    def option_label(self, option: str, tr: Translator) -> str:
        """A lobby option's name, e.g. "flip" -> "Flip-table mode"."""
        ...

    def option_value(self, option: str, value: bool | int, tr: Translator) -> str:
        """A value of an option that is not yes/no, e.g. "decks", 2 -> "2 decks"."""
        ...

    def table(self, view: Any, names: Sequence[str], log: Sequence[Any], tr: Translator) -> str:
        """The group's table message (public view): tables, hand sizes, ego, trophies, whose
        turn, and the last narrated events (`log`, oldest first)."""
        ...

    def table_options(
        self, view: Any, legal: Sequence[Sequence[Any]], names: Sequence[str], tr: Translator
    ) -> Options:
        """Buttons under the group's table for actions any eligible player may press there
        (`legal` holds every seat's legal actions; a button names a player by `names`); ()
        when the game has none."""
        ...

    def hand(
        self,
        view: Any,
        legal: Sequence[Any],
        path: str,
        names: Sequence[str],
        tr: Translator,
        label_chars: int = 64,
    ) -> tuple[str, Options]:
        """A player's private message: their hand and, when they must act, the choices at
        `path` (with a Back option below the top level). `legal` is empty when not to act.
        Labels fit `label_chars` characters (the platform's buttons) and differ."""
        ...

    def peek(self, view: Any, tr: Translator, chars: int) -> str:
        """A pop-up of at most `chars` UTF-16 units showing the player's hand."""
        ...

    def confirm(self, view: Any, action: Any, tr: Translator, before: Any = None) -> str:
        """The presser's private confirmation of their action ("" for none), e.g. a secret
        pick made on the group's table: "You picked 2 🤫, stake 2". `view` is the presser's
        after the action, `before` theirs before it."""
        ...

    def narrate(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        """One line for the table's log, or None for events that are not narrated there."""
        ...

    def announce(self, event: Any, names: Sequence[str], tr: Translator) -> str | None:
        """A new group message for events that matter (round end, game end), else None."""
        ...

    def page_view(
        self, view: Any, legal: Sequence[Any], names: Sequence[str], tr: Translator
    ) -> dict[str, Any]:
        """The game page's drawing of a seat's view (or the public one), as JSON: `hand`
        (cards), `areas` (the table's places: id, title, cards, note), `seats` (a short note
        per seat) and `choices` (each legal action: `act` code, `label`, the hand's `cards`
        it plays by key, the `area` it goes to, `said`: the move as the group may read it).
        A card is data the page draws: `face` "pip" (rank, suit, tone), "joker", "topic"
        (sign, tone, number, name), "question" (text, answers) or "back"."""
        ...

    def legend(self, tr: Translator, labels: Sequence[str] = ()) -> str:
        """One line that explains the choices' labels (`labels`, those listed) where a
        terminal lists them all as numbered lines ("" when the labels say it all)."""
        ...

    def explain(self, code: str, params: dict[str, Any], tr: Translator) -> tuple[str, str]:
        """Why the engine refused an action (reason code): the text and the rule section key."""
        ...


KEY_LINES = 3  # key events (Signal.KEY) kept in the narration above its routine lines


def told_lines(
    presenter: Presenter, log: Sequence[Any], names: Sequence[str], tr: Translator, most: int
) -> list[str]:
    """The table's narration: the last `most` narrated events, after the key events before
    them (a finish, a catch, a penalty: at most KEY_LINES), so that updates merged into one
    edit never drop what changed a player's lot."""
    told = [
        (line, getattr(type(e), "signal", None) == Signal.KEY)
        for e in log
        if (line := presenter.narrate(e, names, tr))
    ]
    older = [line for line, key in told[:-most] if key][-KEY_LINES:]
    return [f"• {line}" for line in older + [line for line, _ in told[-most:]]]
