"""Perft: count the leaves of the move tree to a fixed depth.

As in chess, perft(position, 0) is 1 and a finished game has no children, so
a game that ends before the depth is reached adds nothing.  A skipped turn
(a player with no legal move) is not a ply: the next player's move is.
Independent implementations compare these counts to find move-generator bugs.
"""

from __future__ import annotations

from .moves import Move
from .state import GameState


def perft(state: GameState, depth: int) -> int:
    """The number of leaf positions ``depth`` plies below ``state`` (left as it was found)."""
    if depth == 0:
        return 1
    if depth == 1:
        return state.count_moves()
    total = 0
    for move in state.legal_moves():
        state.apply(move)
        total += perft(state, depth - 1)
        state.undo()
    return total


def divide(state: GameState, depth: int) -> list[tuple[Move, int]]:
    """Perft split by first move: ``[(move, leaves under it), ...]``."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth!r}")
    out = []
    for move in state.legal_moves():
        child = state.copy()
        child.apply(move)
        out.append((move, perft(child, depth - 1)))
    return out
