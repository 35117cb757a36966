"""``arena run``: a tournament file in, stored games and standings out.

The steps: validate the file, build the bots, check their programs exist,
open (or resume) the results store, play what is left of the schedule in
parallel, store each game as it ends, and keep the standings files and
report.html current.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.errors import ConfigError
from arena.game import seeds, workspace
from arena.game.convention import missing_program
from arena.game.record import GameRecord
from arena.game.referee import BotSpec
from arena.game.sandbox import network
from arena.game.sandbox.bwrap import resolve_mode
from arena.league import results_folder
from arena.league.builds import BotBuild, run_builds
from arena.league.config import (
    BotConfig,
    BotPlacement,
    ExecutorKind,
    TournamentConfig,
    find_program,
)
from arena.league.config.reader import did_you_mean
from arena.league.executor import GamePool, GameSettings
from arena.league.listener import Listener
from arena.league.private_copies import BotFolder, make_copies
from arena.league.resume import resume
from arena.league.resume import schedule_for as schedule_for  # where the benches find it
from arena.league.schedule import ScheduledGame
from arena.league.scheduler import league_scheduler
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.stored import StoredLeague
from arena.league.table import LeagueTable
from arena.league.tally import Standings
from arena.report.background import BackgroundReport

if TYPE_CHECKING:
    from arena.cluster import DaskGamePool

STANDINGS_EVERY_S = 2.0
REPORT_EVERY_S = 10.0
REPORT_SHARE = 0.05  # of the run's time, at most, spent writing report.html
REPORT_MAX_GAMES = 20_000  # past this a run keeps no report.html current (pages of ~6 KB a game)


def without(config: TournamentConfig, names: Sequence[str]) -> TournamentConfig:
    """``config`` with the bots ``names`` retired (``arena run --without NAME``), as if the
    file said ``retired: true`` for each."""
    known = [b.name for b in config.bots]
    for name in names:
        if name not in known:
            hint = did_you_mean(name, known)
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


def build_bots(config: TournamentConfig, listener: Listener) -> None:
    """Run each bot's build command once, in its sandbox; a failure names the bot and shows
    the tail of its output."""
    for bot in config.bots:
        missing = None if bot.build is None else missing_program(bot.build, bot.env)
        if missing is not None:  # one line before any build, not a build that cannot start
            raise ConfigError(f"{config.path}:{bot.line}: bot {bot.name!r}: its build needs {missing}, not installed here")
    builds = [
        BotBuild(b.name, b.build, b.cwd, b.sandbox, b.env, b.build_network) for b in config.bots if b.build is not None
    ]
    failure = run_builds(
        builds,
        config.build_timeout_ms / 1000,
        lambda b: listener.say(f"building {b.bot}: {' '.join(b.command)}"),
        config.build_mb,
    )
    if failure is not None:
        line = next(b.line for b in config.bots if b.name == failure.build.bot)
        raise ConfigError(f"{config.path}:{line}: {failure.describe()}")


def sandbox_warnings(config: TournamentConfig) -> list[str]:
    """Check every bot's sandbox before anything runs: an error when one that is required
    cannot be had, a warning per bot that will run unsandboxed."""
    warnings = []
    for bot in config.bots:
        try:
            sandboxed, warning = resolve_mode(bot.sandbox)
            if sandboxed and (bot.sandbox.network or bot.build_network) and config.executor.kind != "dask":
                network.require()  # here, before any game: never the host's network instead
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
    """Fail, naming the bot, when its folder is missing or its program cannot be found or run."""
    for bot in config.bots:
        if not bot.cwd.is_dir():
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: cwd {str(bot.cwd)!r} is not a folder"
            )
        if find_program(bot.command, Path(bot.sandbox.source or bot.cwd), bot.env) is None:
            raise ConfigError(
                f"{config.path}:{bot.line}: bot {bot.name!r}: 'command' program {bot.command[0]!r} "
                f"not found (looked in {str(bot.cwd)!r} and PATH) or not executable"
            )


def game_settings(config: TournamentConfig) -> GameSettings:
    """What every worker needs to play any game of the tournament."""
    return GameSettings(
        bots={b.name: _bot_spec(b) for b in config.bots},
        params=config.params,
        time_control=config.time_control,
        board="file" if config.board_value is not None else config.board,
        board_value=config.board_value,
        end_grace_s=config.end_grace_ms / 1000,
        multigame=config.multigame,
        restart_every=config.restart_every,
        seed_secret=seeds.run_secret(config.output),  # the league's: each game's seat seeds derive from it
    )


def _bot_spec(b: BotConfig) -> BotSpec:
    """How the referee starts the bot ``b``."""
    return BotSpec(
        name=b.name, command=b.command, cwd=b.cwd, env=dict(b.env), limits=b.limits, sandbox=b.sandbox, logs=b.logs
    )


def game_pool(config: TournamentConfig, listener: Listener) -> GamePool | DaskGamePool:
    """Local worker processes, or a Dask cluster (``executor``): the same ``run`` either way."""
    settings = game_settings(config)
    if config.executor.kind == ExecutorKind.LOCAL:
        return GamePool(settings, config.concurrency)
    try:
        from arena.cluster import DaskGamePool, placement_for  # imports Dask: only for a cluster
    except ImportError as e:
        raise ConfigError(
            f"{config.executor.where}: executor {str(config.executor.kind)!r} needs Dask ({e}): "
            "pip install 'battle-sheep-arena[dask]'"
        ) from None
    return DaskGamePool(settings, config.executor, placement_for(config), config.concurrency, listener)


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
    # A continuous league: ``total`` is its budget; why it stopped choosing games (None: it
    # did not), and the least certain pair, for progress lines.
    stopped: str | None = None
    note: str = ""


class RunListener(Listener, Protocol):
    """What a run tells as it goes: its lines (:class:`arena.league.listener.Listener`) and
    each game as it is stored; the CLI's is :class:`arena.cli.progress.Progress`."""

    def game_done(self, state: RunState, game: ScheduledGame, record: GameRecord) -> None:
        """A game finished and was stored; ``state`` is the run's so far."""
        ...


