"""The record of one game: a value that serializes to JSON and replays.

A record holds everything needed to explain and reproduce a game: seats,
bots and commands, parameters, seed, the starting position, every move with
the time it took, each fault with the ply at which it happened, the final
position and the ranking with its tiebreak figures.  :meth:`GameRecord.replay`
runs the moves and forfeits through the rules engine again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from arena.errors import ArenaError, BotError, RecordError, RulesError
from arena.game import seeds
from arena.game.jsonfields import Fields
from arena.rules import GameState, Params, Standing, format_position, parse_move, parse_position

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



_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def flat_dict(value: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict, in order, values as they are (no deep copy).

    ``dataclasses.asdict`` copies recursively and was most of the cost of storing a
    game; the records' fields are plain values, and the callers convert the rest.
    """
    names = _FIELD_NAMES.get(type(value))
    if names is None:
        names = _FIELD_NAMES[type(value)] = tuple(f.name for f in fields(value))
    return {name: getattr(value, name) for name in names}

@dataclass(frozen=True, slots=True)
class Fault:
    """A forfeit: its kind, what exactly happened, and after how many plies.

    ``hint`` is the arena's guess at the cause, when it can tell one (a file the command
    names that the bot cannot see, the limit that killed it, a bot that wrote nothing);
    empty otherwise, and in records older than it.
    """

    kind: FaultKind
    detail: str
    ply: int
    hint: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The fault as the record's JSON object."""
        d: dict[str, Any] = {"kind": self.kind.value, "detail": self.detail, "ply": self.ply}
        if self.hint:
            d["hint"] = self.hint
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Fault:
        """Read a fault from a record's JSON object (raises RecordError on a bad field)."""
        f = Fields(d, "fault")
        kind = f.get("kind", str)
        if kind not in {k.value for k in FaultKind}:
            raise RecordError(
                f"fault: unknown kind {kind!r} (one of {', '.join(k.value for k in FaultKind)})"
            )
        return cls(FaultKind(kind), f.get("detail", str), f.get("ply", int), f.get("hint", str, ""))


@dataclass(frozen=True, slots=True)
class StderrTurn:
    """What a bot wrote on stderr during one turn: the lines kept, and the bytes past the
    bounds (:mod:`arena.game.turnlog`) that were counted but not kept.

    ``ply`` is that of the last turn request the bot had been sent (-1: before its first),
    as an info line's: the move it was thinking about is move ``ply + 1``.
    """

    ply: int
    lines: tuple[str, ...]
    dropped: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The turn as the record's JSON object (``dropped`` only when some were)."""
        d: dict[str, Any] = {"ply": self.ply, "lines": list(self.lines)}
        if self.dropped:
            d["dropped"] = self.dropped
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str) -> StderrTurn:
        """Read a turn from a record's JSON object (raises RecordError on a bad field)."""
        f = Fields(d, where)
        turn = cls(f.get("ply", int), f.strings("lines"), f.get("dropped", int, 0))
        if turn.ply < -1 or turn.dropped < 0:
            raise RecordError(f"{where}: ply must be -1 or more and dropped 0 or more, got {turn.ply} and {turn.dropped}")
        return turn


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
    # The first lines it wrote on stdout (a few, each cut short): what a bot that fails at its
    # start said, a runtime's own error among them.  Empty in records older than this field.
    stdout_head: tuple[str, ...] = ()
    infos: tuple[str, ...] = ()
    info_count: int = 0
    # For each kept info line, the ``ply`` of the last turn request the bot had been sent when
    # the line arrived (-1: before its first); empty in records older than this field.
    info_plies: tuple[int, ...] = ()
    transcript: tuple[str, ...] = ()  # the last lines both ways, when asked for
    # Its stderr turn by turn (the turns it wrote at, in order); empty in records older than
    # this field, which keep only ``stderr_tail``.
    stderr_turns: tuple[StderrTurn, ...] = ()
    # How it was isolated: {"sandbox": "bwrap"|"none", "limits": ..., "network": bool, "warning": ...};
    # empty in records older than the sandbox (format 1), which ran unsandboxed.
    isolation: dict[str, Any] = field(default_factory=dict)

    @property
    def sandboxed(self) -> bool:
        """Whether this seat's bot ran in the bubblewrap sandbox."""
        return self.isolation.get("sandbox") == "bwrap"

    def to_dict(self) -> dict[str, Any]:
        """The seat as the record's JSON object."""
        d = flat_dict(self)
        d["isolation"] = dict(self.isolation)
        d["command"] = list(self.command)
        d["infos"] = list(self.infos)
        d["stdout_head"] = list(self.stdout_head)
        d["info_plies"] = list(self.info_plies)
        d["transcript"] = list(self.transcript)
        d["stderr_turns"] = [t.to_dict() for t in self.stderr_turns]
        d["fault"] = self.fault.to_dict() if self.fault else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "seat") -> SeatRecord:
        """Read a seat from a record's JSON object (raises RecordError on a bad field)."""
        f = Fields(d, where)
        fault = f.get("fault", (dict, type(None)), None)
        return cls(
            name=f.get("name", str),
            command=f.strings("command"),
            reported_name=f.get("reported_name", (str, type(None)), None),
            ready=f.get("ready", bool, False),
            fault=None if not fault else Fault.from_dict(fault),
            exit=f.get("exit", (str, type(None)), None),
            exited_cleanly=f.get("exited_cleanly", bool, False),
            leftover_processes=f.get("leftover_processes", (int, type(None)), 0),
            stderr_tail=f.get("stderr_tail", str, ""),
            stderr_bytes=f.get("stderr_bytes", int, 0),
            stdout_head=f.strings("stdout_head", ()),
            infos=f.strings("infos", ()),
            info_plies=tuple(f.items("info_plies", int)) if "info_plies" in d else (),
            info_count=f.get("info_count", int, 0),
            transcript=f.strings("transcript", ()),
            stderr_turns=tuple(
                StderrTurn.from_dict(t, f"{where}.stderr_turns[{i}]")
                for i, t in enumerate(f.items("stderr_turns", dict) if "stderr_turns" in d else ())
            ),
            isolation=dict(f.get("isolation", (dict, type(None)), None) or {}),
        )


