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
from typing import TYPE_CHECKING, Any

from arena.errors import ConfigError
from arena.game import seeds, workspace
from arena.game.build import run_build
from arena.game.convention import missing_program
from arena.game.record import GameRecord
from arena.game.referee import BotSpec
from arena.game.sandbox import network
from arena.game.sandbox.bwrap import resolve_mode
from arena.league import changes as league_changes
from arena.league import results_folder
from arena.league.config import (
    LEGACY_DEFAULT_SEAT_ORDERS,
    RUN_ONLY_KEYS,
    BotConfig,
    BotPlacement,
    ExecutorKind,
    Format,
    TournamentConfig,
    find_program,
)
from arena.league.config.reader import did_you_mean
from arena.league.continuous import CONTINUOUS_ID, ContinuousLeague, playing_rows, standings_pairs
from arena.league.executor import GamePool, GameSettings
from arena.league.schedule import ScheduledGame, make_schedule
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.table import LeagueTable
from arena.league.tally import Standings
from arena.report.background import BackgroundReport

if TYPE_CHECKING:
    from arena.cluster import DaskGamePool

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
        missing = missing_program(bot.build, bot.env)
        if missing is not None:
            raise ConfigError(f"{config.path}:{bot.line}: bot {bot.name!r}: its build needs {missing}, not installed here")
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
        name=b.name, command=b.command, cwd=b.cwd, env=dict(b.env), limits=b.limits, sandbox=b.sandbox
    )


def game_pool(config: TournamentConfig, echo: Callable[[str], None]) -> GamePool | DaskGamePool:
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
    # A continuous league: ``total`` is its budget; why it stopped choosing games (None: it
    # did not), and the least certain pair, for progress lines.
    stopped: str | None = None
    note: str = ""


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
        if config.format == Format.CONTINUOUS:
            schedule = _continuous_schedule(config, store, old, echo)
        else:
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
    finished = store.finished_ids()
    changes = _allowed_changes(config, store, old, finished)
    merged = league_changes.merge_schedule(store.schedule(), finished, fresh)
    _note_changes(config, changes, merged.describe(), echo)
    return merged.schedule


def _continuous_schedule(
    config: TournamentConfig, store: ResultStore, old: dict[str, Any] | None, echo: Callable[[str], None]
) -> list[ScheduledGame]:
    """A continuous league's stored schedule (it plans its games as it goes), without the
    unplayed games of bots no longer scheduled or of another format."""
    finished = store.finished_ids()
    changes = None if old is None else _allowed_changes(config, store, old, finished)
    active = {b.name for b in config.bots if not b.retired}
    stored = store.schedule()
    kept = [
        g
        for g in stored
        if g.game_id in finished or (CONTINUOUS_ID.fullmatch(g.game_id) and active.issuperset(g.seats))
    ]
    if changes is not None and old != config.raw:
        dropped = len(stored) - len(kept)
        _note_changes(
            config,
            changes,
            f"kept {len(finished)}" + (f", dropped {dropped} unplayed" if dropped else ""),
            echo,
        )
    return kept


def _allowed_changes(
    config: TournamentConfig, store: ResultStore, old: dict[str, Any], finished: set[str]
) -> league_changes.FileChanges:
    """How the file changed since ``old``; raises ConfigError when that alters how games are
    played and games were played."""
    changes = league_changes.compare_files(old, config.raw)
    old_board = (store.get_meta("conditions") or {}).get("board_contents")
    if old_board != config.play_conditions().get("board_contents") and old.get("board") == config.raw.get(
        "board"
    ):
        changes.refused.append(f"board: the contents of {config.raw.get('board')!r} changed")
    if finished and changes.refused:
        listing = "\n".join(f"  {c}" for c in changes.refused)
        raise ConfigError(
            f"{config.path} changed since the results in {str(config.output)!r} were started:\n"
            f"{listing}\nand that changes how games are played, so old and new games would not "
            "compare. Run with --restart to start over, or set another 'output'. (Bots may be "
            "added, removed or retired, and rounds, challengers and "
            f"{', '.join(sorted(RUN_ONLY_KEYS - {'rounds'}))} may change between runs.)"
        )
    return changes


def _note_changes(
    config: TournamentConfig, changes: league_changes.FileChanges, outcome: str, echo: Callable[[str], None]
) -> None:
    listing = "\n".join(f"  {c}" for c in [*changes.refused, *changes.allowed])
    echo(f"note: {config.path} changed since the last run:\n{listing}\n{outcome}")
    for name in [b.name for b in config.bots if b.retired] + changes.removed:
        echo(f"note: {name!r} is retired: no new games; its games already played still count")


def continuous_league(config: TournamentConfig, store: ResultStore) -> ContinuousLeague:
    """The continuous league of ``store``'s schedule and finished games."""
    return ContinuousLeague(
        [b.name for b in config.bots if not b.retired],
        config.players,
        config.seed,
        config.seat_orders,
        config.continuous,
        config.rating,
        store.schedule(),
        ((index, seats) for index, _board, seats in store.fit_games()),
    )


def run_tournament(
    config: TournamentConfig,
    restart: bool = False,
    echo: Callable[[str], None] = print,
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None = None,
) -> RunState:
    """Play a tournament (or what is left of it) and return how it went.

    The results folder is held for the whole run: another run on it stops at once
    (:class:`~arena.errors.ResultsFolderBusy`).
    """
    with results_folder.hold(config.output, str(config.path)):
        return _play_tournament(config, restart, echo, on_progress)


