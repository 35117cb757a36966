"""``arena run``: a tournament file in, stored games and standings out.

The steps: validate the file, build the bots, check their programs exist,
open (or resume) the results store, play what is left of the schedule in
parallel, store each game as it ends, and keep the standings files and
report.html current.
"""

from __future__ import annotations

import contextlib
import difflib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from . import league_changes, results_folder
from .build import run_build
from .config import LEGACY_DEFAULT_SEAT_ORDERS, RUN_ONLY_KEYS, BotConfig, TournamentConfig, find_program
from .errors import ConfigError
from .executor import GamePool, GameSettings
from .league_table import LeagueTable
from .record import GameRecord
from .referee import BotSpec
from .report import tournament_report, write_report
from .sandbox import resolve_mode
from .schedule import ScheduledGame, make_schedule
from .standings import Standings, write_files
from .store import ResultStore

if TYPE_CHECKING:
    from .cluster import DaskGamePool

STANDINGS_EVERY_S = 2.0
REPORT_EVERY_S = 10.0
REPORT_SHARE = 0.05  # of the run's time, at most, spent writing report.html
REPORT_MAX_GAMES = 20_000  # past this a run keeps no report.html current (pages of ~6 KB a game)


# Version 2: 4-player seat orders 'balanced' by default, a gauntlet's boards from the field.
SCHEDULE_VERSION = 2


def schedule_for(config: TournamentConfig, version: int = SCHEDULE_VERSION) -> list[ScheduledGame]:
    """The games of the file's bots that are not retired (as if the others were not there),
    as schedule ``version`` makes them (a results folder keeps its own)."""
    active = [b.name for b in config.bots if not b.retired]
    challengers = [c for c in config.challengers if c in active]
    if config.challengers and not challengers:
        return []  # a gauntlet whose challengers are all retired has nobody left to play
    mode = config.seat_orders
    if version < 2 and "seat_orders" not in config.raw:
        mode = LEGACY_DEFAULT_SEAT_ORDERS.get(config.players, mode)
    return make_schedule(
        active,
        config.players,
        config.rounds,
        config.seed,
        mode,
        challengers,
        boards="field" if version >= 2 else "group",
    )


def without(config: TournamentConfig, names: Sequence[str]) -> TournamentConfig:
    """``config`` with the bots ``names`` retired (``arena run --without NAME``), as if the
    file said ``retired: true`` for each."""
    known = [b.name for b in config.bots]
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"--without {name!r}: no such bot in {str(config.path)!r}{hint}")
    bots = tuple(replace(b, retired=b.retired or b.name in names) for b in config.bots)
    raw = dict(config.raw)
    raw["bots"] = [
        {**b, "retired": True} if isinstance(b, dict) and b.get("name") in names else b
        for b in config.raw.get("bots", [])
    ]
    active = [b for b in bots if not b.retired]
    if len(active) < config.players:
        raise ConfigError(
            f"--without {', '.join(names)}: {config.players}-player games need at least "
            f"{config.players} bots that are not retired, {len(active)} would be left"
        )
    return replace(config, bots=bots, raw=raw)


def standings_bots(config: TournamentConfig, store: ResultStore) -> list[str]:
    """The bots in the standings: the file's (retired ones too), then those removed from it,
    whose games already played still count."""
    names = [b.name for b in config.bots]
    return names + [n for n in store.get_meta("retired") or [] if n not in names]


def build_bots(config: TournamentConfig, echo: Callable[[str], None]) -> None:
    """Run each bot's build command once, in its sandbox; a failure names the bot and shows
    the tail of its output."""
    for bot in config.bots:
        if bot.build is None:
            continue
        echo(f"building {bot.name}: {' '.join(bot.build)}")
        result = run_build(
            bot.build,
            bot.cwd,
            bot.sandbox,
            config.build_timeout_ms / 1000,
            bot.env,
            network=bot.build_network,
        )
        if not result.ok:
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: build {' '.join(bot.build)!r} "
                f"{result.why}:\n" + "\n".join("  " + t for t in result.tail())
            )


def sandbox_warnings(config: TournamentConfig) -> list[str]:
    """Check every bot's sandbox before anything runs: an error when one that is required
    cannot be had, a warning per bot that will run unsandboxed."""
    warnings = []
    for bot in config.bots:
        try:
            _sandboxed, warning = resolve_mode(bot.sandbox)
        except ConfigError as e:
            raise ConfigError(f"{config.path}:{bot.line}: bot {bot.name!r}: {e}") from None
        if warning:
            warnings.append(f"bot {bot.name!r}: {warning}")
    return warnings


