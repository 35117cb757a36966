"""P(one bot's skill above another's) from the joint posterior of the two, not from two lone Gaussians.

The batch fit (:mod:`arena.stats.trueskill_fit`) gives each bot a Gaussian of its own,
but two bots' skills are correlated through the games that tie them together: after
36-0-20 between two bots, their levels are both unknown by about the prior's sigma,
while their *difference* is known far better.  Comparing ``mu_a - mu_b`` with
``sqrt(sigma_a^2 + sigma_b^2)`` then says 0.948 where the posterior says 0.990.

This module keeps the posterior's joint Gaussian, as a precision matrix over every bot:
the prior's, plus each game's site, the Gaussian the fit's expectation propagation put
on the differences of the players' performances (one per adjacent pair of places),
carried back to their skills through the performance noise, cross terms included.  The
difference ``d = s_a - s_b`` of a pair then has a Gaussian marginal.  Results between
the two themselves (2-player games) are where the posterior is most skewed (4-0 is a
sharp edge at 0, not a bell), so for them the Gaussian is used only as the *cavity*:
their sites are taken out, their exact likelihood (the fit's own: a performance
difference above the draw margin, or within it) put back, and ``P(d > 0)`` integrated
on a grid.  With two bots that is the exact posterior; with more, the evidence through
third bots enters as a Gaussian.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from arena.stats.truncated import log_cdf

Array = NDArray[np.float64]

GRID = 801  # points of the grid a pair's difference is integrated on
SPAN = 10.0  # the grid's half-width, in the Gaussian's standard deviations of the difference


@dataclass(frozen=True)
class DirectGames:
    """The 2-player games between one pair, as seen from the first bot: counts and their sites.

    ``sites`` are the Gaussians the fit put on the difference (first minus second) for
    one game of each kind, as (precision, precision times mean), win, draw, loss.
    """

    wins: float = 0.0
    draws: float = 0.0
    losses: float = 0.0
    precision: float = 0.0  # of all of them together, on the difference
    linear: float = 0.0


@dataclass(frozen=True)
class JointPosterior:
    """The fit's joint Gaussian over every bot's skill, and what P(better) needs besides it."""

    names: list[str]
    mean: Array  # the fit's mu per bot (names' order)
    precision: Array  # (bots, bots): the prior's and every game's site
    linear: Array  # precision times mean of the same Gaussian (the sites' own mean)
    margin: float  # the draw margin of performance
    noise: float  # variance of the performance difference of two players: 2 beta^2
    direct: dict[tuple[int, int], DirectGames] = field(default_factory=dict)  # i < j
    prior_mu: float = 25.0  # the fit's prior on each skill, N(prior_mu, prior_sigma^2)
    prior_sigma: float = 25.0 / 3

    def better(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(skill of a > skill of b) for each (a, b), the field's spread fitted to the games.

        :meth:`better_at_prior` takes the fit's prior spread (``prior_sigma``) as known; the
        field's posterior does not: every skill is N(prior_mu, tau^2) for a tau the games tell,
        averaged over tau (see :mod:`arena.stats.field`).  The figure is the less sure of the
        two, and an even 0.5 where they favour different bots: the standings rank by the fit's
        mu, so a rank above the next is never shown the likelier weaker (the field's mean
        shrinks a bot with few games further than the fit's, and may put it the other side).
        """
        from arena.stats.field import field_better  # here: the field needs this module's pieces

        return [
            0.5 if (f - 0.5) * (g - 0.5) < 0 else min(f, g, key=lambda p: abs(p - 0.5))
            for f, g in zip(self.better_at_prior(pairs), field_better(self, pairs), strict=True)
        ]

    def better_at_prior(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(skill of a > skill of b) for each (a, b), under the fit's own posterior (its prior's
        spread ``prior_sigma`` taken as known)."""
        if not pairs:
            return []
        index = {name: i for i, name in enumerate(self.names)}
        ij = [(index[a], index[b]) for a, b in pairs]
        # The covariance once (bots^3, as any exact way to the pairs' variances needs without a
        # sparse solver); the precision is symmetric positive definite.
        cov = np.linalg.inv(self.precision)
        rows = np.array([i for i, _ in ij])
        cols = np.array([j for _, j in ij])
        var = cov[rows, rows] + cov[cols, cols] - 2 * cov[rows, cols]
        site_mean = cov @ self.linear
        return [
            self.difference_above_zero(i, j, float(v), float(site_mean[i] - site_mean[j]))
            for (i, j), v in zip(ij, var, strict=True)
        ]

    def difference_above_zero(
        self, i: int, j: int, var: float, site_mean: float, mean: float | None = None
    ) -> float:
        """P(d > 0) for the difference d of bots i and j, of Gaussian ``site_mean`` and ``var``
        (``mean``: the difference of means where the pair has no games of its own; the fit's mu)."""
        if mean is None:
            mean = float(self.mean[i] - self.mean[j])
        games = self.direct.get((min(i, j), max(i, j)))
        if games is not None and j < i:  # seen from j: wins and losses swap, the difference flips
            games = DirectGames(games.losses, games.draws, games.wins, games.precision, -games.linear)
        if games is None or var <= 0:
            return _gaussian(mean, var)
        # The cavity: the joint Gaussian's difference without the sites of their own games.
        cav_prec = 1.0 / var - games.precision
        if cav_prec <= 1e-12:  # nothing but their own games: no cavity to speak of
            return _gaussian(mean, var)
        cav_mean = (site_mean / var - games.linear) / cav_prec
        return _tilted(cav_mean, 1.0 / cav_prec, games, self.margin, self.noise, site_mean, var)


    def differences_above_zero(self, i: int, j: int, var: Array, mean: Array) -> Array:
        """:meth:`difference_above_zero` for several Gaussians of the pair's difference at once
        (each of ``mean`` and ``var``: the Gaussian posterior's, which is its sites' too)."""
        games = self.direct.get((min(i, j), max(i, j)))
        if games is not None and j < i:
            games = DirectGames(games.losses, games.draws, games.wins, games.precision, -games.linear)
        sd = np.sqrt(np.maximum(var, 1e-300))
        out: Array = 0.5 * special_erfc(-mean / (math.sqrt(2.0) * sd))
        if games is None:
            return out
        cav_prec = 1.0 / np.maximum(var, 1e-300) - games.precision
        ok = cav_prec > 1e-12
        if not np.any(ok):
            return out
        m, s, cp = mean[ok], sd[ok], cav_prec[ok]
        cav_mean = (m / s**2 - games.linear) / cp
        lo = np.minimum(m - SPAN * s, -s)
        hi = np.maximum(m + SPAN * s, s)
        d = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, GRID)[None, :]
        log_p = -0.5 * (d - cav_mean[:, None]) ** 2 * cp[:, None] + _log_likelihood(d, games, self.margin, self.noise)
        top = np.max(log_p, axis=1, keepdims=True)
        weight = np.exp(log_p - np.where(np.isfinite(top), top, 0.0))
        step = (d[:, 1] - d[:, 0])[:, None]
        cumulative = np.concatenate([np.zeros((len(m), 1)), np.cumsum(0.5 * (weight[:, 1:] + weight[:, :-1]) * step, axis=1)], axis=1)
        total = cumulative[:, -1]
        # The mass below 0: the cumulative trapezoids up to the grid point below 0, then the piece to 0.
        k = np.clip(((0.0 - lo) / step[:, 0]).astype(np.int64), 0, GRID - 2)
        rows = np.arange(len(m))
        frac = (0.0 - d[rows, k]) / step[:, 0]
        at_zero = weight[rows, k] + frac * (weight[rows, k + 1] - weight[rows, k])
        below = cumulative[rows, k] + 0.5 * (weight[rows, k] + at_zero) * (0.0 - d[rows, k])
        good = np.isfinite(top[:, 0]) & (total > 0)
        tilted = np.where(good, np.clip(1.0 - below / np.where(good, total, 1.0), 0.0, 1.0), out[ok])
        out[ok] = tilted
        return out


