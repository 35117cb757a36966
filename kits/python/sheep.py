"""The Battle Sheep protocol and rules for a bot: you need not change this file.

It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
values, lists the legal moves of a position and plays a move on a copy of it.
MyBot.py holds the strategy; ``run`` below is the conversation with the referee.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

# The six directions, as the protocol names them, and the step each adds to (q, r).
DIRECTIONS = (("E", 1, 0), ("NE", 1, -1), ("NW", 0, -1), ("W", -1, 0), ("SW", -1, 1), ("SE", 0, 1))
# The hexes a tile covers, as offsets from its anchor, for each orientation.
TILE_SHAPES = {
    "A": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "B": ((0, 0), (1, 0), (1, -1), (2, -1)),
    "C": ((0, 0), (1, -1), (1, 0), (0, 1)),
}
LIMIT = 999  # every hex has -999 <= q, r <= 999

Hex = tuple[int, int]


@dataclass
class Game:
    """The ``game`` message: what is fixed for one game."""

    id: str = ""
    seat: str = "a"  # my letter: a plays first
    players: int = 2
    seed: int = 0  # for my own randomness: the same seed replays my moves
    sheep: int = 16
    tiles: int = 4
    contact: int = 1
    holeborder: int = 0
    movetime: int = 0  # ms per answer, 0 if none
    base: int = 0  # the clock in ms, 0 if none
    increment: int = 0
    names: list[str] = field(default_factory=list)
    multigame: bool = False  # True: after ``end``, wait for the next ``game``


@dataclass
class Stack:
    """A stack of sheep on one hex."""

    q: int
    r: int
    player: str
    sheep: int


@dataclass
class Position:
    """A board: the pasture, the stacks, whose move it is and the rules that apply."""

    phase: str  # "tile", "herd" or "move"
    me: str
    pasture: set[Hex]
    stacks: dict[Hex, Stack]
    sheep: int = 16
    contact: int = 1
    holeborder: int = 0

    def is_free(self, q: int, r: int) -> bool:
        """A pasture hex with no stack on it."""
        return (q, r) in self.pasture and (q, r) not in self.stacks

    def slide(self, q: int, r: int, dq: int, dr: int) -> Hex | None:
        """Where sheep leaving (q, r) that way stop, or None if they cannot move."""
        if not self.is_free(q + dq, r + dr):
            return None
        while self.is_free(q + dq, r + dr):
            q, r = q + dq, r + dr
        return q, r

    def mobility(self, player: str) -> int:
        """How many (stack, direction) pairs of ``player`` can slide."""
        return sum(
            1
            for s in self.stacks.values()
            if s.player == player and s.sheep > 1
            for _, dq, dr in DIRECTIONS
            if self.is_free(s.q + dq, s.r + dr)
        )

    def tile_contact(self, move: str) -> int:
        """How many hex edges the tile ``move`` shares with the pasture."""
        return sum(
            1
            for q, r in tile_hexes(move)
            for _, dq, dr in DIRECTIONS
            if (q + dq, r + dr) in self.pasture
        )

    def legal_moves(self) -> list[str]:
        """Every legal move of the phase, as the protocol writes it (without the phase word)."""
        if self.phase == "tile":
            return self._legal_tiles()
        if self.phase == "herd":
            return self._legal_herds()
        return [
            f"{s.q},{s.r}{name}{n}"
            for s in self.stacks.values()
            if s.player == self.me and s.sheep > 1
            for name, dq, dr in DIRECTIONS
            if self.is_free(s.q + dq, s.r + dr)
            for n in range(1, s.sheep)
        ]

    def _legal_tiles(self) -> list[str]:
        if not self.pasture:
            return ["0,0A", "0,0B", "0,0C"]  # the first tile may go anywhere
        moves: dict[str, None] = {}  # in a fixed order, without repeats
        for q, r in sorted(self.pasture):
            for _, dq, dr in DIRECTIONS:
                hq, hr = q + dq, r + dr  # a hex next to the pasture: some legal tile covers it
                if (hq, hr) in self.pasture:
                    continue
                for o, shape in TILE_SHAPES.items():
                    for oq, or_ in shape:
                        move = f"{hq - oq},{hr - or_}{o}"
                        if move not in moves and self._tile_fits(move):
                            moves[move] = None
        return list(moves)

    def _tile_fits(self, move: str) -> bool:
        hexes = tile_hexes(move)
        if any(h in self.pasture or not (-LIMIT <= h[0] <= LIMIT and -LIMIT <= h[1] <= LIMIT) for h in hexes):
            return False
        touching = sum(
            1 for q, r in hexes if any((q + dq, r + dr) in self.pasture for _, dq, dr in DIRECTIONS)
        )
        return touching >= self.contact

    def _legal_herds(self) -> list[str]:
        outside = self._outside()
        return [
            f"{q},{r}"
            for q, r in sorted(self.pasture)
            if (q, r) not in self.stacks
            and any(
                (q + dq, r + dr) not in self.pasture and (self.holeborder or (q + dq, r + dr) in outside)
                for _, dq, dr in DIRECTIONS
            )
        ]

    def _outside(self) -> set[Hex]:
        """The hexes off the pasture that reach the outside (the others are holes)."""
        qs = [q for q, _ in self.pasture]
        rs = [r for _, r in self.pasture]
        q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
        todo = [
            (q, r)
            for q in range(q0, q1 + 1)
            for r in range(r0, r1 + 1)
            if (q in (q0, q1) or r in (r0, r1)) and (q, r) not in self.pasture
        ]
        outside = set(todo)
        while todo:
            q, r = todo.pop()
            for _, dq, dr in DIRECTIONS:
                h = (q + dq, r + dr)
                if q0 <= h[0] <= q1 and r0 <= h[1] <= r1 and h not in self.pasture and h not in outside:
                    outside.add(h)
                    todo.append(h)
        return outside

    def play(self, move: str) -> Position:
        """A copy of this position with ``move`` played by me (the move must be legal)."""
        pasture = set(self.pasture)
        stacks = {h: Stack(s.q, s.r, s.player, s.sheep) for h, s in self.stacks.items()}
        if self.phase == "tile":
            pasture.update(tile_hexes(move))
        elif self.phase == "herd":
            q, r = parse_hex(move)
            stacks[(q, r)] = Stack(q, r, self.me, self.sheep)
        else:
            q, r, (dq, dr), n = parse_sheep_move(move)
            after = Position(self.phase, self.me, pasture, stacks)
            end = after.slide(q, r, dq, dr)
            assert end is not None, f"sheep on {q},{r} cannot move"
            stacks[(q, r)].sheep -= n
            stacks[end] = Stack(end[0], end[1], self.me, n)
        return Position(self.phase, self.me, pasture, stacks, self.sheep, self.contact, self.holeborder)


def parse_hex(text: str) -> Hex:
    q, r = text.split(",")
    return int(q), int(r)


def tile_hexes(move: str) -> list[Hex]:
    """The four hexes of a tile move such as ``2,-1B``."""
    q, r = parse_hex(move[:-1])
    return [(q + oq, r + or_) for oq, or_ in TILE_SHAPES[move[-1]]]


def parse_sheep_move(move: str) -> tuple[int, int, Hex, int]:
    """``3,0NE5`` -> (3, 0, (1, -1), 5)."""
    i = next(i for i, c in enumerate(move) if c.isalpha())
    j = next(j for j in range(i, len(move)) if move[j].isdigit())
    q, r = parse_hex(move[:i])
    step = next((dq, dr) for name, dq, dr in DIRECTIONS if name == move[i:j])
    return q, r, step, int(move[j:])


@dataclass
class Turn:
    """A ``tile``, ``herd`` or ``move`` request: it is my turn."""

    phase: str
    time: int  # ms I have for this answer
    ply: int
    clocks: list[int]  # each seat's clock in ms; -1 for a seat without a clock
    since: list[tuple[str, str]]  # the others' moves since my last answer: (player, move)
    tiles: list[int]  # tiles each seat still holds
    forfeit: str  # letters of the forfeited seats
    daisies: dict[Hex, int]
    position: Position


@dataclass
class End:
    """The ``end`` notice, in seat order."""

    ranks: list[int]
    hexes: list[int]
    groups: list[int]
    daisies: list[int]
    faults: list[str]  # "-" for none


class Rng:
    """SplitMix64: a small random number generator that gives the same numbers in every kit."""

    def __init__(self, seed: int) -> None:
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number from 0 to n - 1."""
        return self.next() % n


