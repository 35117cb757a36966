"""Balanced seating: who moves right after whom, and a gauntlet's boards."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from arena.league.config import load_config
from arena.league.resume import schedule_for
from arena.league.schedule import follows, make_schedule

BOTS = ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(("players", "period"), [(3, 2), (4, 6)])
def test_balanced_orders_let_every_bot_follow_every_other_equally_often(players: int, period: int) -> None:
    games = make_schedule(BOTS, players, rounds=period, seed=3, mode="balanced")
    counts = follows(games)
    assert len(counts) == len(BOTS) * (len(BOTS) - 1)  # every ordered pair
    assert len(set(counts.values())) == 1, counts
    seats = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert len(set(seats.values())) == 1


@pytest.mark.parametrize("players", [3, 4])
def test_rotate_fixes_who_follows_whom(players: int) -> None:
    """The fault 'balanced' removes: with rotations, X follows Y and never Y follows X."""
    counts = follows(make_schedule(BOTS, players, rounds=6, seed=3, mode="rotate"))
    assert any(counts[x, y] > 0 and counts[y, x] == 0 for x, y in counts)


def test_balanced_rounds_extend_the_schedule_and_keep_seats_fair_each_round() -> None:
    six = make_schedule(BOTS, 4, rounds=6, seed=3, mode="balanced")
    assert make_schedule(BOTS, 4, rounds=7, seed=3, mode="balanced")[: len(six)] == six
    for rnd in range(1, 7):
        in_round = [g for g in six if g.round == rnd]
        for group in {frozenset(g.seats) for g in in_round}:
            meeting = [g for g in in_round if frozenset(g.seats) == group]
            assert len(meeting) == 4 and len({g.seed for g in meeting}) == 1
            assert all(len({g.seats[s] for g in meeting}) == 4 for s in range(4))


@pytest.mark.parametrize("players", [2, 3])
def test_every_challenger_meets_a_field_group_on_the_same_board(players: int) -> None:
    bots = ["c1", "c2", "c3", "f1", "f2", "f3"]
    games = make_schedule(bots, players, rounds=2, seed=4, mode="all", challengers=["c1", "c2", "c3"])
    boards: dict[tuple[int, frozenset[str]], set[int]] = {}
    for g in games:
        field = frozenset(s for s in g.seats if s.startswith("f"))
        boards.setdefault((g.round, field), set()).add(g.seed)
    assert all(len(seeds) == 1 for seeds in boards.values())
    assert len({seed for seeds in boards.values() for seed in seeds}) == len(boards)  # and differ
    old = make_schedule(
        bots, players, rounds=2, seed=4, mode="all", challengers=["c1", "c2", "c3"], boards="group"
    )
    assert len({g.seed for g in old}) > len(boards)  # the old way: a board per challenger


def tournament(tmp_path: Path, players: int, extra: str = "") -> Path:
    path = tmp_path / "t.yaml"
    bots = "".join(f"  - {{name: {b}, command: [x]}}\n" for b in BOTS)
    path.write_text(f"name: t\nplayers: {players}\nrounds: 2\n{extra}bots:\n{bots}")
    return path


def test_new_results_folders_default_to_balanced_old_ones_keep_rotate(tmp_path: Path) -> None:
    config = load_config(tournament(tmp_path, 4))
    assert config.seat_orders == "balanced"
    new = schedule_for(config)
    assert new == make_schedule(BOTS, 4, 2, config.seed, "balanced")
    # A folder whose schedule was made before version 2 keeps making it with 'rotate'.
    assert schedule_for(config, version=1) == make_schedule(BOTS, 4, 2, config.seed, "rotate", boards="group")
    # ... unless the file names its seat orders.
    named = load_config(tournament(tmp_path, 4, "seat_orders: balanced\n"))
    assert schedule_for(named, version=1) == new


def test_a_results_folder_from_before_keeps_its_seat_orders_when_rounds_are_added(tmp_path: Path) -> None:
    from arena.league.store import ResultStore
    from arena.tournament import open_store

    one = load_config(tournament(tmp_path, 4, f"output: {tmp_path / 'out'}\n"))
    with ResultStore.create(one.output) as store:  # as an arena before schedule version 2 left it
        store.set_meta(config=one.raw, conditions=one.play_conditions(), digest=one.digest(), name=one.name)
        store.set_schedule(make_schedule(BOTS, 4, 2, one.seed, "rotate", boards="group"))
    more = tournament(tmp_path, 4, f"output: {tmp_path / 'out'}\n").read_text().replace("rounds: 2", "rounds: 3")
    (tmp_path / "t.yaml").write_text(more)
    three = load_config(tmp_path / "t.yaml")
    with open_store(three, restart=False)[0] as store:
        assert store.schedule() == make_schedule(BOTS, 4, 3, one.seed, "rotate", boards="group")
        assert store.get_meta("schedule_version") == 1
    with open_store(three, restart=True)[0] as store:  # started over: the new default
        assert store.schedule() == make_schedule(BOTS, 4, 3, one.seed, "balanced")
        assert store.get_meta("schedule_version") == 2


def test_the_shipped_four_player_league_seats_as_the_docs_advise() -> None:
    config = load_config(Path(__file__).resolve().parents[3] / "tournaments" / "ffa4.yaml")
    assert config.players == 4 and config.seat_orders == "balanced"
    games = schedule_for(config)
    counts = follows(games)  # over its rounds every bot moves right after every other equally often
    assert len(counts) == len(config.bots) * (len(config.bots) - 1) and len(set(counts.values())) == 1, counts
