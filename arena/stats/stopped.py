"""The Elo a sequential test saw, told knowing that it stopped: median-unbiased, with an interval.

A test that stops when its log-likelihood ratio (LLR) leaves its bounds stops
early on a lucky run: the fixed-sample estimate of its games is biased away from
the middle (by some 12-14 Elo at the bounds of a [0, 50] test) and its "95%"
interval covers less than it says.  Here the LLR is taken as a Brownian motion with
drift (its normal approximation: the LLR is linear in the sum of the pair scores),
stopped at the first exit from (lower, upper) or at the game cap, and each drift
gives a distribution over the outcomes, ordered from the earliest exit at the lower
bound, through the runs that reached the cap by their LLR, to the earliest exit at
the upper bound.  The estimate is the drift for which the observed outcome is the
median; the 95% interval, the drifts for which it is the 2.5% and 97.5% quantile
(fishtest's stopping-aware estimate, derived here afresh; see tests/unit/stats/test_calibration.py).

In time measured so that the LLR has variance 1 per unit, the drift is
m = (s - (s0 + s1) / 2) / (s1 - s0), with s the expected score per game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena.stats.sprt import PAIR_SCORES, elo_to_score, score_to_elo

_N = NormalDist()
SIEGMUND = 0.5826  # -zeta(1/2) / sqrt(2 pi): a discretely watched motion's mean overshoot, in steps
_EXP_MAX = 700.0  # beyond, math.exp overflows; such terms multiply a probability that underflowed


def _log_cdf(z: float) -> float:
    """log Phi(z), also far in the lower tail (where Phi underflows)."""
    if z > -30:
        return math.log(max(_N.cdf(z), 1e-300))
    # Mills' ratio: Phi(z) ~ phi(z) / -z (1 - 1/z^2 + 3/z^4).
    return -0.5 * z * z - math.log(-z) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / z**2 + 3 / z**4)


def _exp_cdf(log_factor: float, z: float) -> float:
    """exp(log_factor) * Phi(z), without overflow."""
    return math.exp(min(_EXP_MAX, log_factor + _log_cdf(z)))


def _first_passage(level: float, drift: float, t: float) -> float:
    """P(a Brownian motion with ``drift`` reaches ``level`` > 0 by ``t``), times exp(2 drift level) where it
    would overflow kept inside: the inverse Gaussian distribution function."""
    root = math.sqrt(t)
    return _N.cdf((drift * t - level) / root) + _exp_cdf(2 * drift * level, (-drift * t - level) / root)


def _terms(width: float, t: float) -> range:
    k = 3 + math.ceil(2 * math.sqrt(t) / width)
    return range(-k, k + 1)


def exit_upper(m: float, lower: float, upper: float, t: float) -> float:
    """P(the motion from 0 with drift ``m`` leaves (lower, upper) through ``upper`` by time ``t``)."""
    if t <= 0:
        return 0.0
    w = upper - lower
    total = 0.0
    for k in _terms(w, t):
        c = upper - 2 * k * w
        part = _first_passage(c, m, t) if c > 0 else -_first_passage(-c, -m, t)
        total += math.exp(min(_EXP_MAX, 2 * m * k * w)) * part if part else 0.0
    return min(1.0, max(0.0, total))


def exit_lower(m: float, lower: float, upper: float, t: float) -> float:
    """P(it leaves through ``lower`` by time ``t``): the upper exit of the mirrored motion."""
    return exit_upper(-m, -upper, -lower, t)


def survive_below(m: float, lower: float, upper: float, t: float, x: float) -> float:
    """P(it is still inside at time ``t``, at a value at most ``x``) (method of images)."""
    w = upper - lower
    root = math.sqrt(t)
    x = min(max(x, lower), upper)

    def mass(centre: float) -> float:
        # exp(m centre) * P(lower < N(centre + m t, t) < x)
        hi, lo = (x - centre - m * t) / root, (lower - centre - m * t) / root
        if lo > 0:  # both in the upper tail: difference of survival functions
            return _exp_cdf(m * centre, -lo) - _exp_cdf(m * centre, -hi)
        return _exp_cdf(m * centre, hi) - _exp_cdf(m * centre, lo)

    total = sum(mass(2 * k * w) - mass(2 * upper + 2 * k * w) for k in _terms(w, t))
    return min(1.0, max(0.0, total))


def at_least(m: float, lower: float, upper: float, t: float, end: float, exited: int) -> float:
    """P_m(an outcome at least as high as the observed one), which grows with m.

    ``exited`` is +1 for an exit through ``upper`` at time ``t``, -1 through ``lower``,
    0 for a run stopped by its cap at time ``t`` with the LLR at ``end``.
    """
    if exited > 0:
        return exit_upper(m, lower, upper, t)
    if exited < 0:
        return 1.0 - exit_lower(m, lower, upper, t)
    inside = survive_below(m, lower, upper, t, upper)
    return exit_upper(m, lower, upper, t) + inside - survive_below(m, lower, upper, t, end)


def _solve(f: Callable[[float], float], target: float, lo: float = -20.0, hi: float = 20.0) -> float:
    """The m in [lo, hi] with f(m) = target, f increasing (bisection)."""
    if f(lo) >= target:
        return lo
    if f(hi) <= target:
        return hi
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class StoppedElo:
    """The median-unbiased Elo of a stopped sequential test and its 95% interval."""

    elo: float
    low: float
    high: float


def stopped_elo(
    counts: Sequence[int],
    elo0: float,
    elo1: float,
    bounds: tuple[float, float],
    llr: float,
    values: Sequence[float] = PAIR_SCORES,
    per_look: int = 1,
) -> StoppedElo | None:
    """The stopping-aware Elo of a test on these outcome counts that ended with ``llr``.

    An LLR at or beyond a bound is an exit there; inside, the test ran out of games.
    The test looked at its LLR every ``per_look`` outcomes, not continuously, so it
    crosses a bound later than the motion would: the bounds are moved out by Siegmund's
    0.583 standard deviations of one look's step, which makes the motion's exits those of
    the test.  None when the outcomes do not vary (their variance, which sets the time
    scale, is 0).
    """
    n = sum(counts)
    if n < 2:
        return None
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    if var <= 0:
        return None
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    step = (s1 - s0) ** 2 / var  # the LLR's variance per outcome
    t = n * step
    exited = 1 if llr >= bounds[1] else -1 if llr <= bounds[0] else 0
    shift = SIEGMUND * math.sqrt(per_look * step)
    lower, upper = bounds[0] - shift, bounds[1] + shift
    end = min(max(llr, lower), upper)

    def g(m: float) -> float:
        return at_least(m, lower, upper, t, end, exited)

    def elo(m: float) -> float:
        return score_to_elo((s0 + s1) / 2 + m * (s1 - s0))

    return StoppedElo(elo(_solve(g, 0.5)), elo(_solve(g, 0.025)), elo(_solve(g, 0.975)))


@dataclass(frozen=True)
class CapPower:
    """What a game cap leaves of a test's power: P(accept elo1 | elo1), P(accept elo0 | elo0)."""

    pass_at_elo1: float
    fail_at_elo0: float


