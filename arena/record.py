"""The record of one game: a value that serializes to JSON and replays.

A record holds everything needed to explain and reproduce a game: seats,
bots and commands, parameters, seed, the starting position, every move with
the time it took, each fault with the ply at which it happened, the final
position and the ranking with its tiebreak figures.  :meth:`GameRecord.replay`
runs the moves and forfeits through the rules engine again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from .errors import ArenaError
from .rules import GameState, Params, Standing, format_position, parse_move, parse_position

RECORD_FORMAT = 2
# Formats this version reads: 1 had no ``isolation`` per seat (those games ran unsandboxed).
READABLE_FORMATS = (1, 2)


class FaultKind(Enum):
    """Why a bot was forfeited; a closed set, so tables can count them."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL_MOVE = "illegal_move"
    PROTOCOL_ERROR = "protocol_error"
    STARTUP_FAILURE = "startup_failure"


@dataclass(frozen=True, slots=True)
class Fault:
    """A forfeit: its kind, what exactly happened, and after how many plies."""

    kind: FaultKind
    detail: str
    ply: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "detail": self.detail, "ply": self.ply}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fault:
        return cls(FaultKind(d["kind"]), d["detail"], d["ply"])


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat: the bot in it and what became of its process."""

    name: str
    command: tuple[str, ...]
    reported_name: str | None = None  # the name the bot gave in its hello
    ready: bool = False  # completed the handshake (hello and ready)
    fault: Fault | None = None
    exit: str | None = None  # "exit 0", "signal SIGKILL", ...
    exited_cleanly: bool = False  # exited by itself at the end of the game
    # Processes it started that were still running after it exited; None when it ran in a
    # sandbox, whose PID namespace ends every process of the bot with it.
    leftover_processes: int | None = 0
    stderr_tail: str = ""
    stderr_bytes: int = 0
    infos: tuple[str, ...] = ()
    info_count: int = 0
    # For each kept info line, the ``ply`` of the last turn request the bot had been sent when
    # the line arrived (-1: before its first); empty in records older than this field.
    info_plies: tuple[int, ...] = ()
    transcript: tuple[str, ...] = ()  # the last lines both ways, when asked for
    # How it was isolated: {"sandbox": "bwrap"|"none", "limits": ..., "network": bool, "warning": ...};
    # empty in records older than the sandbox (format 1), which ran unsandboxed.
    isolation: dict[str, Any] = field(default_factory=dict)

    @property
    def sandboxed(self) -> bool:
        return self.isolation.get("sandbox") == "bwrap"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["command"] = list(self.command)
        d["infos"] = list(self.infos)
        d["info_plies"] = list(self.info_plies)
        d["transcript"] = list(self.transcript)
        d["fault"] = self.fault.to_dict() if self.fault else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeatRecord:
        d = dict(d)
        d["command"] = tuple(d["command"])
        d["infos"] = tuple(d.get("infos", ()))
        d["info_plies"] = tuple(int(p) for p in d.get("info_plies", ()))
        d["transcript"] = tuple(d.get("transcript", ()))
        d["fault"] = Fault.from_dict(d["fault"]) if d.get("fault") else None
        d["isolation"] = dict(d.get("isolation") or {})
        return cls(**d)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One ply: who played what, and how long the bot took (ms)."""

    player: int
    move: str
    ms: float


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game."""

    game_id: str
    seed: int
    params: Params
    time_control: dict[str, int | None]
    start_position: str
    seats: tuple[SeatRecord, ...]
    moves: tuple[MoveRecord, ...]
    final_position: str
    standings: tuple[Standing, ...]
    duration_ms: float = 0.0
    started_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ranking(self) -> list[int]:
        return [s.rank for s in self.standings]

    @property
    def faults(self) -> list[tuple[int, Fault]]:
        return [(i, s.fault) for i, s in enumerate(self.seats) if s.fault is not None]

    # -- serialization ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "game_id": self.game_id,
            "seed": self.seed,
            "params": asdict(self.params),
            "time_control": dict(self.time_control),
            "start_position": self.start_position,
            "seats": [s.to_dict() for s in self.seats],
            "moves": [[m.player, m.move, m.ms] for m in self.moves],
            "final_position": self.final_position,
            "standings": [asdict(s) for s in self.standings],
            "duration_ms": self.duration_ms,
            "started_at": self.started_at,
            "extra": self.extra,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        try:
            if d.get("format") not in READABLE_FORMATS:
                raise ArenaError(f"unknown game record format {d.get('format')!r}")
            return cls(
                game_id=d["game_id"],
                seed=d["seed"],
                params=Params(**d["params"]),
                time_control=dict(d["time_control"]),
                start_position=d["start_position"],
                seats=tuple(SeatRecord.from_dict(s) for s in d["seats"]),
                moves=tuple(MoveRecord(int(p), str(m), float(ms)) for p, m, ms in d["moves"]),
                final_position=d["final_position"],
                standings=tuple(Standing(**s) for s in d["standings"]),
                duration_ms=d.get("duration_ms", 0.0),
                started_at=d.get("started_at", ""),
                extra=d.get("extra", {}),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ArenaError(f"not a valid game record: {e!r}") from None

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ArenaError(f"game record is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise ArenaError("game record is not a JSON object")
        return cls.from_dict(data)

    # -- replay -------------------------------------------------------------------------

    def positions(self) -> Iterator[tuple[MoveRecord | None, GameState]]:
        """The start, then the position after each move (forfeits applied where they fell)."""
        state = parse_position(self.start_position)
        pending = sorted(((f.ply, p) for p, f in self.faults), reverse=True)

        def apply_forfeits(ply: int) -> None:
            while pending and pending[-1][0] <= ply:
                state.forfeit(pending.pop()[1])

        apply_forfeits(0)
        yield None, state.copy()
        for ply, m in enumerate(self.moves, start=1):
            if state.to_move != m.player:
                raise ArenaError(
                    f"record {self.game_id}: ply {ply} is by player {m.player}, "
                    f"but player {state.to_move} is to move"
                )
            state.apply(parse_move(m.move))
            apply_forfeits(ply)
            yield m, state.copy()

    def replay(self) -> GameState:
        """The final position, recomputed; it must equal :attr:`final_position`."""
        last = None
        for _, state in self.positions():
            last = state
        assert last is not None
        if format_position(last) != self.final_position:
            raise ArenaError(f"record {self.game_id} does not replay to its final position")
        return last
