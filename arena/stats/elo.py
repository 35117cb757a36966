"""Elo-scale ratings with 95% intervals from resampling boards, as BayesElo / cutechess users expect.

Every game counts as the results between each two of its players (the higher
place wins, equal places draw), so a 4-player game is six pairwise results.  A
Bradley-Terry model is fitted to the results, with one virtual draw between every
two bots that met (so that a bot that won or lost everything still gets a finite
figure), and turned into Elo: 400 log10 of the strength, the mean over bots 0.
The fit is Newton's method on the log-likelihood (it converges in a few steps
where Hunter's MM algorithm, one bot at a time, crawls: a lopsided league could
end 20 Elo off after 200 MM sweeps); past :data:`NEWTON_BOTS` bots, whose matrices
a Newton step would have to solve, MM sweeps, up to :data:`MM_SWEEPS`.  Either
stops when no Elo moves by :data:`ELO_TOLERANCE`, and says when it did not.  The interval comes from the bootstrap over
*boards*: boards are drawn with replacement, with all their games (both seat
orders of a 2-player pairing stay together), the fit redone, and the 2.5% and
97.5% quantiles taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.stats import ELO_TOLERANCE  # converged: no Elo moved by this much in the last step
from arena.stats.game_table import GameTable

SAMPLES = 200  # bootstrap resamples
NEWTON_STEPS = 100  # a Newton fit's limit (it needs 5-10 steps)
MM_SWEEPS = 5000  # an MM fit's limit
NEWTON_BOTS = 100  # Newton up to this many bots (a step solves a bots x bots system); MM beyond
MAX_STEP = 1.0  # the most a Newton step moves a log-strength (e: 174 Elo), so that it never overshoots
_ELO = 400 / math.log(10)  # Elo per unit of log-strength
MATRIX_BYTES = 32 * 2**20  # the most one bots x bots matrix of a chunk of resamples may take


@dataclass(frozen=True)
class Elo:
    elo: float
    low: float  # 95% interval, from resampled boards
    high: float


@dataclass(frozen=True)
class EloFit:
    """Each bot's Elo, and how its fits went: the most steps one took, and whether all converged."""

    elo: dict[str, Elo]
    iterations: int
    converged: bool


Array = NDArray[np.float64]


def _newton(points: Array, games: Array) -> tuple[Array, int, bool]:
    """Log-strengths maximizing the Bradley-Terry likelihood, rows batched: (samples, n, n) -> (samples, n).

    The likelihood is concave and its Hessian a weighted graph Laplacian, singular along each
    connected group's level (which no result says anything of): a tiny ridge keeps the solve
    regular, and the gradient, which sums to 0 over every group, moves no level.
    """
    n = points.shape[-1]
    wins = points.sum(axis=-1)
    theta = np.zeros(points.shape[:-1])
    ridge = 1e-10 * (1.0 + games.sum(axis=-1).max()) * np.eye(n)
    for step in range(1, NEWTON_STEPS + 1):
        p = 1.0 / (1.0 + np.exp(theta[..., None, :] - theta[..., :, None]))  # P(i beats j)
        q = games * p * (1.0 - p)
        grad = wins - (games * p).sum(axis=-1)
        hess = q.sum(axis=-1)[..., :, None] * np.eye(n) - q + ridge
        delta = np.linalg.solve(hess, grad[..., None])[..., 0]
        big = np.max(np.abs(delta), axis=-1, keepdims=True)
        delta *= np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))
        theta = theta + delta
        if float(np.max(np.abs(delta), initial=0.0)) * _ELO < ELO_TOLERANCE:
            return theta, step, True
    return theta, NEWTON_STEPS, False