def sandbox_summary(config: TournamentConfig) -> str:
    """``on``, ``off`` or ``on for 3 of 4 bots``: how the bots will run (after sandbox_warnings)."""
    on = sum(resolve_mode(b.sandbox)[0] for b in config.bots)
    if on == len(config.bots):
        return "on"
    return "off" if on == 0 else f"on for {on} of {len(config.bots)} bots"


def check_programs(config: TournamentConfig) -> None:
    for bot in config.bots:
        if not bot.cwd.is_dir():
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: cwd {str(bot.cwd)!r} is not a folder"
            )
        if find_program(bot.command, bot.cwd, bot.env) is None:
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: 'command' program {bot.command[0]!r} "
                f"not found (looked in {str(bot.cwd)!r} and PATH) or not executable"
            )


def game_settings(config: TournamentConfig) -> GameSettings:
    def spec(b: BotConfig) -> BotSpec:
        return BotSpec(
            name=b.name, command=b.command, cwd=b.cwd, env=dict(b.env), limits=b.limits, sandbox=b.sandbox
        )

    return GameSettings(
        bots={b.name: spec(b) for b in config.bots},
        params=config.params,
        time_control=config.time_control,
        board="file" if config.board_value is not None else config.board,
        board_value=config.board_value,
        end_grace_s=config.end_grace_ms / 1000,
        multigame=config.multigame,
        restart_every=config.restart_every,
    )


def game_pool(config: TournamentConfig, echo: Callable[[str], None]) -> GamePool | DaskGamePool:
    """Local worker processes, or a Dask cluster (``executor``): the same ``run`` either way."""
    settings = game_settings(config)
    if config.executor.kind == "local":
        return GamePool(settings, config.concurrency)
    try:
        from .cluster import DaskGamePool, placement_for  # imports Dask: only for a cluster
    except ImportError as e:
        raise ConfigError(
            f"{config.executor.where}: executor {config.executor.kind!r} needs Dask ({e}): "
            "pip install 'battle-sheep-arena[dask]'"
        ) from None
    return DaskGamePool(settings, config.executor, placement_for(config), config.concurrency, echo)


@dataclass
class RunState:
    """What a run has done so far (for the progress line and the summary)."""

    total: int
    done: int = 0
    played_now: int = 0
    # Games given up on after their retries, each with why (a first line naming the game and
    # its bots, then any detail such as a traceback).
    failures: list[tuple[ScheduledGame, str]] = field(default_factory=list)
    standings: Standings | None = None
    started: float = field(default_factory=time.monotonic)
    retired: list[str] = field(default_factory=list)  # bots in the standings with no new games


def open_store(config: TournamentConfig, restart: bool, echo: Callable[[str], None]) -> ResultStore:
    """Open the results store, resuming, or growing the league when bots were added."""
    store = ResultStore.create(config.output)
    try:
        if store.upgrade_note:
            echo(store.upgrade_note)
        if restart:
            store.reset()
        old = store.get_meta("config")
        if (
            old == config.raw
            and store.get_meta("conditions") == config.play_conditions()
            and store.get_meta("schedule_digest") is not None
        ):
            # The same file, played the same way: the stored schedule is the one it makes
            # (which takes a 100,000-game league longer to make than to resume).
            return store
        # A folder started before schedule version 2 keeps making its games as it did.
        version = store.get_meta("schedule_version") or (1 if old is not None else SCHEDULE_VERSION)
        fresh = schedule_for(config, version)
        schedule = fresh if old is None else _changed_schedule(config, store, old, fresh, echo)
        retired = sorted(
            {*(store.get_meta("retired") or []), *league_changes.removed_bots(old or {}, config.raw)}
            - {b.name for b in config.bots}
        )
        store.set_meta(
            config=config.raw,
            conditions=config.play_conditions(),
            digest=config.digest(),
            name=config.name,
            retired=retired,
            schedule_version=version,
        )
        store.set_schedule(schedule)
    except BaseException:
        store.close()
        raise
    return store


