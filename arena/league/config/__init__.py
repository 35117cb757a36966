"""Tournament files: YAML in, validated values out.

Every error names the file, the line and the key, and nothing starts until
the whole file is valid.  Relative paths are relative to the YAML file.
The keys are documented in ``tournaments/README.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.durations import parse_duration_ms
from arena.errors import ArenaError, ConfigError
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import DEFAULT_TMP_MB, MODES, SandboxPolicy
from arena.league.config.yamlfile import Node, load_nodes, plain
from arena.league.schedule import seat_orders as seat_orders_of
from arena.protocol import NAME_RE
from arena.rules import Board, Params, format_board_file, parse_board_file
from arena.stats.settings import RatingConfig
from arena.textfile import BOARD_FILE_MAX_BYTES, TOURNAMENT_FILE_MAX_BYTES, read_text

FORMATS = ("round_robin", "gauntlet", "continuous")
# ``rounds: until_stable`` is another spelling of ``format: continuous`` (issue 11 names both).
UNTIL_STABLE = "until_stable"
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MAX_GAMES = 2000
CONTINUOUS_KEYS = ("confidence", "max_games", "min_meetings")
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
        "multigame",
        "restart_every",
        "executor",
        *CONTINUOUS_KEYS,
    }
)
DEFAULT_BUILD_TIMEOUT_MS = 600_000
SEAT_ORDERS = ("all", "rotate", "balanced")
# 'all' is balanced already for 2-3 players (6 games a meeting for 3); for 4 it is 24
# games a meeting, and 'balanced' 4 a round, balanced over every 6 rounds.
DEFAULT_SEAT_ORDERS = {4: "balanced"}
# Results folders started before 'balanced' existed keep the default they had.
LEGACY_DEFAULT_SEAT_ORDERS = {4: "rotate"}
MAX_RATING = 1e6  # bound of every rating setting: far beyond TrueSkill's usual 25
MAX_LIMIT = 2**30  # bound of a whole-number resource limit (MB, seconds, files, tasks)
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Where results cannot go: kernel and device file systems (/dev/shm is an ordinary tmpfs).
SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
EXECUTORS = ("local", "dask", "dask-local")
BOT_PLACEMENTS = ("shared", "upload")


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


@dataclass(frozen=True)
class ContinuousConfig:
    """When a continuous league (``format: continuous``) stops, and the least it plays.

    It stops once the ranking's whole order is sure with probability ``confidence``
    (each of the n - 1 adjacent pairs at 1 - (1 - confidence) / (n - 1)), or when
    ``max_games`` are scheduled; before choosing by
    uncertainty, every meeting is played ``min_meetings`` times.
    """

    confidence: float = DEFAULT_CONFIDENCE
    max_games: int = DEFAULT_MAX_GAMES
    min_meetings: int = 1


@dataclass(frozen=True)
class ExecutorConfig:
    """Where the games run: worker processes here (``local``) or a Dask cluster."""

    kind: str = "local"  # one of EXECUTORS
    scheduler: str | None = None  # ``dask``: the scheduler's address, tcp://host:8786
    bots: str = "shared"  # how workers get the bots' folders: one of BOT_PLACEMENTS
    workers: int | None = None  # ``dask-local``: worker processes (default: concurrency)
    connect_timeout_ms: int = 10_000
    where: str = ""  # file:line (or the option) it came from, for errors


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament file."""

    name: str
    path: Path
    seed: int
    players: int
    rounds: int
    format: str
    challengers: tuple[str, ...]
    seat_orders: str
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
        return hashlib.sha256(json.dumps(self.raw, sort_keys=True, default=str).encode()).hexdigest()


