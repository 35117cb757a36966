"""A league's rating history is what the standings said after each game: each bot's point after
its k-th game is the standings of the games up to that one (the same rater, in the store's
order), its last is the standings now; the ratings as they stood at a moment come from the
games finished before it; past the limit the points are thinned evenly; and the fits are kept,
a game that finished late making only the prefixes it joins fitted again."""

from __future__ import annotations

import itertools
import random
import sqlite3
from pathlib import Path

import pytest

from arena.game.record import GameRecord
from arena.league.history import MAX_POINTS, RatingHistory, ranks_of, thinned
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore
from arena.league.tally import Z95, compute_standings
from arena.stats.settings import RatingConfig, RatingModel
from tests.support.records import fake_game

BOTS = ["ann", "bob", "cid", "dan"]
SKILL = {"ann": 1.5, "bob": 0.5, "cid": 0.0, "dan": -1.0}


def seeded_games(count: int, seed: int = 7) -> list[tuple[ScheduledGame, GameRecord]]:
    """``count`` 2-player games between the bots, won by the better performance (seeded)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        a, b = rng.sample(BOTS, 2)
        pa, pb = SKILL[a] + rng.gauss(0, 1), SKILL[b] + rng.gauss(0, 1)
        ranks = [1, 1] if abs(pa - pb) < 0.05 else [1, 2] if pa > pb else [2, 1]
        game_id = f"g{i:04d}"
        out.append((ScheduledGame(i, game_id, 1, (a, b), i), fake_game(game_id, [a, b], ranks)))
    return out


def stored(folder: Path, games: list[tuple[ScheduledGame, GameRecord]]) -> ResultStore:
    store = ResultStore.create(folder)
    store.set_schedule([g for g, _ in games])
    for game, record in games:
        store.save_game(game, record)
    return store


def standings_of(records: list[GameRecord], cfg: RatingConfig | None = None) -> dict[str, tuple[float, float]]:
    st = compute_standings(records, sorted({s.name for r in records for s in r.seats}), cfg)
    return {r.bot: (r.mu, r.sigma) for r in st.rows}


def test_each_point_is_the_standings_after_that_game_and_the_last_the_standings_now(tmp_path: Path) -> None:
    games = seeded_games(40)
    records = [r for _, r in games]
    with stored(tmp_path, games) as store:
        history = RatingHistory()
        assert history.refresh(store) == 40
        series = history.series(BOTS)
    now = standings_of(records)
    for bot in BOTS:
        played = [i for i, r in enumerate(records) if bot in (s.name for s in r.seats)]
        points = series[bot]
        # One point after each of its games, numbered, at the league's place of that game...
        kept = [p for p in points if not p.now]
        assert [p.position for p in kept] == [i + 1 for i in played]
        assert [p.games for p in kept] == list(range(1, len(played) + 1))
        # ... each the standings of the games up to it (checked at its first, a middle, and its last).
        for p in (kept[0], kept[len(kept) // 2], kept[-1]):
            mu, sigma = standings_of(records[: p.position])[bot]
            assert (p.mu, p.sigma) == pytest.approx((mu, sigma), abs=1e-6)
            assert p.mu_low == pytest.approx(mu - Z95 * sigma) and p.mu_high == pytest.approx(mu + Z95 * sigma)
        # The last point is the standings now: after the league's last game.
        last = points[-1]
        assert last.position == 40 and last.now == (played[-1] != 39)
        assert (last.mu, last.sigma) == pytest.approx(now[bot], abs=1e-6)
        assert last.to_json()["mu_low"] == round(last.mu_low, 3)


def test_the_sequential_model_replays_the_games_in_order(tmp_path: Path) -> None:
    games = seeded_games(30)
    cfg = RatingConfig(model=RatingModel.SEQUENTIAL)
    with stored(tmp_path, games) as store:
        history = RatingHistory(cfg)
        history.refresh(store)
        series = history.series(BOTS)
    records = [r for _, r in games]
    for bot in BOTS:
        assert (series[bot][-1].mu, series[bot][-1].sigma) == pytest.approx(standings_of(records, cfg)[bot], abs=1e-9)
        middle = series[bot][len(series[bot]) // 2]
        assert middle.mu == pytest.approx(standings_of(records[: middle.position], cfg)[bot][0], abs=1e-9)


def test_past_the_limit_points_are_thinned_evenly_keeping_the_first_and_last() -> None:
    assert thinned(7, MAX_POINTS) == list(range(7))
    kept = thinned(2000, 500)
    assert len(kept) <= 500 and kept[0] == 0 and kept[-1] == 1999
    inner = kept[1:-1]
    assert len({b - a for a, b in itertools.pairwise(inner)}) == 1  # one stride: even
    # As the league grows the stride doubles: the points kept are among those kept before.
    assert {k for k in thinned(4000, 500) if k < 1999} <= set(kept)
    assert thinned(1, 500) == [0] and thinned(0, 500) == []


def test_a_bot_with_many_games_gets_at_most_the_limit_of_points(tmp_path: Path) -> None:
    games = seeded_games(120)
    with stored(tmp_path, games) as store:
        history = RatingHistory()
        history.refresh(store)
        series = history.series(["ann"], limit=10)["ann"]
    assert 2 <= len(series) <= 10 + 1  # and the standings now
    assert series[0].games == 1 and series[-1].position == 120


def test_fits_are_kept_and_a_late_game_refits_only_the_prefixes_it_joins(tmp_path: Path) -> None:
    games = seeded_games(40)
    late = games.pop(5)  # the 6th game of the schedule finishes last
    with stored(tmp_path, games) as store:
        store.set_schedule([g for g, _ in seeded_games(40)])
        history = RatingHistory()
        history.refresh(store)
        first = history.series(BOTS)
        fitted = history.fitted
        assert history.series(BOTS) == first and history.fitted == fitted  # nothing fitted again
        store.save_game(*late)
        assert history.refresh(store) == 40
        again = history.series(BOTS)
        refitted = history.fitted - fitted
        # Every prefix from the 6th game on changed; those before are kept.
        assert 0 < refitted <= 40 - 5 + 1
    records = [r for _, r in seeded_games(40)]
    for bot in BOTS:
        p = again[bot][-1]
        assert (p.mu, p.sigma) == pytest.approx(standings_of(records)[bot], abs=1e-6)
        assert [q.position for q in again[bot] if not q.now] == [
            i + 1 for i, r in enumerate(records) if bot in (s.name for s in r.seats)
        ]


def test_the_ratings_at_a_moment_come_from_the_games_finished_before_it(tmp_path: Path) -> None:
    games = seeded_games(30)
    records = [r for _, r in games]
    with stored(tmp_path, games) as store:
        conn = sqlite3.connect(store.path)
        for i, (game, _) in enumerate(games):  # one game a minute from 10:00
            conn.execute(
                "UPDATE games SET finished_at=? WHERE game_id=?", (f"2026-01-01T10:{i:02d}:00Z", game.game_id)
            )
        conn.commit()
        conn.close()
        history = RatingHistory()
        history.refresh(store)
        then = history.before("2026-01-01T10:12:00Z")  # the first 12 games
        assert history.games_by("2026-01-01T10:12:00Z") == 13
        assert history.games_by("2026-01-01T10:12:00Z", before=True) == 12
        assert history.before("2026-01-01T10:12:00Z") is then  # fitted once
        assert history.before("2026-01-01T00:00:00Z") == {}
    expected = standings_of(records[:12])
    assert then.keys() == expected.keys()
    for bot, (mu, sigma) in expected.items():
        assert then[bot] == pytest.approx((mu, sigma), abs=1e-6)
    ranks = ranks_of(then)
    assert sorted(ranks.values()) == list(range(1, len(then) + 1))
    assert ranks == {b: i for i, b in enumerate(sorted(then, key=lambda b: -then[b][0]), 1)}