def _fields(words: list[str]) -> dict[str, str]:
    return dict(w.split("=", 1) for w in words if "=" in w)


def _items(text: str | None) -> list[str]:
    return [] if not text or text == "-" else text.split(";")


def _numbers(text: str | None) -> list[int]:
    return [-1 if x == "-" else int(x) for x in _items(text)]


def read_game(words: list[str]) -> Game:
    f = _fields(words)
    return Game(
        id=f.get("id", ""),
        seat=f.get("seat", "a"),
        players=int(f.get("players", "2")),
        seed=int(f.get("seed", "0")),
        sheep=int(f.get("sheep", "16")),
        tiles=int(f.get("tiles", "4")),
        contact=int(f.get("contact", "1")),
        holeborder=int(f.get("holeborder", "0")),
        movetime=int(f.get("movetime", "0")),
        base=int(f.get("base", "0")),
        increment=int(f.get("increment", "0")),
        names=f.get("names", "").split(","),
        multigame=f.get("multigame") == "1",
    )


def read_turn(game: Game, words: list[str]) -> Turn:
    f = _fields(words[1:])
    pasture = {parse_hex(h) for h in _items(f.get("board"))}
    stacks: dict[Hex, Stack] = {}
    for item in _items(f.get("stacks")):
        q, r, player, sheep = item.split(",")
        stacks[(int(q), int(r))] = Stack(int(q), int(r), player, int(sheep))
    daisies = {}
    for item in _items(f.get("daisies")):
        q, r, n = item.split(",")
        daisies[(int(q), int(r))] = int(n)
    since = [(m.split(":", 1)[0], m.split(":", 1)[1]) for m in _items(f.get("since"))]
    position = Position(words[0], game.seat, pasture, stacks, game.sheep, game.contact, game.holeborder)
    return Turn(
        phase=words[0],
        time=int(f.get("time", "0")),
        ply=int(f.get("ply", "0")),
        clocks=_numbers(f.get("clocks")),
        since=since,
        tiles=_numbers(f.get("tiles")),
        forfeit=f.get("forfeit", "-").strip("-"),
        daisies=daisies,
        position=position,
    )


