"""The bot protocol's messages as values, and the constants every side shares.

One frozen dataclass per message of ``protocol/PROTOCOL.md``; :mod:`arena.protocol.codec`
turns them into lines and back, :mod:`arena.protocol.turns` writes turn requests fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "MAX_LINE_BYTES",
    "MULTIGAME",
    "NAME_RE",
    "PHASE_REQUESTS",
    "PROTOCOL_VERSION",
    "SEAT_LETTERS",
    "BotMessage",
    "GameEnd",
    "GameStart",
    "Hello",
    "HelloReply",
    "Info",
    "MoveReply",
    "Ready",
    "RefereeMessage",
    "TurnRequest",
]

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 4096  # longest line a bot may send, newline excluded
PHASE_REQUESTS = ("tile", "herd", "move")
NAME_RE = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
# Seats are written as letters: seat 0 is "a".
SEAT_LETTERS = "abcd"

# The capability a bot declares in its hello to play several games in one process.
MULTIGAME = "multigame"


@dataclass(frozen=True, slots=True)
class Hello:
    """``hello VERSION``: the referee opens; the bot answers with :class:`HelloReply`."""

    version: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class HelloReply:
    """``hello VERSION NAME [CAPABILITY ...]``."""

    version: int
    name: str
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameStart:
    """``game KEY=VALUE ...``: everything fixed for the whole game.

    Times are milliseconds; 0 means "no such limit".
    """

    game_id: str
    seat: int
    players: int
    seed: int
    sheep: int = 16
    tiles: int = 4
    contact: int = 1
    hole_border: bool = False
    move_time: int = 0
    base_time: int = 0
    increment: int = 0
    names: tuple[str, ...] = ()
    # The referee keeps this process for more games (the bot declared ``multigame``):
    # after ``end`` it waits for the next ``game`` instead of exiting.
    multigame: bool = False


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """``tile|herd|move KEY=VALUE ...``: the whole state and the clocks.

    ``clocks`` holds each player's remaining clock in ms, or None without a
    clock.  ``since`` lists ``(player, move)`` played since this bot's last
    request.  ``stacks`` holds ``(q, r, player, sheep)``; ``daisies``
    ``(q, r, count)`` for hexes that show any.
    """

    phase: str
    time: int
    ply: int
    clocks: tuple[int | None, ...]
    since: tuple[tuple[int, str], ...]
    board: tuple[tuple[int, int], ...]
    stacks: tuple[tuple[int, int, int, int], ...]
    tiles: tuple[int, ...]
    forfeited: tuple[int, ...] = ()
    daisies: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class MoveReply:
    """``tile|herd|move MOVE``: the answer to a turn request."""

    phase: str
    move: str


@dataclass(frozen=True, slots=True)
class Ready:
    """``ready``: the answer to ``game``."""


@dataclass(frozen=True, slots=True)
class Info:
    """``info TEXT``: a line a bot may send at any time, recorded but never an answer."""

    text: str


@dataclass(frozen=True, slots=True)
class GameEnd:
    """``end KEY=VALUE ...``: the final ranking; the bot should exit."""

    ranks: tuple[int, ...]
    hexes: tuple[int, ...]
    groups: tuple[int, ...]
    daisies: tuple[int, ...]
    faults: tuple[str | None, ...] = field(default=())


BotMessage = HelloReply | Ready | MoveReply | Info
RefereeMessage = Hello | GameStart | TurnRequest | GameEnd
