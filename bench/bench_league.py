"""A league of instant C bots through the whole tournament runner, at concurrency 1 and 2.

Writes a tournament file into a temporary folder (4 bots, all
``sample_bots/c/greedy --random`` under different names, 2 players, R rounds,
every seat order, random boards, ``end_grace: 200ms``), then runs it with
:func:`arena.tournament.run_tournament` at concurrency 1 and then 2, each into
a fresh output folder, and reports games/s and the speedup.

Beside the bots' time it reports the arena's own cost per game: wall time x
concurrency (the workers' time) minus the time inside ``play_game`` (the sum
of the stored records' ``duration_ms``, the referee's own measure of each
game).  The parent's share is timed during the run (``save_game``,
``compute_standings``, ``write_files``), and microbenchmarks time, one by one,
what the difference is made of: ``compute_standings`` over all stored records
(the rating), ``ResultStore.save_game`` for as many records (the store),
loading the records, the worker's board generation before ``play_game``, and
starting and stopping a pool.  Run from the repository root:

    python bench/bench_league.py [--rounds 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
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
from arena.config import TournamentConfig, load_config
from arena.executor import GamePool
from arena.record import GameRecord
from arena.schedule import ScheduledGame
from arena.standings import compute_standings, write_files
from arena.store import ResultStore
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
        f"cwd: {ROOT}\n"
        f"output: {output}\n"
        f"bots:\n{bots}"
    )


class Timer:
    """Calls and seconds spent in one function during a run."""

    def __init__(self) -> None:
        self.calls = 0
        self.seconds = 0.0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
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

    ``run_tournament`` looks these up when it calls them: ``ResultStore.save_game`` on
    the class, ``compute_standings`` and ``write_files`` in :mod:`arena.tournament`.
    """
    targets: dict[str, Any] = {
        "save_game": ResultStore,
        "compute_standings": tournament_mod,
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

    @property
    def per_game(self) -> float:
        return self.wall_s / self.games


def run(config: TournamentConfig, concurrency: int, output: Path) -> Run:
    cfg = dataclasses.replace(config, concurrency=concurrency, output=output)
    notes: list[str] = []
    with timed_parent() as timers:
        t0 = time.perf_counter()
        state = run_tournament(cfg, echo=notes.append)
        wall = time.perf_counter() - t0
    if state.failures or state.played_now != state.total:
        sys.exit(f"concurrency {concurrency}: {state.played_now}/{state.total} played\n" + "\n".join(notes))
    with ResultStore.open(output) as store:
        records = list(store.records())
    faults = [(r.game_id, f) for r in records for f in r.faults]
    if faults:
        print(f"  warning: {len(faults)} fault(s), first: {faults[0]}")
    return Run(concurrency, len(records), wall, sum(r.duration_ms for r in records) / 1000, timers, records)


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
    return f"{seconds * 1000:9.2f} ms"


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
    print(f"\n{'':<44}{'concurrency 1':>16}{'concurrency 2':>16}")

    def line(label: str, values: list[str]) -> None:
        print(f"{label:<44}" + "".join(f"{v:>16}" for v in values))

    line("games", [str(r.games) for r in runs])
    line("wall time", [f"{r.wall_s:.2f} s" for r in runs])
    line("games/s", [f"{r.games / r.wall_s:.1f}" for r in runs])
    print(
        f"speedup, concurrency 2 over 1: {runs[1].games / runs[1].wall_s / (runs[0].games / runs[0].wall_s):.2f}x"
    )

    print("\nper game, all runs (workers' time = wall x concurrency):")
    line("wall per game", [ms(r.per_game).strip() for r in runs])
    line("workers' time per game", [ms(r.per_game * r.concurrency).strip() for r in runs])
    line("  referee, inside play_game (duration_ms)", [ms(r.referee_s / r.games).strip() for r in runs])
    overhead = [(r.wall_s * r.concurrency - r.referee_s) / r.games for r in runs]
    line("  arena overhead (the difference)", [ms(o).strip() for o in overhead])
    line(
        "  overhead share",
        [f"{o / (r.per_game * r.concurrency):.0%}" for o, r in zip(overhead, runs, strict=True)],
    )

    print("\nparent's work, timed during the runs (per game):")
    for key in ("save_game", "compute_standings", "write_files"):
        line(
            f"  {key} ({'/'.join(str(r.timers[key].calls) for r in runs)} calls)",
            [ms(r.timers[key].seconds / r.games).strip() for r in runs],
        )

    print(
        f"\nmicrobenchmarks (best of {args.repeat}; {n} records, {sum(len(r.moves) for r in records)} moves):"
    )
    print(
        f"  compute_standings, all {n} records          {ms(t_rating)}  = {ms(t_rating / n).strip()} per record"
    )
    print(f"  ResultStore.save_game x {n} (fresh store)    {ms(t_save)}  = {ms(t_save / n).strip()} per game")
    print(f"  load all records (store.records())          {ms(t_load)}  (each standings refresh does this)")
    print(f"  write_files (standings.md + .json)          {ms(t_write)}")
    print(f"  random board per game, in the worker        {ms(t_board)}  (outside play_game's duration_ms)")
    for c in (1, 2):
        print(
            f"  pool start + stop, concurrency {c}            {ms(t_pool[c])}"
            f"  (once per run; {ms(t_pool[c] / len(schedule)).strip()} per game here)"
        )

    print("\nwhere the overhead per game goes (estimate, concurrency 1):")
    r = runs[0]
    parts = {
        "random board (worker)": t_board,
        "pool start + stop, spread over the run": t_pool[1] / r.games,
        "parent: save_game": r.timers["save_game"].seconds / r.games,
        "parent: standings (load + rate + write)": (
            r.timers["compute_standings"].seconds + r.timers["write_files"].seconds
        )
        / r.games
        + t_load * r.timers["compute_standings"].calls / r.games,
    }
    for label, value in parts.items():
        print(f"  {label:<42}{ms(value)}")
    rest = overhead[0] - sum(parts.values())
    print(f"  {'rest: IPC, record encode/decode, waits':<42}{ms(rest)}")
    print(f"  {'total overhead':<42}{ms(overhead[0])}")


if __name__ == "__main__":
    main()
