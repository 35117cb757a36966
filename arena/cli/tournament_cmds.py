"""``arena run``, ``arena standings`` and ``arena games``: leagues and their results."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from ..config import RatingConfig, load_config
from ..record import FaultKind, GameRecord
from ..rules import PLAYER_LETTERS
from ..schedule import ScheduledGame
from ..standings import FORMATS, compute_standings, render
from ..store import ResultStore, ResultsWriteError
from ..tournament import RunState, run_tournament
from .common import main


def _leaders(state: RunState, n: int = 3) -> str:
    if state.standings is None or not state.standings.rows:
        return ""
    return "leaders: " + ", ".join(f"{r.bot} {r.score:.1f}" for r in state.standings.rows[:n])


def _game_line(record: GameRecord) -> str:
    parts = []
    for s in sorted(record.standings, key=lambda s: (s.rank, s.player)):
        seat = record.seats[s.player]
        note = f" ({seat.fault.kind.value})" if seat.fault else ""
        parts.append(f"{s.rank}. {seat.name} {s.hexes}{note}")
    return "  ".join(parts)


class _Progress:
    """A progress bar with ETA and the leaders on a terminal; plain lines elsewhere."""

    def __init__(self, quiet: bool, tty: bool) -> None:
        self.quiet = quiet
        self.tty = tty
        self.bar: Any = None
        self.state: RunState | None = None
        self.last_plain = 0.0

    def update(self, state: RunState, game: ScheduledGame, record: GameRecord) -> None:
        self.state = state
        if self.quiet:
            return
        if self.tty:
            if self.bar is None:
                self.bar = click.progressbar(
                    length=state.total,
                    label="games",
                    show_eta=True,
                    show_pos=True,
                    item_show_func=lambda _item: _leaders(state),
                )
                self.bar.__enter__()
                self.bar.update(state.done - 1)
            self.bar.update(1, current_item=game.game_id)
            return
        line = f"[{state.done}/{state.total}] {game.game_id}: {_game_line(record)}"
        now = time.monotonic()
        if now - self.last_plain >= 5 or state.done == state.total:
            line += f"   {_leaders(state)}"
            self.last_plain = now
        click.echo(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@main.command("run")
@click.argument("tournament", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--restart", is_flag=True, help="Forget the stored results and start over.")
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
@click.option("--quiet", "-q", is_flag=True, help="No progress; print the standings at the end only.")
def run_cmd(tournament: Path, restart: bool, concurrency: int | None, scheduler: str | None, quiet: bool) -> None:
    """Run the tournament described in TOURNAMENT (a YAML file).

    Results go to the file's 'output' folder (default results/NAME beside the
    file): a SQLite store with every game, and standings.md / standings.json,
    kept current while it runs. Running the same command again resumes where
    it stopped; Ctrl-C stops cleanly and keeps every finished game.

    With --scheduler (or 'executor' in the file) the games are played on a
    Dask cluster; this process still stores every record and the standings.

    Exit codes: 0 every game played; 1 some games failed for reasons of the
    arena itself (rerun to retry them), or the results could not be written
    (a full disk: free space, rerun to resume); 2 a bad file, option or bot
    build, or a Dask cluster that cannot be reached or has no worker able to
    play; 130 interrupted.
    """
    config = load_config(tournament)
    if concurrency is not None:
        config = replace(config, concurrency=concurrency)
    if scheduler is not None:
        executor = replace(config.executor, kind="dask", scheduler=scheduler, workers=None, where="--scheduler")
        config = replace(config, executor=executor)
    echo = (lambda _s: None) if quiet else click.echo
    where = {
        "local": f"{config.concurrency} at once",
        "dask": f"on the Dask cluster at {config.executor.scheduler or '?'}",
        "dask-local": f"on a local Dask cluster of {config.executor.workers or config.concurrency} workers",
    }[config.executor.kind]
    echo(
        f"{config.name}: {len(config.bots)} bots, {config.players} players per game, "
        f"{config.rounds} round(s), {where} -> {config.output}"
    )
    progress = _Progress(quiet, sys.stdout.isatty())
    try:
        state = run_tournament(config, restart, echo, progress.update)
    except KeyboardInterrupt:
        progress.close()
        click.echo("\ninterrupted: finished games are saved; run the same command to resume", err=True)
        sys.exit(130)
    except ResultsWriteError as e:  # a full disk: one line, exit 1 like other failures of the arena
        progress.close()
        raise click.ClickException(str(e)) from e
    progress.close()
    if state.standings is not None:
        click.echo("")
        click.echo(render(state.standings, "plain"))
    elapsed = time.monotonic() - state.started
    click.echo(
        f"\n{state.done}/{state.total} games ({state.played_now} played now in {elapsed:.1f}s); "
        f"results in {config.output}"
    )
    if state.failures:
        click.echo(
            f"{len(state.failures)} game(s) failed for reasons of the arena (rerun to retry):", err=True
        )
        for _game, why in state.failures:
            click.echo("  " + why.splitlines()[0], err=True)
        listing = ", ".join(f"{g.game_id} ({' vs '.join(g.seats)})" for g, _ in state.failures)
        click.echo(
            f"FAILED: {len(state.failures)} of {state.total} games not played: {listing}; "
            "run the same command to retry them",
            err=True,
        )
        sys.exit(1)


def _open_results(target: Path) -> tuple[ResultStore, list[str], RatingConfig]:
    """A results folder, its store file, or the tournament file that wrote it."""
    if target.suffix in (".yaml", ".yml"):
        config = load_config(target)
        return ResultStore.open(config.output), [b.name for b in config.bots], config.rating
    store = ResultStore.open(target)
    raw = store.get_meta("config") or {}
    bots = [b.get("name") for b in raw.get("bots", []) if isinstance(b, dict)]
    rating = RatingConfig(**{k: float(v) for k, v in (raw.get("rating") or {}).items()})
    return store, [b for b in bots if isinstance(b, str)], rating


@main.command("standings")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="plain", show_default=True)
def standings_cmd(results: Path, fmt: str) -> None:
    """Print the standings of RESULTS (a results folder, or its tournament file).

    The JSON format is a list of rows with rank, bot, score (mu - 3 sigma), mu,
    sigma, games, avg_place, wins, avg_score, avg_hexes, faults and
    faults_by_kind.
    """
    store, bots, rating = _open_results(results)
    with store:
        st = compute_standings(list(store.records()), bots, rating)
    click.echo(render(st, fmt))


@main.command("games")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option("--bot", help="Only games this bot played.")
@click.option(
    "--fault",
    type=click.Choice([k.value for k in FaultKind] + ["any"]),
    help="Only games with a fault of this kind (or any).",
)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def games_cmd(results: Path, bot: str | None, fault: str | None, fmt: str) -> None:
    """List the finished games of RESULTS, in schedule order.

    Replay one with: arena replay RESULTS GAME_ID
    """
    store, _bots, _ = _open_results(results)
    with store:
        records = list(store.records())
    if bot is not None:
        records = [r for r in records if any(s.name == bot for s in r.seats)]
    if fault is not None:
        records = [
            r
            for r in records
            if any(s.fault and (fault == "any" or s.fault.kind.value == fault) for s in r.seats)
        ]
    if fmt == "json":
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.game_id,
                        "seed": r.seed,
                        "seats": [s.name for s in r.seats],
                        "ranking": r.ranking,
                        "hexes": [s.hexes for s in r.standings],
                        "moves": len(r.moves),
                        "faults": [
                            {
                                "bot": r.seats[p].name,
                                "seat": PLAYER_LETTERS[p],
                                "reason": f.kind.value,
                                "detail": f.detail,
                                "ply": f.ply,
                            }
                            for p, f in r.faults
                        ],
                    }
                    for r in records
                ],
                indent=1,
            )
        )
        return
    rows = []
    for r in records:
        faults = "; ".join(f"{r.seats[p].name}: {f.kind.value}" for p, f in r.faults)
        rows.append([r.game_id, " vs ".join(s.name for s in r.seats), _game_line(r), len(r.moves), faults])
    click.echo(tabulate(rows, headers=["id", "seats", "result (rank. bot hexes)", "moves", "faults"]))
    click.echo(f"\n{len(records)} game(s)")


def load_from_results(target: Path, game_id: str) -> GameRecord:
    store, _bots, _ = _open_results(target)
    with store:
        return store.record(game_id)
