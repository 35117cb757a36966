"""A tournament file in, a :class:`TournamentConfig` out: a driver of one reader per section.

The sections are read in a fixed order, and the first error stops the reading:
which error a file with several gets is part of the behaviour, so the order
here is the order of the messages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError
from arena.game.build import DEFAULT_BUILD_MB
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import DEFAULT_TMP_MB, MAX_FOLDER_MB, MODES
from arena.game.turnlog import LogBounds
from arena.league.config.bots import BotDefaults, hide_from_bots, read_bots
from arena.league.config.model import (
    CONTINUOUS_KEYS,
    DEFAULT_SEAT_ORDERS,
    FORMATS,
    SEAT_ORDERS,
    BotConfig,
    Format,
    SeatOrder,
    TournamentConfig,
)
from arena.league.config.reader import Reader, beside
from arena.league.config.sections import (
    LIMIT_KEYS,
    LOG_KEYS,
    check_first_phase,
    read_board,
    read_continuous,
    read_executor,
    read_limits,
    read_logs,
    read_rating,
    read_rounds,
    read_rules,
    read_time_control,
)
from arena.league.config.yamlfile import Node, load_nodes, plain
from arena.league.results_folder import system_folder_of
from arena.protocol import NAME_RE
from arena.textfile import TOURNAMENT_FILE_MAX_BYTES, read_text

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
    "logs",
    "bots",
    "cwd",
    "rating",
    "end_grace",
    "retries",
    "sandbox",
    "build_timeout",
    "build_mb",
    "multigame",
    "restart_every",
    "executor",
    "hidden",
    *CONTINUOUS_KEYS,
}


@dataclass(frozen=True)
class _League:
    """The top-level keys that say which games the league has."""

    name: str
    seed: int
    players: int
    format: Format
    rounds: int
    seat_orders: SeatOrder


@dataclass(frozen=True)
class _RunSettings:
    """The top-level keys that say how the games are run."""

    concurrency: int
    retries: int
    end_grace_ms: int
    build_timeout_ms: int
    build_mb: int
    multigame: bool
    restart_every: int


def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament file; raise ConfigError naming file, line and key."""
    path = Path(path)
    return parse_config(read_text(path, "tournament file", TOURNAMENT_FILE_MAX_BYTES), path)


def parse_config(text: str, path: Path, extra_keys: frozenset[str] = frozenset()) -> TournamentConfig:
    """Validate the text of the tournament file ``path`` (relative paths start beside it);
    raise ConfigError naming file, line and key.

    ``extra_keys`` are top-level sections another reader owns (the ladder's ``ladder``):
    allowed here and left out of the config's ``raw`` data.
    """
    source = str(path)
    root = load_nodes(text, source)
    if root is None:
        raise ConfigError(f"{source}: the file is empty")
    top = Reader(source, root, "", TOP_KEYS | extra_keys)
    base_dir = path.resolve().parent
    league = _read_league(top, path)
    run = _read_run_settings(top)
    executor = read_executor(top)
    default_cwd = beside(base_dir, top.get("cwd", str, "."))
    default_sandbox = top.get("sandbox", str, "auto")
    top.check("sandbox", default_sandbox in MODES, f"must be one of {', '.join(MODES)}")
    params = read_rules(top, league.players)
    board, board_value = read_board(top, base_dir)
    time_control = read_time_control(top)
    limits, tmp_mb = read_limits(top.child("limits", LIMIT_KEYS), ResourceLimits(), DEFAULT_TMP_MB)
    continuous = read_continuous(top, league.format)
    rating = read_rating(top, league.format)
    logs = read_logs(top.child("logs", set(LOG_KEYS)), LogBounds())
    bots_node, bots = read_bots(top, BotDefaults(default_cwd, default_sandbox, limits, tmp_mb, base_dir, logs))
    _check_bot_count(top, bots_node, bots, league.players)
    challengers = _read_challengers(top, league, bots)
    output = _read_output(top, base_dir, league.name)
    bots = hide_from_bots(bots, output, _read_hidden(top, base_dir))
    if league.format == Format.CONTINUOUS:
        check_first_phase(
            top, continuous, league.players, league.seat_orders, sum(not b.retired for b in bots)
        )
    return TournamentConfig(
        name=league.name,
        path=path.resolve(),
        seed=league.seed,
        players=league.players,
        rounds=league.rounds,
        format=league.format,
        challengers=challengers,
        seat_orders=league.seat_orders,
        board=board,
        board_value=board_value,
        time_control=time_control,
        params=params,
        concurrency=run.concurrency,
        output=output,
        bots=tuple(bots),
        rating=rating,
        end_grace_ms=run.end_grace_ms,
        retries=run.retries,
        raw={k: v for k, v in plain(top.node).items() if k not in extra_keys},
        build_timeout_ms=run.build_timeout_ms,
        build_mb=run.build_mb,
        multigame=run.multigame,
        restart_every=run.restart_every,
        executor=executor,
        continuous=continuous,
    )


