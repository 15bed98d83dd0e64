"""Game bundles: everything the chat needs to host one game, and the registry of them.

A bundle joins a game's engine, presenter, rule help and computer players. The registry is
built once at start-up (`chatbot.games.registry()`) and handed to the service, the console and
the help; nothing else knows which games exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from chatbot.present.base import Presenter
from chatbot.rule_help import RuleBook
from engine.core import Game, OptionValue, Player


@dataclass(frozen=True)
class Preset:
    """A set of options chosen with one press in the lobby: `label` a msgid, `options` laid
    over the game's defaults."""

    label: str
    options: Mapping[str, OptionValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Bundle:
    """One hosted game. `computer_names` are msgids (translated when shown); `context` is
    the msgctxt under which the game words the shared texts that name a turn (a language may
    call one game's turn otherwise), None for the shared wording."""

    game: Game[Any, Any]
    presenter: Presenter
    rules: RuleBook
    computer: Player[Any]
    computer_names: tuple[str, ...]
    context: str | None = None
    presets: tuple[Preset, ...] = ()

    @property
    def private_hands(self) -> bool:
        """Whether players need the bot's private chat (their hand lives there): the game's
        information structure (`GameSpec.private_hands`)."""
        return self.game.spec.private_hands

    def __post_init__(self) -> None:
        for preset in self.presets:  # a preset the game refuses fails at start-up
            self.game.spec.resolve_options(preset.options)

    @property
    def name(self) -> str:
        return self.game.spec.name


class Registry:
    """The hosted games by name, in the order given (the first is the default)."""

    def __init__(self, bundles: Iterable[Bundle]) -> None:
        self._bundles = {b.name: b for b in bundles}
        if not self._bundles:
            raise ValueError("a registry needs at least one game")

    def __getitem__(self, name: str) -> Bundle:
        return self._bundles[name]

    def __contains__(self, name: object) -> bool:
        return name in self._bundles

    def __iter__(self) -> Iterator[Bundle]:
        return iter(self._bundles.values())

    def __len__(self) -> int:
        return len(self._bundles)

    def get(self, name: str) -> Bundle | None:
        return self._bundles.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._bundles)

    @property
    def default(self) -> Bundle:
        return next(iter(self._bundles.values()))
