"""The standings' Elo and a 95% interval that holds in lopsided leagues too.

The point estimate is :func:`arena.stats.elo.board_bootstrap`'s (a Bradley-Terry
fit with one virtual draw between every two bots that met, so that a bot that won
everything still gets a finite figure).  The interval is not built around it: the
virtual draws pull lopsided results in (by some 24 Elo on average when skills come
from the TrueSkill prior), and a bootstrap of that fit carries the pull into every
resample, so its "95%" covered 58-94%.  Instead it is a Wald interval around the
plain maximum-likelihood fit (a virtual draw of weight ``LIGHT``, only to keep a
perfect record finite), with a variance that holds when games are not independent:
the sandwich H^-1 (sum over boards of g g^T) H^-1, g a board's score residuals, H
the information (the games of one board, both seat orders or a 4-player game's six
results, stay together), and Student's t quantile for boards - 1 degrees of
freedom.  The interval is widened to hold the point estimate.  In simulated
leagues (bench/bench_calibration.py) it covers 93-97% for spreads of 0 to 400
Elo and 40 to 4,000 games.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from arena.stats.elo import Elo, board_bootstrap
from arena.stats.game_table import GameTable
from arena.stats.seats import t_quantile

LIGHT = 0.01  # weight of the virtual draw in the fit the interval is built around
NEWTON_STEPS = 100
ELO_PER_NAT = 400 / math.log(10)


def _pairwise(table: GameTable) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Every game as results between each two of its players: (board, a, b, a's points)."""
    boards, firsts, seconds, scores = [], [], [], []
    for board, bots, ranks in table.arrays():
        first, second = np.triu_indices(bots.shape[1], 1)
        a, b = bots[:, first].ravel(), bots[:, second].ravel()
        ra, rb = ranks[:, first].ravel(), ranks[:, second].ravel()
        keep = a != b
        boards.append(np.repeat(board, len(first))[keep])
        firsts.append(a[keep])
        seconds.append(b[keep])
        scores.append(np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))[keep])
    if not boards:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0)
    return np.concatenate(boards), np.concatenate(firsts), np.concatenate(seconds), np.concatenate(scores)


def _information(n: int, a: NDArray[np.int64], b: NDArray[np.int64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    h = np.zeros((n, n))
    np.add.at(h, (a, a), w)
    np.add.at(h, (b, b), w)
    np.add.at(h, (a, b), -w)
    np.add.at(h, (b, a), -w)
    return h


def _centred_inverse(h: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of ``h`` on strengths of mean 0 (its null direction, all equal, taken out)."""
    n = len(h)
    j = np.full((n, n), 1.0 / n)
    inverse: NDArray[np.float64] = np.linalg.inv(h + j) - j
    return inverse


def _fit(n: int, a: NDArray[np.int64], b: NDArray[np.int64], y: NDArray[np.float64]) -> tuple[NDArray[np.float64], bool]:
    """The maximum-likelihood strengths (natural log scale, mean 0) with the light virtual draws,
    by Newton's method; and whether it converged."""
    met = np.zeros((n, n), dtype=bool)
    met[a, b] = met[b, a] = True
    pa, pb = np.nonzero(np.triu(met, 1))
    theta = np.zeros(n)
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
        q = 1 / (1 + np.exp(-(theta[pa] - theta[pb])))
        grad = np.zeros(n)
        np.add.at(grad, a, y - p)
        np.add.at(grad, b, p - y)
        np.add.at(grad, pa, LIGHT * (0.5 - q))
        np.add.at(grad, pb, LIGHT * (q - 0.5))
        h = _information(n, a, b, p * (1 - p)) + _information(n, pa, pb, LIGHT * q * (1 - q))
        step = _centred_inverse(h) @ grad
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            return theta, True
    return theta, False


def elo_intervals(table: GameTable) -> tuple[dict[str, Elo], bool]:
    """Each bot's Elo (mean 0) with a 95% interval, and whether the interval's fit converged."""
    point = board_bootstrap(table, samples=0)
    names = table.canonical_names()
    n = len(names)
    board, a, b, y = _pairwise(table)
    if len(y) == 0 or n < 2:
        return point, True
    theta, converged = _fit(n, a, b, y)
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    inverse = _centred_inverse(_information(n, a, b, p * (1 - p)))
    _, where = np.unique(board, return_inverse=True)
    clusters = int(where.max()) + 1
    if clusters < 2:
        return point, converged
    residual = np.zeros((clusters, n))
    np.add.at(residual, (where, a), y - p)
    np.add.at(residual, (where, b), p - y)
    cov = inverse @ (residual.T @ residual) @ inverse * clusters / (clusters - 1)
    half = t_quantile(0.975, clusters - 1) * np.sqrt(np.maximum(np.diag(cov), 0.0)) * ELO_PER_NAT
    centre = theta * ELO_PER_NAT
    out = {}
    for i, name in enumerate(names):
        e = point[name]
        if not math.isfinite(e.low):
            out[name] = e  # a bot that played no one
            continue
        low, high = float(centre[i] - half[i]), float(centre[i] + half[i])
        out[name] = Elo(e.elo, min(low, e.elo), max(high, e.elo))
    return out, converged
