"""The values a game is made of: its parameters, its phases and the final standings.

They live apart from :mod:`.state` so that the position writer can name them
without importing the mutable game state (which needs the writer for its
error messages).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.errors import RulesError

PLAYER_LETTERS = "abcd"


class Phase(Enum):
    """The three phases of a game, and its end."""

    TILES = "tiles"
    HERDS = "herds"
    MOVES = "moves"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Params:
    """The parameters of one game; the defaults are the publisher's game.

    ``contact`` is how many of a new tile's hexes must touch the pasture (1 by
    the publisher's rule, 2 in a variant some rule texts give).  ``hole_border``
    lets herds start on hexes that only border an enclosed hole.
    """

    players: int = 2
    sheep: int = 16
    tiles: int = 4
    contact: int = 1
    hole_border: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise RulesError(f"players must be 2 to 4, got {self.players!r}")
        if not 1 <= self.sheep <= 999:
            raise RulesError(f"sheep per player must be 1 to 999, got {self.sheep!r}")
        if not 1 <= self.tiles <= 64:
            raise RulesError(f"tiles per player must be 1 to 64, got {self.tiles!r}")
        if self.contact not in (1, 2):
            raise RulesError(f"contact must be 1 or 2 hexes, got {self.contact!r}")


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's place at the end, with the figures that decided it."""

    player: int
    rank: int
    hexes: int
    largest_group: int
    daisies: int
    forfeited: bool

    @property
    def key(self) -> tuple[bool, int, int, int]:
        """Larger is better: not forfeited, hexes, largest group, daisies."""
        return (not self.forfeited, self.hexes, self.largest_group, self.daisies)
