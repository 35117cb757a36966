"""What a validated tournament file is: frozen values and the constants they are judged by.

Nothing here reads a file; :mod:`arena.league.config.parse` makes these values.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.game.build import DEFAULT_BUILD_MB
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.turnlog import LogBounds
from arena.rules import Board, Params, format_board_file
from arena.stats.settings import RatingConfig


class Format(enum.StrEnum):
    """How a league chooses its games (``format``; a StrEnum: stored and printed as its value)."""

    ROUND_ROBIN = "round_robin"  # every meeting, ``rounds`` times
    GAUNTLET = "gauntlet"  # the challengers against the field
    CONTINUOUS = "continuous"  # chosen as it goes, until every adjacent pair is settled


class SeatOrder(enum.StrEnum):
    """Which seat orders a meeting is played in (``seat_orders``)."""

    ALL = "all"  # every seat order
    ROTATE = "rotate"  # each bot holds each seat once
    BALANCED = "balanced"  # rotations of a turn order that changes each round


class ExecutorKind(enum.StrEnum):
    """Where the games run (``executor``)."""

    LOCAL = "local"  # worker processes of this machine
    DASK = "dask"  # the Dask cluster of a scheduler
    DASK_LOCAL = "dask-local"  # a Dask cluster started here, for trying the cluster path


class BotPlacement(enum.StrEnum):
    """How a Dask cluster's workers get the bots' folders (``executor.bots``)."""

    SHARED = "shared"  # the same paths on every worker (a shared file system)
    UPLOAD = "upload"  # sent to each worker, built and checked there


# The values, in the order messages list them.
FORMATS = tuple(f.value for f in Format)
# ``rounds: until_stable`` is another spelling of ``format: continuous`` (issue 11 names both).
UNTIL_STABLE = "until_stable"
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MAX_GAMES = 2000
DEFAULT_INDIFFERENCE = 20.0  # Elo: two bots closer than this may be called tied
CONTINUOUS_KEYS = ("confidence", "max_games", "min_meetings", "indifference")
# Keys that change how a run goes, not how its games are played: they may change between runs.
RUN_ONLY_KEYS = frozenset(
    {
        "name",
        "rounds",
        "concurrency",
        "output",
        "retries",
        "rating",
        "end_grace",
        "build_timeout",
        "build_mb",
        "multigame",
        "restart_every",
        "executor",
        "hidden",  # what the bots' sandboxes mask, not how a game is played
        "logs",  # how much of a bot's stderr a record keeps, not how a game is played
        *CONTINUOUS_KEYS,
    }
)
DEFAULT_BUILD_TIMEOUT_MS = 600_000
SEAT_ORDERS = tuple(s.value for s in SeatOrder)
# 'all' is balanced already for 2-3 players (6 games a meeting for 3); for 4 it is 24
# games a meeting, and 'balanced' 4 a round, balanced over every 6 rounds.
DEFAULT_SEAT_ORDERS = {4: SeatOrder.BALANCED}
# Results folders started before 'balanced' existed keep the default they had.
LEGACY_DEFAULT_SEAT_ORDERS = {4: SeatOrder.ROTATE}
MAX_RATING = 1e6  # bound of every rating setting: far beyond TrueSkill's usual 25
MAX_LIMIT = 2**30  # bound of a whole-number resource limit (MB, seconds, files, tasks)
EXECUTORS = tuple(k.value for k in ExecutorKind)
BOT_PLACEMENTS = tuple(p.value for p in BotPlacement)


@dataclass(frozen=True)
class BotConfig:
    """One bot of a tournament."""

    name: str
    command: tuple[str, ...]
    cwd: Path
    build: tuple[str, ...] | None = None
    env: dict[str, str] = field(default_factory=dict)
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    line: int = 0  # where the bot's entry starts in the tournament file
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    build_network: bool = False  # the build may use the network (fetching dependencies)
    retired: bool = False  # no longer scheduled; its games already played stay
    logs: LogBounds = field(default_factory=LogBounds)  # its stderr and info lines a record keeps


@dataclass(frozen=True)
class ContinuousConfig:
    """When a continuous league (``format: continuous``) stops, and the least it plays.

    It stops once every adjacent pair of the ranking is settled, as ordered or as
    within ``indifference`` Elo of each other, by a sequential test whose errors over
    the n - 1 pairs add up to at most 1 - ``confidence``; or when ``max_games`` are
    scheduled.  Before choosing by uncertainty, every meeting is played
    ``min_meetings`` times.
    """

    confidence: float = DEFAULT_CONFIDENCE
    max_games: int = DEFAULT_MAX_GAMES
    min_meetings: int = 1
    indifference: float = DEFAULT_INDIFFERENCE


def continuous_problem(key: str, value: float) -> str | None:
    """What is wrong with ``value`` for the continuous setting ``key`` (None: nothing): the one
    statement of their bounds, for the file's reader and for a results store's stored file."""
    if key == "confidence" and not 0.5 < value < 1:
        return "must be a probability between 0.5 and 1, like 0.95"
    if key == "max_games" and not 1 <= value <= 10_000_000:
        return "must be from 1 to 10000000"
    if key == "min_meetings" and not 1 <= value <= 1000:
        return "must be from 1 to 1000"
    if key == "indifference" and not 1 <= value <= 400:
        return "must be an Elo difference from 1 to 400, like 20 (bots closer than this may be called tied)"
    return None


def continuous_settings_problem(settings: ContinuousConfig) -> str | None:
    """The first of :func:`continuous_problem` for ``settings`` (None: all within bounds)."""
    for key in CONTINUOUS_KEYS:
        problem = continuous_problem(key, getattr(settings, key))
        if problem is not None:
            return f"{key!r} {problem}"
    return None


@dataclass(frozen=True)
class TlsFiles:
    """``executor.security``: the PEM files of the cluster's TLS (the arena is a client)."""

    ca: Path  # the certificate authority every member of the cluster trusts
    cert: Path  # the arena's certificate, signed by it
    key: Path  # its private key


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the games run: worker processes here (``local``) or a Dask cluster."""

    kind: ExecutorKind = ExecutorKind.LOCAL
    scheduler: str | None = None  # ``dask``: the scheduler's address, tcp://host:8786
    bots: BotPlacement = BotPlacement.SHARED  # how workers get the bots' folders
    workers: int | None = None  # ``dask-local``: worker processes (default: concurrency)
    connect_timeout_ms: int = 10_000
    where: str = ""  # file:line (or the option) it came from, for errors
    security: TlsFiles | None = None  # ``dask``: TLS with these files
    insecure: bool = False  # ``dask``: a plain tcp:// scheduler off loopback is accepted


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament file."""

    name: str
    path: Path
    seed: int
    players: int
    rounds: int
    format: Format
    challengers: tuple[str, ...]
    seat_orders: SeatOrder
    board: str  # "random", "build" or the board file's path
    board_value: Board | None  # the parsed board file
    time_control: TimeControl
    params: Params
    concurrency: int
    output: Path
    bots: tuple[BotConfig, ...]
    rating: RatingConfig
    end_grace_ms: int
    retries: int
    raw: dict[str, Any]  # the file as data, for change detection
    build_timeout_ms: int = DEFAULT_BUILD_TIMEOUT_MS
    build_mb: int = DEFAULT_BUILD_MB  # what a sandboxed build may leave in its folder, in MiB
    multigame: bool = True  # keep the process of a bot that declares multigame between games
    restart_every: int = 0  # ... but start it afresh after this many games (0: never)
    executor: ExecutorConfig = field(default_factory=ExecutorConfig)
    continuous: ContinuousConfig = field(default_factory=ContinuousConfig)  # format: continuous only

    def play_conditions(self) -> dict[str, Any]:
        """What decides how games are played: everything but the run's own settings.

        A board file counts by its contents, not only its name.
        """
        conditions = {k: v for k, v in self.raw.items() if k not in RUN_ONLY_KEYS}
        if self.board_value is not None:
            conditions["board_contents"] = format_board_file(self.board_value)
        return conditions

    def digest(self) -> str:
        """A hash of the file as data: equal files, equal digests."""
        return hashlib.sha256(json.dumps(self.raw, sort_keys=True, default=str).encode()).hexdigest()
