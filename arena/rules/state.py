"""The state of one game of Battle Sheep and the rules that change it.

:class:`GameState` is mutable, like a chess board you push moves onto: a
search can :meth:`~GameState.apply` a move and :meth:`~GameState.undo` it, or
work on a cheap :meth:`~GameState.copy`.  Stacks live in flat lists indexed by the
board's dense hex index (``owner[i]`` is -1 for an empty hex), and each player
keeps the list of their stacks that still hold two or more sheep, so move
generation touches nothing but ints and precomputed tuples.  The moves
:meth:`~GameState.legal_moves` returns are shared values memoized by the
board, so listing them builds no new objects.
"""

from __future__ import annotations

from bisect import insort

from arena.errors import IllegalMoveError, RulesError
from arena.rules.board import Board, legal_tile_placements, tile_placement_problem
from arena.rules.hexgrid import Hex, tile_hexes
from arena.rules.moves import HerdPlacement, Move, SheepMove, TilePlacement
from arena.rules.params import PLAYER_LETTERS, Params, Phase, Standing
from arena.rules.writer import format_position

__all__ = ["PLAYER_LETTERS", "GameState", "Params", "Phase", "Standing"]

_MOVES = Phase.MOVES

# An entry of the undo history: either a sheep move, as
# (src, dest, count, player, src's former place in its movable list or -1,
# the players the move left stuck), or a full snapshot for anything rarer.
_SlideRecord = tuple[int, int, int, int, int, tuple[int, ...]]


