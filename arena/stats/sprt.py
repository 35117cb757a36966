"""The sequential test of ``arena check --sprt``: a GSPRT on pentanomial counts of board pairs.

Strength games come in pairs: one board, the candidate in each seat once.  The
two games of a pair are not independent (a board can favour a seat, or a
style), so the unit of evidence is the pair, scored 0, 0.5, 1, 1.5 or 2
points: five outcome counts, the *pentanomial* (fishtest, fastchess).

The test is the generalized SPRT of fishtest (M. Van den Bergh): the log of
the likelihood ratio of the counts under the best multinomial whose expected
score is that of elo1 against the best one whose expected score is that of
elo0 (logistic Elo: score = 1 / (1 + 10^(-elo/400))).  It stops at Wald's
bounds log(beta / (1 - alpha)) and log((1 - beta) / alpha).  What a verdict
means: H1 ("pass") is the test's decision that the candidate is elo1 rather
than elo0; if the truth is elo0 or less, a pass happens with probability about
alpha; if the truth is elo1 or more, a fail about beta.  Between the two, the
outcome can go either way: a pass does not mean "at least elo1 stronger".
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Generic, TypeVar

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's points / 2, per count
GAME_SCORES = (0.0, 0.5, 1.0)  # loss, draw, win
_REGULAR = 1e-3  # fishtest's stand-in for an empty count (else a few straight wins "prove" anything)


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def pair_counts(pair_points: Iterable[float]) -> list[int]:
    """The pentanomial: counts of board pairs scoring 0, 0.5, 1, 1.5 and 2 points."""
    counts = [0] * 5
    for p in pair_points:
        counts[round(2 * p)] += 1
    return counts


def pentanomial(scores: Sequence[float]) -> list[int]:
    """Counts of pairs scoring 0, 0.5, 1, 1.5 and 2 points; ``scores`` are per game, pairs consecutive."""
    return pair_counts(scores[i] + scores[i + 1] for i in range(0, len(scores) - 1, 2))


K = TypeVar("K", bound=Hashable)


class BoardPairs(Generic[K]):
    """Games put into board pairs as they arrive, in any order: the two games with one key
    (a board and the two bots on it, seats swapped) make a pair.

    Only the games still waiting for their partner are kept (``waiting``: key -> one
    side's points in the first game), so a league of any size costs the games in flight.
    """

    def __init__(self) -> None:
        self.waiting: dict[K, float] = {}

    def add(self, key: K, points: float) -> float | None:
        """One side's points in a game; the pair's points (0 to 2) when it completes one, else None."""
        first = self.waiting.pop(key, None)
        if first is None:
            self.waiting[key] = points
            return None
        return first + points


def _best_with_mean(counts: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The multinomial closest to the observed one (maximum likelihood) whose mean is ``s``.

    It is p_i = phat_i / (1 + x (v_i - s)), with x the root of f(x) = sum p_i (v_i - s) = 0
    between the poles, where f decreases: Newton's method from 0, kept inside the
    bracket (bisecting when a step would leave it).
    """
    n = sum(counts)
    phat = [c / n for c in counts]
    d = [v - s for v in values]
    lo = -1 / max(d) if max(d) > 0 else -1e12
    hi = -1 / min(d) if min(d) < 0 else 1e12
    x = 0.0
    for _ in range(100):
        f = sum(p * di / (1 + x * di) for p, di in zip(phat, d, strict=True))
        if abs(f) < 1e-15:
            break
        if f > 0:
            lo = x
        else:
            hi = x
        slope = -sum(p * di * di / (1 + x * di) ** 2 for p, di in zip(phat, d, strict=True))
        step = x - f / slope if slope < 0 else (lo + hi) / 2
        x = step if lo < step < hi else (lo + hi) / 2
    return [p / (1 + x * di) for p, di in zip(phat, d, strict=True)]


def llr(counts: Sequence[int], elo0: float, elo1: float, values: Sequence[float] = PAIR_SCORES) -> float:
    """The GSPRT log-likelihood ratio of elo1 against elo0 for these outcome counts."""
    if sum(counts) == 0:
        return 0.0
    regular = [c if c > 0 else _REGULAR for c in counts]
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    p0 = _best_with_mean(regular, values, s0)
    p1 = _best_with_mean(regular, values, s1)
    return sum(c * math.log(a / b) for c, a, b in zip(regular, p1, p0, strict=True))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: below the first, H0; above the second, H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


# Games the test may play for bounds 50 Elo apart (alpha = beta = 0.05): with this cap the
# measured error rates are near the nominal ones (tests/unit/stats/test_sprt.py); the number needed
# grows as 1 / (elo1 - elo0)^2.
GAMES_FOR_50 = 1200


def fitted_max_games(elo0: float, elo1: float) -> int:
    """A game cap that lets the test decide with about its nominal error rates (even, at most 100,000)."""
    games = GAMES_FOR_50 * (50.0 / max(elo1 - elo0, 1e-9)) ** 2
    return min(100_000, 2 * math.ceil(games / 2))


def points_interval(counts: Sequence[int]) -> tuple[float, float]:
    """A 95% interval of the mean points per game, from the spread of board pairs (normal approximation)."""
    n = sum(counts)
    if n == 0:
        return 0.0, 1.0
    mean = sum(c * v for c, v in zip(counts, PAIR_SCORES, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, PAIR_SCORES, strict=True)) / n
    half = NormalDist().inv_cdf(0.975) * math.sqrt(var / n)
    return max(0.0, mean - half), min(1.0, mean + half)


@dataclass(frozen=True)
class EloEstimate:
    """The Elo difference a set of pairs says, with a 95% interval and LOS (from the pair scores)."""

    elo: float
    low: float
    high: float
    los: float  # P(candidate stronger), normal approximation over pairs


def elo_estimate(counts: Sequence[int]) -> EloEstimate:
    n = sum(counts)
    if n == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5)
    mean = sum(c * v for c, v in zip(counts, PAIR_SCORES, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, PAIR_SCORES, strict=True)) / n
    se = math.sqrt(var / n)
    z = NormalDist().inv_cdf(0.975)
    los = NormalDist().cdf((mean - 0.5) / se) if se > 0 else float(mean > 0.5)
    return EloEstimate(score_to_elo(mean), score_to_elo(mean - z * se), score_to_elo(mean + z * se), los)


