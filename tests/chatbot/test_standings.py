"""The standings' maths: games, wins, and openskill's Plackett-Luce rating shown as points."""

from __future__ import annotations

from chatbot.core.session import Seat
from chatbot.core.standings import (
    KEEP,
    START_POINTS,
    Figures,
    Standings,
    add_result,
    player_id,
    points,
    rate,
)

ANN, BOB, CAT = Seat("Ann", "tg:1"), Seat("Bob", "tg:2"), Seat("Cat", "tg:3")
SOM = Seat("Som", bot="sensible")


def test_a_newcomer_has_the_starting_points() -> None:
    assert Figures("Ann").points == START_POINTS == points(25.0, 25.0 / 3)


def test_the_winner_rises_and_the_loser_falls() -> None:
    (w_mu, w_sigma), (l_mu, l_sigma) = rate([(25.0, 25 / 3), (25.0, 25 / 3)], [1, 2])
    assert w_mu > 25.0 > l_mu
    assert w_sigma < 25 / 3 and l_sigma < 25 / 3  # both are better known after a game


def test_beating_a_strong_player_is_worth_more_than_beating_a_weak_one() -> None:
    me = (25.0, 5.0)
    (strong_win, _), _ = rate([me, (35.0, 3.0)], [1, 2])
    (weak_win, _), _ = rate([me, (15.0, 3.0)], [1, 2])
    assert strong_win - 25.0 > weak_win - 25.0 > 0


def test_a_tie_moves_equal_players_equally() -> None:
    (a, sa), (b, sb), (c, _) = rate([(25.0, 25 / 3)] * 3, [1, 1, 3])
    assert (a, sa) == (b, sb) and a > c


def test_a_result_counts_games_wins_and_computer_seats_by_name() -> None:
    table = add_result(Standings(), "g", [ANN, SOM, BOB], [2, 1, 3], at=5.0, title="Club")
    figures = table.of("g")
    assert set(figures) == {"tg:1", "tg:2", "bot:Som"} and player_id(SOM) == "bot:Som"
    assert figures["bot:Som"].bot and figures["bot:Som"].wins == 1
    assert [f.played for f in figures.values()] == [1, 1, 1]
    assert [pid for pid, _ in table.ranked("g")] == ["bot:Som", "tg:1", "tg:2"]
    again = add_result(Standings.loads(table.dumps()), "g", [ANN, SOM], [1, 2], at=6.0)
    assert again.title == "Club"
    assert (again.of("g")["tg:1"].played, again.of("g")["tg:1"].wins) == (2, 1)
    assert again.of("g")["tg:1"].win_rate == 0.5


def test_each_game_has_its_own_table() -> None:
    table = add_result(Standings(), "one", [ANN, BOB], [1, 2], at=1.0)
    table = add_result(table, "two", [BOB, CAT], [1, 2], at=2.0)
    assert set(table.of("one")) == {"tg:1", "tg:2"} and set(table.of("two")) == {"tg:2", "tg:3"}
    assert table.of("one")["tg:2"].wins == 0 and table.of("two")["tg:2"].wins == 1


def test_a_table_keeps_the_best_and_the_latest_players() -> None:
    table = Standings()
    for i in range(KEEP + 10):
        table = add_result(table, "g", [Seat(f"P{i}", f"u{i}"), SOM], [2, 1], at=float(i))
    figures = table.of("g")
    assert len(figures) == KEEP
    assert "u59" in figures and "bot:Som" in figures  # the last game's players stay


def test_unreadable_standings_read_as_empty() -> None:
    assert Standings.loads(b"not json").games is None
    assert Standings.loads(None).ranked("g") == []
