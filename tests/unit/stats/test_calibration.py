"""Numbers that mean what they say: the pair test, the stopping-aware SPRT Elo, the capped SPRT.

Exact computations where there are any (Wald's exit probability, symmetry, the
exit code), and small seeded simulations otherwise; the big coverage tables are
in bench/bench_calibration.py.
"""

from __future__ import annotations

import math
import random
import statistics
import xml.etree.ElementTree as ET

import pytest

from arena.check.plan import SprtOptions
from arena.check.results import CheckReport, CheckResult, CheckStatus
from arena.check.strength import cap_warning
from arena.cli.check_cmds import exit_code, junit_xml
from arena.cli.common import ExitCode
from arena.stats import sprt
from arena.stats.game_table import GameTable
from arena.stats.seats import seat_intervals, t_cdf, t_quantile
from arena.stats.stopped import (
    at_least,
    exit_lower,
    exit_upper,
    power_at_cap,
    stopped_elo,
    survive_below,
)

# -- the SPRT's stopping-aware estimate ----------------------------------------------------


@pytest.mark.parametrize("m", [-0.7, 0.0, 0.25, 1.0])
def test_exit_probabilities_match_walds_formula_and_add_up(m: float) -> None:
    lower, upper = -2.9, 2.9
    for t in (0.3, 4.0, 30.0):
        total = (
            exit_upper(m, lower, upper, t)
            + exit_lower(m, lower, upper, t)
            + survive_below(m, lower, upper, t, upper)
        )
        assert total == pytest.approx(1.0, abs=1e-9)
    # Never stopped by time: P(upper first) = (1 - e^(2 m |lower|)) / (e^(-2 m upper) - e^(2 m |lower|)).
    wald = (
        0.5
        if m == 0
        else (1 - math.exp(-2 * m * lower)) / (math.exp(-2 * m * upper) - math.exp(-2 * m * lower))
    )
    assert exit_upper(m, lower, upper, 500.0) == pytest.approx(wald, abs=1e-6)


def test_the_outcome_order_grows_with_the_drift() -> None:
    args = (-2.9, 2.9, 6.0)
    for end, exited in ((2.9, 1), (-2.9, -1), (1.0, 0)):
        values = [at_least(m, *args, end, exited) for m in (-1.0, -0.3, 0.0, 0.4, 1.2)]
        assert values == sorted(values) and values[0] < values[-1]


def test_the_stopping_aware_estimate_is_symmetric() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    up = stopped_elo([2, 5, 10, 9, 6], -25, 25, (lower, upper), upper + 0.1)
    down = stopped_elo([6, 9, 10, 5, 2], -25, 25, (lower, upper), lower - 0.1)
    assert up is not None and down is not None
    assert up.elo == pytest.approx(-down.elo, abs=1e-6)
    assert up.low == pytest.approx(-down.high, abs=1e-6)
    assert up.low < up.elo < up.high and up.elo > 0


def test_stopping_aware_intervals_cover_where_the_fixed_sample_ones_do_not() -> None:
    # 150 seeded runs of a [0, 100] test at a true +100 (short runs: a few seconds).
    lower, upper = sprt.bounds(0.05, 0.05)
    rng = random.Random(3)
    probs = sprt.pair_probabilities(100, 0.1)
    fixed = aware_in = 0
    for _ in range(150):
        counts = [0] * 5
        value = 0.0
        while lower < value < upper:
            counts[rng.choices(range(5), probs)[0]] += 1
            value = sprt.llr(counts, 0, 100)
        est = sprt.elo_estimate(counts)
        fixed += est.low <= 100 <= est.high
        aware = stopped_elo(counts, 0, 100, (lower, upper), value)
        assert aware is not None
        aware_in += aware.low <= 100 <= aware.high
    assert aware_in >= 0.92 * 150  # seeded: 97%
    assert fixed < aware_in


# -- a capped SPRT ------------------------------------------------------------------------