def _read_league(top: Reader, path: Path) -> _League:
    """``name``, ``seed``, ``players``, ``format``, ``rounds`` and ``seat_orders``."""
    name = top.get("name", str, path.stem)
    top.check("name", bool(NAME_RE.fullmatch(name)), "must be 1-64 of A-Z a-z 0-9 _ . + -")
    seed = top.get("seed", int, 1)
    top.check("seed", 0 <= seed < 2**63, "must be from 0 to 2^63-1")
    players = top.get("players", int, 2)
    top.check("players", 2 <= players <= 4, "must be 2, 3 or 4")
    fmt = top.get("format", str, "round_robin").replace("-", "_")
    top.check("format", fmt in FORMATS, f"must be one of {', '.join(FORMATS)}")
    rounds, league_format = read_rounds(top, Format(fmt))
    seat_orders = top.get("seat_orders", str, DEFAULT_SEAT_ORDERS.get(players, SeatOrder.ALL))
    top.check(
        "seat_orders",
        seat_orders in SEAT_ORDERS,
        "must be 'all' (every seat order), 'rotate' (each bot holds each seat once) or "
        "'balanced' (rotations of a turn order that changes each round)",
    )
    return _League(name, seed, players, league_format, rounds, SeatOrder(seat_orders))


def _read_run_settings(top: Reader) -> _RunSettings:
    """``concurrency``, ``retries``, ``end_grace``, ``build_timeout``, ``build_mb``, ``multigame``,
    ``restart_every``."""
    concurrency = top.get("concurrency", int, os.cpu_count() or 1)
    top.check("concurrency", 1 <= concurrency <= 256, "must be at least 1")
    retries = top.get("retries", int, 2)
    top.check("retries", 0 <= retries <= 10, "must be 0 to 10")
    end_grace_ms = top.duration("end_grace", "1s")
    build_timeout_ms = top.duration("build_timeout", "10m")
    top.check("build_timeout", build_timeout_ms > 0, "must be more than 0")
    build_mb = top.get("build_mb", int, DEFAULT_BUILD_MB)
    top.check("build_mb", 1 <= build_mb <= MAX_FOLDER_MB, f"must be from 1 to {MAX_FOLDER_MB} (MiB)")
    multigame = top.get("multigame", bool, True)
    restart_every = top.get("restart_every", int, 0)
    top.check("restart_every", 0 <= restart_every <= 1_000_000, "must be from 0 (never) to 1000000 games")
    return _RunSettings(concurrency, retries, end_grace_ms, build_timeout_ms, build_mb, multigame, restart_every)


def _check_bot_count(top: Reader, bots_node: Node, bots: list[BotConfig], players: int) -> None:
    """Enough bots for one game, and enough of them not retired."""
    if len(bots) < players:
        top.fail(bots_node, f"{players}-player games need at least {players} bots, got {len(bots)}")
    active = [b for b in bots if not b.retired]
    if len(active) < players:
        top.fail(
            bots_node,
            f"{players}-player games need at least {players} bots that are not retired, got {len(active)}",
        )


def _read_challengers(top: Reader, league: _League, bots: list[BotConfig]) -> tuple[str, ...]:
    """``challengers``: a gauntlet's bots of the file that play the rest (the field)."""
    if not (top.has("challengers") or league.format == Format.GAUNTLET):
        return ()
    names = top.get("challengers", list, required=league.format == Format.GAUNTLET)
    top.check("challengers", league.format == Format.GAUNTLET, "only applies to format: gauntlet")
    known = {b.name for b in bots}
    for c in names:
        top.check(
            "challengers",
            isinstance(c, str) and c in known,
            f"names {c!r}, which is not a bot of this tournament",
        )
    top.check(
        "challengers", 0 < len(names) < len(bots), "must name at least one bot and leave a field to play"
    )
    top.check(
        "challengers",
        len(bots) - len(names) >= league.players - 1,
        f"must leave at least {league.players - 1} bots in the field",
    )
    return tuple(names)


def _read_hidden(top: Reader, base_dir: Path) -> tuple[Path, ...]:
    """``hidden``: more folders no bot sees, as the results folder (a ladder's versions)."""
    hidden = top.get("hidden", list, [])
    for item in hidden:
        top.check("hidden", isinstance(item, str) and bool(item), "must be a list of paths")
    return tuple(beside(base_dir, p) for p in hidden)


def _read_output(top: Reader, base_dir: Path, name: str) -> Path:
    """``output``: the results folder (default ``results/NAME``), an ordinary folder."""
    output = beside(base_dir, top.get("output", str, f"results/{name}"))
    top.check("output", not output.exists() or output.is_dir(), f"is {str(output)!r}, which is not a folder")
    top.check(
        "output",
        system_folder_of(output) is None,
        f"is {str(output)!r}, inside a system folder; results need an ordinary folder",
    )
    return output
