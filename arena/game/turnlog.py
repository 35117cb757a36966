"""A bot's stderr, kept turn by turn for its record, within bounds per turn and per game.

Each chunk a bot writes on stderr is stamped with the ``ply`` of the last turn request the
bot had been sent (-1: before its first), as its ``info`` lines are: the replay viewer shows
what a bot wrote beside the board at the move it was thinking about.  A turn keeps at most
:data:`STDERR_TURN_KEEP` bytes and a game :data:`STDERR_GAME_KEEP`; what is past them is
counted (the turn's ``dropped`` bytes), never kept.  Taking a chunk costs the same whatever it
holds (a slice and a count, no step a line), so a flood costs the referee nothing more.

The bounds are a :class:`LogBounds` (a bot's :class:`~arena.game.bothost.BotSpec` holds
its own; the defaults are safe for a league of many thousand games).
A line begun in one turn and ended in a later one is kept whole in the turn it began.
The bytes are split into lines (undecodable bytes replaced) only when the record is made.
Everything here is the bot's own text: every output escapes it (:mod:`arena.untrusted`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.errors import ConfigError
from arena.game.record import StderrTurn

STDERR_TURN_KEEP = 2 * 1024  # bytes of stderr kept per bot per turn
STDERR_GAME_KEEP = 16 * 1024  # ... and per bot per game (as its tail keeps)
INFO_TURN_KEEP = 50  # info lines kept per bot per turn (of the 200 a game keeps)
MAX_GAME_BYTES = 1024 * 1024  # the most a game's bound may be: a record stays a few MB at worst
MAX_TURN_INFOS = 200  # the most a turn's info lines may be (botproc.INFO_KEEP, a game's)


@dataclass(frozen=True)
class LogBounds:
    """How much of a bot's stderr a turn and a game keep (bytes), and of its info lines a turn.

    Zero keeps nothing (and still counts).  A bound out of range is a :class:`ConfigError`
    naming it.
    """

    turn_bytes: int = STDERR_TURN_KEEP
    game_bytes: int = STDERR_GAME_KEEP
    turn_infos: int = INFO_TURN_KEEP

    def __post_init__(self) -> None:
        for name, value, most in (
            ("game_bytes", self.game_bytes, MAX_GAME_BYTES),
            ("turn_bytes", self.turn_bytes, self.game_bytes),
            ("turn_infos", self.turn_infos, MAX_TURN_INFOS),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
                raise ConfigError(f"log bounds: {name} must be a whole number from 0 to {most}, got {value!r}")


@dataclass
class _Turn:
    ply: int
    kept: bytearray = field(default_factory=bytearray)
    dropped: int = 0


class TurnLog:
    """One game's stderr of one bot, turn by turn (a fresh one for each game)."""

    def __init__(self, bounds: LogBounds | None = None) -> None:
        bounds = bounds or LogBounds()
        self.turn_bytes = bounds.turn_bytes
        self.game_bytes = bounds.game_bytes
        self.turn_infos = bounds.turn_infos
        self.turns: list[_Turn] = []
        self.kept = 0  # bytes kept in all turns
        self.line_open = False  # the last byte taken was not a newline
        self.info_ply = -2  # the ply whose info lines ``infos_kept`` counts
        self.infos_kept = 0

    def take(self, data: bytes, ply: int) -> None:
        """Take a chunk the bot wrote on stderr while ``ply`` was its last turn request."""
        if not data:
            return
        turns = self.turns
        if self.line_open and turns[-1].ply != ply:
            # The end of a line begun at an earlier turn belongs with its start.
            nl = data.find(b"\n")
            head = data if nl < 0 else data[: nl + 1]
            self._keep(turns[-1], head)
            data = data[len(head) :]
            if not data:
                return
        if not turns or turns[-1].ply != ply:
            turns.append(_Turn(ply))
        self._keep(turns[-1], data)

    def _keep(self, turn: _Turn, data: bytes) -> None:
        room = max(0, min(self.turn_bytes - len(turn.kept), self.game_bytes - self.kept))
        if room:
            piece = data[:room]
            turn.kept += piece
            self.kept += len(piece)
        turn.dropped += max(0, len(data) - room)
        self.line_open = data[-1:] != b"\n"

    def keep_info(self, ply: int) -> bool:
        """Whether an info line sent while ``ply`` was its last request is kept: at most
        ``turn_infos`` a turn (counted here when it is)."""
        if ply != self.info_ply:
            self.info_ply, self.infos_kept = ply, 0
        if self.infos_kept >= self.turn_infos:
            return False
        self.infos_kept += 1
        return True

    def infos_full(self, ply: int) -> bool:
        """Whether no more info lines sent at ``ply`` are kept."""
        return ply == self.info_ply and self.infos_kept >= self.turn_infos

    def record(self) -> tuple[StderrTurn, ...]:
        """Each turn's kept lines (``\\r`` before a newline stripped) and its dropped bytes."""
        out = []
        for turn in self.turns:
            text = turn.kept.decode("utf-8", "replace")
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()  # the newline that ended the last line
            out.append(
                StderrTurn(turn.ply, tuple(line.removesuffix("\r") for line in lines), turn.dropped)
            )
        return tuple(out)