def mirrored(counts: Sequence[int]) -> bool:
    """Every pair split 1-1 (each side won its own seat, or both drew): often deterministic self-play."""
    return sum(counts) > 0 and counts[2] == sum(counts)


# --- simulation: what the test does with synthetic results --------------------------


def pair_probabilities(elo: float, draw: float = 0.1) -> list[float]:
    """A pentanomial for two independent games at ``elo`` with draw ratio ``draw`` (a model)."""
    s = elo_to_score(elo)
    win = s - draw / 2
    loss = 1 - win - draw
    game = [loss, draw, win]
    out = [0.0] * 5
    for a, pa in enumerate(game):
        for b, pb in enumerate(game):
            out[a + b] += pa * pb
    return out


def simulate(
    true_elo: float,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    max_pairs: int,
    runs: int,
    seed: int = 1,
    draw: float = 0.1,
) -> tuple[float, float, float]:
    """The share of runs ending H1, H0 and inconclusive, for synthetic pairs at ``true_elo``."""
    rng = random.Random(seed)
    probs = pair_probabilities(true_elo, draw)
    lower, upper = bounds(alpha, beta)
    h1 = h0 = 0
    for _ in range(runs):
        counts = [0] * 5
        for _pair in range(max_pairs):
            counts[rng.choices(range(5), probs)[0]] += 1
            value = llr(counts, elo0, elo1)
            if value >= upper:
                h1 += 1
                break
            if value <= lower:
                h0 += 1
                break
    return h1 / runs, h0 / runs, (runs - h1 - h0) / runs