def read_end(words: list[str]) -> End:
    f = _fields(words)
    return End(
        ranks=_numbers(f.get("ranks")),
        hexes=_numbers(f.get("hexes")),
        groups=_numbers(f.get("groups")),
        daisies=_numbers(f.get("daisies")),
        faults=_items(f.get("faults")),
    )


def send(line: str) -> None:
    """Write one line and flush it: an answer left in the buffer never arrives."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    """Debugging output: stderr is kept with the game record, never read as an answer."""
    print(text, file=sys.stderr, flush=True)


def run(name: str, choose: Callable[[Game, Turn, Rng], str], on_end: Callable[[Game, End], None]) -> None:
    """Answer the referee until the last game ends or the input closes."""
    game = Game()
    rng = Rng(0)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        kind = words[0]
        if kind == "hello":
            send(f"hello 1 {name} multigame")  # may play several games in one process
        elif kind == "game":
            game = read_game(words[1:])
            rng = Rng(game.seed)  # a fresh generator for every game: replays repeat
            send("ready")
        elif kind in ("tile", "herd", "move"):
            turn = read_turn(game, words)
            send(f"{kind} {choose(game, turn, rng)}")
        elif kind == "end":
            on_end(game, read_end(words[1:]))
            if not game.multigame:
                return
        else:
            log(f"{name}: ignoring {kind!r} (a message of a later protocol version?)")
