"""One reader per section of a tournament file that is not about bots.

Each function reads one key or mapping (``rules``, ``board``, ``time_control``,
``limits``, ``rating``, ``executor``, ``rounds`` and the continuous settings)
and returns its value, or fails naming the file, the line and the key.
"""

from __future__ import annotations

import ipaddress
import math
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.turnlog import MAX_GAME_BYTES, MAX_TURN_INFOS, LogBounds
from arena.league.config.model import (
    BOT_PLACEMENTS,
    CONTINUOUS_KEYS,
    DEFAULT_CONFIDENCE,
    DEFAULT_INDIFFERENCE,
    DEFAULT_MAX_GAMES,
    EXECUTORS,
    MAX_LIMIT,
    MAX_RATING,
    UNTIL_STABLE,
    BotPlacement,
    ContinuousConfig,
    ExecutorConfig,
    ExecutorKind,
    Format,
    TlsFiles,
    continuous_problem,
)
from arena.league.config.reader import Reader, beside
from arena.league.schedule import seat_orders as seat_orders_of
from arena.rules import Board, Params, parse_board_file
from arena.stats.settings import RATING_MODELS, RatingConfig, RatingModel
from arena.textfile import BOARD_FILE_MAX_BYTES, read_text

TC_KEYS = {"move", "base", "increment", "startup", "margin"}
RULE_KEYS = {"sheep", "tiles", "contact", "hole_border"}
LIMIT_KEYS = {"memory_mb", "cpu_seconds", "file_size_mb", "open_files", "tasks", "cpus", "tmp_mb"}
# ``logs``: how much of a bot's stderr and info lines each game record keeps (file key: LogBounds field).
LOG_KEYS = {"per_turn_bytes": "turn_bytes", "per_game_bytes": "game_bytes", "per_turn_infos": "turn_infos"}
RATING_KEYS = {"mu", "sigma", "beta", "tau", "draw_probability", "model"}
EXECUTOR_KEYS = {"kind", "scheduler", "bots", "workers", "connect_timeout", "security", "insecure"}
SECURITY_KEYS = {"ca", "cert", "key"}
SCHEDULER_SCHEMES = ("tls", "tcp")


def read_rounds(top: Reader, fmt: Format) -> tuple[int, Format]:
    """``rounds`` and the format: ``rounds: until_stable`` means ``format: continuous``."""
    if top.has("rounds") and top.node.value["rounds"].value == UNTIL_STABLE:
        top.check(
            "rounds",
            not top.has("format") or fmt == Format.CONTINUOUS,
            f"{UNTIL_STABLE!r} is a continuous league: it does not go with format: {fmt}",
        )
        return 1, Format.CONTINUOUS
    if fmt == Format.CONTINUOUS:
        top.check(
            "rounds",
            not top.has("rounds"),
            "does not apply to format: continuous (it plays until every adjacent pair is settled or "
            "'max_games' are played; leave 'rounds' out or write rounds: until_stable)",
        )
        return 1, fmt
    rounds = top.get("rounds", int, 1)
    top.check("rounds", 1 <= rounds <= 10_000, f"must be from 1 to 10000 (or {UNTIL_STABLE!r})")
    return rounds, fmt


def read_rules(top: Reader, players: int) -> Params:
    """``rules``: the game's parameters, judged by the rules engine itself."""
    rules = top.child("rules", RULE_KEYS)
    try:
        # The reads stay inside the try: a wrong type is reported as a rules error too.
        return Params(
            players=players,
            sheep=rules.get("sheep", int, 16) if rules else 16,
            tiles=rules.get("tiles", int, 4) if rules else 4,
            contact=rules.get("contact", int, 1) if rules else 1,
            hole_border=rules.get("hole_border", bool, False) if rules else False,
        )
    except ArenaError as e:
        raise ConfigError(f"{top.source}:{top.line('rules')}: rules: {e}") from None


def read_board(top: Reader, base_dir: Path) -> tuple[str, Board | None]:
    """``board``: ``random``, ``build``, or a board file (its resolved path and its board)."""
    board = top.get("board", str, "random")
    if board in ("random", "build"):
        return board, None
    board_path = beside(base_dir, board)
    try:
        board_text = read_text(board_path, "board file", BOARD_FILE_MAX_BYTES)
    except ConfigError as e:
        top.fail(top.node.value["board"], f"'board': {e}")
    return str(board_path), parse_board_file(board_text, str(board_path))


def read_time_control(top: Reader) -> TimeControl:
    """``time_control``: per move, a clock, or both (the defaults when absent)."""
    r = top.child("time_control", TC_KEYS)
    if r is None:
        return TimeControl()
    move = r.duration("move", None) if r.has("move") else None
    base = r.duration("base", None) if r.has("base") else None
    if move is None and base is None:
        r.fail(r.node, "'time_control' needs 'move' (per move) or 'base' (a clock), or both")
    try:
        return TimeControl(
            move_ms=move,
            base_ms=base,
            increment_ms=r.duration("increment", "0ms"),
            startup_ms=r.duration("startup", "5s"),
            margin_ms=r.duration("margin", "50ms"),
        )
    except ConfigError as e:
        top.fail(top.node.value["time_control"], f"'time_control': {e}")


