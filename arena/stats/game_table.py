"""A league's games kept for the rating fit: a few bytes per seat, in any order."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Seats = Sequence[tuple[str, int]]  # (bot, rank) per seat; rank 1 is first, equal ranks tie


class GameTable:
    """A league's games in brief and compact: bot numbers and ranks, per number of players.

    A few bytes per seat (not a tuple per game), so a run can keep 100,000 games
    at hand for the next fit; the order games are added in changes nothing.
    """

    def __init__(self, bots: Sequence[str] = ()) -> None:
        self.names: list[str] = list(dict.fromkeys(bots))
        self.index = {n: i for i, n in enumerate(self.names)}
        self._bots: dict[int, array[int]] = {}
        self._ranks: dict[int, array[int]] = {}
        self._boards: dict[int, array[int]] = {}
        self.count = 0

    def include(self, names: Iterable[str]) -> None:
        """Number these bots too (an entrant without a game still gets a rating)."""
        for name in names:
            if name not in self.index:
                self.index[name] = len(self.names)
                self.names.append(name)

    def add(self, seats: Seats, board: int = 0) -> None:
        """One game; ``board`` names its board (games on one board are resampled together)."""
        self.include(n for n, _ in seats)
        self._boards.setdefault(len(seats), array("q")).append(board)
        k = len(seats)
        self._bots.setdefault(k, array("i")).extend(self.index[n] for n, _ in seats)
        self._ranks.setdefault(k, array("i")).extend(r for _, r in seats)
        self.count += 1

    def groups(self) -> list[tuple[NDArray[np.int64], NDArray[np.bool_]]]:
        """The games by number of players, each best first, in a canonical order.

        Each is (bots, ties): bot numbers best first (games, k), and whether each
        place ties the next (games, k - 1).  Bots are numbered by name (as in
        :meth:`canonical_names`), not by first appearance, and games sorted, so
        that every order of the same games gives the same arrays, and the same fit.
        """
        import numpy as np  # here: reading commands that need no fit never load numpy

        canonical = self._canonical()
        n = len(self.names)
        out = []
        for k in sorted(self._bots):
            if k < 2:
                continue
            bots = canonical[np.frombuffer(self._bots[k], dtype=np.int32).reshape(-1, k)]
            ranks = np.frombuffer(self._ranks[k], dtype=np.int32).reshape(-1, k).astype(np.int64)
            # A bot against itself teaches nothing about its rating.
            distinct = np.all(np.diff(np.sort(bots, axis=1), axis=1) != 0, axis=1)
            bots, ranks = bots[distinct], ranks[distinct]
            # Best first; the order among tied players changes nothing (the margin is symmetric).
            key = ranks * n + bots
            key = np.take_along_axis(key, np.argsort(key, axis=1, kind="stable"), axis=1)
            key = key[np.lexsort(key.T[::-1])] if len(key) else key
            ranks, bots = key // n, key % n
            out.append((bots, ranks[:, 1:] == ranks[:, :-1]))
        return out

    def _canonical(self) -> NDArray[np.int64]:
        import numpy as np

        by_name = np.argsort(np.array(self.names, dtype=object), kind="stable")
        canonical = np.empty(len(self.names), dtype=np.int64)
        canonical[by_name] = np.arange(len(self.names))
        return canonical

    def arrays(self) -> list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]]:
        """Per number of players: each game's board, bots (numbered by name) and ranks, as added."""
        import numpy as np

        canonical = self._canonical()
        out = []
        for k in sorted(self._bots):
            bots = canonical[np.frombuffer(self._bots[k], dtype=np.int32).reshape(-1, k)]
            ranks = np.frombuffer(self._ranks[k], dtype=np.int32).reshape(-1, k).astype(np.int64)
            out.append((np.frombuffer(self._boards[k], dtype=np.int64).copy(), bots, ranks))
        return out

    def canonical_names(self) -> list[str]:
        return sorted(self.names)