class _Reader:
    """Typed access to a mapping node; every error says file, line and key."""

    def __init__(self, source: str, node: Node, where: str, allowed: set[str]) -> None:
        self.source = source
        self.node = node
        self.where = where
        if not isinstance(node.value, dict):
            self.fail(node, f"expected a mapping of keys, got {_kind(node.value)}")
        for key, value in node.value.items():
            if key not in allowed:
                close = sorted(allowed, key=lambda a: _distance(a, key))[:1]
                hint = f" (did you mean {close[0]!r}?)" if close and _distance(close[0], key) <= 3 else ""
                self.fail(
                    value, f"unknown key {self.path(key)!r}{hint}; allowed: {', '.join(sorted(allowed))}"
                )

    def path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, node: Node, message: str) -> None:
        raise ConfigError(f"{self.source}:{node.line}: {message}")

    def has(self, key: str) -> bool:
        return key in self.node.value

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = None, required: bool = False
    ) -> Any:
        if key not in self.node.value:
            if required:
                self.fail(self.node, f"{self.path(key)!r} is required")
            return default
        n = self.node.value[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        value = n.value if not isinstance(n.value, dict | list) else plain(n)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(_type_name(k) for k in kinds)
            self.fail(n, f"{self.path(key)!r} must be {names}, got {value!r}")
        return value

    def line(self, key: str) -> int:
        return int(self.node.value[key].line) if key in self.node.value else self.node.line

    def child(self, key: str, allowed: set[str]) -> _Reader | None:
        if key not in self.node.value:
            return None
        return _Reader(self.source, self.node.value[key], self.path(key), allowed)

    def check(self, key: str, ok: bool, message: str) -> None:
        if not ok:
            node = self.node.value.get(key, self.node)
            self.fail(node, f"{self.path(key)!r} {message}")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _type_name(t: type) -> str:
    return {
        int: "a whole number",
        str: "a string",
        bool: "true or false",
        float: "a number",
        list: "a list",
        dict: "a mapping",
    }.get(t, t.__name__)


def _distance(a: str, b: str) -> int:
    """Levenshtein distance, for 'did you mean' hints."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


TOP_KEYS = {
    "name",
    "seed",
    "players",
    "rounds",
    "format",
    "challengers",
    "seat_orders",
    "board",
    "time_control",
    "concurrency",
    "output",
    "rules",
    "limits",
    "bots",
    "cwd",
    "rating",
    "end_grace",
    "retries",
    "sandbox",
    "build_timeout",
    "multigame",
    "restart_every",
    "executor",
    *CONTINUOUS_KEYS,
}
BOT_KEYS = {
    "name",
    "command",
    "build",
    "cwd",
    "env",
    "limits",
    "sandbox",
    "network",
    "build_network",
    "writable",
    "readable",
    "retired",
}
TC_KEYS = {"move", "base", "increment", "startup", "margin"}
RULE_KEYS = {"sheep", "tiles", "contact", "hole_border"}
LIMIT_KEYS = {"memory_mb", "cpu_seconds", "file_size_mb", "open_files", "tasks", "cpus", "tmp_mb"}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "draw_probability", "model"}
RATING_MODELS = ("batch", "sequential")
EXECUTOR_KEYS = {"kind", "scheduler", "bots", "workers", "connect_timeout"}


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament file; raise ConfigError naming file, line and key."""
    path = Path(path)
    return parse_config(read_text(path, "tournament file", TOURNAMENT_FILE_MAX_BYTES), path)


def parse_config(text: str, path: Path) -> TournamentConfig:
    source = str(path)
    root = load_nodes(text, source)
    if root is None:
        raise ConfigError(f"{source}: the file is empty")
    top = _Reader(source, root, "", TOP_KEYS)
    base_dir = path.resolve().parent

    def rel(p: str) -> Path:
        return (base_dir / os.path.expanduser(p)).resolve()

    name = top.get("name", str, path.stem)
    top.check("name", bool(NAME_RE.fullmatch(name)), "must be 1-64 of A-Z a-z 0-9 _ . + -")
    seed = top.get("seed", int, 1)
    top.check("seed", 0 <= seed < 2**63, "must be from 0 to 2^63-1")
    players = top.get("players", int, 2)
    top.check("players", 2 <= players <= 4, "must be 2, 3 or 4")
    fmt = top.get("format", str, "round_robin").replace("-", "_")
    top.check("format", fmt in FORMATS, f"must be one of {', '.join(FORMATS)}")
    rounds, fmt = _rounds(top, fmt)
    seat_orders = top.get("seat_orders", str, DEFAULT_SEAT_ORDERS.get(players, "all"))
    top.check(
        "seat_orders",
        seat_orders in SEAT_ORDERS,
        "must be 'all' (every seat order), 'rotate' (each bot holds each seat once) or "
        "'balanced' (rotations of a turn order that changes each round)",
    )
    concurrency = top.get("concurrency", int, os.cpu_count() or 1)
    top.check("concurrency", 1 <= concurrency <= 256, "must be at least 1")
    retries = top.get("retries", int, 2)
    top.check("retries", 0 <= retries <= 10, "must be 0 to 10")
    end_grace_ms = _duration(top, "end_grace", "1s")
    build_timeout_ms = _duration(top, "build_timeout", "10m")
    top.check("build_timeout", build_timeout_ms > 0, "must be more than 0")
    multigame = top.get("multigame", bool, True)
    restart_every = top.get("restart_every", int, 0)
    top.check("restart_every", 0 <= restart_every <= 1_000_000, "must be from 0 (never) to 1000000 games")
    executor = _executor(top, source)
    default_cwd = rel(top.get("cwd", str, "."))
    default_sandbox = top.get("sandbox", str, "auto")
    top.check("sandbox", default_sandbox in MODES, f"must be one of {', '.join(MODES)}")

    rules = top.child("rules", RULE_KEYS)
    try:
        params = Params(
            players=players,
            sheep=rules.get("sheep", int, 16) if rules else 16,
            tiles=rules.get("tiles", int, 4) if rules else 4,
            contact=rules.get("contact", int, 1) if rules else 1,
            hole_border=rules.get("hole_border", bool, False) if rules else False,
        )
    except ArenaError as e:
        raise ConfigError(f"{source}:{top.line('rules')}: rules: {e}") from None

    board = top.get("board", str, "random")
    board_value = None
    if board not in ("random", "build"):
        board_path = rel(board)
        try:
            board_text = read_text(board_path, "board file", BOARD_FILE_MAX_BYTES)
        except ConfigError as e:
            top.fail(top.node.value["board"], f"'board': {e}")
        board_value = parse_board_file(board_text, str(board_path))
        board = str(board_path)

    tc_reader = top.child("time_control", TC_KEYS)
    time_control = _time_control(tc_reader, top)
    default_limits, default_tmp_mb = _limits(
        top.child("limits", LIMIT_KEYS), ResourceLimits(), DEFAULT_TMP_MB
    )

    continuous = _continuous(top, fmt)
    rating_reader = top.child("rating", RATING_KEYS)
    rating = RatingConfig()
    if rating_reader is not None:
        values: dict[str, Any] = {
            k: float(rating_reader.get(k, (int, float), getattr(rating, k))) for k in RATING_KEYS - {"model"}
        }
        values["model"] = rating_reader.get("model", str, rating.model)
        rating_reader.check(
            "model", values["model"] in RATING_MODELS, f"must be one of {', '.join(RATING_MODELS)}"
        )
        # Finite and within bounds: a NaN or an infinity is stored with the results and
        # would break every later rating of them.
        rating_reader.check(
            "mu", abs(values["mu"]) <= MAX_RATING, f"must be from -{MAX_RATING:g} to {MAX_RATING:g}"
        )
        for k in ("sigma", "beta"):
            rating_reader.check(
                k, 0 < values[k] <= MAX_RATING, f"must be more than 0 and at most {MAX_RATING:g}"
            )
        rating_reader.check("tau", 0 <= values["tau"] <= MAX_RATING, f"must be from 0 to {MAX_RATING:g}")
        rating_reader.check(
            "draw_probability", 0 < values["draw_probability"] < 1, "must be between 0 and 1 (ties happen)"
        )
        rating = RatingConfig(**values)
        rating_reader.check(
            "model",
            fmt != "continuous" or rating.model == "batch",
            "must be 'batch' in a continuous league: it chooses its games from the batch fit, "
            "and its standings must say what it stopped on",
        )

    bots_node = top.node.value.get("bots")
    if bots_node is None:
        top.fail(top.node, "'bots' is required: a list of bots, each with a name and a command")
    assert bots_node is not None
    if not isinstance(bots_node.value, list):
        top.fail(bots_node, f"'bots' must be a list, got {_kind(bots_node.value)}")
    bots: list[BotConfig] = []
    seen: dict[str, int] = {}
    for i, node in enumerate(bots_node.value):
        r = _Reader(source, node, f"bots[{i}]", BOT_KEYS)
        bot_name = r.get("name", str, required=True)
        r.check("name", bool(NAME_RE.fullmatch(bot_name)), "must be 1-64 of A-Z a-z 0-9 _ . + -")
        if bot_name in seen:
            r.fail(
                node.value["name"], f"bot name {bot_name!r} is used twice (first on line {seen[bot_name]})"
            )
        seen[bot_name] = node.line
        command = _command(r, "command", required=True)
        assert command is not None
        build = _command(r, "build")
        cwd = rel(r.get("cwd", str)) if r.has("cwd") else default_cwd
        env = r.get("env", dict, {})
        for k, v in env.items():
            r.check("env", bool(ENV_NAME_RE.fullmatch(k)), f"names a variable {k!r}: use A-Z a-z 0-9 _")
            if not isinstance(v, str | int | float) or isinstance(v, bool):
                r.fail(node.value["env"], f"'bots[{i}].env.{k}' must be a string, got {v!r}")
        limits, tmp_mb = _limits(r.child("limits", LIMIT_KEYS), default_limits, default_tmp_mb)
        mode = r.get("sandbox", str, default_sandbox)
        r.check("sandbox", mode in MODES, f"must be one of {', '.join(MODES)}")
        readable = r.get("readable", list, [])
        for item in readable:
            r.check("readable", isinstance(item, str) and bool(item), "must be a list of paths")
        policy = SandboxPolicy(
            mode=mode,
            network=r.get("network", bool, False),
            writable=r.get("writable", bool, False),
            tmp_mb=tmp_mb,
            paths=tuple(str(rel(p)) for p in readable),
        )
        bots.append(
            BotConfig(
                bot_name,
                command,
                cwd,
                build,
                {k: str(v) for k, v in env.items()},
                limits,
                node.line,
                policy,
                r.get("build_network", bool, False),
                r.get("retired", bool, False),
            )
        )

    if len(bots) < players:
        top.fail(bots_node, f"{players}-player games need at least {players} bots, got {len(bots)}")
    active = [b for b in bots if not b.retired]
    if len(active) < players:
        top.fail(
            bots_node,
            f"{players}-player games need at least {players} bots that are not retired, got {len(active)}",
        )
    challengers: tuple[str, ...] = ()
    if top.has("challengers") or fmt == "gauntlet":
        names = top.get("challengers", list, required=fmt == "gauntlet")
        top.check("challengers", fmt == "gauntlet", "only applies to format: gauntlet")
        for c in names:
            top.check(
                "challengers",
                isinstance(c, str) and c in seen,
                f"names {c!r}, which is not a bot of this tournament",
            )
        top.check(
            "challengers", 0 < len(names) < len(bots), "must name at least one bot and leave a field to play"
        )
        top.check(
            "challengers",
            len(bots) - len(names) >= players - 1,
            f"must leave at least {players - 1} bots in the field",
        )
        challengers = tuple(names)

    output = rel(top.get("output", str, f"results/{name}"))
    top.check("output", not output.exists() or output.is_dir(), f"is {str(output)!r}, which is not a folder")
    top.check(
        "output",
        not any(output.is_relative_to(p) for p in SYSTEM_FOLDERS) or output.is_relative_to("/dev/shm"),
        f"is {str(output)!r}, inside a system folder; results need an ordinary folder",
    )
    bots = _hide_from_bots(bots, output)
    if fmt == "continuous":
        _check_first_phase(top, continuous, players, seat_orders, sum(not b.retired for b in bots))
    return TournamentConfig(
        name=name,
        path=path.resolve(),
        seed=seed,
        players=players,
        rounds=rounds,
        format=fmt,
        challengers=challengers,
        seat_orders=seat_orders,
        board=board,
        board_value=board_value,
        time_control=time_control,
        params=params,
        concurrency=concurrency,
        output=output,
        bots=tuple(bots),
        rating=rating,
        end_grace_ms=end_grace_ms,
        retries=retries,
        raw=plain(top.node),
        build_timeout_ms=build_timeout_ms,
        multigame=multigame,
        restart_every=restart_every,
        executor=executor,
        continuous=continuous,
    )


def _rounds(top: _Reader, fmt: str) -> tuple[int, str]:
    """``rounds`` and the format: ``rounds: until_stable`` means ``format: continuous``."""
    if top.has("rounds") and top.node.value["rounds"].value == UNTIL_STABLE:
        top.check(
            "rounds",
            not top.has("format") or fmt == "continuous",
            f"{UNTIL_STABLE!r} is a continuous league: it does not go with format: {fmt}",
        )
        return 1, "continuous"
    if fmt == "continuous":
        top.check(
            "rounds",
            not top.has("rounds"),
            "does not apply to format: continuous (it plays until the order is sure or "
            "'max_games' are played; leave 'rounds' out or write rounds: until_stable)",
        )
        return 1, fmt
    rounds = top.get("rounds", int, 1)
    top.check("rounds", 1 <= rounds <= 10_000, f"must be from 1 to 10000 (or {UNTIL_STABLE!r})")
    return rounds, fmt


def _continuous(top: _Reader, fmt: str) -> ContinuousConfig:
    """``confidence``, ``max_games`` and ``min_meetings``: only with format: continuous."""
    for key in CONTINUOUS_KEYS:
        top.check(key, not top.has(key) or fmt == "continuous", "only applies to format: continuous")
    confidence = float(top.get("confidence", (int, float), DEFAULT_CONFIDENCE))
    top.check("confidence", 0.5 < confidence < 1, "must be a probability between 0.5 and 1, like 0.95")
    max_games = top.get("max_games", int, DEFAULT_MAX_GAMES)
    top.check("max_games", 1 <= max_games <= 10_000_000, "must be from 1 to 10000000")
    min_meetings = top.get("min_meetings", int, 1)
    top.check("min_meetings", 1 <= min_meetings <= 1000, "must be from 1 to 1000")
    return ContinuousConfig(confidence, max_games, min_meetings)


def _check_first_phase(
    top: _Reader, continuous: ContinuousConfig, players: int, seat_mode: str, active: int
) -> None:
    """A continuous league first plays every meeting ``min_meetings`` times: a budget short of
    that would spend itself on the file's first bots (or, below one set, play nothing)."""
    meetings = math.comb(active, players)
    set_size = len(seat_orders_of([str(i) for i in range(players)], seat_mode))
    needed = meetings * set_size * continuous.min_meetings
    top.check(
        "max_games",
        continuous.max_games >= needed,
        f"is {continuous.max_games}, fewer than a continuous league plays before it chooses: "
        f"{meetings} meetings x {set_size} games (a set) x min_meetings {continuous.min_meetings} "
        f"= {needed}; raise max_games or lower min_meetings",
    )


def _executor(top: _Reader, source: str) -> ExecutorConfig:
    """``executor: local``, ``executor: dask-local`` or a mapping (``kind: dask``, ``scheduler``...)."""
    where = f"{source}:{top.line('executor')}"
    if not top.has("executor") or isinstance(top.node.value["executor"].value, str):
        kind = top.get("executor", str, "local")
        top.check("executor", kind in EXECUTORS, f"must be one of {', '.join(EXECUTORS)} (or a mapping)")
        return ExecutorConfig(kind=kind, where=where)
    r = top.child("executor", EXECUTOR_KEYS)
    assert r is not None
    kind = r.get("kind", str, "dask" if r.has("scheduler") else "local")
    r.check("kind", kind in EXECUTORS, f"must be one of {', '.join(EXECUTORS)}")
    scheduler = r.get("scheduler", str)
    r.check("scheduler", scheduler is None or kind == "dask", "only applies to kind: dask")
    r.check(
        "scheduler",
        scheduler is None or (bool(scheduler) and not any(c.isspace() for c in scheduler)),
        "must be the scheduler's address, like tcp://host:8786",
    )
    bots = r.get("bots", str, "shared")
    r.check("bots", bots in BOT_PLACEMENTS, f"must be one of {', '.join(BOT_PLACEMENTS)}")
    r.check("bots", bots == "shared" or kind != "local", "only applies to kind: dask or dask-local")
    workers = r.get("workers", int)
    r.check("workers", workers is None or kind == "dask-local", "only applies to kind: dask-local")
    r.check("workers", workers is None or 1 <= workers <= 256, "must be from 1 to 256")
    timeout_ms = _duration(r, "connect_timeout", "10s")
    r.check("connect_timeout", timeout_ms > 0, "must be more than 0")
    return ExecutorConfig(kind, scheduler, bots, workers, timeout_ms, where)


def _hide_from_bots(bots: list[BotConfig], output: Path) -> list[BotConfig]:
    """Mask, in each bot's sandbox, the results folder and the other bots' folders that
    lie inside its own (bots sharing one folder see each other's files: give each its own)."""
    out = []
    for b in bots:
        hidden = [output, *(o.cwd for o in bots if o.cwd != b.cwd and o.cwd.is_relative_to(b.cwd))]
        inside = {str(h) for h in hidden if h.is_relative_to(b.cwd) and h != b.cwd}
        policy = replace(b.sandbox, hidden=tuple(sorted(inside)))
        out.append(replace(b, sandbox=policy))
    return out


def _duration(r: _Reader, key: str, default: str | None) -> int:
    value = r.get(key, (str, int, float), default)
    try:
        return parse_duration_ms(value, r.path(key))
    except ConfigError as e:
        r.fail(r.node.value.get(key, r.node), str(e))
        raise


def _time_control(r: _Reader | None, top: _Reader) -> TimeControl:
    if r is None:
        return TimeControl()
    move = _duration(r, "move", None) if r.has("move") else None
    base = _duration(r, "base", None) if r.has("base") else None
    if move is None and base is None:
        r.fail(r.node, "'time_control' needs 'move' (per move) or 'base' (a clock), or both")
    try:
        return TimeControl(
            move_ms=move,
            base_ms=base,
            increment_ms=_duration(r, "increment", "0ms"),
            startup_ms=_duration(r, "startup", "5s"),
            margin_ms=_duration(r, "margin", "50ms"),
        )
    except ConfigError as e:
        top.fail(top.node.value["time_control"], f"'time_control': {e}")
        raise


def _limits(r: _Reader | None, default: ResourceLimits, default_tmp_mb: int) -> tuple[ResourceLimits, int]:
    """Resource limits and the sandbox's tmpfs size (MB), over the given defaults."""
    if r is None:
        return default, default_tmp_mb
    values: dict[str, Any] = {}
    for key in LIMIT_KEYS - {"cpus", "tmp_mb"}:
        v = r.get(key, (int, type(None)), getattr(default, key))
        r.check(
            key,
            v is None or 0 < v <= MAX_LIMIT,
            f"must be positive, at most {MAX_LIMIT} (or null for no limit)",
        )
        values[key] = v
    cpus = r.get("cpus", (int, float, type(None)), default.cpus)
    r.check("cpus", cpus is None or 0.01 <= cpus <= 1024, "must be from 0.01 to 1024 cores (or null)")
    values["cpus"] = None if cpus is None else float(cpus)
    tmp_mb = r.get("tmp_mb", int, default_tmp_mb)
    r.check("tmp_mb", 1 <= tmp_mb <= 65536, "must be from 1 to 65536")
    return ResourceLimits(**values), tmp_mb


def _command(r: _Reader, key: str, required: bool = False) -> tuple[str, ...] | None:
    value = r.get(key, (str, list), required=required)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as e:
            r.fail(r.node.value[key], f"{r.path(key)!r}: cannot split {value!r} like a shell: {e}")
            raise
    else:
        if not all(isinstance(a, str | int | float) and not isinstance(a, bool) for a in value):
            r.fail(r.node.value[key], f"{r.path(key)!r}: every item must be a string")
        argv = [str(a) for a in value]
    r.check(key, bool(argv), "is empty")
    return tuple(argv)


def find_program(command: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Where a command's program is, or None if it cannot be found or run."""
    program = command[0]
    if "/" in program:
        p = Path(program)
        p = p if p.is_absolute() else cwd / p
        return str(p) if p.is_file() and os.access(p, os.X_OK) else None
    path = (env or {}).get("PATH", os.environ.get("PATH", ""))
    return shutil.which(program, path=path)