def special_erfc(x: Array) -> Array:
    """erfc of each element (numpy has none; math.erfc on each)."""
    return np.array([math.erfc(v) for v in np.ravel(x)]).reshape(np.shape(x))


def _log_likelihood(d: Array, games: DirectGames, margin: float, noise: float) -> Array:
    """The log-likelihood of a pair's own games at each difference ``d`` of their skills."""
    scale = math.sqrt(noise)
    log_p = np.zeros(d.shape)
    with np.errstate(divide="ignore"):
        if games.wins:
            log_p += games.wins * log_cdf((d - margin) / scale)
        if games.losses:
            log_p += games.losses * log_cdf((-d - margin) / scale)
        if games.draws:
            inside = np.exp(log_cdf((margin - d) / scale)) - np.exp(log_cdf((-margin - d) / scale))
            log_p += games.draws * np.log(np.maximum(inside, 0.0))
    return log_p


def _gaussian(diff: float, var: float) -> float:
    if var <= 0:
        return float(diff > 0)
    return 0.5 * math.erfc(-diff / math.sqrt(2.0 * var))


def _tilted(
    cav_mean: float,
    cav_var: float,
    games: DirectGames,
    margin: float,
    noise: float,
    centre: float,
    var: float,
) -> float:
    """P(d > 0) for d ~ N(cav_mean, cav_var) times the exact likelihood of the pair's own games.

    ``centre`` and ``var`` are the Gaussian posterior's (the sites'): the grid spans SPAN of
    its standard deviations around it, where the exact posterior's mass is.
    """
    sd = math.sqrt(var)
    lo = min(centre - SPAN * sd, 0.0 - sd)
    hi = max(centre + SPAN * sd, 0.0 + sd)
    d = np.linspace(lo, hi, GRID)
    log_p = -0.5 * (d - cav_mean) ** 2 / cav_var + _log_likelihood(d, games, margin, noise)
    top = float(np.max(log_p))
    if not math.isfinite(top):
        return _gaussian(centre, var)
    weight = np.exp(log_p - top)
    # Trapezoids, split at 0 exactly (0 is put on the grid).
    total = float(np.trapezoid(weight, d))
    above = d >= 0
    edge = np.interp(0.0, d, weight)
    upper = float(np.trapezoid(np.concatenate([[edge], weight[above]]), np.concatenate([[0.0], d[above]])))
    return min(1.0, max(0.0, upper / total)) if total > 0 else _gaussian(centre, var)
