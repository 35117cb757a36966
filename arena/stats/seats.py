"""The seat advantage with an interval whose sample is the boards, not the games.

Games on one board (a meeting's seat orders) share whatever the board favours,
so the spread that matters is between boards: each seat's mean points are
taken per board, and the 95% interval of their mean over boards comes from the
spread of those per-board means, with Student's t quantile for boards - 1
degrees of freedom (with 4 or 5 boards the normal's 1.96 covered 84-88%).
"""

from __future__ import annotations

import math

import numpy as np

from arena.stats.game_table import GameTable

SeatIntervals = dict[int, tuple[int, list[tuple[float, float]]]]


def t_cdf(x: float, df: int) -> float:
    """Student's t distribution function, by the regularized incomplete beta function
    (a continued fraction, Numerical Recipes' betacf): no scipy needed for one quantile."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, not {df}")
    z = df / (df + x * x)
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, z)
    return 1 - tail if x > 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1 - _incomplete_beta(b, a, 1 - x)
    # Lentz's method for the continued fraction.
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > 1e-300 else 1e-300)
    f = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + num / c
            c = c if abs(c) > 1e-300 else 1e-300
            f *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return front * f / a


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on t_cdf)."""
    lo, hi = 0.0, 1e3
    if p < 0.5:
        return -t_quantile(1 - p, df)
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def seat_intervals(table: GameTable) -> SeatIntervals:
    """Per number of players: (boards, each seat's 95% interval of its mean points)."""
    out: SeatIntervals = {}
    for board, bots, ranks in table.arrays():
        players = ranks.shape[1]
        # A canonical order of games: the same games in any order give the same sums, to the bit.
        order = np.lexsort(np.column_stack([board, ranks, bots]).T[::-1])
        board, ranks = board[order], ranks[order]
        # Points per seat: opponents finished above, a tie counting half, over players - 1.
        above = (ranks[:, None, :] > ranks[:, :, None]).sum(axis=2)
        tied = (ranks[:, None, :] == ranks[:, :, None]).sum(axis=2) - 1
        points = (above + 0.5 * tied) / (players - 1)
        _, where = np.unique(board, return_inverse=True)
        boards = int(where.max()) + 1
        per_board = np.stack(
            [np.bincount(where, points[:, s], boards) / np.bincount(where, None, boards) for s in range(players)],
            axis=1,
        )
        mean = per_board.mean(axis=0)
        if boards < 2:
            out[players] = (boards, [(0.0, 1.0)] * players)
            continue
        half = t_quantile(0.975, boards - 1) * per_board.std(axis=0, ddof=1) / math.sqrt(boards)
        out[players] = (
            boards,
            [(float(max(0.0, m - h)), float(min(1.0, m + h))) for m, h in zip(mean, half, strict=True)],
        )
    return out
