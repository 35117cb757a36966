"""Axial hex coordinates, the six directions and the three tile shapes.

Coordinates are axial ``(q, r)`` on a pointy-top grid: ``+q`` points east,
``+r`` points south-east.  Drawn as text, hex ``(q, r)`` sits on line ``r`` at
column ``2*q + r``, so a row is shifted half a hex right of the one above::

        NW   NE             (0,-1)  (1,-1)
      W    *    E      (-1,0)  (0,0)   (1,0)
        SW   SE            (-1,1)  (0,1)
"""

from __future__ import annotations

from enum import IntEnum

Hex = tuple[int, int]

# Every hex of every position has -COORD_LIMIT <= q, r <= COORD_LIMIT: room for the
# largest pasture wherever its first tile goes.  A move that names or lays a hex
# beyond is illegal, like any move off the pasture (PROTOCOL.md, "Coordinates").
COORD_LIMIT = 999


def within_limit(h: Hex) -> bool:
    """Whether hex ``h`` lies within the coordinate limit."""
    return -COORD_LIMIT <= h[0] <= COORD_LIMIT and -COORD_LIMIT <= h[1] <= COORD_LIMIT


class Direction(IntEnum):
    """The six directions, counter-clockwise from east."""

    E = 0
    NE = 1
    NW = 2
    W = 3
    SW = 4
    SE = 5

    @classmethod
    def parse(cls, text: str) -> Direction:
        """The direction named ``text`` (any case); ValueError for anything else."""
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown direction {text!r} (one of E NE NW W SW SE)") from None


DIRECTION_VECTORS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

# The 2x2 rhombus tile in its three orientations, as offsets from its anchor.
# A 180-degree turn maps each onto itself up to translation, hence three.
TILE_SHAPES: dict[str, tuple[Hex, ...]] = {
    "A": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "B": ((0, 0), (1, 0), (1, -1), (2, -1)),
    "C": ((0, 0), (1, -1), (1, 0), (0, 1)),
}
ORIENTATIONS: tuple[str, ...] = ("A", "B", "C")


def tile_hexes(q: int, r: int, orientation: str) -> tuple[Hex, ...]:
    """The four hexes of a tile anchored at ``(q, r)`` in ``orientation`` (A, B or C)."""
    return tuple((q + dq, r + dr) for dq, dr in TILE_SHAPES[orientation])