def power_at_cap(
    elo0: float, elo1: float, bounds: tuple[float, float], max_games: int, draw: float = 0.1
) -> CapPower:
    """The chances that a test with these bounds decides rightly within ``max_games`` games,
    for a bot truly elo1 and one truly elo0 (board pairs of two games with ``draw`` draws).

    Without a cap they are about 1 - beta and 1 - alpha; a cap below what the bounds need
    turns the rest into "inconclusive".
    """
    from arena.stats.sprt import pair_probabilities

    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    probs = pair_probabilities((elo0 + elo1) / 2, draw)
    mean = sum(p * v for p, v in zip(probs, PAIR_SCORES, strict=True))
    var = sum(p * (v - mean) ** 2 for p, v in zip(probs, PAIR_SCORES, strict=True))
    step = (s1 - s0) ** 2 / var  # the LLR's variance per board pair, one look each
    t = (max_games // 2) * step
    mid = (s0 + s1) / 2
    # The test looks after each board pair, so it crosses a bound later than the motion would
    # (and some runs the motion would end inside the cap run past it): the bounds moved out by
    # Siegmund's correction, as for :func:`stopped_elo` (without it: 82% said, 79-80% measured).
    shift = SIEGMUND * math.sqrt(step)
    lower, upper = bounds[0] - shift, bounds[1] + shift
    return CapPower(
        exit_upper((s1 - mid) / (s1 - s0), lower, upper, t),
        exit_lower((s0 - mid) / (s1 - s0), lower, upper, t),
    )
