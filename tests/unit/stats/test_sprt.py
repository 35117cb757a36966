"""The SPRT of 'arena check': the published GSPRT value, pairs, and its error rates measured."""

from __future__ import annotations

import math

import pytest

from arena.stats import sprt


def test_the_published_gsprt_value() -> None:
    """fishtest / Van den Bergh: W-D-L 4307-8620-4063 with logistic bounds [0, 3] gives LLR 2.99."""
    assert sprt.llr([4063, 8620, 4307], 0, 3, sprt.GAME_SCORES) == pytest.approx(2.99, abs=0.005)


def test_elo_and_score() -> None:
    assert sprt.elo_to_score(0) == 0.5 and sprt.elo_to_score(400) == pytest.approx(10 / 11)
    assert sprt.score_to_elo(sprt.elo_to_score(123.0)) == pytest.approx(123.0)


def test_pairs_are_counted_by_their_points() -> None:
    assert sprt.pentanomial([1, 1, 1, 0, 0.5, 0.5, 0, 0, 1, 0.5]) == [1, 0, 2, 1, 1]


def test_a_streak_is_weighed_as_pairs_not_as_independent_games() -> None:
    # 12 straight wins are 6 pairs of 2 points: no longer enough to accept +50 (the old
    # per-game test said 5.93 here), and the verdict needs several more.
    assert sprt.llr([0, 0, 0, 0, 6], 0, 50) < sprt.bounds(0.05, 0.05)[1]
    assert sprt.llr([0, 0, 0, 0, 30], 0, 50) > sprt.bounds(0.05, 0.05)[1]
    even = [0, 0, 50, 0, 0]
    assert sprt.llr(even, 0, 50) < 0 < sprt.llr(even, -50, 0)
    assert sprt.mirrored(even) and not sprt.mirrored([0, 1, 50, 0, 0])


def test_elo_estimate_and_los() -> None:
    est = sprt.elo_estimate([5, 10, 40, 25, 20])
    assert est.low < est.elo < est.high and est.elo > 0 and est.los > 0.99
    assert sprt.elo_estimate([0, 0, 20, 0, 0]).elo == pytest.approx(0.0)


def test_the_default_cap_fits_the_bounds() -> None:
    assert sprt.fitted_max_games(0, 50) == 1200
    assert sprt.fitted_max_games(0, 25) == 4800 and sprt.fitted_max_games(0, 150) % 2 == 0


@pytest.mark.parametrize(
    ("true_elo", "want_h1", "tolerance"),
    [(0.0, 0.05, 0.04), (50.0, 0.95, 0.04), (-20.0, 0.0, 0.02)],
)
def test_measured_error_rates_are_near_the_nominal_ones(true_elo: float, want_h1: float, tolerance: float) -> None:
    """The whole procedure on synthetic pairs (10% draws), bounds [0, 50], alpha = beta = 0.05, the default cap.

    With 300 runs the standard error of a 5% rate is 1.3%.
    """
    cap = sprt.fitted_max_games(0, 50) // 2
    h1, _h0, undecided = sprt.simulate(true_elo, 0, 50, 0.05, 0.05, cap, runs=300, seed=int(true_elo) + 7)
    assert h1 == pytest.approx(want_h1, abs=tolerance)
    assert undecided < 0.03


def test_the_old_cap_left_many_runs_undecided() -> None:
    """400 games for [0, 50] (the old default): a true +50 passes far less than 95% of the time."""
    h1, _h0, undecided = sprt.simulate(50.0, 0, 50, 0.05, 0.05, 200, runs=200, seed=3)
    assert h1 < 0.9 and undecided > 0.08
    assert math.isclose(h1 + _h0 + undecided, 1.0)
