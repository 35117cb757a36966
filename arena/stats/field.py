"""P(better) with the field's spread told by the games: a hierarchical prior on skill.

The batch fit puts the same prior on every skill, N(mu, sigma^2) with sigma = 25/3: it
takes for granted that bots are spread some 460 Elo apart.  Among bots much closer than
that, with few games, the posterior under that prior is too sure: 4-0 between two bots
says 0.993, and pairs shown at 0.95 or more were wrong 5-14% of the time (issue 33).

Here the spread is not taken as known.  Every skill is N(mu, tau^2) for one tau shared by
the field, tau itself half-Cauchy (:data:`CAUCHY_SCALE`: some 40 Elo), on a grid of log tau over
[sigma / SPAN_BELOW, sigma * SPAN_ABOVE]; given
tau the posterior is the fit's joint Gaussian with its prior's precision replaced (the
games' sites as the fit left them), and a pair's own 2-player games enter exactly (see
:mod:`arena.stats.joint`).  The games weigh each tau by their marginal likelihood under
the Gaussian sites,

    log p(games | tau) = sum_k -1/2 log(1 + tau^2 l_k) + 1/2 g_k^2 / (l_k + 1 / tau^2)

(l_k the eigenvalues of the sites' precision, g their linear term in its eigenbasis), and
P(better) is the posterior's averaged over tau.  Close bots with few games then say "not
sure" (their games are as likely from a narrow field, where luck decides), while a field
whose games show it wide, or many games between two bots, give what the fixed prior gave.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from arena.stats.joint import JointPosterior

Array = NDArray[np.float64]

POINTS = 48  # values of tau the posterior is averaged over (log-spaced)
SPAN_BELOW = 256.0  # tau from prior_sigma / SPAN_BELOW (2 Elo between two bots' skills)
SPAN_ABOVE = 2.0  # to prior_sigma * SPAN_ABOVE
# tau's prior: half-Cauchy (Gelman 2006's for a group-level spread) of scale CAUCHY_SCALE times
# the fit's sigma: some 40 Elo a skill, the closest fields the figures must hold in; its heavy
# tail lets a field the games show wide be wide.  With 4 bots tau rests on 3 differences, so
# its prior decides even at 200 games among close bots: at scale 0.25 (some 100 Elo) pairs of 4
# bots 40 Elo apart (SD) with 20 games shown 0.7 or more were right 62-67% of the time where
# they read 0.77 on average, and at 56 games pairs shown sure were wrong 12.5% (scale 1: worse;
# a log-uniform tau showed almost no pair sure: bench/bench_calibration.py --only field).
CAUCHY_SCALE = 0.1
NEGLIGIBLE = 1e-9  # a tau whose weight is below this share of the largest is left out


def tau_grid(prior_sigma: float) -> Array:
    """The values of the field's spread tau averaged over: equally spaced logs (the half-Cauchy
    prior weighs them)."""
    grid: Array = np.exp(np.linspace(math.log(prior_sigma / SPAN_BELOW), math.log(prior_sigma * SPAN_ABOVE), POINTS))
    return grid


def _sites(joint: JointPosterior) -> tuple[Array, Array, Array]:
    """The eigenvalues and eigenvectors of the games' precision (the prior's taken out), and
    the games' linear term in that basis."""
    data = joint.precision - np.eye(len(joint.names)) / joint.prior_sigma**2
    data = 0.5 * (data + data.T)
    lam, vec = np.linalg.eigh(data)
    lam = np.maximum(lam, 0.0)  # rounding: the level (and each unlinked group's) has none
    h = joint.linear - joint.prior_mu / joint.prior_sigma**2
    return lam, vec, vec.T @ h


def spread_weights(joint: JointPosterior) -> tuple[Array, Array]:
    """The grid of tau and each value's posterior weight (summing to 1)."""
    lam, _vec, g = _sites(joint)
    taus = tau_grid(joint.prior_sigma)
    t2 = taus[:, None] ** 2
    log_m = (-0.5 * np.log1p(t2 * lam[None]) + 0.5 * g[None] ** 2 * t2 / (1.0 + t2 * lam[None])).sum(axis=1)
    # The half-Cauchy prior on tau, as a density over log tau (the grid's spacing).
    log_m = log_m + np.log(taus) - np.log1p((taus / (joint.prior_sigma * CAUCHY_SCALE)) ** 2)
    w = np.exp(log_m - log_m.max())
    weights: Array = w / w.sum()
    return taus, weights


def field_spread(joint: JointPosterior) -> float:
    """The field's spread tau (in skill units) at the posterior's median: what the games say."""
    taus, weights = spread_weights(joint)
    return float(taus[int(np.searchsorted(np.cumsum(weights), 0.5))])


def field_better(joint: JointPosterior, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """P(skill of a > skill of b) for each (a, b), averaged over the field's spread."""
    if not pairs:
        return []
    index = {name: i for i, name in enumerate(joint.names)}
    ij = [(index[a], index[b]) for a, b in pairs]
    lam, vec, g = _sites(joint)
    taus, weights = spread_weights(joint)
    keep = weights >= NEGLIGIBLE * weights.max()
    taus, weights = taus[keep], weights[keep] / weights[keep].sum()
    rows = np.array([i for i, _ in ij])
    cols = np.array([j for _, j in ij])
    diff = vec[rows] - vec[cols]  # (pairs, bots): each pair's difference in the eigenbasis
    scale = 1.0 / (lam[None, :] + 1.0 / taus[:, None] ** 2)  # (taus, bots)
    var = (diff**2) @ scale.T  # (pairs, taus)
    mean = diff @ (g[None, :] * scale).T  # (pairs, taus)
    out = []
    for k, (i, j) in enumerate(ij):
        p = float(weights @ joint.differences_above_zero(i, j, var[k], mean[k]))
        out.append(min(1.0, max(0.0, p)))
    return out