EVIDENCE_LINES = 10  # lines of a faulty bot's stderr shown under its fault
EVIDENCE_BYTES = 2048  # ... and at most this much of it


def fault_evidence(seat: SeatRecord, lines: int = EVIDENCE_LINES, max_bytes: int = EVIDENCE_BYTES) -> list[str]:
    """What to show under a seat's fault, as lines of raw text: the arena's hint, the first
    lines the bot wrote when it failed at its start, and the tail of its stderr (the last
    ``lines`` lines, at most ``max_bytes``).  Empty for a seat without a fault.

    The bot chose most of this text: every caller escapes each line for its output
    (:mod:`arena.untrusted`).
    """
    fault = seat.fault
    if fault is None:
        return []
    out = [f"hint: {fault.hint}"] if fault.hint else []
    if seat.stdout_head and fault.ply == 0 and fault.kind is not FaultKind.TIMEOUT:
        out.append("its first lines on stdout:")
        out += [f"  {line}" for line in seat.stdout_head]
    tail = seat.stderr_tail.encode("utf-8", "replace")[-max_bytes:].decode("utf-8", "replace")
    kept = [line for line in tail.splitlines() if line.strip()][-lines:]
    if kept:
        total = seat.stderr_bytes
        out.append(f"its stderr (last {len(kept)} lines of {total} bytes):")
        out += [f"  {line}" for line in kept]
    elif fault.kind in (FaultKind.CRASH, FaultKind.STARTUP_FAILURE):
        out.append("its stderr: (nothing)")
    return out


@dataclass(frozen=True, slots=True)
class WrittenAt:
    """What one seat wrote while one move was being chosen: its info lines, its stderr lines,
    and the stderr bytes past the turn's bounds (counted, not kept).  The bot's own text:
    every caller escapes each line for its output (:mod:`arena.untrusted`)."""

    seat: int
    infos: tuple[str, ...]
    stderr: tuple[str, ...]
    dropped: int


