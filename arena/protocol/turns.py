"""Turn requests written straight from a position, once per ply: the referee's hot path.

:class:`TurnWriter` writes the same line as ``format_message(TurnRequest(...))`` without
building the message value, and keeps what did not change since the last request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from operator import ne

from arena.protocol.codec import join_items
from arena.protocol.messages import SEAT_LETTERS

__all__ = ["TurnWriter"]

_LETTERS = SEAT_LETTERS


class TurnWriter:
    """One game's turn requests, written from the position itself.

    The line is exactly what ``format_message(TurnRequest(...))`` writes for the same
    position (tests hold the two equal), but a referee writes one per ply and that
    line stands between a bot's answer and the next bot's request.  So nothing is
    built that the line does not need: the board's and the daisies' text are kept
    until the board changes, each hex's stack text is kept, and only the hexes whose
    stack changed since the last request are written again.

    ``since`` items come from :meth:`since_item`; ``owner`` and ``height`` are per
    hex in board order (owner -1: no stack), as :class:`~arena.rules.GameState`
    keeps them; ``daisies`` is the board's count per hex in the same order.
    """

    __slots__ = (
        "_board_text",
        "_clocks",
        "_clocks_text",
        "_coords",
        "_daisies",
        "_daisies_text",
        "_height",
        "_hex_texts",
        "_owner",
        "_texts",
        "_tiles",
        "_tiles_text",
    )

    def __init__(self) -> None:
        self._coords: tuple[tuple[int, int], ...] | None = None
        self._daisies: Sequence[int] | None = None
        self._board_text = "-"
        self._daisies_text = "-"
        self._hex_texts: list[str] = []
        self._owner: list[int] = []
        self._height: list[int] = []
        self._texts: list[str] = []  # per hex: its stack's text, or "" for none
        self._clocks: list[float | None] = []
        self._clocks_text = "-"
        self._tiles: list[int] = []
        self._tiles_text = "-"

    @staticmethod
    def since_item(player: int, move: str) -> str:
        """One entry of a request's ``since=``: ``move`` as played by seat ``player``."""
        return f"{_LETTERS[player]}:{move}"

    def _new_board(self, coords: tuple[tuple[int, int], ...], daisies: Sequence[int]) -> None:
        self._coords, self._daisies = coords, daisies
        self._hex_texts = [f"{q},{r}" for q, r in coords]
        self._board_text = join_items(self._hex_texts)
        self._daisies_text = join_items(
            [f"{h},{n}" for h, n in zip(self._hex_texts, daisies, strict=True) if n]
        )
        size = len(coords)
        self._owner, self._height, self._texts = [-1] * size, [0] * size, [""] * size

    def _stacks(self, owner: Sequence[int], height: Sequence[int], hint: Sequence[int]) -> str:
        kept_owner, kept_height, texts, hexes = self._owner, self._height, self._texts, self._hex_texts
        for i in hint:  # the hexes the caller says changed (a move's two)
            kept_owner[i], kept_height[i] = owner[i], height[i]
        changed: Iterable[int] = hint
        if kept_height != height or kept_owner != owner:  # (two comparisons in C)
            # No hint, or a wrong one: every hex whose stack differs, found by loops in C.
            hexes_at = range(len(height))
            changed = {
                *hint,
                *compress(hexes_at, map(ne, height, kept_height)),
                *compress(hexes_at, map(ne, owner, kept_owner)),
            }
            kept_owner[:], kept_height[:] = owner, height
        for i in changed:
            o = owner[i]
            texts[i] = f"{hexes[i]},{_LETTERS[o]},{height[i]}" if o >= 0 else ""
        return ";".join(filter(None, texts)) or "-"

    def line(
        self,
        phase: str,
        time: int,
        ply: int,
        clocks: Sequence[float | None],
        since: Sequence[str],
        coords: tuple[tuple[int, int], ...],
        daisies: Sequence[int],
        owner: Sequence[int],
        height: Sequence[int],
        tiles: Sequence[int],
        forfeited: Sequence[bool],
        changed: Sequence[int] = (),
    ) -> str:
        """The request line (no newline) for the position given.

        ``changed`` may name hexes (indexes) whose stack changed since the last line,
        as :meth:`~arena.rules.GameState.last_slide` does after a move: a hint that
        saves looking at every hex.  It is checked, so a wrong or short one costs
        time, never a wrong line.
        """
        if coords is not self._coords or daisies is not self._daisies:
            self._new_board(coords, daisies)
        if clocks != self._clocks:  # the same from ply to ply without a running clock
            self._clocks = list(clocks)
            self._clocks_text = ";".join(["-" if c is None else str(int(c)) for c in clocks]) or "-"
        if tiles != self._tiles:  # the same from ply to ply once the pasture is laid
            self._tiles = list(tiles)
            self._tiles_text = ";".join(map(str, tiles)) or "-"
        forfeit = "".join([_LETTERS[p] for p, out in enumerate(forfeited) if out]) if True in forfeited else "-"
        return (
            f"{phase} time={time} ply={ply} clocks={self._clocks_text} since={';'.join(since) or '-'} "
            f"board={self._board_text} stacks={self._stacks(owner, height, changed)} "
            f"tiles={self._tiles_text} forfeit={forfeit} daisies={self._daisies_text}"
        )
