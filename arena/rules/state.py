"""The state of one game of Battle Sheep and the rules that change it.

:class:`GameState` is mutable, like a chess board you push moves onto, and
cheap to :meth:`~GameState.copy`.  Stacks live in flat lists indexed by the
board's dense hex index (``owner[i]`` is -1 for an empty hex), and each player
keeps the list of their stacks that still hold two or more sheep, so move
generation touches nothing but ints and precomputed tuples.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass
from enum import Enum

from ..errors import IllegalMoveError, RulesError
from .board import Board, legal_tile_placements, tile_placement_problem
from .hexgrid import Direction, Hex, tile_hexes
from .moves import HerdPlacement, Move, SheepMove, TilePlacement

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


class GameState:
    """A position: board, stacks, phase, player to move and who forfeited."""

    __slots__ = (
        "board",
        "forfeited",
        "height",
        "hexcount",
        "movable",
        "out",
        "owner",
        "params",
        "phase",
        "tiles_left",
        "to_move",
    )

    params: Params
    board: Board
    phase: Phase
    to_move: int
    owner: list[int]
    height: list[int]
    movable: list[list[int]]
    hexcount: list[int]
    forfeited: list[bool]
    out: list[bool]
    tiles_left: list[int]

    def __init__(self, params: Params | None = None, board: Board | None = None) -> None:
        """A new game: from the building phase, or from herd placement on ``board``."""
        self.params = params = params or Params()
        n = params.players
        self.board = board if board is not None else Board(())
        self.owner = [-1] * self.board.size
        self.height = [0] * self.board.size
        self.movable = [[] for _ in range(n)]
        self.hexcount = [0] * n
        self.forfeited = [False] * n
        self.out = [False] * n
        if board is None:
            self.phase = Phase.TILES
            self.tiles_left = [params.tiles] * n
            self.to_move = 0
        else:
            if board.size == 0:
                raise RulesError("the board has no hexes")
            self.phase = Phase.HERDS
            self.tiles_left = [0] * n
            self.to_move = -1
            self._next_herd(-1)

    @classmethod
    def from_parts(
        cls,
        params: Params,
        board: Board,
        phase: Phase,
        to_move: int,
        stacks: dict[Hex, tuple[int, int]] | None = None,
        tiles_left: list[int] | None = None,
        forfeited: list[bool] | None = None,
    ) -> GameState:
        """A position from its parts (stacks as ``{hex: (player, sheep)}``).

        Used by the notation parser and by bots that receive the state as data.
        Raises RulesError for parts that do not fit together.
        """
        n = params.players
        state = cls.__new__(cls)
        state.params = params
        state.board = board
        state.phase = phase
        state.owner = [-1] * board.size
        state.height = [0] * board.size
        state.movable = [[] for _ in range(n)]
        state.hexcount = [0] * n
        state.out = [False] * n
        state.forfeited = list(forfeited) if forfeited is not None else [False] * n
        state.tiles_left = list(tiles_left) if tiles_left is not None else [0] * n
        if len(state.forfeited) != n or len(state.tiles_left) != n:
            raise RulesError(f"forfeits and tiles left must list {n} players")
        for h, (player, sheep) in sorted((stacks or {}).items(), key=lambda kv: (kv[0][1], kv[0][0])):
            i = board.index.get(h)
            if i is None:
                raise RulesError(f"stack on {h[0]},{h[1]}, which is not pasture")
            if not 0 <= player < n or sheep < 1:
                raise RulesError(f"bad stack on {h[0]},{h[1]}: player {player!r}, sheep {sheep!r}")
            state.owner[i] = player
            state.height[i] = sheep
            state.hexcount[player] += 1
            if sheep >= 2:
                state.movable[player].append(i)
        if phase is Phase.OVER:
            state.to_move = -1
        else:
            if not 0 <= to_move < n:
                raise RulesError(f"player to move must be 0..{n - 1}, got {to_move!r}")
            state.to_move = to_move
        if phase is Phase.MOVES:
            for p in range(n):
                state.out[p] = not state.has_legal_move(p)
        return state

    # --- basic queries -----------------------------------------------------

    @property
    def players(self) -> int:
        return self.params.players

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def copy(self) -> GameState:
        c = GameState.__new__(GameState)
        c.params = self.params
        c.board = self.board
        c.phase = self.phase
        c.to_move = self.to_move
        c.owner = self.owner[:]
        c.height = self.height[:]
        c.movable = [m[:] for m in self.movable]
        c.hexcount = self.hexcount[:]
        c.forfeited = self.forfeited[:]
        c.out = self.out[:]
        c.tiles_left = self.tiles_left[:]
        return c

    def stacks(self) -> dict[Hex, tuple[int, int]]:
        """Every stack as ``{hex: (player, sheep)}``."""
        coords = self.board.coords
        return {coords[i]: (o, self.height[i]) for i, o in enumerate(self.owner) if o >= 0}

    def sheep_of(self, player: int) -> int:
        return sum(h for o, h in zip(self.owner, self.height, strict=True) if o == player)

    def in_play(self, player: int) -> bool:
        """Whether ``player`` may still be asked for a move in this game."""
        if self.forfeited[player] or self.phase is Phase.OVER:
            return False
        if self.phase is Phase.MOVES:
            return not self.out[player] and self.has_legal_move(player)
        return True

    # --- phase 3: sheep moves ----------------------------------------------

    def slide_end(self, src: int, direction: int) -> int:
        """Where sheep leaving hex index ``src`` in ``direction`` stop, or -1 if blocked."""
        owner = self.owner
        dest = -1
        for j in self.board.rays[src * 6 + direction]:
            if owner[j] >= 0:
                break
            dest = j
        return dest

    def has_legal_move(self, player: int) -> bool:
        """Whether ``player`` can move sheep (stops at the first move found)."""
        nbr = self.board.nbr
        owner = self.owner
        for src in self.movable[player]:
            base = src * 6
            for d in range(6):
                j = nbr[base + d]
                if j >= 0 and owner[j] < 0:
                    return True
        return False

    def slides(self, player: int) -> list[tuple[int, int, int]]:
        """Every ``(src, direction, dest)`` open to ``player``, as hex indexes.

        Each slide stands for ``height[src] - 1`` moves, one per count.
        """
        rays = self.board.rays
        owner = self.owner
        out: list[tuple[int, int, int]] = []
        for src in self.movable[player]:
            base = src * 6
            for d in range(6):
                dest = -1
                for j in rays[base + d]:
                    if owner[j] >= 0:
                        break
                    dest = j
                if dest >= 0:
                    out.append((src, d, dest))
        return out

    def _slide(self, src: int, dest: int, count: int) -> None:
        p = self.owner[src]
        height = self.height
        height[src] -= count
        self.owner[dest] = p
        height[dest] = count
        self.hexcount[p] += 1
        if height[src] == 1:
            self.movable[p].remove(src)
        if count >= 2:
            insort(self.movable[p], dest)  # board order, as parse_position builds it

    def _next_mover(self) -> None:
        """Pass the turn to the next seat that can move; end the game if none can."""
        n = self.params.players
        p = self.to_move
        for step in range(1, n + 1):
            c = (p + step) % n
            if self.forfeited[c] or self.out[c]:
                continue
            if self.has_legal_move(c):
                self.to_move = c
                return
            self.out[c] = True  # moves only ever block: once stuck, stuck for good
        self.phase = Phase.OVER
        self.to_move = -1

    # --- phase 2: herds ----------------------------------------------------

    def herd_hexes(self) -> list[int]:
        """Hex indexes where a herd may be placed now."""
        hole = self.params.hole_border
        b = self.board
        return [i for i in range(b.size) if self.owner[i] < 0 and b.is_border(i, hole)]

    def _next_herd(self, after: int) -> None:
        n = self.params.players
        if self.herd_hexes():
            for c in range(after + 1, n):
                if not self.forfeited[c]:
                    self.to_move = c
                    return
        self.phase = Phase.MOVES
        self.to_move = n - 1
        self._next_mover()

    # --- phase 1: tiles ----------------------------------------------------

    def _pasture(self) -> dict[Hex, int]:
        return self.board.daisy_map()

    def _next_tile(self, after: int) -> None:
        n = self.params.players
        for step in range(1, n + 1):
            c = (after + step) % n
            if self.forfeited[c] or self.tiles_left[c] == 0:
                continue
            self.to_move = c
            return
        self.phase = Phase.HERDS
        self._next_herd(-1)

    # --- every phase -------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move for the player to move, in a fixed order.

        In the building phase the very first tile may go anywhere; it is
        listed at anchor 0,0 only (every other spot is the same up to
        translation).
        """
        if self.phase is Phase.MOVES:
            coords = self.board.coords
            height = self.height
            moves: list[Move] = []
            for src, d, _dest in self.slides(self.to_move):
                q, r = coords[src]
                direction = Direction(d)
                moves.extend(SheepMove(q, r, direction, k) for k in range(1, height[src]))
            return moves
        if self.phase is Phase.HERDS:
            coords = self.board.coords
            return [HerdPlacement(*coords[i]) for i in self.herd_hexes()]
        if self.phase is Phase.TILES:
            return [
                TilePlacement(q, r, o)
                for q, r, o in legal_tile_placements(self._pasture(), self.params.contact)
            ]
        return []

    def count_moves(self) -> int:
        """``len(self.legal_moves())`` without building the moves."""
        if self.phase is Phase.MOVES:
            height = self.height
            return sum(height[src] - 1 for src, _, _ in self.slides(self.to_move))
        return len(self.legal_moves())

    def why_illegal(self, move: Move) -> str | None:
        """Why ``move`` may not be played now, or None if it may.

        Checks one move without generating the others.
        """
        phase = self.phase
        if phase is Phase.OVER:
            return "the game is over"
        if isinstance(move, SheepMove):
            if phase is not Phase.MOVES:
                return f"sheep cannot move during the {phase.value} phase"
            src = self.board.index.get((move.q, move.r))
            if src is None:
                return f"hex {move.q},{move.r} is not on the pasture"
            owner = self.owner[src]
            if owner != self.to_move:
                if owner < 0:
                    return f"there is no stack on {move.q},{move.r}"
                return f"the stack on {move.q},{move.r} belongs to player {PLAYER_LETTERS[owner]}"
            h = self.height[src]
            if h < 2:
                return f"the stack on {move.q},{move.r} has 1 sheep, which can never move"
            if not 1 <= move.count <= h - 1:
                return (
                    f"cannot split {move.count} sheep off a stack of {h}: "
                    f"between 1 and {h - 1} must go and at least one must stay"
                )
            if self.slide_end(src, int(move.direction)) < 0:
                return f"direction {move.direction.name} from {move.q},{move.r} is blocked right away"
            return None
        if isinstance(move, HerdPlacement):
            if phase is not Phase.HERDS:
                return f"herds cannot be placed during the {phase.value} phase"
            i = self.board.index.get((move.q, move.r))
            if i is None:
                return f"hex {move.q},{move.r} is not on the pasture"
            if self.owner[i] >= 0:
                return f"hex {move.q},{move.r} is already taken"
            if not self.board.is_border(i, self.params.hole_border):
                if self.board.hole_border[i]:
                    return f"hex {move.q},{move.r} borders only a hole, not the outside of the pasture"
                return f"hex {move.q},{move.r} is not on the border of the pasture"
            return None
        if isinstance(move, TilePlacement):
            if phase is not Phase.TILES:
                return f"tiles cannot be placed during the {phase.value} phase"
            return tile_placement_problem(
                self._pasture(), move.q, move.r, move.orientation, self.params.contact
            )
        return f"not a move: {move!r}"

    def apply(self, move: Move) -> None:
        """Play ``move`` for the player to move; raise IllegalMoveError if it is not legal."""
        problem = self.why_illegal(move)
        if problem is not None:
            from .notation import format_position  # notation imports this module

            raise IllegalMoveError(str(move), problem, format_position(self))
        p = self.to_move
        if isinstance(move, SheepMove):
            src = self.board.index[(move.q, move.r)]
            dest = self.slide_end(src, int(move.direction))
            self._slide(src, dest, move.count)
            self._next_mover()
        elif isinstance(move, HerdPlacement):
            i = self.board.index[(move.q, move.r)]
            self._place_herd(i, p)
            self._next_herd(p)
        else:
            self._place_tile(move)
            self.tiles_left[p] -= 1
            self._next_tile(p)

    def _place_herd(self, i: int, player: int) -> None:
        self.owner[i] = player
        self.height[i] = self.params.sheep
        self.hexcount[player] += 1
        if self.params.sheep >= 2:
            self.movable[player].append(i)

    def _place_tile(self, move: TilePlacement) -> None:
        self.board = self.board.with_hexes(tile_hexes(move.q, move.r, move.orientation))
        self.owner = [-1] * self.board.size
        self.height = [0] * self.board.size

    def forfeit(self, player: int) -> None:
        """Mark ``player`` forfeited: no more moves; ranked below every other player."""
        if self.forfeited[player]:
            return
        self.forfeited[player] = True
        if self.phase is Phase.OVER or player != self.to_move:
            return
        if self.phase is Phase.MOVES:
            self._next_mover()
        elif self.phase is Phase.HERDS:
            self._next_herd(player)
        else:
            self._next_tile(player)

    # --- the end -----------------------------------------------------------

    def largest_group(self, player: int) -> int:
        """Size of the largest edge-connected group of ``player``'s stacks."""
        nbr = self.board.nbr
        owner = self.owner
        seen: set[int] = set()
        best = 0
        for start, o in enumerate(owner):
            if o != player or start in seen:
                continue
            seen.add(start)
            todo = [start]
            size = 0
            while todo:
                i = todo.pop()
                size += 1
                for d in range(6):
                    j = nbr[i * 6 + d]
                    if j >= 0 and owner[j] == player and j not in seen:
                        seen.add(j)
                        todo.append(j)
            best = max(best, size)
        return best

    def standings(self) -> list[Standing]:
        """Every player's rank and tiebreak figures, by seat.

        Rank 1 is best; tied players share a rank and the next rank is skipped
        (1, 2, 2, 4).  Valid at any time; final once the game is over.
        """
        daisies = self.board.daisies
        rows = []
        for p in range(self.params.players):
            rows.append(
                (
                    p,
                    self.hexcount[p],
                    self.largest_group(p),
                    sum(daisies[i] for i, o in enumerate(self.owner) if o == p),
                    self.forfeited[p],
                )
            )
        keys = [(not f, h, g, d) for _, h, g, d, f in rows]
        return [Standing(p, 1 + sum(k > keys[p] for k in keys), h, g, d, f) for p, h, g, d, f in rows]

    def ranking(self) -> list[int]:
        """The rank of each seat (1 is best, ties share)."""
        return [s.rank for s in self.standings()]