def read_limits(r: Reader | None, default: ResourceLimits, default_tmp_mb: int) -> tuple[ResourceLimits, int]:
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


def read_logs(r: Reader | None, default: LogBounds) -> LogBounds:
    """``logs``: a bot's stderr kept per turn and per game (bytes) and its info lines per turn,
    over the given defaults; a turn keeps at most what its game does."""
    if r is None:
        return default
    game = r.get("per_game_bytes", int, default.game_bytes)
    r.check("per_game_bytes", 0 <= game <= MAX_GAME_BYTES, f"must be from 0 to {MAX_GAME_BYTES} (1 MiB)")
    turn = r.get("per_turn_bytes", int, min(default.turn_bytes, game))
    r.check("per_turn_bytes", 0 <= turn <= game, f"must be from 0 to the game's bound, per_game_bytes ({game})")
    infos = r.get("per_turn_infos", int, default.turn_infos)
    r.check("per_turn_infos", 0 <= infos <= MAX_TURN_INFOS, f"must be from 0 to {MAX_TURN_INFOS}")
    return LogBounds(turn_bytes=turn, game_bytes=game, turn_infos=infos)


def read_continuous(top: Reader, fmt: Format) -> ContinuousConfig:
    """``confidence``, ``max_games``, ``min_meetings`` and ``indifference``: only with format: continuous."""
    for key in CONTINUOUS_KEYS:
        top.check(key, not top.has(key) or fmt == Format.CONTINUOUS, "only applies to format: continuous")
    confidence = float(top.get("confidence", (int, float), DEFAULT_CONFIDENCE))
    _check_continuous(top, "confidence", confidence)
    max_games = top.get("max_games", int, DEFAULT_MAX_GAMES)
    _check_continuous(top, "max_games", max_games)
    min_meetings = top.get("min_meetings", int, 1)
    _check_continuous(top, "min_meetings", min_meetings)
    indifference = float(top.get("indifference", (int, float), DEFAULT_INDIFFERENCE))
    _check_continuous(top, "indifference", indifference)
    return ContinuousConfig(confidence, max_games, min_meetings, indifference)


def _check_continuous(top: Reader, key: str, value: float) -> None:
    problem = continuous_problem(key, value)
    top.check(key, problem is None, problem or "")


def first_phase_games(min_meetings: int, players: int, seat_mode: str, active: int) -> int:
    """The games a continuous league of ``active`` bots plays before it chooses: every meeting,
    ``min_meetings`` sets of each (the least ``max_games`` it takes)."""
    set_size = len(seat_orders_of([str(i) for i in range(players)], seat_mode))
    return math.comb(active, players) * set_size * min_meetings


def check_first_phase(
    top: Reader, continuous: ContinuousConfig, players: int, seat_mode: str, active: int
) -> None:
    """A continuous league first plays every meeting ``min_meetings`` times: a budget short of
    that would spend itself on the file's first bots (or, below one set, play nothing)."""
    meetings = math.comb(active, players)
    set_size = len(seat_orders_of([str(i) for i in range(players)], seat_mode))
    needed = first_phase_games(continuous.min_meetings, players, seat_mode, active)
    top.check(
        "max_games",
        continuous.max_games >= needed,
        f"is {continuous.max_games}, fewer than a continuous league plays before it chooses: "
        f"{meetings} meetings x {set_size} games (a set) x min_meetings {continuous.min_meetings} "
        f"= {needed}; raise max_games or lower min_meetings",
    )


def read_rating(top: Reader, fmt: Format) -> RatingConfig:
    """``rating``: the TrueSkill environment and the model, each finite and within bounds."""
    r = top.child("rating", RATING_KEYS)
    rating = RatingConfig()
    if r is None:
        return rating
    values: dict[str, Any] = {
        k: float(r.get(k, (int, float), getattr(rating, k))) for k in RATING_KEYS - {"model"}
    }
    values["model"] = r.get("model", str, rating.model)
    r.check("model", values["model"] in RATING_MODELS, f"must be one of {', '.join(RATING_MODELS)}")
    values["model"] = RatingModel(values["model"])
    # Finite and within bounds: a NaN or an infinity is stored with the results and
    # would break every later rating of them.
    r.check("mu", abs(values["mu"]) <= MAX_RATING, f"must be from -{MAX_RATING:g} to {MAX_RATING:g}")
    for k in ("sigma", "beta"):
        r.check(k, 0 < values[k] <= MAX_RATING, f"must be more than 0 and at most {MAX_RATING:g}")
    r.check("tau", 0 <= values["tau"] <= MAX_RATING, f"must be from 0 to {MAX_RATING:g}")
    r.check("draw_probability", 0 < values["draw_probability"] < 1, "must be between 0 and 1 (ties happen)")
    rating = RatingConfig(**values)
    r.check(
        "model",
        fmt != Format.CONTINUOUS or rating.model == RatingModel.BATCH,
        "must be 'batch' in a continuous league: it chooses its games from the batch fit, "
        "and its standings must say what it stopped on",
    )
    return rating


