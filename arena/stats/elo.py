"""Elo-scale ratings with 95% intervals from resampling boards, as BayesElo / cutechess users expect.

Every game counts as the results between each two of its players (the higher
place wins, equal places draw), so a 4-player game is six pairwise results.  A
Bradley-Terry model is fitted to the results (Hunter's MM algorithm), with one
virtual draw between every two bots that met (so that a bot that won or lost
everything still gets a finite figure), and turned into Elo: 400 log10 of the
strength, the mean over bots 0.  The interval comes from the bootstrap over
*boards*: boards are drawn with replacement, with all their games (both seat
orders of a 2-player pairing stay together), the fit redone, and the 2.5% and
97.5% quantiles taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from arena.stats.game_table import GameTable

SAMPLES = 200  # bootstrap resamples
_MM_SWEEPS = 200
MATRIX_BYTES = 32 * 2**20  # the most one bots x bots matrix of a chunk of resamples may take


@dataclass(frozen=True)
class Elo:
    elo: float
    low: float  # 95% interval, from resampled boards
    high: float


def _bradley_terry(points: NDArray[np.float64], games: NDArray[np.float64]) -> NDArray[np.float64]:
    """Elo (mean 0) from pairwise points and games, rows batched: (samples, n, n) -> (samples, n)."""
    wins = points.sum(axis=-1)
    gamma = np.ones(points.shape[:-1])
    for _ in range(_MM_SWEEPS):
        denom = (games / (gamma[..., :, None] + gamma[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))  # keep the scale fixed
        done = np.max(np.abs(new - gamma)) < 1e-9
        gamma = new
        if done:
            break
    elo: NDArray[np.float64] = 400 * np.log10(gamma)
    centred: NDArray[np.float64] = elo - elo.mean(axis=-1, keepdims=True)
    return centred


def board_bootstrap(table: GameTable, samples: int = SAMPLES, seed: int = 0) -> dict[str, Elo]:
    """Each bot's Elo and 95% interval from the games in ``table`` (their boards resampled)."""
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
        return {name: Elo(0.0, -math.inf, math.inf) for name in names}
    every = np.concatenate(rows)
    every = every[every[:, 1] != every[:, 2]]  # a bot against itself
    # A canonical order: the same games in any order give the same sums, to the last bit.
    every = every[np.lexsort(every.T[::-1])]
    if len(every) == 0:
        return {name: Elo(0.0, -math.inf, math.inf) for name in names}
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
    estimate = _bradley_terry(pts[None], cnt[None])[0]
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
        fitted.append(_bradley_terry(np.stack([p for p, _ in stacked]), np.stack([c for _, c in stacked])))
    low, high = np.quantile(np.concatenate(fitted), [0.025, 0.975], axis=0)
    played = cnt.sum(axis=1) > 0
    return {
        name: Elo(float(estimate[i]), float(low[i]), float(high[i]))
        if played[i]
        else Elo(0.0, -math.inf, math.inf)
        for i, name in enumerate(names)
    }
