"""Games/s of a league on the local executor and on a two-worker Dask cluster, in one run.

Writes a tournament file into a temporary folder (4 bots, all
``sample_bots/c/greedy --random`` under different names, 2 players, R rounds,
every seat order, random boards, ``sandbox: none`` so that the figures are the
engines' and not bubblewrap's, ``end_grace: 200ms``), then plays it with
:func:`arena.tournament.run_tournament`, alternately with ``executor: local``
(``concurrency: 2``) and ``executor: dask-local`` (a LocalCluster of 2 worker
processes, one thread each, started and stopped by the run), each time into a
fresh output folder, ``--runs`` times each, so that a noisy machine hits both
alike.

For each executor it prints the medians of: the whole run's wall time and
games/s (for Dask this includes starting and stopping the cluster), the time
until the first game is stored (start-up: worker processes, and for Dask the
scheduler, the plugin and the bots' check), and the steady rate from the first
stored game to the last, (games - 1) / (last - first).  The ratios Dask/local
show what the engine costs per game.  It also checks that both executors gave
the same standings.  Run from the repository root (build the bot first with
``make -C sample_bots/c``):

    python bench/bench_dask.py [--rounds 4] [--runs 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.league.config import load_config
from arena.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("rand-a", "rand-b", "rand-c", "rand-d")
COMMAND = "sample_bots/c/greedy --random"
EXECUTORS = ("local", "dask-local")


def tournament_yaml(rounds: int, seed: int, output: Path, executor: str) -> str:
    bots = "".join(f"  - name: {name}\n    command: {COMMAND}\n" for name in BOTS)
    return (
        "name: bench-dask\n"
        f"seed: {seed}\n"
        "players: 2\n"
        f"rounds: {rounds}\n"
        "board: random\n"
        "sandbox: none\n"
        "time_control: {move: 1s}\n"
        "end_grace: 200ms\n"
        "concurrency: 2\n"
        f"executor: {executor}\n"
        f"cwd: {json.dumps(str(ROOT))}\n"  # a JSON string is a YAML string
        f"output: {json.dumps(str(output))}\n"
        f"bots:\n{bots}"
    )


@dataclasses.dataclass
class Run:
    games: int
    wall_s: float
    first_s: float  # from the start to the first stored game
    steady_s: float  # from the first stored game to the last
    standings: str


def play(folder: Path, rounds: int, seed: int, executor: str, n: int) -> Run:
    out = folder / f"{executor}-{n}"
    path = folder / f"{executor}-{n}.yaml"
    path.write_text(tournament_yaml(rounds, seed, out, executor))
    config = load_config(path)
    stored: list[float] = []
    started = time.perf_counter()
    state = run_tournament(config, echo=lambda _s: None, on_progress=lambda *_: stored.append(time.perf_counter()))
    wall = time.perf_counter() - started
    if state.failures or len(stored) != state.total:
        sys.exit(f"{executor}: {len(state.failures)} failed games, {len(stored)} of {state.total} stored")
    return Run(state.total, wall, stored[0] - started, stored[-1] - stored[0], (out / "standings.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=4, help="rounds (12 games each)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each executor, interleaved")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not (ROOT / "sample_bots" / "c" / "greedy").exists():
        sys.exit("build the bot first: make -C sample_bots/c")
    runs: dict[str, list[Run]] = {e: [] for e in EXECUTORS}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.runs):
            for executor in EXECUTORS:
                run = play(Path(tmp), args.rounds, args.seed, executor, n)
                runs[executor].append(run)
                print(
                    f"run {n + 1} {executor:10}: {run.games} games in {run.wall_s:6.2f} s "
                    f"(first game stored after {run.first_s:5.2f} s, the rest in {run.steady_s:5.2f} s)",
                    flush=True,
                )
    same = len({r.standings for rs in runs.values() for r in rs}) == 1
    print(f"\nsame standings from every run of both executors: {'yes' if same else 'NO'}")
    med: dict[str, dict[str, float]] = {}
    for executor, rs in runs.items():
        games = rs[0].games
        med[executor] = {
            "wall": statistics.median(r.wall_s for r in rs),
            "rate": statistics.median(r.games / r.wall_s for r in rs),
            "first": statistics.median(r.first_s for r in rs),
            "steady": statistics.median((r.games - 1) / r.steady_s for r in rs),
        }
        m = med[executor]
        print(
            f"{executor:10} median of {len(rs)}: {games} games, {m['wall']:.2f} s = {m['rate']:.1f} games/s "
            f"overall; start-up {m['first']:.2f} s; steady {m['steady']:.1f} games/s "
            f"(a game stored every {1000 / m['steady']:.1f} ms, 2 at once)"
        )
    local, dask = med["local"], med["dask-local"]
    print(
        f"\nDask / local: overall rate x{dask['rate'] / local['rate']:.2f}, "
        f"steady rate x{dask['steady'] / local['steady']:.2f}, "
        f"start-up +{dask['first'] - local['first']:.2f} s; "
        f"extra time per game and slot (steady, 2 slots): "
        f"{2000 / dask['steady'] - 2000 / local['steady']:+.1f} ms"
    )


if __name__ == "__main__":
    main()