def written_at(record: GameRecord, ply: int) -> list[WrittenAt]:
    """What each seat wrote while the move of ``ply`` was chosen (at ``ply`` 0: before its
    first request), for the seats that wrote anything: the lines stamped with the request
    for that move (``ply - 1``), and for a seat forfeited at ``ply`` what it wrote after.

    The replay viewer (``static/viewer.js``, ``logsAt``) shows the same lines at each ply.
    """
    out = []
    for p, seat in enumerate(record.seats):
        # Lines after a seat's forfeit show at the forfeit, once.
        out_at = seat.fault.ply if seat.fault is not None else len(record.moves) + 1

        def now(stamp: int, out_at: int = out_at) -> bool:
            return (stamp == ply - 1 and stamp < out_at) or (out_at == ply and stamp >= ply)

        infos = tuple(t for t, stamp in zip(seat.infos, seat.info_plies, strict=False) if now(stamp))
        turns = [t for t in seat.stderr_turns if now(t.ply)]
        stderr = tuple(line for t in turns for line in t.lines)
        dropped = sum(t.dropped for t in turns)
        if infos or stderr or dropped:
            out.append(WrittenAt(p, infos, stderr, dropped))
    return out


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One ply: who played what, and how long the bot took (ms)."""

    player: int
    move: str
    ms: float


def _secret(value: str | None) -> str | None:
    """A recorded seed secret: hex of the length the arena draws, or a RecordError."""
    if value is not None and not seeds.is_secret(value):
        raise RecordError(f"seed_secret must be {2 * seeds.SECRET_BYTES} hex digits, got {value!r}")
    return value


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
    # The secret each seat's private seed was derived with (None in records made before
    # seats had seeds of their own: every seat was then sent ``seed``).
    seed_secret: str | None = None

    def seat_seed(self, seat: int) -> int:
        """The ``seed=`` the bot in ``seat`` was sent (for replaying it)."""
        if self.seed_secret is None:
            return self.seed
        return seeds.seat_seed(self.seed_secret, self.seed, seat)

    @property
    def ranking(self) -> list[int]:
        """Each seat's final rank, in the order of the standings (equal ranks are shared places)."""
        return [s.rank for s in self.standings]

    @property
    def faults(self) -> list[tuple[int, Fault]]:
        """``(seat, fault)`` for each forfeited seat, in seat order."""
        return [(i, s.fault) for i, s in enumerate(self.seats) if s.fault is not None]

    # -- serialization ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (the format :meth:`from_json` reads)."""
        return {
            "format": RECORD_FORMAT,
            "game_id": self.game_id,
            "seed": self.seed,
            "params": flat_dict(self.params),
            "time_control": dict(self.time_control),
            "start_position": self.start_position,
            "seats": [s.to_dict() for s in self.seats],
            "moves": [[m.player, m.move, m.ms] for m in self.moves],
            "final_position": self.final_position,
            "standings": [flat_dict(s) for s in self.standings],
            "duration_ms": self.duration_ms,
            "started_at": self.started_at,
            "extra": self.extra,
            **({"seed_secret": self.seed_secret} if self.seed_secret is not None else {}),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        """A record from its JSON data, every field checked: a tampered or truncated record is a
        :class:`RecordError` naming the field, never a crash later."""
        try:
            return cls._from_dict(d)
        except RecordError as e:
            raise RecordError(f"not a valid game record: {e}") from None

    @classmethod
    def _from_dict(cls, d: dict[str, Any]) -> GameRecord:
        f = Fields(d, "record")
        if d.get("format") not in READABLE_FORMATS:
            raise RecordError(f"unknown game record format {d.get('format')!r}")
        params_fields = Fields(f.get("params", dict), "params")
        try:
            params = Params(
                **{k: params_fields.get(k, bool if k == "hole_border" else int) for k in d["params"]}
            )
        except TypeError as e:  # a key Params does not have
            raise RecordError(f"params: {e}") from None
        seats = tuple(SeatRecord.from_dict(s, f"seats[{i}]") for i, s in enumerate(f.items("seats", dict)))
        moves = []
        for i, m in enumerate(f.items("moves", list)):
            if len(m) != 3:
                raise RecordError(f"moves[{i}] must be [player, move, ms], got {len(m)} items")
            mf = Fields(dict(zip(("player", "move", "ms"), m, strict=True)), f"moves[{i}]")
            moves.append(
                MoveRecord(mf.get("player", int), mf.get("move", str), float(mf.get("ms", (int, float))))
            )
        standings = []
        for i, s in enumerate(f.items("standings", dict)):
            sf = Fields(s, f"standings[{i}]")
            standings.append(
                Standing(
                    **{
                        s.name: sf.get(s.name, bool if s.name == "forfeited" else int)
                        for s in fields(Standing)
                    }
                )
            )
        record = cls(
            game_id=f.get("game_id", str),
            seed=f.get("seed", int),
            params=params,
            time_control=f.get("time_control", dict),
            start_position=f.get("start_position", str),
            seats=seats,
            moves=tuple(moves),
            final_position=f.get("final_position", str),
            standings=tuple(standings),
            duration_ms=float(f.get("duration_ms", (int, float), 0.0)),
            started_at=f.get("started_at", str, ""),
            extra=f.get("extra", dict, {}),
            seed_secret=_secret(f.get("seed_secret", str, None)),
        )
        record._check_shape()
        return record

    def _check_shape(self) -> None:
        """What the types alone do not say: one seat and one standing per player, players,
        ranks and fault plies in range."""
        n = self.params.players
        for what, count in (("seats", len(self.seats)), ("standings", len(self.standings))):
            if count != n:
                raise RecordError(f"record has {count} {what} for a {n}-player game")
        if sorted(s.player for s in self.standings) != list(range(n)):
            raise RecordError(f"standings must name each player 0..{n - 1} once")
        for s in self.standings:
            if not 1 <= s.rank <= n:
                raise RecordError(f"standings: player {s.player} has rank {s.rank}, not 1..{n}")
        for ply, m in enumerate(self.moves, start=1):
            if not 0 <= m.player < n:
                raise RecordError(f"moves[{ply - 1}]: player {m.player} in a {n}-player game")
        for p, seat in enumerate(self.seats):
            for i, turn in enumerate(seat.stderr_turns):
                if turn.ply > len(self.moves):
                    raise RecordError(
                        f"seats[{p}].stderr_turns[{i}].ply is {turn.ply}, not -1..{len(self.moves)}"
                    )
        for p, fault in self.faults:
            if not 0 <= fault.ply <= len(self.moves):
                raise RecordError(f"seats[{p}].fault.ply is {fault.ply}, not 0..{len(self.moves)}")
        for key, value in self.time_control.items():
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise RecordError(f"time_control.{key} must be a whole number or null, got {value!r}")

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Read a record from JSON text; every field is checked (raises RecordError, naming it)."""
        try:
            data = json.loads(text, parse_constant=_no_constant)
        except RecursionError:
            raise RecordError("game record is not JSON: it is nested too deeply") from None
        except ValueError as e:  # JSONDecodeError, or a number of more digits than Python reads
            raise RecordError(f"game record is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise RecordError("game record is not a JSON object")
        return cls.from_dict(data)

    # -- replay -------------------------------------------------------------------------

    def positions(self) -> Iterator[tuple[MoveRecord | None, GameState]]:
        """The start, then the position after each move (forfeits applied where they fell)."""
        try:
            state = parse_position(self.start_position)
        except RulesError as e:
            raise RecordError(f"record {self.game_id}: start_position: {e}") from None
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
            try:
                state.apply(parse_move(m.move))
            except RulesError as e:
                raise RecordError(f"record {self.game_id}: ply {ply}: {e}") from None
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


# -- points: what a place in a game is worth ---------------------------------------------
# A seat's points are the share of its opponents it finished above, a shared place counting
# half: 1 for a clean win, 0 for last place, whatever the number of players.  They are kept as
# whole *half points* (2 per opponent beaten, 1 per opponent tied) so that sums over many games
# are exact in any order, and turned into points only when shown.


def seat_half_points(ranking: Sequence[int], seat: int) -> int:
    """The half points ``seat`` earned in a game ranked ``ranking`` (1 = first, ties shared):
    2 per opponent placed below it, 1 per opponent sharing its place."""
    mine = ranking[seat]
    return 2 * sum(r > mine for r in ranking) + sum(r == mine for r in ranking) - 1


def points_from_half_points(half_points: float, players: int) -> float:
    """Half points (or a sum of them over games of ``players`` players) as points."""
    return half_points / (2 * (players - 1))


def game_points(record: GameRecord) -> list[float]:
    """Each seat's points in ``record``: the share of opponents it finished above, a tie half."""
    ranking = record.ranking
    return [points_from_half_points(seat_half_points(ranking, i), len(ranking)) for i in range(len(ranking))]


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a record holds")


class BotFault(BotError):
    """A bot broke the rules, the protocol or its clock; the referee forfeits it."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind.value}: {detail}")
