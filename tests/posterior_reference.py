"""The exact posterior of the batch TrueSkill model for 2-player games, to check P(better) against.

The model the fit uses: each skill N(mu, sigma^2) a priori, independent; in a game each
performance is skill + N(0, beta^2); a win is a performance difference above the draw
margin, a draw one within it.  For two bots the posterior of the difference is one
dimensional and integrated on a fine grid; for more, self-normalized importance
sampling from a wide Student t (seeded), whose weights are the exact posterior.
Used by tests/test_pbetter.py and bench/bench_calibration.py (``--only pbetter``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import draw_margin
from arena.stats.truncated import log_cdf

Game = Sequence[tuple[str, int]]


def _log_phi(x: np.ndarray) -> np.ndarray:
    """log of the standard normal cdf (checked against math.erfc in tests/test_pbetter.py)."""
    out: np.ndarray = log_cdf(x)
    return out


def _pair_log_lik(diff: np.ndarray, wins: int, draws: int, losses: int, cfg: RatingConfig) -> np.ndarray:
    """log likelihood of ``wins``-``draws``-``losses`` of a bot whose skill is ``diff`` above its opponent's."""
    eps, scale = draw_margin(cfg), math.sqrt(2.0) * cfg.beta
    out = np.zeros_like(diff)
    if wins:
        out += wins * _log_phi((diff - eps) / scale)
    if losses:
        out += losses * _log_phi((-diff - eps) / scale)
    if draws:
        hi = np.exp(_log_phi((eps - diff) / scale))
        lo = np.exp(_log_phi((-eps - diff) / scale))
        out += draws * np.log(np.maximum(hi - lo, 1e-300))
    return out


def exact_two(wins: int, draws: int, losses: int, cfg: RatingConfig | None = None) -> float:
    """P(skill a > skill b) after a's ``wins``-``draws``-``losses`` against b, by a grid."""
    cfg = cfg or RatingConfig()
    d = np.linspace(-12 * cfg.sigma, 12 * cfg.sigma, 40_001)
    log_p = -(d**2) / (4 * cfg.sigma**2) + _pair_log_lik(
        d, wins, draws, losses, cfg
    )  # prior of d: N(0, 2 sigma^2)
    w = np.exp(log_p - log_p.max())
    return float(w[d > 0].sum() / w.sum())


def results(games: Sequence[Game]) -> Counter[tuple[str, str, str]]:
    """(first by name, second, 'w' | 'd' | 'l' of the first) -> count."""
    out: Counter[tuple[str, str, str]] = Counter()
    for (a, ra), (b, rb) in games:
        if a > b:
            (a, ra), (b, rb) = (b, rb), (a, ra)
        out[a, b, "w" if ra < rb else "d" if ra == rb else "l"] += 1
    return out


def exact_better(
    games: Sequence[Game],
    bots: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    centre: np.ndarray,
    cov: np.ndarray,
    cfg: RatingConfig | None = None,
    samples: int = 100_000,
    seed: int = 0,
) -> tuple[list[float], float]:
    """P(skill a > skill b) for each pair under the exact posterior, and the sampling's
    effective sample size.

    Importance sampling from a Student t (4 degrees of freedom) at ``centre`` with twice the
    spread of ``cov``: the weights are the exact posterior over the proposal, so any proposal
    with heavier tails than the posterior gives the exact figure; a good one (the fit's own
    Gaussian, say) only makes the sampling's noise small.
    """
    cfg = cfg or RatingConfig()
    index = {b: i for i, b in enumerate(bots)}
    n = len(bots)
    rng = np.random.default_rng(seed)
    df = 4.0
    chol = np.linalg.cholesky(4.0 * cov)
    z = rng.standard_normal((samples, n))
    chi = rng.chisquare(df, (samples, 1))
    s = centre + (z @ chol.T) / np.sqrt(chi / df)
    maha = np.einsum("si,si->s", z, z) * (df / chi[:, 0])  # (s - centre)' (4 cov)^-1 (s - centre)
    log_q = -0.5 * (df + n) * np.log1p(maha / df)
    log_post = -0.5 * (((s - cfg.mu) / cfg.sigma) ** 2).sum(axis=1)
    by_pair: dict[tuple[str, str], list[int]] = {}
    for (a, b, kind), c in results(games).items():
        by_pair.setdefault((a, b), [0, 0, 0])["wdl".index(kind)] += c
    for (a, b), (w, d, lost) in by_pair.items():
        log_post += _pair_log_lik(s[:, index[a]] - s[:, index[b]], w, d, lost, cfg)
    log_w = log_post - log_q
    weight = np.exp(log_w - log_w.max())
    weight /= weight.sum()
    ess = float(1.0 / np.sum(weight**2))
    return [float(weight[s[:, index[a]] > s[:, index[b]]].sum()) for a, b in pairs], ess
