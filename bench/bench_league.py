"""A league of instant C bots through the whole tournament runner, at concurrency 1 and 2.

Writes a tournament file into a temporary folder (4 bots, all
``sample_bots/c/greedy --random`` under different names, 2 players, R rounds,
every seat order, random boards, ``end_grace: 200ms``), then runs it with
:func:`arena.tournament.run_tournament` at concurrency 1 and then 2, each into
a fresh output folder, and reports games/s and the speedup.

The two concurrencies alternate (1, 2, 1, 2, ...) for ``--runs`` runs each,
so that a noisy machine hits both alike; figures are over all runs.

Beside the bots' time it reports the arena's own cost per game: wall time x
concurrency (the workers' time) minus the time inside ``play_game`` (the sum
of the stored records' ``duration_ms``, the referee's own measure of each
game), and the CPU time of everything (parent, workers, bots) against the
wall time.  The parent's share is timed during the runs (``save_game``,
``LeagueTable.add`` and ``.standings``, ``write_files``), and microbenchmarks
time, one by one, what the difference is made of: ``compute_standings`` over
all stored records (the rating), ``ResultStore.save_game`` for as many
records (the store), loading the records, the worker's board generation
before ``play_game``, a record's trip from worker to parent, and starting and
stopping a pool.  Run from the repository root:

    python bench/bench_league.py [--rounds 3] [--runs 3] [--seed 1] [--repeat 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import arena.tournament as tournament_mod
from arena.game.record import GameRecord
from arena.league.config import TournamentConfig, load_config
from arena.league.executor import GamePool
from arena.league.schedule import ScheduledGame
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.table import LeagueTable
from arena.league.tally import compute_standings
from arena.tournament import game_settings, run_tournament, schedule_for

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("rand-a", "rand-b", "rand-c", "rand-d")
COMMAND = "sample_bots/c/greedy --random"


def tournament_yaml(rounds: int, seed: int, output: Path) -> str:
    bots = "".join(f"  - name: {name}\n    command: {COMMAND}\n" for name in BOTS)
    return (
        "name: bench-league\n"
        f"seed: {seed}\n"
        "players: 2\n"
        f"rounds: {rounds}\n"
        "board: random\n"
        "time_control: {move: 1s}\n"
        "end_grace: 200ms\n"
        f"cwd: {json.dumps(str(ROOT))}\n"  # a JSON string is a YAML string
        f"output: {json.dumps(str(output))}\n"
        f"bots:\n{bots}"
    )


class Timer:
    """Calls and seconds spent in one function during a run."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, timed."""

        def timed(*args: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        return timed


@contextmanager
def timed_parent() -> Iterator[dict[str, Timer]]:
    """Time the parent's store and standings work while run_tournament runs (then restore).

    ``run_tournament`` looks these up when it calls them: ``ResultStore.save_game``,
    ``LeagueTable.add`` (each game) and ``LeagueTable.standings`` (each refresh) on their
    classes, and ``write_files`` in :mod:`arena.tournament`.
    """
    targets: dict[str, Any] = {
        "save_game": ResultStore,
        "add": LeagueTable,
        "standings": LeagueTable,
        "write_files": tournament_mod,
    }
    timers = {name: Timer() for name in targets}
    saved = {name: getattr(owner, name) for name, owner in targets.items()}
    for name, owner in targets.items():
        setattr(owner, name, timers[name].wrap(saved[name]))
    try:
        yield timers
    finally:
        for name, owner in targets.items():
            setattr(owner, name, saved[name])


@dataclasses.dataclass
class Run:
    concurrency: int
    games: int
    wall_s: float
    referee_s: float  # sum of duration_ms: time inside play_game
    timers: dict[str, Timer]
    records: list[GameRecord]
    cpu_s: float = 0.0  # user + system time of the parent, the workers and the bots
    runs: int = 1

    @property
    def per_game(self) -> float:
        return self.wall_s / self.games


def cpu_seconds() -> float:
    """User + system time of this process and of every descendant reaped so far (workers, bots)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run(config: TournamentConfig, concurrency: int, output: Path) -> Run:
    cfg = dataclasses.replace(config, concurrency=concurrency, output=output)
    notes: list[str] = []
    with timed_parent() as timers:
        cpu0 = cpu_seconds()
        t0 = time.perf_counter()
        state = run_tournament(cfg, echo=notes.append)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
    if state.failures or state.played_now != state.total:
        sys.exit(f"concurrency {concurrency}: {state.played_now}/{state.total} played\n" + "\n".join(notes))
    with ResultStore.open(output) as store:
        records = list(store.records())
    faults = [(r.game_id, f) for r in records for f in r.faults]
    if faults:
        print(f"  warning: {len(faults)} fault(s), first: {faults[0]}")
    return Run(
        concurrency, len(records), wall, sum(r.duration_ms for r in records) / 1000, timers, records, cpu
    )


def pooled(runs: list[Run]) -> Run:
    """Several runs at one concurrency as one: games, times and calls added up."""
    timers = {key: Timer() for key in runs[0].timers}
    for r in runs:
        for key, t in r.timers.items():
            timers[key].calls += t.calls
            timers[key].seconds += t.seconds
    return Run(
        runs[0].concurrency,
        sum(r.games for r in runs),
        sum(r.wall_s for r in runs),
        sum(r.referee_s for r in runs),
        timers,
        runs[0].records,
        sum(r.cpu_s for r in runs),
        len(runs),
    )


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeat`` timings of ``fn()`` (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the league (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    ap.add_argument(
        "--runs", type=int, default=3, help="runs at each concurrency, alternating 1, 2, 1, 2... (default 3)"
    )
    ap.add_argument(
        "--repeat", type=int, default=5, help="repeats of each microbenchmark, best kept (default 5)"
    )
    args = ap.parse_args()

    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots/c")], check=True)
    with tempfile.TemporaryDirectory(prefix="bench-league-") as tmp_name:
        tmp = Path(tmp_name)
        path = tmp / "league.yaml"
        path.write_text(tournament_yaml(args.rounds, args.seed, tmp / "out"))
        config = load_config(path)
        schedule = schedule_for(config)
        print(
            f"league: {len(BOTS)} x '{COMMAND}', 2 players, {args.rounds} rounds, "
            f"{len(schedule)} games, end_grace {config.end_grace_ms} ms, {config.time_control.describe()}"
        )

        # Alternate the two concurrencies, so that a noisy machine hits both alike.
        played: dict[int, list[Run]] = {1: [], 2: []}
        for i in range(args.runs):
            for c in (1, 2):
                played[c].append(run(config, c, tmp / f"out-c{c}-{i}"))
        runs = [pooled(played[c]) for c in (1, 2)]

        # -- microbenchmarks ---------------------------------------------------------------
        records = runs[0].records
        n = len(records)
        names = [b.name for b in config.bots]
        standings = compute_standings(records, names, config.rating)
        t_rating = best_of(args.repeat, lambda: compute_standings(records, names, config.rating))
        t_write = best_of(args.repeat, lambda: write_files(tmp / "micro", "bench", standings, n))
        with ResultStore.open(tmp / "out-c1-0") as store:
            t_load = best_of(args.repeat, lambda: list(store.records()))
        by_id = {g.game_id: g for g in schedule}

        fresh = itertools.count()

        def save_all() -> None:
            with ResultStore.create(tmp / f"micro-store-{next(fresh)}") as store:
                for r in records:
                    store.save_game(by_id[r.game_id], r)

        t_save = best_of(args.repeat, save_all)
        settings = game_settings(config)
        t_board = best_of(args.repeat, lambda: [settings.setup(g) for g in schedule]) / len(schedule)

        def to_parent() -> None:  # what a finished game costs between worker and parent
            for r in records:
                GameRecord.from_dict(pickle.loads(pickle.dumps(("done", r.to_dict())))[1])

        t_ipc = best_of(args.repeat, to_parent) / n

        def pool_once(concurrency: int, games: list[ScheduledGame]) -> float:
            done: list[GameRecord] = []
            t0 = time.perf_counter()
            failed = GamePool(settings, concurrency).run(
                games, lambda g, r: done.append(r), lambda g, why, retry: None
            )
            wall = time.perf_counter() - t0
            if failed or len(done) != len(games):
                sys.exit(f"pool microbenchmark failed: {failed}")
            return wall - max(r.duration_ms for r in done) / 1000 - t_board

        t_pool = {c: statistics.median(pool_once(c, schedule[:c]) for _ in range(3)) for c in (1, 2)}

    # -- report ----------------------------------------------------------------------------
    print(f"\n{'':<46}{'concurrency 1':>15}{'concurrency 2':>15}")

    def line(label: str, values: list[str]) -> None:
        print(f"{label:<46}" + "".join(f"{v:>15}" for v in values))

    for i in range(args.runs):
        line(f"run {i + 1}: games/s", [f"{p[i].games / p[i].wall_s:.1f}" for p in played.values()])
    line(f"all {args.runs} runs: games", [str(r.games) for r in runs])
    line("            wall time", [f"{r.wall_s:.2f} s" for r in runs])
    line("            games/s", [f"{r.games / r.wall_s:.1f}" for r in runs])
    speedups = [
        (b.games / b.wall_s) / (a.games / a.wall_s) for a, b in zip(played[1], played[2], strict=True)
    ]
    total_speedup = (runs[1].games / runs[1].wall_s) / (runs[0].games / runs[0].wall_s)
    print(
        f"speedup, concurrency 2 over 1: {total_speedup:.2f}x"
        f"  (run by run: {', '.join(f'{x:.2f}x' for x in speedups)})"
    )

    print("\nper game, all runs (workers' time = wall time x concurrency):")
    line("wall time per game", [ms(r.per_game) for r in runs])
    line("workers' time per game", [ms(r.per_game * r.concurrency) for r in runs])
    line("  referee: inside play_game (duration_ms)", [ms(r.referee_s / r.games) for r in runs])
    overhead = [(r.wall_s * r.concurrency - r.referee_s) / r.games for r in runs]
    line("  arena overhead: the difference", [ms(o) for o in overhead])
    line(
        "  overhead share",
        [f"{o / (r.per_game * r.concurrency):.0%}" for o, r in zip(overhead, runs, strict=True)],
    )
    line("CPU time per game (parent, workers, bots)", [ms(r.cpu_s / r.games) for r in runs])
    line("cores busy (CPU time / wall time)", [f"{r.cpu_s / r.wall_s:.2f}" for r in runs])

    print("\nthe parent's work, timed during the runs (per game; calls in all runs):")
    for key in ("save_game", "add", "standings", "write_files"):
        calls = "/".join(str(r.timers[key].calls) for r in runs)
        line(f"  {key} ({calls})", [ms(r.timers[key].seconds / r.games) for r in runs])

    moves = sum(len(r.moves) for r in records)
    print(f"\nmicrobenchmarks (best of {args.repeat}; the {n} records of the first run, {moves} moves):")

    def micro(label: str, seconds: float, note: str) -> None:
        print(f"  {label:<48}{ms(seconds):>12}  {note}")

    micro(f"rating: compute_standings, all {n} records", t_rating, f"= {ms(t_rating / n)} per record")
    micro(f"store: ResultStore.save_game x {n}, fresh store", t_save, f"= {ms(t_save / n)} per game")
    micro(f"load all {n} records (store.records())", t_load, "(no run does this since summaries)")
    micro("write_files (standings.md + .json)", t_write, "(each standings refresh)")
    micro("random board, per game (in the worker)", t_board, "(before play_game starts its clock)")
    micro("record to parent: to_dict, pickle, from_dict", t_ipc, "per game")
    for c in (1, 2):
        micro(f"pool start + stop, concurrency {c}", t_pool[c], "once per run (median of 3)")

    print("\nwhere the overhead per game goes (concurrency 1; parent's work as timed in the runs):")
    r = runs[0]
    games_per_run = r.games / r.runs
    standings_s = sum(r.timers[k].seconds for k in ("add", "standings", "write_files"))
    parts = {
        "worker: random board": t_board,
        "worker <-> parent: record transfer": t_ipc,
        "pool start + stop, spread over a run": t_pool[1] / games_per_run,
        "parent: save_game (store)": r.timers["save_game"].seconds / r.games,
        "parent: standings (add, rate, write)": standings_s / r.games,
    }
    for label, value in parts.items():
        print(f"  {label:<44}{ms(value)}")
    print(f"  {'rest: scheduling, waits, noise':<44}{ms(overhead[0] - sum(parts.values()))}")
    print(f"  {'total overhead':<44}{ms(overhead[0])}")


if __name__ == "__main__":
    main()