@dataclass(frozen=True)
class EchoListener:
    """A :class:`RunListener` of two callables: ``echo`` each line, ``on_progress`` each game."""

    echo: Callable[[str], None] = print
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None = None

    def say(self, line: str) -> None:
        self.echo(line)

    def game_done(self, state: RunState, game: ScheduledGame, record: GameRecord) -> None:
        if self.on_progress is not None:
            self.on_progress(state, game, record)


def open_store(config: TournamentConfig, restart: bool) -> tuple[ResultStore, list[str]]:
    """Open the results store, resuming, or growing the league when bots were added; the
    store, and the notes for the user of what was found (an upgraded store, a changed file)."""
    store = ResultStore.create(config.output)
    try:
        notes = [store.upgrade_note] if store.upgrade_note else []
        if restart:
            store.reset()
        notes += resume(store, config).notes
    except BaseException:
        store.close()
        raise
    return store, notes


def run_tournament(
    config: TournamentConfig,
    restart: bool = False,
    echo: Callable[[str], None] = print,
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None = None,
) -> RunState:
    """Play a tournament (or what is left of it) and return how it went: :func:`run_league`
    telling ``echo`` each line and ``on_progress`` each game."""
    return run_league(config, EchoListener(echo, on_progress), restart)


def run_league(config: TournamentConfig, listener: RunListener, restart: bool = False) -> RunState:
    """Play a tournament (or what is left of it), telling ``listener`` as it goes, and return
    how it went.

    The results folder is held for the whole run: another run on it stops at once
    (:class:`~arena.errors.ResultsFolderBusy`).
    """
    with results_folder.hold(config.output, str(config.path)):
        return _play_tournament(config, restart, listener)


def play_held(config: TournamentConfig, echo: Callable[[str], None] = print) -> RunState:
    """Play the league in a results folder the caller already holds: ``arena serve`` holds
    its ladder's for as long as it serves, and plays its league in a process of its own."""
    return _play_tournament(config, False, EchoListener(echo))


def _play_tournament(config: TournamentConfig, restart: bool, listener: RunListener) -> RunState:
    """Everything of a run inside its held results folder: bots, pool, store, games."""
    with private_copies(config) as config:
        prepare_bots(config, listener)
        pool = game_pool(config, listener)
        store, notes = open_store(config, restart)
        with store:
            for note in notes:
                listener.say(note)
            return LeagueRun(config, store, listener).play(pool)


@contextlib.contextmanager
def private_copies(config: TournamentConfig) -> Iterator[TournamentConfig]:
    """The config with each bot that writes its folder given a private copy of it (for the
    run; removed after), so no bot or build writes another's files, the results or the arena."""
    if config.executor.bots != BotPlacement.SHARED:  # uploaded bots are copied on each worker
        yield config
        return
    roots: list[Path] = []

    def new_root() -> Path:
        roots.append(workspace.new_root())
        return roots[-1]

    try:
        folders = [BotFolder(b.name, b.cwd, b.build is not None, b.sandbox.writable) for b in config.bots]
        copies = make_copies(
            folders, new_root, shared=(Path(workspace.arena_checkout()), config.output), skip=(config.output,)
        )
        bots = tuple(
            replace(b, sandbox=replace(b.sandbox, source=str(copies[b.name]))) if b.name in copies else b
            for b in config.bots
        )
        yield replace(config, bots=bots) if copies else config
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)


def prepare_bots(config: TournamentConfig, listener: Listener) -> None:
    """Warn of each bot that will run unsandboxed; build the bots and check their programs."""
    for warning in sandbox_warnings(config):
        listener.say(f"warning: {warning}")
    if config.executor.bots == BotPlacement.SHARED:  # uploaded bots are built and checked on each worker
        build_bots(config, listener)
        check_programs(config)


