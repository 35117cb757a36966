"""The schedule: fair seats, every meeting, same seed same games."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.league.schedule import make_schedule


@pytest.mark.parametrize(
    ("players", "mode", "per_meeting"),
    [(2, "all", 2), (3, "all", 6), (3, "rotate", 3), (4, "rotate", 4), (4, "all", 24), (3, "balanced", 3), (4, "balanced", 4)],
)
def test_every_bot_holds_every_seat_equally_often(players: int, mode: str, per_meeting: int) -> None:
    bots = ["a", "b", "c", "d", "e"]
    games = make_schedule(bots, players, rounds=2, seed=9, mode=mode)
    from math import comb

    assert len(games) == 2 * comb(5, players) * per_meeting
    seats = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert len(set(seats.values())) == 1  # every (bot, seat) pair equally often
    assert {name for name, _ in seats} == set(bots)


def test_two_player_pairings_play_both_orders_on_one_board() -> None:
    games = make_schedule(["x", "y", "z"], 2, rounds=3, seed=1)
    pairs = Counter(g.seats for g in games)
    assert set(pairs.values()) == {3} and len(pairs) == 6
    by_round_pair: dict[tuple[int, frozenset[str]], set[int]] = {}
    for g in games:
        by_round_pair.setdefault((g.round, frozenset(g.seats)), set()).add(g.seed)
    assert all(len(seeds) == 1 for seeds in by_round_pair.values())  # one board per meeting and round
    assert len({g.seed for g in games}) == 9  # different boards across meetings and rounds


def test_same_seed_same_schedule_other_seed_other_boards() -> None:
    a = make_schedule(["p", "q", "r"], 2, 2, seed=5)
    assert a == make_schedule(["p", "q", "r"], 2, 2, seed=5)
    b = make_schedule(["p", "q", "r"], 2, 2, seed=6)
    assert [g.seats for g in a] == [g.seats for g in b] and [g.seed for g in a] != [g.seed for g in b]
    assert [g.index for g in a] == list(range(len(a))) and len({g.game_id for g in a}) == len(a)


def test_more_rounds_extend_without_changing_played_games() -> None:
    two = make_schedule(["p", "q", "r"], 2, 2, seed=5)
    three = make_schedule(["p", "q", "r"], 2, 3, seed=5)
    assert three[: len(two)] == two


def test_gauntlet_challengers_meet_only_the_field() -> None:
    games = make_schedule(["champ", "f1", "f2", "f3"], 2, 1, seed=1, challengers=["champ"])
    assert len(games) == 6 and all("champ" in g.seats for g in games)
    games3 = make_schedule(
        ["c1", "c2", "f1", "f2", "f3"], 3, 1, seed=1, mode="rotate", challengers=["c1", "c2"]
    )
    assert all(sum(s in ("c1", "c2") for s in g.seats) == 1 for g in games3)
    assert len(games3) == 2 * 3 * 3
