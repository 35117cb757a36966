"""The pasture: a fixed set of hexes with precomputed neighbour and ray tables.

A :class:`Board` gives every pasture hex a dense index ``0..size-1`` (sorted by
row, then column, so the order never depends on how it was built).  Move
generation works on these indexes only: ``nbr[i*6+d]`` is the neighbour of hex
``i`` in direction ``d`` (or -1) and ``rays[i*6+d]`` the hexes met walking from
``i`` in direction ``d`` until the pasture ends.  A board never changes once
built; the building phase makes a new one per tile.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping

from ..errors import NotationError, RulesError
from .hexgrid import COORD_LIMIT, DIRECTION_VECTORS, ORIENTATIONS, TILE_SHAPES, Hex, tile_hexes, within_limit
from .rng import SplitMix64

# The most hexes a pasture may have: 4 players x 64 tiles x 4 hexes, the largest game
# Params allows (the publisher's game has 64).  It also bounds the work of checking one.
MAX_BOARD_HEXES = 1024


class Board:
    """An immutable pasture with daisy counts and border information."""

    __slots__ = (
        "coords",
        "daisies",
        "hole_border",
        "holes",
        "index",
        "nbr",
        "outer_border",
        "rays",
        "size",
    )

    coords: tuple[Hex, ...]
    index: dict[Hex, int]
    size: int
    daisies: tuple[int, ...]
    nbr: tuple[int, ...]
    rays: tuple[tuple[int, ...], ...]
    outer_border: tuple[bool, ...]
    hole_border: tuple[bool, ...]
    holes: frozenset[Hex]

    def __init__(self, hexes: Iterable[Hex] | Mapping[Hex, int]) -> None:
        daisy_of: dict[Hex, int] = dict(hexes) if isinstance(hexes, Mapping) else {h: 0 for h in hexes}
        for h, d in daisy_of.items():
            if d < 0:
                raise RulesError(f"hex {h!r} has a negative daisy count {d!r}")
        self.coords = tuple(sorted(daisy_of, key=lambda h: (h[1], h[0])))
        self.index = {h: i for i, h in enumerate(self.coords)}
        self.size = len(self.coords)
        self.daisies = tuple(daisy_of[h] for h in self.coords)
        nbr: list[int] = []
        rays: list[tuple[int, ...]] = []
        index = self.index
        for q, r in self.coords:
            for dq, dr in DIRECTION_VECTORS:
                nbr.append(index.get((q + dq, r + dr), -1))
                ray: list[int] = []
                x, y = q + dq, r + dr
                while (x, y) in index:
                    ray.append(index[(x, y)])
                    x, y = x + dq, y + dr
                rays.append(tuple(ray))
        self.nbr = tuple(nbr)
        self.rays = tuple(rays)
        outside, holes = _outside_and_holes(self.coords, index)
        self.holes = frozenset(holes)
        self.outer_border = tuple(
            any((q + dq, r + dr) in outside for dq, dr in DIRECTION_VECTORS) for q, r in self.coords
        )
        self.hole_border = tuple(
            any((q + dq, r + dr) in holes for dq, dr in DIRECTION_VECTORS) for q, r in self.coords
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.coords == other.coords and self.daisies == other.daisies

    def __hash__(self) -> int:
        return hash((self.coords, self.daisies))

    def __repr__(self) -> str:
        return f"Board({self.size} hexes, {len(self.holes)} holes)"

    def __contains__(self, h: object) -> bool:
        return h in self.index

    def daisy_map(self) -> dict[Hex, int]:
        return dict(zip(self.coords, self.daisies, strict=True))

    def is_border(self, i: int, hole_edges: bool = False) -> bool:
        """Whether herds may start on hex ``i`` (outer border; hole edges if allowed)."""
        return self.outer_border[i] or (hole_edges and self.hole_border[i])

    def with_hexes(self, new: Iterable[Hex]) -> Board:
        """A new board with ``new`` added as daisy-less pasture."""
        daisy_of = self.daisy_map()
        for h in new:
            daisy_of[h] = 0
        return Board(daisy_of)

    def normalized(self) -> Board:
        """The same shape translated so the smallest q and r are both 0."""
        if not self.coords:
            return self
        q0 = min(q for q, _ in self.coords)
        r0 = min(r for _, r in self.coords)
        return Board({(q - q0, r - r0): d for (q, r), d in self.daisy_map().items()})


def _outside_and_holes(coords: tuple[Hex, ...], index: Mapping[Hex, int]) -> tuple[set[Hex], set[Hex]]:
    """Split the non-pasture cells of the bounding box (grown by one) into outside and holes."""
    if not coords:
        return set(), set()
    qs = [q for q, _ in coords]
    rs = [r for _, r in coords]
    qmin, qmax, rmin, rmax = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    empty = {(q, r) for q in range(qmin, qmax + 1) for r in range(rmin, rmax + 1) if (q, r) not in index}
    outside = _reach([(q, r) for (q, r) in empty if q in (qmin, qmax) or r in (rmin, rmax)], empty)
    return outside, empty - outside


def _reach(starts: Iterable[Hex], within: Container[Hex]) -> set[Hex]:
    """``starts`` and every hex of ``within`` joined to one of them edge to edge through ``within``."""
    seen = set(starts)
    stack = list(seen)
    while stack:
        q, r = stack.pop()
        for dq, dr in DIRECTION_VECTORS:
            n = (q + dq, r + dr)
            if n in within and n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


# --- building the pasture -------------------------------------------------


def tile_contacts(pasture: Mapping[Hex, object] | set[Hex], cells: Iterable[Hex]) -> int:
    """How many of ``cells`` share an edge with the pasture."""
    return sum(1 for q, r in cells if any((q + dq, r + dr) in pasture for dq, dr in DIRECTION_VECTORS))


def tile_placement_problem(
    pasture: Mapping[Hex, object] | set[Hex], q: int, r: int, orientation: str, contact: int
) -> str | None:
    """Why a tile may not go there, or None when it may."""
    if orientation not in ORIENTATIONS:
        return f"unknown orientation {orientation!r} (one of A B C)"
    cells = tile_hexes(q, r, orientation)
    beyond = [h for h in cells if not within_limit(h)]
    if beyond:
        return (
            f"lays hex {beyond[0][0]},{beyond[0][1]}, outside the coordinates -{COORD_LIMIT}..{COORD_LIMIT}"
        )
    overlap = [h for h in cells if h in pasture]
    if overlap:
        return f"overlaps the pasture at {overlap[0][0]},{overlap[0][1]}"
    if not pasture:
        return None
    touching = tile_contacts(pasture, cells)
    if touching < contact:
        need = "one hex" if contact == 1 else f"{contact} hexes"
        return f"must touch the pasture with at least {need}, touches with {touching}"
    return None


def _placements_with_edges(
    pasture: Mapping[Hex, object] | set[Hex], contact: int
) -> list[tuple[tuple[int, int, str], int]]:
    """Every legal placement and the hex edges it would share with the pasture.

    A tile that touches the pasture covers a *frontier* hex (an empty hex next
    to the pasture), so anchoring every orientation on every frontier hex, in
    every way, finds them all; a cell touches the pasture exactly when it is on
    the frontier, and overlaps it when it is pasture.
    """
    if not pasture:
        return [((0, 0, o), 1) for o in ORIENTATIONS]
    edges: dict[Hex, int] = {}  # frontier hex -> pasture hexes next to it
    for q, r in pasture:
        for dq, dr in DIRECTION_VECTORS:
            n = (q + dq, r + dr)
            if n not in pasture:
                edges[n] = edges.get(n, 0) + 1
    seen: set[tuple[int, int, str]] = set()
    out: list[tuple[tuple[int, int, str], int]] = []
    for eq, er in edges:
        for o in ORIENTATIONS:
            shape = TILE_SHAPES[o]
            for oq, or_ in shape:
                key = (eq - oq, er - or_, o)
                if key in seen:
                    continue
                seen.add(key)
                touching = shared = 0
                for sq, sr in shape:
                    cell = (key[0] + sq, key[1] + sr)
                    if cell in pasture:
                        break
                    e = edges.get(cell, 0)
                    touching += e > 0
                    shared += e
                else:
                    if touching >= contact:
                        out.append((key, shared))
    if any(not within_limit((q, r)) for q, r in edges):
        # The pasture reaches the coordinate limit: keep the tiles that stay within it
        # (the four hexes of a tile lie within 2 of its anchor).
        out = [item for item in out if all(within_limit(h) for h in tile_hexes(*item[0]))]
    out.sort(key=lambda item: (item[0][1], item[0][0], item[0][2]))
    return out


def legal_tile_placements(
    pasture: Mapping[Hex, object] | set[Hex], contact: int
) -> list[tuple[int, int, str]]:
    """Every legal ``(q, r, orientation)`` in a fixed order (row, column, orientation)."""
    return [key for key, _ in _placements_with_edges(pasture, contact)]


def random_board(seed: int, tiles: int, contact: int = 1) -> Board:
    """A random pasture of ``tiles`` tiles laid by the placement rules.

    The same seed always gives the same board: SplitMix64 drives every choice
    and the candidate placements are sorted before one is drawn.  The result
    is normalized so its smallest q and r are 0.
    """
    if tiles < 1:
        raise RulesError(f"a board needs at least one tile, got {tiles!r}")
    rng = SplitMix64(seed)
    pasture: set[Hex] = set()
    for _ in range(tiles):
        options = _placements_with_edges(pasture, contact)
        if not options:  # never seen in practice; keep the board we have
            break
        # Weight each placement by the hex edges it shares with the pasture:
        # uniform choice grows long snakes, this grows pastures shaped like
        # the ones people lay at the table, still by the placement rules.
        pick = rng.below(sum(w for _, w in options))
        chosen = options[-1][0]
        for option, w in options:
            pick -= w
            if pick < 0:
                chosen = option
                break
        pasture.update(tile_hexes(*chosen))
    return Board(pasture).normalized()


# --- the board file format --------------------------------------------------

BOARD_FILE_HELP = """\
A board file draws the pasture as text, one hex row per line:
  .      a pasture hex (no daisies)
  0-9    a pasture hex showing that many daisies
  space or _   no pasture
  #      starts a comment to the end of the line