def _changed_schedule(
    config: TournamentConfig,
    store: ResultStore,
    old: dict[str, Any],
    fresh: list[ScheduledGame],
    echo: Callable[[str], None],
) -> list[ScheduledGame]:
    """The schedule after the file changed: refused (naming the key) when the change alters
    how games are played and games were played; else played games kept, new ones added."""
    changes = league_changes.compare_files(old, config.raw)
    old_board = (store.get_meta("conditions") or {}).get("board_contents")
    if old_board != config.play_conditions().get("board_contents") and old.get("board") == config.raw.get(
        "board"
    ):
        changes.refused.append(f"board: the contents of {config.raw.get('board')!r} changed")
    finished = store.finished_ids()
    if finished and changes.refused:
        listing = "\n".join(f"  {c}" for c in changes.refused)
        raise ConfigError(
            f"{config.path} changed since the results in {str(config.output)!r} were started:\n"
            f"{listing}\nand that changes how games are played, so old and new games would not "
            "compare. Run with --restart to start over, or set another 'output'. (Bots may be "
            "added, removed or retired, and rounds, challengers and "
            f"{', '.join(sorted(RUN_ONLY_KEYS - {'rounds'}))} may change between runs.)"
        )
    merged = league_changes.merge_schedule(store.schedule(), finished, fresh)
    listing = "\n".join(f"  {c}" for c in [*changes.refused, *changes.allowed])
    echo(f"note: {config.path} changed since the last run:\n{listing}\n{merged.describe()}")
    for name in [b.name for b in config.bots if b.retired] + changes.removed:
        echo(f"note: {name!r} is retired: no new games; its games already played still count")
    return merged.schedule


def run_tournament(
    config: TournamentConfig,
    restart: bool = False,
    echo: Callable[[str], None] = print,
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None = None,
) -> RunState:
    """Play a tournament (or what is left of it) and return how it went.

    The results folder is held for the whole run: another run on it stops at once
    (:class:`~arena.results_folder.ResultsFolderBusy`).
    """
    with results_folder.hold(config.output, str(config.path)):
        return _play_tournament(config, restart, echo, on_progress)


def _play_tournament(
    config: TournamentConfig,
    restart: bool,
    echo: Callable[[str], None],
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None,
) -> RunState:
    for warning in sandbox_warnings(config):
        echo(f"warning: {warning}")
    if config.executor.bots == "shared":  # uploaded bots are built and checked on each worker
        build_bots(config, echo)
        check_programs(config)
    pool = game_pool(config, echo)
    with open_store(config, restart, echo) as store:
        bots = standings_bots(config, store)
        todo = store.unfinished()
        total = store.schedule_size()
        state = RunState(total=total, done=total - len(todo))
        state.retired = [b for b in bots if b not in {c.name for c in config.bots if not c.retired}]
        echo(
            f"{state.total} games, {len(todo)} to play; time control {config.time_control.describe()}; "
            f"sandbox {sandbox_summary(config)}"
        )
        if state.done:
            echo(f"resuming: {state.done} of {state.total} games already played")
        table = LeagueTable.load(store, bots, config.rating, expected=(g.index for g in todo), retired=state.retired)
        # The first refresh waits like the others: games handed out first arrive first.
        last_write = time.monotonic()
        last_report, report_cost = -REPORT_EVERY_S, 0.0

        def refresh(force: bool = False) -> None:
            # O(bots) whatever the league's size, and throttled: the cost per game stays flat.
            nonlocal last_write, last_report, report_cost
            if force or time.monotonic() - last_write >= STANDINGS_EVERY_S:
                # Exact at the end; in between the rating fit is redone as the league grows.
                state.standings = table.standings(exact=force)
                write_files(config.output, config.name, state.standings, state.total)
                table.save(store)
                last_write = time.monotonic()
                # report.html costs more (every game's record goes in, so its cost grows with
                # the league): written less often, at most REPORT_SHARE of the run's time; it
                # reloads itself until the last refresh, which is forced.  Past
                # REPORT_MAX_GAMES a page would be too big to open: 'arena report' makes one.
                due = last_write - last_report >= max(REPORT_EVERY_S, report_cost / REPORT_SHARE)
                if (force or due) and state.done <= REPORT_MAX_GAMES:
                    began = time.monotonic()
                    report = tournament_report(store, bots, config.rating, running=not force)
                    write_report(config.output, report)
                    last_report, report_cost = last_write, time.monotonic() - began

        def on_result(game: ScheduledGame, record: GameRecord) -> None:
            table.add(store.save_game(game, record))
            state.done += 1
            state.played_now += 1
            refresh(force=state.done == state.total)
            if on_progress:
                on_progress(state, game, record)

        def on_failure(game: ScheduledGame, reason: str, retry: bool) -> None:
            echo(f"{'retrying' if retry else 'giving up on'} {game.game_id}: {reason.splitlines()[0]}")
            if not retry:
                state.failures.append((game, reason))
                table.drop(game.index)

        try:
            if todo:
                pool.run(todo, on_result, on_failure, config.retries)
        except BaseException:
            # The error on its way out is the one to report (a full disk, say, fails the
            # standings files too): bring them up to date only if that still works.
            with contextlib.suppress(Exception):
                refresh(force=True)
            raise
        refresh(force=True)
    return state
