"""The Python bot kit: a bot is one function from a turn to a move.

::

    from arena.botkit import Turn, run_bot

    def choose(turn: Turn):
        return turn.rng.choice(turn.state.legal_moves())

    run_bot("my-bot", choose)

The kit speaks the protocol (``protocol/PROTOCOL.md``) on stdin/stdout, keeps
nothing between turns but what you keep yourself, and rebuilds the full game
state for every request, so ``turn.state`` is always exact.

A kit bot declares ``multigame``: the arena may keep its process for several
games, one after another (starting Python costs more than the moves of a
short game).  ``turn.rng`` is seeded afresh for every game; anything your own
code keeps between calls (a global, a cache) lives on into the next game, so
key it by ``turn.game.game_id`` or pass ``multigame=False`` to ``run_bot``.  It uses only the
standard library and the pure rules engine, so a bot runs from a plain
checkout of the arena: put the checkout on ``sys.path``.
"""

from __future__ import annotations

import functools
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from arena.errors import ProtocolError
from arena.protocol import (
    MULTIGAME,
    PROTOCOL_VERSION,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    Info,
    MoveReply,
    Ready,
    TurnRequest,
    format_message,
    parse_referee_line,
)
from arena.rules import Board, GameState, Move, Params, Phase

_PHASES = {"tile": Phase.TILES, "herd": Phase.HERDS, "move": Phase.MOVES}


@dataclass
class Turn:
    """What a bot knows when asked for a move."""

    game: GameStart  # parameters, seat, seed, time control, names
    request: TurnRequest  # the raw request: clocks, moves since last turn, ...
    state: GameState  # the position, with this bot to move
    rng: random.Random  # seeded from this seat's own seed (``game.seed``): replays repeat
    received: float  # time.monotonic() when the request arrived
    out: TextIO

    @property
    def seat(self) -> int:
        """This bot's seat (0 is player a)."""
        return self.game.seat

    @property
    def time_ms(self) -> int:
        """Milliseconds the referee gives for this answer (its margin not counted)."""
        return self.request.time

    def deadline(self, fraction: float = 0.5, reserve_ms: float = 30.0) -> float:
        """A ``time.monotonic()`` by which to answer, using ``fraction`` of the time given."""
        return self.received + max(0.0, self.time_ms * fraction - reserve_ms) / 1000

    def log(self, text: str) -> None:
        """Send an ``info`` line: recorded with the game, never taken as the answer."""
        self.out.write(format_message(Info(" ".join(text.split()))) + "\n")
        self.out.flush()


@functools.lru_cache(maxsize=4)
def _board(hexes: tuple[tuple[int, int], ...], daisies: tuple[tuple[int, int, int], ...]) -> Board:
    # The pasture only changes while tiles are laid: every later request of a game
    # describes the same board, which is then made once (boards are immutable values).
    count = {(q, r): n for q, r, n in daisies}
    return Board({h: count.get(h, 0) for h in hexes})


def state_from_request(game: GameStart, req: TurnRequest) -> GameState:
    """The full game state a request describes, with the asking bot to move."""
    params = Params(
        players=game.players,
        sheep=game.sheep,
        tiles=game.tiles,
        contact=game.contact,
        hole_border=game.hole_border,
    )
    board = _board(req.board, req.daisies)
    forfeited = [p in req.forfeited for p in range(game.players)]
    tiles = list(req.tiles) if req.tiles else [0] * game.players
    return GameState.from_parts(
        params,
        board,
        _PHASES[req.phase],
        game.seat,
        {(q, r): (p, n) for q, r, p, n in req.stacks},
        tiles,
        forfeited,
    )


Chooser = Callable[[Turn], Move]


class BotSession:
    """The protocol state machine of one bot: a request line in, an answer line out.

    :func:`run_bot` feeds it stdin; tests feed it lines directly.
    """

    def __init__(
        self,
        name: str,
        choose: Chooser,
        capabilities: tuple[str, ...] = (),
        out: TextIO | None = None,
        multigame: bool = True,
    ) -> None:
        self.name = name
        self.choose = choose
        self.capabilities = (*capabilities, MULTIGAME) if multigame else capabilities
        self.out = out or sys.stdout
        self.game: GameStart | None = None
        self.rng = random.Random(0)
        self.finished = False

    def handle(self, line: str, received: float | None = None) -> str | None:
        """The answer to ``line`` (None for a notice or a line to ignore)."""
        received = time.monotonic() if received is None else received
        if not line.strip():
            return None
        try:
            msg = parse_referee_line(line)
        except ProtocolError as e:
            print(f"{self.name}: {e}", file=sys.stderr)
            return None  # a newer referee may send messages we do not know
        if isinstance(msg, Hello):
            return format_message(HelloReply(PROTOCOL_VERSION, self.name, self.capabilities))
        if isinstance(msg, GameStart):
            self.game = msg
            self.rng = random.Random(msg.seed * 4 + msg.seat)
            return format_message(Ready())
        if isinstance(msg, TurnRequest):
            if self.game is None:
                raise ProtocolError("turn request before the game message")
            state = state_from_request(self.game, msg)
            move = self.choose(Turn(self.game, msg, state, self.rng, received, self.out))
            return format_message(MoveReply(msg.phase, str(move)))
        if isinstance(msg, GameEnd):
            # Kept for another game only when the referee said so in ``game``.
            self.finished = self.game is None or not self.game.multigame
            self.game = None
        return None


def run_bot(
    name: str,
    choose: Chooser,
    capabilities: tuple[str, ...] = (),
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    multigame: bool = True,
) -> None:
    """Answer the referee until the (last) game ends or the input closes."""
    out = stdout or sys.stdout
    session = BotSession(name, choose, capabilities, out, multigame)
    for line in stdin or sys.stdin:
        answer = session.handle(line, time.monotonic())
        if answer is not None:
            out.write(answer + "\n")
            out.flush()
        if session.finished:
            return