Hexes in a line stand two columns apart, and each line is shifted one column
from the next, as the hexes lie (hex (q, r) is at line r, column 2q + r)."""


def parse_board_file(text: str, source: str = "<board>") -> Board:
    """Read a board drawn as text (see :data:`BOARD_FILE_HELP`).

    Errors name ``source``, the line and the column of the offending character.
    """
    cells: dict[Hex, int] = {}
    parity: int | None = None
    row = 0
    started = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("#"):
            continue  # a comment line is no row of the drawing
        line = raw.split("#", 1)[0].rstrip("\r").rstrip()
        if not line.strip():
            if started:
                row += 1  # a blank line inside the drawing is an empty row
            continue
        started = True

        for col, ch in enumerate(line, start=1):
            if ch in " _":
                continue
            if ch == "\t":
                raise NotationError(
                    "tabs are ambiguous in a board drawing; use spaces",
                    f"{source}: line {lineno}, column {col}",
                )
            if ch != "." and not ch.isdigit():
                raise NotationError(
                    f"unexpected character {ch!r} (expected '.', a daisy digit 0-9, '_' or a space)",
                    f"{source}: line {lineno}, column {col}",
                )
            p = (col + row) % 2
            if parity is None:
                parity = p
            elif p != parity:
                raise NotationError(
                    f"hex {ch!r} is off the grid: hexes stand two columns apart and each line "
                    "is shifted by one column from the line above",
                    f"{source}: line {lineno}, column {col}",
                )
            q = (col - row - parity) // 2
            cells[(q, row)] = 0 if ch == "." else int(ch)
            if len(cells) > MAX_BOARD_HEXES:
                raise NotationError(
                    f"more than {MAX_BOARD_HEXES} hexes, the most a pasture has (4 players x 64 tiles)",
                    f"{source}: line {lineno}, column {col}",
                )
        row += 1
    if not cells:
        raise NotationError("the board has no pasture hexes", source)
    # Checked on the cells, before a Board is built: its tables cost the area of the
    # bounding box, which a scattered drawing makes large.
    q0 = min(q for q, _ in cells)
    r0 = min(r for _, r in cells)
    cells = {(q - q0, r - r0): d for (q, r), d in cells.items()}
    far = next((h for h in cells if not within_limit(h)), None)
    if far is not None:
        raise NotationError(
            f"the pasture spans more than {COORD_LIMIT + 1} hexes (hex {far[0]},{far[1]} counted from "
            f"the top left): coordinates stay within -{COORD_LIMIT}..{COORD_LIMIT}",
            source,
        )
    _check_connected(cells, source)
    return Board(cells)


def _check_connected(cells: Mapping[Hex, int], source: str) -> None:
    seen = _reach([min(cells, key=lambda h: (h[1], h[0]))], cells)
    if len(seen) != len(cells):
        lost = min((h for h in cells if h not in seen), key=lambda h: (h[1], h[0]))
        raise NotationError(f"the pasture is not in one piece: hex {lost[0]},{lost[1]} is cut off", source)


def format_board_file(board: Board) -> str:
    """Draw a board in the board file format (round-trips through the parser)."""
    if not board.coords:
        return ""
    rmin = min(r for _, r in board.coords)
    rmax = max(r for _, r in board.coords)
    cmin = min(2 * q + r for q, r in board.coords)
    lines = []
    for r in range(rmin, rmax + 1):
        row = {2 * q + r - cmin: d for (q, rr), d in board.daisy_map().items() if rr == r}
        width = max(row, default=-1) + 1
        chars = [" "] * width
        for c, d in row.items():
            chars[c] = "." if d == 0 else str(d)
        lines.append("".join(chars).rstrip())
    return "\n".join(lines) + "\n"