class LeagueRun:
    """One run over an open results store: plays what is left of the schedule, stores each
    game as it ends, and keeps the standings files and report.html current.

    Making one announces the run (games to play, time control, sandbox) and loads the
    standings table of the games already played; :meth:`play` plays the rest.
    """

    def __init__(
        self,
        config: TournamentConfig,
        store: ResultStore,
        listener: RunListener,
    ) -> None:
        self.config = config
        self.store = store
        self.listener = listener
        self.bots = StoredLeague.read(store).with_removed([b.name for b in config.bots])
        self.todo = store.unfinished()
        total = store.schedule_size()
        self.league = league_scheduler(config, store)
        self.state = RunState(total=self.league.total(total), done=total - len(self.todo))
        self.state.retired = [b for b in self.bots if b not in {c.name for c in config.bots if not c.retired}]
        self._announce()
        self.table = LeagueTable.load(
            store, self.bots, config.rating, expected=store.unfinished_indexes(), retired=self.state.retired
        )
        # The first refresh waits like the others: games handed out first arrive first.
        self.last_write = time.monotonic()
        self.last_report = -REPORT_EVERY_S
        self.report = BackgroundReport(config.output, self.bots, config.rating)

    def _announce(self) -> None:
        """The run's first lines: how many games, the time control, the sandbox; resuming."""
        config, state = self.config, self.state
        games = self.league.describe(state.total, len(self.todo))
        self.listener.say(
            f"{games}; time control {config.time_control.describe()}; sandbox {sandbox_summary(config)}"
        )
        if (warning := self.league.warning()) is not None:
            self.listener.say(warning)
        if state.done:
            self.listener.say(f"resuming: {state.done} of {state.total} games already played")

    def play(self, pool: GamePool | DaskGamePool) -> RunState:
        """Play the games left on ``pool``; the standings are brought up to date at the end,
        and also when the run fails, if that still works."""
        with self.report:
            try:
                # A scheduler that plans no more games gives the pool nothing to ask: it then
                # starts no more workers than there are games, and none for no games.
                more = {"refill": self._refill} if self.league.open_ended else {}
                if self.todo or more:
                    pool.run(self.todo, self._on_result, self._on_failure, self.config.retries, **more)
            except BaseException:
                # The error on its way out is the one to report (a full disk, say, fails the
                # standings files too): bring them up to date only if that still works.
                with contextlib.suppress(Exception):
                    self._refresh(force=True)
                raise
            self._refresh(force=True)
        return self.state

    def _refresh(self, force: bool = False) -> None:
        """Rewrite the standings files (at most every STANDINGS_EVERY_S, unless ``force``)."""
        # O(bots) whatever the league's size, and throttled: the cost per game stays flat.
        if not force and time.monotonic() - self.last_write < STANDINGS_EVERY_S:
            return
        # Exact at the end; in between the rating fit is redone as the league grows.
        standings = self.table.standings(exact=force)
        standings = replace(standings, pair_tests=self.league.pair_tests(standings.rows))
        self.state.standings = standings
        write_files(self.config.output, self.config.name, self.state.standings, self.state.total)
        self.table.save(self.store)
        self.last_write = time.monotonic()
        self._refresh_report(force)

    def _refresh_report(self, force: bool) -> None:
        """Start a new report.html page when it is time; at the end (``force``) the last one.

        report.html holds every game's record, so its cost grows with the league: a
        child process makes it (the games go on meanwhile), one page at a time, at
        most REPORT_SHARE of the run's time; the page reloads itself until the last,
        which the run waits for.  Past REPORT_MAX_GAMES a page would be too big to
        open: 'arena report' makes one.
        """
        if self.state.done > REPORT_MAX_GAMES:
            return
        self.report.busy()  # a page done is noticed here, and a failed one stops the run
        if force:
            self.report.finish(running=False, games=self.state.done)
        elif self.last_write - self.last_report >= max(
            REPORT_EVERY_S, self.report.cost / REPORT_SHARE
        ) and self.report.start(running=True, games=self.state.done):
            self.last_report = self.last_write

    def _on_result(self, game: ScheduledGame, record: GameRecord) -> None:
        """A game ended: store it, count it, and refresh the standings when it is time."""
        summary = self.store.save_game(game, record)
        self.table.add(summary)
        self.league.add(game.index, [(seat.name, seat.rank) for seat in summary.seats])
        self.state.note = self.league.note()
        self.state.done += 1
        self.state.played_now += 1
        # The last game's exact refit comes after the loop (past its progress line): it
        # is the run's one-off cost, not this game's.
        if self.state.done < self.state.total:
            self._refresh()
        self.listener.game_done(self.state, game, record)

    def _on_failure(self, game: ScheduledGame, reason: str, retry: bool) -> None:
        """A game failed for reasons of the arena: say so; after its last retry, give it up."""
        self.listener.say(f"{'retrying' if retry else 'giving up on'} {game.game_id}: {reason.splitlines()[0]}")
        if not retry:
            self.state.failures.append((game, reason))
            self.table.drop(game.index)

    def _refill(self, wanted: int) -> list[ScheduledGame]:
        """The scheduler's next ``wanted`` games (fewer, or none, once it stops), stored first."""
        games = self.league.next_games(wanted)
        self.store.extend_schedule(games)
        self.state.stopped = self.league.stopped()
        return games