def read_executor(top: Reader) -> ExecutorConfig:
    """``executor: local``, ``executor: dask-local`` or a mapping (``kind: dask``, ``scheduler``...)."""
    where = f"{top.source}:{top.line('executor')}"
    if not top.has("executor") or isinstance(top.node.value["executor"].value, str):
        kind = top.get("executor", str, "local")
        top.check("executor", kind in EXECUTORS, f"must be one of {', '.join(EXECUTORS)} (or a mapping)")
        return ExecutorConfig(kind=ExecutorKind(kind), where=where)
    r = top.child("executor", EXECUTOR_KEYS)
    assert r is not None
    return _read_executor_mapping(r, where)


def _read_executor_mapping(r: Reader, where: str) -> ExecutorConfig:
    """``executor`` as a mapping: ``kind`` (``dask`` when a ``scheduler`` is given) and its settings."""
    written = r.get("kind", str, ExecutorKind.DASK if r.has("scheduler") else ExecutorKind.LOCAL)
    r.check("kind", written in EXECUTORS, f"must be one of {', '.join(EXECUTORS)}")
    kind = ExecutorKind(written)
    scheduler = r.get("scheduler", str)
    r.check("scheduler", scheduler is None or kind == ExecutorKind.DASK, "only applies to kind: dask")
    security = _read_security(r)
    insecure = r.get("insecure", bool, False)
    r.check("security", security is None or kind == ExecutorKind.DASK, "only applies to kind: dask")
    r.check("insecure", not insecure or kind == ExecutorKind.DASK, "only applies to kind: dask")
    if scheduler is not None:
        problem = scheduler_problem(scheduler, security is not None, insecure)
        r.check("scheduler", problem is None, str(problem))
    bots = r.get("bots", str, BotPlacement.SHARED)
    r.check("bots", bots in BOT_PLACEMENTS, f"must be one of {', '.join(BOT_PLACEMENTS)}")
    r.check(
        "bots",
        bots == BotPlacement.SHARED or kind != ExecutorKind.LOCAL,
        "only applies to kind: dask or dask-local",
    )
    workers = r.get("workers", int)
    r.check("workers", workers is None or kind == ExecutorKind.DASK_LOCAL, "only applies to kind: dask-local")
    r.check("workers", workers is None or 1 <= workers <= 256, "must be from 1 to 256")
    timeout_ms = r.duration("connect_timeout", "10s")
    r.check("connect_timeout", timeout_ms > 0, "must be more than 0")
    return ExecutorConfig(kind, scheduler, BotPlacement(bots), workers, timeout_ms, where, security, insecure)


def _read_security(r: Reader) -> TlsFiles | None:
    """``executor.security``: ``ca``, ``cert`` and ``key``, PEM files (paths beside the file)."""
    s = r.child("security", SECURITY_KEYS)
    if s is None:
        return None
    base = Path(r.source).parent
    files = {key: beside(base, s.get(key, str, required=True)) for key in ("ca", "cert", "key")}
    for key, path in files.items():
        s.check(key, path.is_file(), f"names {str(path)!r}, which is not a readable file")
    return TlsFiles(files["ca"], files["cert"], files["key"])


def scheduler_problem(address: str, tls: bool, insecure: bool) -> str | None:
    """What is wrong with a scheduler address for this run, or None.

    A Dask scheduler runs whatever its clients send: plain ``tcp://`` is accepted on
    loopback only, unless the file says ``insecure: true``; ``tls://`` needs ``security``.
    """
    scheme, sep, rest = address.partition("://")
    host, colon, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if (
        not sep
        or scheme not in SCHEDULER_SCHEMES
        or not colon
        or not host
        or not port.isdigit()
        or not 1 <= int(port) <= 65535
        or any(c.isspace() or c in "/?#@" for c in host)
    ):
        return f"must be the scheduler's address, like tls://host:8786 (got {address!r})"
    if scheme == "tls" and not tls:
        return f"{address!r} is TLS: give 'security' (ca, cert, key files)"
    if scheme == "tcp" and tls:
        return f"{address!r} is plain tcp:// but 'security' is given: write tls://"
    if scheme == "tcp" and not insecure and not is_loopback_host(host):
        return (
            f"{address!r} is plain tcp:// off loopback: anyone who reaches it can run code on the "
            "cluster; use tls:// with 'security', or say 'insecure: true'"
        )
    return None


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine's loopback: ``localhost``, 127/8, ::1."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
