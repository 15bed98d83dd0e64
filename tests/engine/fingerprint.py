"""A fingerprint of an engine's rules over seeded games that says where it changed.

Everything a digest test feeds goes into one SHA-256 (the digest the test asserts) and into a
running SHA-256 of the current game. After each step of a game one byte of that game's running
hash is kept; a reference file holds those bytes for every game as the rules stood, so a
changed rule is reported as the first game, and the first step of it, whose hash differs (a
byte that matches by chance, 1 in 256, names a later step). A game's line in the file:
"index, its whole hash (16 hex digits), its step bytes in hex".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class _Game:
    label: str
    sha: hashlib._Hash = field(default_factory=hashlib.sha256)
    steps: bytearray = field(default_factory=bytearray)

    def line(self, index: int) -> str:
        return f"{index} {self.sha.hexdigest()[:16]} {self.steps.hex()}"


class Fingerprint:
    """The digest of all games, and each game's hash step by step."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.games: list[_Game] = []

    def game(self, label: str) -> None:
        """A new game begins; `label` says which (players, options, seed) in a report."""
        self.games.append(_Game(label))

    def update(self, data: bytes) -> None:
        self.sha.update(data)
        self.games[-1].sha.update(data)

    def step(self) -> None:
        """The current game's step ends: its running hash so far is kept (one byte)."""
        game = self.games[-1]
        game.steps.append(game.sha.digest()[0])

    def hexdigest(self) -> str:
        return self.sha.hexdigest()

    def lines(self) -> list[str]:
        return [game.line(i) for i, game in enumerate(self.games)]

    def first_difference(self, reference: Sequence[str]) -> str | None:
        """Where these games first differ from the reference lines (None: nowhere)."""
        if len(reference) < len(self.games):
            return f"the reference holds {len(reference)} games, {len(self.games)} were played"
        for index, (game, line) in enumerate(zip(self.games, reference, strict=False)):
            if game.line(index) == line:
                continue
            _, _, steps_hex = line.split(" ")
            expected = bytes.fromhex(steps_hex)
            step = next(
                (s for s, (a, b) in enumerate(zip(game.steps, expected, strict=False)) if a != b),
                min(len(game.steps), len(expected)),
            )
            where = f"step {step}" if step < len(expected) else "after its last step"
            return (
                f"game {index} ({game.label}) first differs at {where} "
                f"(of {len(expected)} steps, now {len(game.steps)})"
            )
        return None


def reference(path: Path) -> list[str]:
    return path.read_text(encoding="ascii").split("\n")[:-1]


def write_reference(path: Path, play: Callable[[], Fingerprint]) -> None:
    """Rewrites the reference file from the rules as they are now (when a rule is meant to
    change) and prints the new digest."""
    fingerprint = play()
    path.write_text("".join(line + "\n" for line in fingerprint.lines()), encoding="ascii")
    print(f"{len(fingerprint.games)} games written to {path}: digest {fingerprint.hexdigest()}")


def assert_unchanged(fingerprint: Fingerprint, path: Path, digest: str | None = None) -> None:
    """The games play step by step as the reference file says (the first difference named),
    and, over the whole reference, to its digest."""
    difference = fingerprint.first_difference(reference(path))
    assert difference is None, difference
    if digest is not None:
        assert fingerprint.hexdigest() == digest
