"""Perft: count the leaves of the move tree to a fixed depth.

As in chess, perft(position, 0) is 1 and a finished game has no children, so
a game that ends before the depth is reached adds nothing.  A skipped turn
(a player with no legal move) is not a ply: the next player's move is.
Independent implementations compare these counts to find move-generator bugs.
"""

from __future__ import annotations

from collections.abc import Iterator

from arena.rules.moves import Move
from arena.rules.state import GameState


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


def divide(state: GameState, depth: int) -> Iterator[tuple[Move, int]]:
    """Perft split by first move: ``(move, leaves under it)`` for each, as each is counted
    (a long count shows its progress)."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth!r}")
    return _divide(state.copy(), depth)


def _divide(state: GameState, depth: int) -> Iterator[tuple[Move, int]]:
    for move in state.legal_moves():
        child = state.copy()
        child.apply(move)
        yield move, perft(child, depth - 1)