def test_the_power_left_at_a_cap() -> None:
    bounds = sprt.bounds(0.05, 0.05)
    small, fitted = power_at_cap(0, 50, bounds, 400), power_at_cap(0, 50, bounds, 1200)
    # Measured (1,500 runs a case, sprt.simulate): a true +50 passed 80.3% at 400 games and a
    # true 0 failed 82.9%; the motion watched continuously said 82%, the test looks once a pair.
    assert 0.795 < small.pass_at_elo1 < 0.815
    assert fitted.pass_at_elo1 > 0.94 and fitted.fail_at_elo0 > 0.94


def test_the_power_stated_at_a_cap_is_the_one_a_seeded_simulation_measures() -> None:
    bounds = sprt.bounds(0.05, 0.05)
    stated = power_at_cap(0, 50, bounds, 400)
    passed, _failed, _open = sprt.simulate(50.0, 0, 50, 0.05, 0.05, 200, 300, seed=33)
    assert abs(stated.pass_at_elo1 - passed) < 0.04


def test_a_small_cap_warns_with_its_power_and_the_fitted_cap_does_not() -> None:
    sp = SprtOptions(("base",), 0.0, 50.0, 0.05, 0.05, 400)
    warning = cap_warning(sp, 400)
    assert warning.startswith("WARNING: --max-games 400 is below what the bounds [0, 50] need")
    assert "passes 81% of the time (asked: 95%)" in warning and "1200 games" in warning
    assert cap_warning(sp, 1200) == ""


def test_an_inconclusive_sprt_has_its_own_status_exit_code_and_junit_entry() -> None:
    report = CheckReport(("bot",), 1)
    report.checks = [
        CheckResult("handshake", CheckStatus.PASS, "ok"),
        CheckResult("sprt", CheckStatus.INCONCLUSIVE, "inconclusive: no decision within 400 games"),
    ]
    assert not report.passed and report.inconclusive
    assert exit_code(report) is ExitCode.INCONCLUSIVE and int(ExitCode.INCONCLUSIVE) == 3
    assert report.to_dict()["inconclusive"] is True
    suite = ET.fromstring(junit_xml(report))
    assert suite.get("failures") == "0" and suite.get("skipped") == "1"
    (case,) = [c for c in suite if c.get("name") == "sprt"]
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith("inconclusive: ")
    report.checks.append(CheckResult("time", CheckStatus.FAIL, "slow"))
    assert exit_code(report) is ExitCode.FAILED
    report.checks = report.checks[:1]
    assert exit_code(report) is ExitCode.OK


# -- the seats' small-sample intervals ----------------------------------------------------


@pytest.mark.parametrize(("df", "quantile"), [(1, 12.7062), (3, 3.1824), (4, 2.7764), (9, 2.2622), (30, 2.0423)])
def test_students_t_quantiles_are_the_tables(df: int, quantile: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=1e-4)
    assert t_cdf(-quantile, df) == pytest.approx(0.025, abs=1e-5)  # the tables round to 4 places


def test_seat_intervals_over_few_boards_use_students_t() -> None:
    table = GameTable(["a", "b"])
    # Five boards, both seat orders each; the first seat wins 2, 1, 1, 2, 0 games of 2.
    for board, firsts in enumerate([2, 1, 1, 2, 0]):
        for game in range(2):
            first, second = ("a", "b") if game == 0 else ("b", "a")
            won = game < firsts
            table.add([(first, 1 if won else 2), (second, 2 if won else 1)], board)
    boards, intervals = seat_intervals(table)[2]
    per_board = [1.0, 0.5, 0.5, 1.0, 0.0]
    mean, sd = statistics.mean(per_board), statistics.stdev(per_board)
    half = 2.7764 * sd / math.sqrt(5)  # t with 4 degrees of freedom, not 1.96
    assert boards == 5
    assert intervals[0] == pytest.approx((mean - half, min(1.0, mean + half)), abs=1e-4)
