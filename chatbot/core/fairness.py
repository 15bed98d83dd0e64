"""Deals anyone can verify: a commitment to the deal at the start, its key at the end.

A game's start shows a commitment to its deal, its end reveals the deal's key, and anyone can
check that the key matches and replay the deal.

The key names everything a deal depends on, `<game>.<seats>.<options>.<seed>.<salt>` (the
options' values in the game's order, yes/no as 1/0), so that a changed option fails the check
as a changed seed does. The commitment is the first 16 hex digits (64 bits) of the key's
SHA-256. The salt (62 random bits of its own, never shown before the end) keeps the seed
from being found by trying seeds against the commitment.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from engine.core import GameSpec, OptionValue

DIGITS = 16  # hex digits of a commitment


@dataclass(frozen=True)
class Deal:
    """What a deal depends on."""

    game: str
    players: int
    options: tuple[OptionValue, ...]  # in the game's order (spec.options)
    seed: int
    salt: int

    @property
    def key(self) -> str:
        """The text revealed at the end (ASCII: it may be typed or pasted back)."""
        values = "-".join(str(int(v)) for v in self.options)
        return f"{self.game}.{self.players}.{values}.{self.seed}.{self.salt:016x}"

    @property
    def commitment(self) -> str:
        return commitment(self.key)

    def named_options(self, spec: GameSpec) -> dict[str, OptionValue]:
        """The options by name, as the game reads them."""
        return {o.name: v for o, v in zip(spec.options, self.options, strict=True)}


def deal_of(
    game: str, players: int, spec: GameSpec, options: dict[str, OptionValue], seed: int, salt: int
) -> Deal:
    values = tuple(options.get(o.name, o.default) for o in spec.options)
    return Deal(game, players, values, seed, salt)


def commitment(key: str) -> str:
    return hashlib.sha256(key.strip().encode()).hexdigest()[:DIGITS]


def matches(key: str, claimed: str) -> bool:
    """Whether `key` is the one the commitment `claimed` was made for."""
    return hmac.compare_digest(commitment(key), claimed.strip().lower())


def parse(key: str, specs: dict[str, GameSpec]) -> Deal | None:
    """The deal a revealed key names (games by name), or None for anything else."""
    parts = key.strip().split(".")
    if len(parts) != 5:
        return None
    game, players, values, seed, salt = parts
    spec = specs.get(game)
    if spec is None or not players.isdigit() or not seed.isdigit():
        return None
    raw = values.split("-") if values else []
    if len(raw) != len(spec.options) or not all(v.isdigit() for v in raw):
        return None
    try:
        options = tuple(
            bool(int(v)) if isinstance(o.default, bool) else int(v)
            for o, v in zip(spec.options, raw, strict=True)
        )
        return Deal(game, int(players), options, int(seed), int(salt, 16))
    except ValueError:
        return None


def stamp_start(salt: int, below: int) -> int:
    """Where a game's button stamps start: from the salt through a one-way hash (buttons are
    seen by everyone; neither the seed nor the salt may be read from them)."""
    digest = hashlib.sha256(b"stamps:" + salt.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big") % below
