"""The pasture: a fixed set of hexes with precomputed neighbour and ray tables.

A :class:`Board` gives every pasture hex a dense index ``0..size-1`` (sorted by
row, then column, so the order never depends on how it was built).  Move
generation works on these indexes only: ``nbr[i*6+d]`` is the neighbour of hex
``i`` in direction ``d`` (or -1) and ``rays[i*6+d]`` the hexes met walking from
``i`` in direction ``d`` until the pasture ends.  A board never changes once
built; the building phase makes a new one per tile.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Container, Iterable, Mapping
from itertools import accumulate

from arena.errors import NotationError, RulesError
from arena.rules.hexgrid import (
    COORD_LIMIT,
    DIRECTION_VECTORS,
    ORIENTATIONS,
    TILE_SHAPES,
    Hex,
    tile_hexes,
    within_limit,
)
from arena.rules.moves import SheepMove, sheep_run
from arena.rules.rng import SplitMix64

# The most hexes a pasture may have: 4 players x 64 tiles x 4 hexes, the largest game
# Params allows (the publisher's game has 64).  It also bounds the work of checking one.
MAX_BOARD_HEXES = 1024


class Board:
    """An immutable pasture with daisy counts and border information."""

    __slots__ = (
        "coords",
        "daisies",
        "exits",
        "hole_border",
        "holes",
        "index",
        "moves",
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
    exits: tuple[tuple[tuple[int, int], ...], ...]
    moves: list[tuple[SheepMove, ...]]
    outer_border: tuple[bool, ...]
    hole_border: tuple[bool, ...]
    holes: frozenset[Hex]

    def __init__(self, hexes: Iterable[Hex] | Mapping[Hex, int]) -> None:
        daisy_of: dict[Hex, int] = dict(hexes) if isinstance(hexes, Mapping) else {h: 0 for h in hexes}
        for h, d in daisy_of.items():
            if d < 0:
                raise RulesError(f"hex {h!r} has a negative daisy count {d!r}")
        grid = _Grid(daisy_of)
        stride = grid.stride
        hex_at = {r * stride + q: (q, r) for q, r in daisy_of}
        keys = sorted(hex_at)
        self.coords = coords = tuple(map(hex_at.__getitem__, keys))
        self.size = size = len(keys)
        self.index = dict(zip(coords, range(size), strict=True))
        self.daisies = tuple(map(daisy_of.__getitem__, coords))
        at = dict(zip(keys, range(size), strict=True))
        steps = grid.steps
        nbr = [at.get(k + step, -1) for k in keys for step in steps]
        # A ray is the neighbour, then the neighbour's ray: walk each direction
        # against the grain so the neighbour's ray is always built first.
        rays: list[tuple[int, ...]] = [()] * (6 * size)
        for d, step in enumerate(steps):
            for i in range(size - 1, -1, -1) if step > 0 else range(size):
                j = nbr[i * 6 + d]
                if j >= 0:
                    rays[i * 6 + d] = (j, *rays[j * 6 + d])
        self.nbr = tuple(nbr)
        self.rays = tuple(rays)
        self.exits = tuple(
            tuple((i * 6 + d, j) for d, j in enumerate(nbr[i * 6 : i * 6 + 6]) if j >= 0) for i in range(size)
        )
        self.moves = [()] * (6 * size)
        if _count_holes(nbr) == 0:
            # Every empty neighbour is outside: no flood fill needed.
            self.holes = frozenset()
            self.outer_border = tuple(-1 in nbr[i * 6 : i * 6 + 6] for i in range(size))
            self.hole_border = (False,) * size
        else:
            outside, holes = _outside_and_holes(keys, grid)
            self.holes = frozenset(grid.hex(k) for k in holes)
            self.outer_border = tuple(any(k + step in outside for step in steps) for k in keys)
            self.hole_border = tuple(any(k + step in holes for step in steps) for k in keys)

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

    def sheep_moves(self, ray: int, most: int) -> tuple[SheepMove, ...]:
        """The moves sending 1..``most`` sheep along ray ``ray`` (hex index * 6 + direction).

        Move generation hands out shared, immutable move values instead of
        building new ones per position: ``moves[ray]`` memoizes the longest run
        asked for so far (a memo: the board stays a value).
        """
        found = self.moves[ray]
        if len(found) < most:
            q, r = self.coords[ray // 6]
            found = self.moves[ray] = sheep_run(q, r, ray % 6, most)
        return found[:most]

    def daisy_map(self) -> dict[Hex, int]:
        """Every hex with its daisy count, as ``{hex: count}`` in board order."""
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


class _Grid:
    """Hexes as ints for the hot loops: ``r * stride + q``.

    Row-major, so sorting keys sorts hexes by row, then column (the board's
    order); a neighbour is a fixed step away.  The stride fits the coordinates.
    """

    __slots__ = ("half", "reach", "steps", "stride")

    def __init__(self, hexes: Iterable[Hex], margin: int = 8) -> None:
        self.reach = max((max(abs(q), abs(r)) for q, r in hexes), default=0)  # the farthest coordinate
        extent = self.reach + margin
        self.stride = stride = 1 << max(12, extent.bit_length() + 1)
        self.half = stride // 2
        self.steps = tuple(dr * stride + dq for dq, dr in DIRECTION_VECTORS)

    def key(self, h: Hex) -> int:
        return h[1] * self.stride + h[0]

    def hex(self, key: int) -> Hex:
        r, q = divmod(key + self.half, self.stride)
        return (q - self.half, r)

    def shape(self, orientation: str) -> tuple[int, ...]:
        return tuple(dr * self.stride + dq for dq, dr in TILE_SHAPES[orientation])


def _count_holes(nbr: list[int]) -> int:
    """How many enclosed empty regions the pasture has, from its neighbour table alone.

    Hexes, their shared edges and the triangles of three hexes meeting at a
    corner make a complex with the pasture's shape, so its Euler
    characteristic V - E + T is (pieces - holes).
    """
    size = len(nbr) // 6
    edges = sum(1 for j in nbr if j >= 0) // 2
    # Each triangle counted once, at its west corner: with its E and NE, or E and SE neighbours.
    triangles = sum(
        (nbr[i * 6] >= 0 and nbr[i * 6 + 1] >= 0) + (nbr[i * 6] >= 0 and nbr[i * 6 + 5] >= 0)
        for i in range(size)
    )
    pieces = 0
    seen = [False] * size
    for start in range(size):
        if seen[start]:
            continue
        pieces += 1
        seen[start] = True
        todo = [start]
        while todo:
            i = todo.pop()
            for j in nbr[i * 6 : i * 6 + 6]:
                if j >= 0 and not seen[j]:
                    seen[j] = True
                    todo.append(j)
    return pieces - (size - edges + triangles)


def _outside_and_holes(keys: list[int], grid: _Grid) -> tuple[set[int], set[int]]:
    """Split the non-pasture cells of the bounding box (grown by one) into outside and holes."""
    if not keys:
        return set(), set()
    pasture = set(keys)
    stride = grid.stride
    coords = [grid.hex(k) for k in keys]
    qmin = min(q for q, _ in coords) - 1
    qmax = max(q for q, _ in coords) + 1
    rmin, rmax = coords[0][1] - 1, coords[-1][1] + 1  # keys are sorted by row
    box = [r * stride + q for r in range(rmin, rmax + 1) for q in range(qmin, qmax + 1)]
    empty = {k for k in box if k not in pasture}
    edge = {k for r in (rmin, rmax) for k in range(r * stride + qmin, r * stride + qmax + 1)}
    edge.update(k for r in range(rmin, rmax + 1) for k in (r * stride + qmin, r * stride + qmax))
    frontier = [k for k in edge if k in empty]
    outside = set(frontier)
    steps = grid.steps
    while frontier:
        k = frontier.pop()
        for step in steps:
            n = k + step
            if n in empty and n not in outside:
                outside.add(n)
                frontier.append(n)
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
    """Every legal placement and the hex edges it would share with the pasture, in board order."""
    grid = _Grid(pasture)
    cells = {grid.key(h) for h in pasture}
    placements = _Placements(grid, cells)
    out = []
    for option, shared in placements.options(contact):
        anchor, o = divmod(option, 3)
        q, r = grid.hex(anchor)
        out.append(((q, r, ORIENTATIONS[o]), shared))
    if grid.reach + 3 > COORD_LIMIT:
        # The pasture reaches near the coordinate limit: keep the tiles that stay within it
        # (a tile covers a hex next to the pasture, so its hexes lie within 3 of the pasture).
        out = [item for item in out if all(within_limit(h) for h in tile_hexes(*item[0]))]
    return out


class _Placements:
    """The pasture as int keys, with what placing a tile needs kept up to date as tiles are laid.

    A tile that touches the pasture covers a *frontier* hex (an empty hex next
    to the pasture), so anchoring every orientation on every frontier hex, in
    every way, finds every placement; a cell touches the pasture exactly when
    it is on the frontier, and overlaps it when it is pasture.  Per
    orientation, ``near`` holds the anchors that put a cell on the frontier
    (it only grows: a frontier hex leaves the frontier by becoming pasture,
    and then its anchors are in ``over``, those that overlap the pasture).
    """

    def __init__(self, grid: _Grid, cells: set[int]) -> None:
        self.steps = grid.steps
        self.cells: set[int] = set()
        self.edges: dict[int, int] = {}  # frontier hex -> pasture hexes next to it
        self.shapes = [grid.shape(o) for o in ORIENTATIONS]
        self.near: list[set[int]] = [set() for _ in ORIENTATIONS]
        self.over: list[set[int]] = [set() for _ in ORIENTATIONS]
        self.add(cells)

    def add(self, new: Iterable[int]) -> None:
        cells, edges = self.cells, self.edges
        new = [k for k in new if k not in cells]
        cells.update(new)
        for k in new:
            edges.pop(k, None)
        fresh = []
        for k in new:
            for step in self.steps:
                n = k + step
                if n not in cells:
                    if n not in edges:
                        fresh.append(n)
                    edges[n] = edges.get(n, 0) + 1
        for shape, near, over in zip(self.shapes, self.near, self.over, strict=True):
            over.update([k - s for k in new for s in shape])
            near.update([n - s for n in fresh for s in shape])

    def options(self, contact: int) -> list[tuple[int, int]]:
        """Every legal placement as ``(anchor * 3 + orientation, shared edges)``, sorted.

        ``anchor * 3 + orientation`` sorts by row, column, orientation.  The
        first tile may go anywhere: it is listed at anchor 0,0 only.
        """
        if not self.cells:
            return [(o, 1) for o in range(len(self.shapes))]
        get = self.edges.get
        out = []
        for o, (s0, s1, s2, s3) in enumerate(self.shapes):
            for a in self.near[o] - self.over[o]:
                w0, w1, w2, w3 = get(a + s0, 0), get(a + s1, 0), get(a + s2, 0), get(a + s3, 0)
                if contact == 1 or (w0 > 0) + (w1 > 0) + (w2 > 0) + (w3 > 0) >= contact:
                    out.append((a * 3 + o, w0 + w1 + w2 + w3))
        out.sort()
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
    # The first tile goes at 0,0; each tile reaches at most 3 hexes further.
    grid = _Grid([(0, 0)], margin=3 * tiles + 8)
    placements = _Placements(grid, set())
    for _ in range(tiles):
        options = placements.options(contact)
        if not options:  # never seen in practice; keep the board we have
            break
        # Weight each placement by the hex edges it shares with the pasture:
        # uniform choice grows long snakes, this grows pastures shaped like
        # the ones people lay at the table, still by the placement rules.
        upto = list(accumulate(w for _, w in options))
        chosen = options[bisect_right(upto, rng.below(upto[-1]))][0]
        anchor, o = divmod(chosen, 3)
        placements.add(anchor + offset for offset in placements.shapes[o])
    hexes = [grid.hex(k) for k in placements.cells]
    q0 = min(q for q, _ in hexes)
    r0 = min(r for _, r in hexes)
    return Board([(q - q0, r - r0) for q, r in hexes])


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