def play_held(config: TournamentConfig, echo: Callable[[str], None] = print) -> RunState:
    """Play the league in a results folder the caller already holds: ``arena serve`` holds
    its ladder's for as long as it serves, and plays its league in a process of its own."""
    return _play_tournament(config, False, echo, None)


def _play_tournament(
    config: TournamentConfig,
    restart: bool,
    echo: Callable[[str], None],
    on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None,
) -> RunState:
    """Everything of a run inside its held results folder: bots, pool, store, games."""
    with private_copies(config) as config:
        prepare_bots(config, echo)
        pool = game_pool(config, echo)
        with open_store(config, restart, echo) as store:
            return LeagueRun(config, store, echo, on_progress).play(pool)


def _needs_copy(bot: BotConfig, config: TournamentConfig) -> bool:
    """A bot that builds writes its folder, so it gets a copy; so does a ``writable`` bot whose
    folder another bot, the arena's checkout or the results share."""
    if bot.build is not None:
        return True
    if not bot.sandbox.writable:
        return False
    kit = Path(workspace.arena_checkout())
    shared = [o.cwd for o in config.bots if o is not bot] + [kit, config.output]
    return any(p.is_relative_to(bot.cwd) or bot.cwd.is_relative_to(p) for p in shared)


@contextlib.contextmanager
def private_copies(config: TournamentConfig) -> Iterator[TournamentConfig]:
    """The config with each bot that writes its folder given a private copy of it (for the
    run; removed after), so no bot or build writes another's files, the results or the arena."""
    needs = [b for b in config.bots if _needs_copy(b, config)]
    if not needs or config.executor.bots != BotPlacement.SHARED:
        yield config
        return
    root = workspace.new_root()
    try:
        bots = []
        for i, b in enumerate(config.bots):
            if b in needs:
                skip = [config.output, *(o.cwd for o in config.bots if o.cwd != b.cwd)]
                copy = workspace.make_copy(b.cwd, root, f"bot{i}", skip)
                if b.build is None:  # no build will seal it: ready it for the bot's users now
                    workspace.seal(copy, b.sandbox.writable)
                b = replace(b, sandbox=replace(b.sandbox, source=str(copy)))
            bots.append(b)
        yield replace(config, bots=tuple(bots))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def prepare_bots(config: TournamentConfig, echo: Callable[[str], None]) -> None:
    """Warn of each bot that will run unsandboxed; build the bots and check their programs."""
    for warning in sandbox_warnings(config):
        echo(f"warning: {warning}")
    if config.executor.bots == BotPlacement.SHARED:  # uploaded bots are built and checked on each worker
        build_bots(config, echo)
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
        echo: Callable[[str], None],
        on_progress: Callable[[RunState, ScheduledGame, GameRecord], None] | None,
    ) -> None:
        self.config = config
        self.store = store
        self.echo = echo
        self.on_progress = on_progress
        self.bots = standings_bots(config, store)
        self.todo = store.unfinished()
        total = store.schedule_size()
        self.state = RunState(total=total, done=total - len(self.todo))
        self.state.retired = [b for b in self.bots if b not in {c.name for c in config.bots if not c.retired}]
        self.league = continuous_league(config, store) if config.format == Format.CONTINUOUS else None
        if self.league is not None:
            # A lowered budget still plays the games already planned.
            self.state.total = max(config.continuous.max_games, store.schedule_size())
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
        if self.league is None:
            games = f"{state.total} games, {len(self.todo)} to play"
        else:
            games = (
                f"continuous league: until every adjacent pair is settled at "
                f"{config.continuous.confidence:.0%} (ordered, or tied within "
                f"{config.continuous.indifference:g} Elo), at most {state.total:,} games"
            )
        self.echo(
            f"{games}; time control {config.time_control.describe()}; sandbox {sandbox_summary(config)}"
        )
        if state.done:
            self.echo(f"resuming: {state.done} of {state.total} games already played")

    def play(self, pool: GamePool | DaskGamePool) -> RunState:
        """Play the games left on ``pool``; the standings are brought up to date at the end,
        and also when the run fails, if that still works."""
        with self.report:
            try:
                if self.league is not None:
                    pool.run(self.todo, self._on_result, self._on_failure, self.config.retries, self._refill)
                elif self.todo:
                    pool.run(self.todo, self._on_result, self._on_failure, self.config.retries)
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
        if self.league is not None:
            standings = replace(standings, pair_tests=standings_pairs(self.league, playing_rows(standings.rows)))
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
        if self.league is not None:
            self.league.add(game.index, [(seat.name, seat.rank) for seat in summary.seats])
            self.state.note = self.league.note()
        self.state.done += 1
        self.state.played_now += 1
        # The last game's exact refit comes after the loop (past its progress line): it
        # is the run's one-off cost, not this game's.
        if self.state.done < self.state.total:
            self._refresh()
        if self.on_progress:
            self.on_progress(self.state, game, record)

    def _on_failure(self, game: ScheduledGame, reason: str, retry: bool) -> None:
        """A game failed for reasons of the arena: say so; after its last retry, give it up."""
        self.echo(f"{'retrying' if retry else 'giving up on'} {game.game_id}: {reason.splitlines()[0]}")
        if not retry:
            self.state.failures.append((game, reason))
            self.table.drop(game.index)

    def _refill(self, wanted: int) -> list[ScheduledGame]:
        """A continuous league's next ``wanted`` games (fewer, or none, once it stops)."""
        assert self.league is not None
        games = self.league.next_games(wanted)
        self.store.extend_schedule(games)
        self.state.stopped = self.league.stop.describe() if self.league.stop else None
        return games
