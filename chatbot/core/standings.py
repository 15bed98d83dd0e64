"""Standings per chat and game: games played, wins and a rating, in one document per chat.

The document (`keys.standings`, the chat's Cluster slot) is versioned; the end of a game writes
it in the same atomic step as it removes the game (`Endings.finish`).

The rating is openskill's Plackett-Luce model (Weng-Lin): it rates a whole ranking of any
number of seats with ties at once, and a win over strong players moves a rating more than a
win over weak ones. Shown as points: 1000 + 40 × (mu − 3 sigma), so a newcomer has 1000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from openskill.models import PlackettLuce

from chatbot.core.session import Seat

KEEP = 50  # players kept per game in a chat (the best; those of the latest game always stay)
SHOWN = 10  # lines of a group's leaderboard
TTL = 365 * 24 * 3600  # seconds a chat's standings are kept after their last use
START_POINTS = 1000
POINTS_SCALE = 40
_MODEL = PlackettLuce()


def player_id(seat: Seat) -> str:
    """Who a seat counts for: a person's id, or a computer player's (its name: the same name
    is the same opponent in every game of the chat)."""
    return seat.user if seat.user is not None else f"bot:{seat.name}"


@dataclass
class Figures:
    """One player's figures in one game of one chat."""

    name: str
    bot: bool = False
    played: int = 0
    wins: int = 0
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    at: float = 0.0  # when they last played

    @property
    def points(self) -> int:
        return points(self.mu, self.sigma)

    @property
    def win_rate(self) -> float:
        return self.wins / self.played if self.played else 0.0


def points(mu: float, sigma: float) -> int:
    """The shown rating: a conservative estimate (mu − 3 sigma) on a scale where a newcomer
    has START_POINTS."""
    return round(START_POINTS + POINTS_SCALE * (mu - 3 * sigma))


@dataclass
class Standings:
    """A chat's standings: per game, its players' figures by player id."""

    title: str = ""
    games: dict[str, dict[str, Figures]] | None = None

    def of(self, game: str) -> dict[str, Figures]:
        if self.games is None:
            self.games = {}
        return self.games.setdefault(game, {})

    def ranked(self, game: str) -> list[tuple[str, Figures]]:
        """The players of `game`, best first (points, then wins, then the most recent)."""
        table = (self.games or {}).get(game, {})
        return sorted(table.items(), key=lambda kv: (-kv[1].points, -kv[1].wins, -kv[1].at))

    def dumps(self) -> bytes:
        return orjson.dumps(self)

    @classmethod
    def loads(cls, raw: bytes | None) -> Standings:
        """The stored standings; empty ones for nothing or anything unreadable (figures are
        worth less than a game that ends: its results start them again)."""
        found = cls.read(raw)
        return found if found is not None else cls()

    @classmethod
    def read(cls, raw: bytes | None) -> Standings | None:
        """The stored standings (empty ones for nothing); None for ones that cannot be read."""
        if not raw:
            return cls()
        try:
            data: dict[str, Any] = orjson.loads(raw)
            games = {
                game: {pid: Figures(**f) for pid, f in table.items()}
                for game, table in data.get("games", {}).items()
            }
            return cls(str(data.get("title", "")), games)
        except (orjson.JSONDecodeError, TypeError, AttributeError, ValueError):
            return None


def rate(
    ratings: Sequence[tuple[float, float]], places: Sequence[int]
) -> list[tuple[float, float]]:
    """New (mu, sigma) of each seat of one game from their old ones and their places
    (1 = first; equal places are a tie)."""
    teams = [[_MODEL.create_rating([mu, sigma])] for mu, sigma in ratings]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in places])
    return [(team[0].mu, team[0].sigma) for team in rated]


def add_result(
    standings: Standings,
    game: str,
    seats: Sequence[Seat],
    places: Sequence[int],
    at: float,
    title: str = "",
) -> Standings:
    """`standings` with one finished game counted: every seat (a person or a computer player,
    `places[i]` its place) played once more, the first places won, ratings moved; the game's
    table keeps its KEEP best players and everyone who just played."""
    table = standings.of(game)
    ids = [player_id(s) for s in seats]
    if len(set(ids)) != len(ids):
        raise ValueError("a player sits twice")
    current = [
        table.get(pid) or Figures(seat.name, bool(seat.bot))
        for pid, seat in zip(ids, seats, strict=True)
    ]
    rated = rate([(f.mu, f.sigma) for f in current], places)
    for pid, seat, figures, (mu, sigma), place in zip(
        ids, seats, current, rated, places, strict=True
    ):
        figures.name = seat.name
        figures.played += 1
        figures.wins += place == 1
        figures.mu, figures.sigma, figures.at = mu, sigma, at
        table[pid] = figures
    just = set(ids)
    kept = sorted(table.items(), key=lambda kv: (kv[0] not in just, -kv[1].points, -kv[1].at))
    standings.of(game).clear()
    standings.of(game).update(dict(kept[: max(KEEP, len(just))]))
    if title:
        standings.title = title
    return standings