def _mm(points: Array, games: Array) -> tuple[Array, int, bool]:
    """:func:`_newton` by Hunter's MM sweeps (a sweep costs bots^2, not bots^3)."""
    wins = points.sum(axis=-1)
    gamma = np.ones(points.shape[:-1])
    for sweep in range(1, MM_SWEEPS + 1):
        denom = (games / (gamma[..., :, None] + gamma[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))  # keep the scale fixed
        move = float(np.max(np.abs(np.log(new) - np.log(gamma)), initial=0.0)) * _ELO
        gamma = new
        if move < ELO_TOLERANCE:
            return np.log(gamma), sweep, True
    return np.log(gamma), MM_SWEEPS, False


def _bradley_terry(points: Array, games: Array) -> tuple[Array, int, bool]:
    """Elo (mean 0) from pairwise points and games, rows batched: (samples, n, n) -> (samples, n);
    and the fit's steps, and whether it converged."""
    fit = _newton if points.shape[-1] <= NEWTON_BOTS else _mm
    theta, steps, converged = fit(points, games)
    elo: Array = _ELO * theta
    centred: Array = elo - elo.mean(axis=-1, keepdims=True)
    return centred, steps, converged


def board_bootstrap(table: GameTable, samples: int = SAMPLES, seed: int = 0) -> dict[str, Elo]:
    """Each bot's Elo and 95% interval from the games in ``table`` (their boards resampled)."""
    return fit_elo(table, samples, seed).elo


def fit_elo(table: GameTable, samples: int = SAMPLES, seed: int = 0) -> EloFit:
    """Each bot's Elo and 95% interval from the games in ``table`` (their boards resampled),
    and whether every fit (the estimate's and each resample's) converged."""
    names = table.canonical_names()
    n = len(names)
    rows = []
    for board, bots, ranks in table.arrays():
        k = bots.shape[1]
        first, second = np.triu_indices(k, 1)
        rows.append(
            np.stack(
                [
                    np.repeat(board, len(first)),
                    bots[:, first].ravel(),
                    bots[:, second].ravel(),
                    ranks[:, first].ravel(),
                    ranks[:, second].ravel(),
                ],
                axis=1,
            )
        )
    if not rows:
        return EloFit({name: Elo(0.0, -math.inf, math.inf) for name in names}, 0, True)
    every = np.concatenate(rows)
    every = every[every[:, 1] != every[:, 2]]  # a bot against itself
    # A canonical order: the same games in any order give the same sums, to the last bit.
    every = every[np.lexsort(every.T[::-1])]
    if len(every) == 0:
        return EloFit({name: Elo(0.0, -math.inf, math.inf) for name in names}, 0, True)
    _, where = np.unique(every[:, 0], return_inverse=True)
    a, b, ra, rb = every[:, 1], every[:, 2], every[:, 3], every[:, 4]
    score = np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))  # a's points against b
    boards = int(where.max()) + 1

    def matrices(weight: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        w = weight[where]
        pts = np.bincount(a * n + b, w * score, n * n) + np.bincount(b * n + a, w * (1 - score), n * n)
        cnt = np.bincount(a * n + b, w, n * n) + np.bincount(b * n + a, w, n * n)
        pts, cnt = pts.reshape(n, n), cnt.reshape(n, n)
        met = (cnt > 0).astype(float)
        return pts + 0.5 * met, cnt + met  # one virtual draw between bots that met

    pts, cnt = matrices(np.ones(boards))
    fitted_estimate, steps, converged = _bradley_terry(pts[None], cnt[None])
    estimate = fitted_estimate[0]
    rng = np.random.default_rng(seed)
    uniform = np.full(boards, 1.0 / boards)
    # One resample's counts at a time (all at once would hold samples x boards: 80 MB at
    # 50,000 boards), fitted in chunks whose bots x bots matrices stay within MATRIX_BYTES
    # (all 200 at once held 14 GB a matrix for 3,000 bots).
    chunk = max(1, MATRIX_BYTES // (8 * n * n))
    fitted = []
    for start in range(0, samples, chunk):
        stacked = [
            matrices(rng.multinomial(boards, uniform).astype(float)) for _ in range(min(chunk, samples - start))
        ]
        elo, chunk_steps, chunk_converged = _bradley_terry(
            np.stack([p for p, _ in stacked]), np.stack([c for _, c in stacked])
        )
        fitted.append(elo)
        steps, converged = max(steps, chunk_steps), converged and chunk_converged
    low, high = np.quantile(np.concatenate(fitted), [0.025, 0.975], axis=0)
    played = cnt.sum(axis=1) > 0
    figures = {
        name: Elo(float(estimate[i]), float(low[i]), float(high[i]))
        if played[i]
        else Elo(0.0, -math.inf, math.inf)
        for i, name in enumerate(names)
    }
    return EloFit(figures, steps, converged)
