"""``arena run``, ``arena standings`` and ``arena games``: leagues and their results."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from arena.cli.common import ArenaFailure, ExitCode, main
from arena.cli.faults import fault_json, first_faults, print_fault_evidence
from arena.cli.progress import Progress, game_line
from arena.cli.results_arg import open_results
from arena.errors import ConfigError, ResultsWriteError, StoreError
from arena.game.record import FaultKind, GameRecord
from arena.league.config import (
    ExecutorKind,
    TournamentConfig,
    load_config,
    scheduler_problem,
)
from arena.league.continuous import playing_rows, stored_pair_tests
from arena.league.game_summary import GameSummary
from arena.league.neighbours import PairTests
from arena.league.standings import FORMATS, render
from arena.league.store import ResultStore, store_path
from arena.league.stored import StoredLeague
from arena.league.table import stored_standings
from arena.league.tally import Standings
from arena.rules import PLAYER_LETTERS
from arena.tournament import RunState, run_league, without
from arena.untrusted import printable


@main.command("run")
@click.argument("tournament", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--restart",
    is_flag=True,
    help="Delete every stored game of the output folder and start over (asks first on a terminal; "
    "elsewhere needs --yes). Not needed after adding or removing bots: a plain re-run keeps every game.",
)
@click.option("--yes", "-y", is_flag=True, help="With --restart: delete the stored games without asking.")
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 256),
    default=None,
    help="Games at once (overrides the file's 'concurrency').",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Play the games on the Dask cluster of this scheduler (tcp://host:8786), "
    "whatever the file's 'executor' says; the file's 'executor.bots' still applies.",
)
@click.option(
    "--without",
    "retire",
    multiple=True,
    metavar="NAME",
    help="Schedule no new games for this bot (repeatable), as 'retired: true' in the file would; "
    "its games already played still count.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress; print the standings at the end only.")
def run_cmd(
    tournament: Path,
    restart: bool,
    yes: bool,
    concurrency: int | None,
    scheduler: str | None,
    retire: tuple[str, ...],
    quiet: bool,
) -> None:
    """Run the tournament described in TOURNAMENT (a YAML file).

    Results go to the file's 'output' folder (default results/NAME beside the
    file): a SQLite store with every game, and standings.md / standings.json,
    kept current while it runs. Running the same command again resumes where
    it stopped; Ctrl-C stops cleanly and keeps every finished game. Bots added
    to the file since the last run get only their new games (every game played
    is kept); a bot removed, or marked 'retired: true', or left out with
    --without, gets no new games, and its games played still count. A change to
    how games are played (time control, rules, board, a bot's command...) is
    refused, naming the key. 'output'
    must be a new, empty or results folder; a run holds it for itself, so a
    second run on the same folder stops at once naming the first ('arena
    standings', 'games' and 'replay' still read it meanwhile). A store written
    by an older arena is upgraded in place; one written by a newer arena is
    refused.

    With --scheduler (or 'executor' in the file) the games are played on a
    Dask cluster; this process still stores every record and the standings.

    Exit codes: 0 every game played; 1 some games failed for reasons of the
    arena itself (rerun to retry them), or the results could not be written
    (a full disk: free space, rerun to resume); 2 a bad file, option or bot
    build, or a results folder that is not ours or is in use, or a Dask cluster
    that cannot be reached or has no worker able to play; 130 interrupted.
    """
    config = _configured(tournament, concurrency, scheduler, retire)
    if restart and not yes:
        _confirm_restart(config.output)
    progress = Progress(quiet, sys.stdout.isatty())
    progress.say(_announcement(config))
    state = _run(config, restart, progress)
    progress.close()
    _print_outcome(config, state, progress)
    if state.failures:
        _print_failures(state)
        sys.exit(ExitCode.FAILED)


def terminal_width() -> int | None:
    """The width to fit the standings to: $COLUMNS, else the terminal's; None when writing
    to a file or a pipe (every column, the legend at 100)."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _stored_games(output: Path) -> int:
    """How many finished games the results folder holds (0 when it has no store yet)."""
    if not store_path(output).is_file():
        return 0
    try:
        with ResultStore.open(output) as store:
            return len(store.finished_ids())
    except StoreError:
        return 0  # not a store we can read: the run itself says what is wrong with it


def _on_terminal() -> bool:
    """Whether someone at a terminal can answer a question."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _confirm_restart(output: Path) -> None:
    """--restart deletes every stored game: ask on a terminal, refuse elsewhere without --yes."""
    games = _stored_games(output)
    if games == 0:
        return
    what = f"--restart deletes the {games} stored game(s) in {printable(str(output))}"
    if not _on_terminal():
        raise ArenaFailure(f"{what}; add --yes to do so without a terminal (a plain re-run keeps them)")
    if not click.confirm(f"{what} and starts over. Delete them?", default=False):
        click.echo("nothing deleted", err=True)
        sys.exit(ExitCode.ARENA_ERROR)


def _configured(
    tournament: Path, concurrency: int | None, scheduler: str | None, retire: tuple[str, ...]
) -> TournamentConfig:
    """The tournament file, with what the options override."""
    config = load_config(tournament)
    if concurrency is not None:
        config = replace(config, concurrency=concurrency)
    if scheduler is not None:
        executor = replace(config.executor, kind=ExecutorKind.DASK, scheduler=scheduler, workers=None, where="--scheduler")
        problem = scheduler_problem(scheduler, executor.security is not None, executor.insecure)
        if problem is not None:
            raise ConfigError(f"--scheduler: {problem}")
        config = replace(config, executor=executor)
    if retire:
        config = without(config, retire)
    return config


def _announcement(config: TournamentConfig) -> str:
    """The run's first line: bots, players, rounds, where the games are played, where results go."""
    where = {
        "local": f"{config.concurrency} at once",
        "dask": f"on the Dask cluster at {config.executor.scheduler or '?'}",
        "dask-local": f"on a local Dask cluster of {config.executor.workers or config.concurrency} workers",
    }[config.executor.kind]
    rounds = "continuous" if config.format == "continuous" else f"{config.rounds} round(s)"
    return (
        f"{config.name}: {len(config.bots)} bots, {config.players} players per game, "
        f"{rounds}, {where} -> {config.output}"
    )


def _run(config: TournamentConfig, restart: bool, progress: Progress) -> RunState:
    """Run the league; Ctrl-C and a results folder that cannot be written end the command here."""
    try:
        return run_league(config, progress, restart)
    except KeyboardInterrupt:
        progress.close()
        click.echo("\ninterrupted: finished games are saved; run the same command to resume", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except ResultsWriteError as e:  # a full disk: one line, exit 1 like other failures of the arena
        progress.close()
        raise click.ClickException(str(e)) from e


def _print_outcome(config: TournamentConfig, state: RunState, progress: Progress) -> None:
    """The standings, the retired bots, how many games were played and how, why the run stopped."""
    if state.standings is not None:
        click.echo("")
        # The stopped line below says how the pairs stand: not twice.
        shown = replace(state.standings, pair_tests=None) if state.stopped else state.standings
        click.echo(render(shown, "plain", terminal_width()))
        if state.retired:
            names = ", ".join(printable(b) for b in state.retired)
            click.echo(f"\nretired (no new games; their games played still count): {names}")
    elapsed = time.monotonic() - state.started
    click.echo(
        f"\n{state.done}/{state.total} games ({state.played_now} played now in {elapsed:.1f}s); "
        f"results in {config.output}"
    )
    click.echo(progress.summary())
    if state.stopped:
        click.echo(f"stopped: {printable(state.stopped)}")
    _print_run_faults(config)


def _print_run_faults(config: TournamentConfig) -> None:
    """The first fault of each bot and kind in the results, with its evidence."""
    if not store_path(config.output).is_file():
        return
    with ResultStore.open(config.output) as store:
        faults = first_faults(store.summaries())
        if faults:
            click.echo(f"\nfaults (the first of each bot and kind; all: arena games {config.output} --fault any):")
            print_fault_evidence(store, faults, str(config.output))


def _print_failures(state: RunState) -> None:
    """The games the arena failed to play, on stderr: each one's reason, then the list to retry."""
    click.echo(f"{len(state.failures)} game(s) failed for reasons of the arena (rerun to retry):", err=True)
    for _game, why in state.failures:
        click.echo("  " + printable(why.splitlines()[0]), err=True)
    listing = printable(", ".join(f"{g.game_id} ({' vs '.join(g.seats)})" for g, _ in state.failures))
    click.echo(
        f"FAILED: {len(state.failures)} of {state.total} games not played: {listing}; "
        "run the same command to retry them",
        err=True,
    )


@main.command("standings", short_help="Print the standings of RESULTS (a results folder).")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="plain",
    show_default=True,
    help="plain: a table for the terminal; github: Markdown; html: a table; csv: for spreadsheets "
    "and tools (numbers in their own columns); json: everything, as standings.json.",
)
@click.option(
    "--wide",
    is_flag=True,
    help="plain: every column, however narrow the terminal (without it, a table wider than the "
    "terminal leaves out its finer columns, naming them).",
)
def standings_cmd(results: Path, fmt: str, wide: bool) -> None:
    """Print the standings of RESULTS (a results folder, or its tournament file).

    The store is opened read-only: a folder on a read-only mount, or one a run
    is writing, can be read. Bot names are escaped for the format (control
    characters made visible; Markdown, HTML and spreadsheet formulas defused).

    Bots are ranked by mu (the skill of the TrueSkill fit), then rating (mu - 3
    sigma, a cautious floor), then name; each row shows mu's 95% interval and
    P(better), the probability from the joint posterior of the two bots that
    the bot is better than the next one down: it compares the same mu as the
    rank (a rank marked ? is within noise of the next).
    points are mean game points (share of opponents finished above, a tie half),
    wins are outright first places and shared the first places shared. W-D-L
    counts, per opponent per game, placed ahead / same place / behind (2
    players: won, drawn, lost); Ptnml(0-2) (2 players) counts board pairs (one
    board, seats swapped) scoring 0, 0.5, 1, 1.5, 2. A bot marked (retired)
    gets no new games; its games played count. A WARNING line says when the
    rating fit or the Elo fit stopped at its limit without converging. For a
    continuous league a line under the table, pairs at 95%: ..., says how each
    two neighbours still in the league stand by their pair test: ordered, tied
    within the league's indifference (Elo), or not settled (csv: a pair_test
    column, json: pairs).

    The JSON format (the same as standings.json) is an object: format (5),
    games, players, sort, rating (the model's settings), model (name, better:
    joint or independent, and for batch: converged, sweeps, max_sweeps,
    tolerance, elo: converged and iterations), within_noise_below,
    rows (rank, bot, rating, mu, sigma, mu_low, mu_high, better_than_next,
    close, elo, games, wdl, pentanomial, points, wins, shared_firsts,
    avg_place, avg_hexes, faults, faults_by_kind, unsandboxed, network,
    retired), pairs (a continuous league's: above, below, verdict ordered,
    tied or open; else null) with pair_test (confidence, indifference; else
    null), crosstable (bot -> opponent -> games, points, wdl, pentanomial)
    and seats (mean points and games per seat).
    """
    store, bots, rating = open_results(results)
    with store:
        st = stored_standings(store, bots, rating, StoredLeague.read(store).retired())
        st = replace(st, pair_tests=_continuous_pairs(store, st))
    click.echo(render(st, fmt, terminal_width(), wide))


def _continuous_pairs(store: ResultStore, st: Standings) -> PairTests | None:
    """A continuous league's pairs of neighbours in the standings, ordered, tied or open by
    their tests; None for another league, or a stored file whose settings cannot be read."""
    return stored_pair_tests(store, playing_rows(st.rows))


def _game_json(g: GameSummary, store: ResultStore | None = None) -> dict[str, Any]:
    """A game for ``--format json``; with ``store``, each fault with its evidence too."""
    return {
        "id": g.game_id,
        "seed": g.seed,
        "seats": g.names,
        "ranking": g.ranking,
        "hexes": [s.hexes for s in g.seats],
        "moves": g.moves,
        "faults": [
            {
                "bot": g.seats[p].name,
                "seat": PLAYER_LETTERS[p],
                "reason": f.kind.value,
                "detail": f.detail,
                "ply": f.ply,
                **(fault_json(store, g.game_id, p) if store is not None else {}),
            }
            for p, f in g.faults
        ],
    }


def _echo_json_list(items: Iterator[dict[str, Any]]) -> None:
    """Print ``items`` as ``json.dumps(list(items), indent=1)`` would, one at a time.

    A league's listing starts at once and is never all in memory; a reader that
    stops early (``| head``) ends the listing quietly.
    """
    try:
        first = True
        for item in items:
            # Within a list every line of an item is indented one more space; a JSON
            # string never holds a raw newline, so this touches only the layout.
            text = json.dumps(item, indent=1).replace("\n", "\n ")
            sys.stdout.write(("[\n " if first else ",\n ") + text)
            first = False
        sys.stdout.write("[]\n" if first else "\n]\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader is gone: point stdout at /dev/null so that flushing at exit cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.exit(ExitCode.FAILED)


@main.command("games")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option("--bot", help="Only games this bot played.")
@click.option(
    "--fault",
    type=click.Choice([k.value for k in FaultKind] + ["any"]),
    help="Only games with a fault of this kind (or any).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: one line per game; json: a list of one object per game (id, seed, seats, "
    "ranking, hexes, moves, faults), for tools.",
)
def games_cmd(results: Path, bot: str | None, fault: str | None, fmt: str) -> None:
    """List the finished games of RESULTS, in schedule order.

    Replay one with: arena replay RESULTS GAME_ID
    """
    store, bots, _ = open_results(results)
    with store:
        games: Iterator[GameSummary] = store.summaries()
        if bot is not None:
            if bots:
                _check_bot(bot, bots, results)
            games = (g for g in games if bot in g.names)
        if fault is not None:
            games = (g for g in games if any(fault == "any" or f.kind.value == fault for _p, f in g.faults))
        if fmt == "json":
            _echo_json_list(_game_json(g, store if fault is not None else None) for g in games)
            return
        rows = []
        listed: list[GameSummary] = []
        for g in games:
            listed.append(g)
            faults = "; ".join(f"{printable(g.seats[p].name)}: {f.kind.value}" for p, f in g.faults)
            seats = " vs ".join(printable(n) for n in g.names)
            rows.append([printable(g.game_id), seats, game_line(g), g.moves, faults])
        click.echo(tabulate(rows, headers=["id", "seats", "result (rank. bot hexes)", "moves", "faults"]))
        click.echo(f"\n{len(rows)} game(s)")
        if fault is not None:  # with --fault, what each listed fault left as evidence
            shown = [(g.game_id, p) for g in listed for p, f in g.faults if fault in ("any", f.kind.value)]
            print_fault_evidence(store, shown, str(results))


def _check_bot(bot: str, bots: list[str], results: Path) -> None:
    """Refuse a bot that is not in the tournament: a typo would list no games, and say nothing."""
    if bot in bots:
        return
    close = difflib.get_close_matches(bot, bots, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(
        f"--bot {bot!r}: no such bot in {str(results)!r}{hint}; bots: {', '.join(bots) or 'none'}"
    )


def load_from_results(target: Path, game_id: str) -> GameRecord:
    """One game's record from a results folder (or its store, or the tournament file)."""
    store, _bots, _ = open_results(target)
    with store:
        return store.record(game_id)
