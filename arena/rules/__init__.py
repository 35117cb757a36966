"""The Battle Sheep rules engine: pure, deterministic, no I/O.

Nothing in this package reads files, starts processes or logs; the referee
and the command line build on it, never the other way round.
"""

from __future__ import annotations

from arena.rules.board import (
    BOARD_FILE_HELP,
    Board,
    format_board_file,
    legal_tile_placements,
    parse_board_file,
    random_board,
)
from arena.rules.hexgrid import DIRECTION_VECTORS, ORIENTATIONS, TILE_SHAPES, Direction, Hex, tile_hexes
from arena.rules.moves import (
    MOVE_PATTERN,
    HerdPlacement,
    Move,
    SheepMove,
    TilePlacement,
    move_from_match,
    parse_move,
    read_move,
)
from arena.rules.notation import format_position, parse_position
from arena.rules.perft import divide, perft
from arena.rules.playout import random_playout
from arena.rules.render import render
from arena.rules.rng import SplitMix64
from arena.rules.state import PLAYER_LETTERS, GameState, Params, Phase, Standing

__all__ = [
    "BOARD_FILE_HELP",
    "DIRECTION_VECTORS",
    "MOVE_PATTERN",
    "ORIENTATIONS",
    "PLAYER_LETTERS",
    "TILE_SHAPES",
    "Board",
    "Direction",
    "GameState",
    "HerdPlacement",
    "Hex",
    "Move",
    "Params",
    "Phase",
    "SheepMove",
    "SplitMix64",
    "Standing",
    "TilePlacement",
    "divide",
    "format_board_file",
    "format_position",
    "legal_tile_placements",
    "move_from_match",
    "parse_board_file",
    "parse_move",
    "parse_position",
    "perft",
    "random_board",
    "random_playout",
    "read_move",
    "render",
    "tile_hexes",
]