class GameState:
    """A position: board, stacks, phase, player to move and who forfeited."""

    __slots__ = (
        "_history",
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
    _history: list[_SlideRecord | GameState]

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
        self._history = []
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
        state._history = []
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
        """How many players the game has."""
        return self.params.players

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (no player is to move)."""
        return self.phase is Phase.OVER

    def copy(self) -> GameState:
        """An independent copy (history included: it can :meth:`undo` too)."""
        c = self._snapshot()
        c._history = self._history[:]  # its entries are never changed in place
        return c

    def stacks(self) -> dict[Hex, tuple[int, int]]:
        """Every stack as ``{hex: (player, sheep)}``."""
        coords = self.board.coords
        return {coords[i]: (o, self.height[i]) for i, o in enumerate(self.owner) if o >= 0}

    def sheep_of(self, player: int) -> int:
        """How many sheep ``player`` has on the pasture."""
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
        exits = self.board.exits
        owner = self.owner
        for src in self.movable[player]:
            for _, j in exits[src]:
                if owner[j] < 0:
                    return True
        return False

    def slides(self, player: int) -> list[tuple[int, int, int]]:
        """Every ``(src, direction, dest)`` open to ``player``, as hex indexes.

        Each slide stands for ``height[src] - 1`` moves, one per count.
        """
        rays = self.board.rays
        exits = self.board.exits
        owner = self.owner
        out: list[tuple[int, int, int]] = []
        for src in self.movable[player]:
            for ray, j in exits[src]:
                if owner[j] >= 0:
                    continue
                dest = j
                for j in rays[ray]:
                    if owner[j] >= 0:
                        break
                    dest = j
                out.append((src, ray - 6 * src, dest))
        return out

    def _next_mover(self) -> tuple[int, ...]:
        """Pass the turn to the next seat that can move; end the game if none can.

        Returns the players found stuck on the way (marked out), for undo().
        """
        # has_legal_move() inlined: this runs once per move.
        exits = self.board.exits
        owner = self.owner
        movable = self.movable
        forfeited = self.forfeited
        out = self.out
        n = len(out)
        c = self.to_move
        stuck: tuple[int, ...] = ()
        for _ in range(n):
            c = c + 1 if c + 1 < n else 0
            if forfeited[c] or out[c]:
                continue
            for src in movable[c]:
                for _ray, j in exits[src]:
                    if owner[j] < 0:
                        self.to_move = c
                        return stuck
            out[c] = True  # moves only ever block: once stuck, stuck for good
            stuck += (c,)
        self.phase = Phase.OVER
        self.to_move = -1
        return stuck

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
        if self.phase is _MOVES:
            # A slide is open exactly when the first hex on its way is free,
            # so no ray is walked here; apply() finds where the sheep stop.
            board = self.board
            exits = board.exits
            memo = board.moves
            sheep_moves = board.sheep_moves
            owner = self.owner
            height = self.height
            moves: list[Move] = []
            for src in self.movable[self.to_move]:
                most = height[src] - 1
                for ray, j in exits[src]:
                    if owner[j] < 0:
                        found = memo[ray]
                        # A full slice of a tuple is the tuple itself: no copy.
                        moves += found[:most] if len(found) >= most else sheep_moves(ray, most)
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
        if self.phase is _MOVES:
            exits = self.board.exits
            owner = self.owner
            height = self.height
            return sum(
                height[src] - 1 for src in self.movable[self.to_move] for _, j in exits[src] if owner[j] < 0
            )
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
        """Play ``move`` for the player to move; raise IllegalMoveError if it is not legal.

        The position before it is kept, so :meth:`undo` can take it back.
        """
        if type(move) is SheepMove and self.phase is _MOVES:
            # The common case, checked and played inline (why_illegal() says
            # why when a check fails).
            board = self.board
            src = board.index.get((move.q, move.r), -1)
            p = self.to_move
            owner = self.owner
            height = self.height
            count = move.count
            if src >= 0 and owner[src] == p and 0 < count < height[src]:
                dest = -1
                for j in board.rays[src * 6 + move.direction]:
                    if owner[j] >= 0:
                        break
                    dest = j
                if dest >= 0:
                    left = height[src] - count
                    height[src] = left
                    owner[dest] = p
                    height[dest] = count
                    self.hexcount[p] += 1
                    movable = self.movable[p]
                    place = -1
                    if left == 1:
                        place = movable.index(src)
                        del movable[place]
                    if count >= 2:
                        insort(movable, dest)  # board order, as parse_position builds it
                    self._history.append((src, dest, count, p, place, self._next_mover()))
                    return
        problem = self.why_illegal(move)
        if problem is not None:
            raise IllegalMoveError(str(move), problem, format_position(self))
        if isinstance(move, SheepMove):  # a subclass: play the plain move it stands for
            self.apply(SheepMove(move.q, move.r, move.direction, move.count))
            return
        p = self.to_move
        self._history.append(self._snapshot())
        if isinstance(move, HerdPlacement):
            i = self.board.index[(move.q, move.r)]
            self._place_herd(i, p)
            self._next_herd(p)
        else:
            self._place_tile(move)
            self.tiles_left[p] -= 1
            self._next_tile(p)

    def undo(self) -> None:
        """Take back the last :meth:`apply` or :meth:`forfeit`, restoring the exact position.

        Raises RulesError when there is nothing to take back (a fresh game, or
        a position from :meth:`from_parts`).  For search: apply, look, undo.
        """
        if not self._history:
            raise RulesError("nothing to undo: no move was applied to this position")
        last = self._history.pop()
        if isinstance(last, GameState):
            self._restore(last)
            return
        src, dest, count, p, place, stuck = last
        owner = self.owner
        height = self.height
        owner[dest] = -1
        height[dest] = 0
        height[src] += count
        self.hexcount[p] -= 1
        movable = self.movable[p]
        if count >= 2:
            movable.remove(dest)
        if place >= 0:
            movable.insert(place, src)
        for c in stuck:
            self.out[c] = False
        self.phase = _MOVES
        self.to_move = p

    def clear_history(self) -> None:
        """Forget every move played so far: nothing can be undone until the next one.

        For code that changes the public lists directly (a fast playout), which
        would leave the undo records describing a position that is gone.
        """
        self._history.clear()

    @property
    def undoable(self) -> int:
        """How many :meth:`undo` calls would succeed."""
        return len(self._history)

    def last_slide(self) -> tuple[int, int] | None:
        """The hex indexes a sheep move just applied took sheep from and to; None when the
        last change was anything else (a herd, a tile, a forfeit) or there was none."""
        last = self._history[-1] if self._history else None
        return (last[0], last[1]) if type(last) is tuple else None

    def _snapshot(self) -> GameState:
        """A copy without history, to restore a rare change (herd, tile, forfeit) from."""
        c = GameState.__new__(GameState)
        c._restore(self)
        c._history = []
        return c

    def _restore(self, snap: GameState) -> None:
        # Copy the lists: the snapshot may be shared with copies of this state.
        self.params = snap.params
        self.board = snap.board
        self.phase = snap.phase
        self.to_move = snap.to_move
        self.owner = snap.owner[:]
        self.height = snap.height[:]
        self.movable = [m[:] for m in snap.movable]
        self.hexcount = snap.hexcount[:]
        self.forfeited = snap.forfeited[:]
        self.out = snap.out[:]
        self.tiles_left = snap.tiles_left[:]

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
        self._history.append(self._snapshot())
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
