"""The seat advantage with an interval whose sample is the boards, not the games.

Games on one board (a meeting's seat orders) share whatever the board favours,
so the spread that matters is between boards: each seat's mean points are
taken per board, and the 95% interval of their mean over boards comes from the
spread of those per-board means (normal approximation).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from arena.stats.game_table import GameTable

SeatIntervals = dict[int, tuple[int, list[tuple[float, float]]]]


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
        half = NormalDist().inv_cdf(0.975) * per_board.std(axis=0, ddof=1) / math.sqrt(boards)
        out[players] = (
            boards,
            [(float(max(0.0, m - h)), float(min(1.0, m + h))) for m, h in zip(mean, half, strict=True)],
        )
    return out
