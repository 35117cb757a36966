"""Moves of the three phases and their one-token notation.

=====================  ===========  =======================================
phase                  example      meaning
=====================  ===========  =======================================
build the pasture      ``2,-1B``    a tile in orientation B anchored at 2,-1
place the herd         ``3,0``      the whole herd on hex 3,0
move                   ``3,0NE5``   split 5 sheep off the stack on 3,0 and
                                    slide them north-east as far as they go
=====================  ===========  =======================================

A token never contains a space, so a list of moves is a space-separated line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.errors import NotationError
from arena.rules.hexgrid import Direction, Hex


@dataclass(frozen=True, slots=True)
class TilePlacement:
    """Lay a 2x2 rhombus tile with its anchor hex at ``(q, r)``."""

    q: int
    r: int
    orientation: str

    def __str__(self) -> str:
        return f"{self.q},{self.r}{self.orientation}"


@dataclass(frozen=True, slots=True)
class HerdPlacement:
    """Put the whole starting herd on hex ``(q, r)``."""

    q: int
    r: int

    def __str__(self) -> str:
        return f"{self.q},{self.r}"


@dataclass(frozen=True, slots=True)
class SheepMove:
    """Split ``count`` sheep off the stack on ``(q, r)`` and slide them."""

    q: int
    r: int
    direction: Direction
    count: int

    @property
    def source(self) -> Hex:
        """The hex the sheep leave."""
        return (self.q, self.r)

    def __str__(self) -> str:
        return f"{self.q},{self.r}{_DIRECTION_NAMES[self.direction]}{self.count}"


Move = TilePlacement | HerdPlacement | SheepMove

_DIRECTION_NAMES = tuple(d.name for d in Direction)  # by value: quicker than the enum's .name

# Runs of sheep moves already built, by (q, r, direction): a move is a value,
# so every board and position can share one object per move.  Bounded, since
# coordinates are not; past the bound runs are built but not kept.
_RUNS: dict[tuple[int, int, int], tuple[SheepMove, ...]] = {}
_RUNS_KEPT = 50_000


def sheep_run(q: int, r: int, direction: int, most: int) -> tuple[SheepMove, ...]:
    """The moves splitting 1, 2, ... sheep (at least ``most`` of them) off ``(q, r)`` towards ``direction``."""
    key = (q, r, direction)
    run = _RUNS.get(key, ())
    if len(run) < most:
        d = Direction(direction)
        run = tuple(SheepMove(q, r, d, k) for k in range(1, most + 1))
        if len(_RUNS) < _RUNS_KEPT:
            _RUNS[key] = run
    return run


# Any whole numbers: whether a coordinate or a count is in range is for the rules to judge
# (an illegal move), so that a far-off hex is refused the same way however far it is.
MOVE_PATTERN = r"(?P<q>-?\d+),(?P<r>-?\d+)(?:(?P<orient>[ABC])|(?P<dir>NE|NW|SE|SW|E|W)(?P<count>\d+))?"
_MOVE_RE = re.compile(MOVE_PATTERN, re.ASCII)  # digits 0-9 only, as the protocol is ASCII
INT64_DIGITS = 19  # a number of more digits does not fit a signed 64-bit integer


_DIRECTIONS = {d.name: d for d in Direction}


# Moves read so far, with their canonical text, by the text read: a Python bot reads the
# moves every request lists, and the same texts come up again and again.  Bounded, since
# a bot (or a referee) chooses the text.
_PARSED: dict[str, tuple[Move, str]] = {}
_PARSED_KEPT = 20_000


def parse_move(text: str) -> Move:
    """Read one move token; the shape tells the phase (see the module doc)."""
    return read_move(text)[0]


def read_move(text: str) -> tuple[Move, str]:
    """:func:`parse_move`, and the move's canonical text (``str(move)``) with it."""
    known = _PARSED.get(text)
    if known is None:
        known = _parse_move(text)
        if len(_PARSED) < _PARSED_KEPT:
            _PARSED[text] = known
    return known


def _parse_move(text: str) -> tuple[Move, str]:
    m = _MOVE_RE.fullmatch(text.strip())
    if m is None:
        raise NotationError(
            f"cannot read move {_shown(text)!r}: expected a tile like '0,0A', a herd like '3,0' "
            "or a move like '3,0NE5'"
        )
    return move_from_match(m, text)


def move_from_match(m: re.Match[str], text: str) -> tuple[Move, str]:
    """The move, and its canonical text, that a match of :data:`MOVE_PATTERN` in ``text`` reads.

    For a reader that matches the pattern as part of a longer one (the referee reads a
    whole answer line at once); raises NotationError for a number out of range.
    """
    q_text, r_text, orient, direction, count_text = m.group("q", "r", "orient", "dir", "count")
    if len(text) >= INT64_DIGITS:  # (a shorter text holds no number out of range)
        numbers = [g for g in (q_text, r_text, count_text) if g is not None]
        if any(len(g.lstrip("-")) > INT64_DIGITS or abs(int(g)) >= 2**63 for g in numbers):
            raise NotationError(
                f"cannot read move {_shown(text)!r}: a number does not fit a signed 64-bit integer"
            )
    q, r = int(q_text), int(r_text)
    # The canonical text from the parts read (what str(move) gives, without building it again).
    if orient:
        return TilePlacement(q, r, orient), f"{q},{r}{orient}"
    if direction:
        count = int(count_text)
        return SheepMove(q, r, _DIRECTIONS[direction], count), f"{q},{r}{direction}{count}"
    return HerdPlacement(q, r), f"{q},{r}"


def _shown(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."  # a bot's line may be 4 KiB
