"""Games/s of a ladder's final tournament on the local pool and on a two-worker Dask cluster, in one run.

Makes a ladder in a temporary folder (2 players, ``sandbox: none`` so that the figures are
the executors' and not bubblewrap's, ``end_grace: 200ms``, ``concurrency: 2``, a final of
``--rounds`` rounds), adds ``--authors`` authors each with one version that passed (the C
``greedy --random`` bot, in its own version folder, as a checked version has), and writes the
final's tournament file as the ladder does (:func:`arena.ladder.final.final_entries` and
:func:`~arena.ladder.final.final_data`: one bot per author, seeded, the ladder's league
settings).  It then plays that final with :func:`arena.tournament.run_tournament`, as the
final's process does, alternately with ``executor: local`` and ``executor: dask-local`` (a
LocalCluster of 2 worker processes, one thread each, started and stopped by the run), each
into a fresh output folder, ``--runs`` times each, so that a noisy machine hits both alike.

It prints, for each executor, the medians of the whole run's wall time and games/s (for Dask
including starting and stopping the cluster), the time to the first stored game, and the steady
rate from the first stored game to the last; then the two side by side, and whether every run
gave the same standings.  Run from the repository root (build the bot first with
``make -C sample_bots/c``):

    python bench/bench_final.py [--authors 4] [--rounds 4] [--runs 3]
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

import yaml

from arena.game.seeds import SECRET_FILE
from arena.ladder.final import final_data, final_entries
from arena.ladder.settings import Ladder, load_ladder
from arena.ladder.store import LadderStore, State
from arena.league.config import load_config
from arena.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent
GREEDY = ROOT / "sample_bots" / "c" / "greedy"
EXECUTORS = ("local", "dask-local")


def ladder_yaml(rounds: int) -> str:
    house = json.dumps([str(GREEDY), "--random"])  # JSON is YAML
    return (
        "name: bench-final\n"
        "players: 2\n"
        "format: continuous\n"
        "sandbox: none\n"
        "time_control: {move: 1s}\n"
        "end_grace: 200ms\n"
        "concurrency: 2\n"
        f"cwd: {json.dumps(str(ROOT))}\n"
        "output: results\n"
        "bots:\n"
        f"  - {{name: house-a, command: {house}}}\n"
        f"  - {{name: house-b, command: {house}}}\n"
        "ladder:\n"
        f"  final: {{rounds: {rounds}}}\n"
    )


def make_ladder(folder: Path, authors: int, rounds: int) -> tuple[Ladder, dict[str, object]]:
    """A ladder whose ``authors`` each have one passed version; the final's file as data."""
    path = folder / "ladder.yaml"
    path.write_text(ladder_yaml(rounds))
    ladder = load_ladder(path)
    store = LadderStore.open(ladder.folder)
    try:
        for i in range(authors):
            name = f"author{i + 1}"
            store.add_author(name)
            who = store.author_named(name)
            assert who is not None
            sub = store.add_submission(who, f"bot{i + 1}", [str(GREEDY), "--random"], None, ("bot.tar.gz", 1, "00"))
            ladder.version_folder(sub.id).mkdir(parents=True, exist_ok=True)
            store.set_state(sub.id, State.PASSED)
        data = final_data(ladder, final_entries(store, []))
    finally:
        store.close()
    return ladder, data


@dataclasses.dataclass
class Run:
    games: int
    wall_s: float
    first_s: float  # from the start to the first stored game
    steady_s: float  # from the first stored game to the last
    standings: str


def play(folder: Path, data: dict[str, object], executor: str, n: int) -> Run:
    out = folder / f"final-{executor}-{n}"
    out.mkdir()
    # Every run's bots get the same private seeds (a fresh folder draws a fresh secret): the
    # same standings are then expected from every run, on either executor.
    (out / SECRET_FILE).write_text("5" * 32)
    path = folder / f"final-{executor}-{n}.yaml"
    path.write_text(yaml.safe_dump({**data, "executor": executor, "output": str(out)}, sort_keys=False))
    config = load_config(path)
    stored: list[float] = []
    started = time.perf_counter()
    state = run_tournament(config, echo=lambda _s: None, on_progress=lambda *_: stored.append(time.perf_counter()))
    wall = time.perf_counter() - started
    if state.failures or len(stored) != state.total:
        sys.exit(f"{executor}: {len(state.failures)} failed games, {len(stored)} of {state.total} stored")
    rows = json.loads((out / "standings.json").read_text())["rows"]
    return Run(state.total, wall, stored[0] - started, stored[-1] - stored[0], json.dumps(rows, sort_keys=True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--authors", type=int, default=4, help="authors in the final (one version each)")
    ap.add_argument("--rounds", type=int, default=4, help="the final's rounds (every meeting in both seat orders)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each executor, interleaved")
    args = ap.parse_args()
    if not GREEDY.exists():
        sys.exit("build the bot first: make -C sample_bots/c")
    runs: dict[str, list[Run]] = {e: [] for e in EXECUTORS}
    with tempfile.TemporaryDirectory() as tmp:
        _ladder, data = make_ladder(Path(tmp), args.authors, args.rounds)
        print(
            f"final of {args.authors} authors ({', '.join(b['name'] for b in data['bots'])}), "  # type: ignore[attr-defined]
            f"format {data['format']}, {data['rounds']} rounds, 2 players, 2 games at once",
            flush=True,
        )
        for n in range(args.runs):
            for executor in EXECUTORS:
                run = play(Path(tmp), data, executor, n)
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
        med[executor] = {
            "games": rs[0].games,
            "wall": statistics.median(r.wall_s for r in rs),
            "rate": statistics.median(r.games / r.wall_s for r in rs),
            "first": statistics.median(r.first_s for r in rs),
            "steady": statistics.median((r.games - 1) / r.steady_s for r in rs),
        }
    local, dask = med["local"], med["dask-local"]
    print(f"\n{'median of ' + str(args.runs) + ' runs':24} {'local pool':>12} {'Dask, 2 workers':>16} {'Dask / local':>13}")
    for label, key, fmt in (
        ("games", "games", "{:.0f}"),
        ("wall time (s)", "wall", "{:.2f}"),
        ("games/s overall", "rate", "{:.2f}"),
        ("first game stored (s)", "first", "{:.2f}"),
        ("games/s steady", "steady", "{:.2f}"),
    ):
        ratio = dask[key] / local[key] if local[key] else float("nan")
        print(f"{label:24} {fmt.format(local[key]):>12} {fmt.format(dask[key]):>16} {'x' + format(ratio, '.2f'):>13}")


if __name__ == "__main__":
    main()
