"""A 100,000-game league: flat cost per game, flat memory, and reading it back in under a second.

Ten bots, all ``sample_bots/c/greedy --random`` under different names, 2 players,
every seat order: 90 games a round, ``--total`` games (100,080 by default).

1. **Seed**: one real round (90 games) through ``arena run``; its records are the
   templates for every later round (round r, game j has the same seats as
   round 1, game j; the copy gets round r's id and seed).
2. **Fill**: a child process runs :func:`arena.tournament.run_tournament` with the
   game pool replaced by one that hands out those records at once, so the
   parent's own work per game (store, summaries, standings, ratings) is all that
   is timed: games/s over the first and the last 10,000, and the process's peak
   memory.  It stops ``--last`` games short of the end.
3. **Real games at both ends**: ``arena run`` with the real bots plays the first
   ``--last`` games of a fresh league (a tournament file with fewer rounds), and
   the last ``--last`` games of the filled league (a copy, so runs can repeat):
   games/s from the times its progress lines arrive, and its peak memory.  The
   two alternate ``--runs`` times.
4. **Reading**: on the finished league, ``arena standings``, ``arena games
   --format json | head`` and ``arena run`` (resuming a finished league), each
   as a user runs them (a new process), best and median of ``--repeat``.

Run from the repository root (about 8 minutes on 2 cores with the defaults):

    python bench/bench_league_scale.py [--total 100000] [--last 2000] [--runs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BOTS = [f"bot{i}" for i in range(10)]
PER_ROUND = len(BOTS) * (len(BOTS) - 1)  # every pair, both seat orders
COMMAND = "sample_bots/c/greedy --random"
WINDOW = 10_000  # the first and last 10,000


def tournament_yaml(rounds: int, output: Path) -> str:
    bots = "".join(f"  - name: {name}\n    command: {COMMAND}\n" for name in BOTS)
    return (
        "name: bench-scale\nseed: 1\nplayers: 2\n"
        f"rounds: {rounds}\n"
        "board: random\ntime_control: {move: 1s}\nend_grace: 200ms\nconcurrency: 2\n"
        f"cwd: {json.dumps(str(ROOT))}\noutput: {json.dumps(str(output))}\nbots:\n{bots}"
    )


def arena(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def _finish(proc: subprocess.Popen[bytes], what: str) -> int:
    """Wait for ``proc``; its peak memory in MB (the process or its largest child, from wait4)."""
    assert proc.stdout is not None and proc.stderr is not None
    err = proc.stderr.read().decode()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"{what} failed ({proc.returncode}):\n{err[-2000:]}")
    return int(usage.ru_maxrss) // 1024


def timed_process(cmd: list[str], shell: bool = False) -> tuple[float, int]:
    """Wall seconds and peak memory (MB) of one run of ``cmd``, its output read and dropped."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        " ".join(cmd) if shell else cmd, shell=shell, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdout is not None
    proc.stdout.read()
    peak = _finish(proc, " ".join(cmd))
    return time.perf_counter() - t0, peak


def run_with_stamps(yaml: Path) -> tuple[list[float], int]:
    """``arena run`` with its progress lines timed as they arrive; (times, peak MB)."""
    proc = subprocess.Popen(arena("run", str(yaml)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    stamps = [time.perf_counter() for line in proc.stdout if line.startswith(b"[")]
    return stamps, _finish(proc, f"arena run {yaml}")


def rate(stamps: list[float]) -> float:
    """Games per second between the first and the last of these finishing times."""
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


# -- the fill, in a child process of its own (its memory is the arena's) ----------------------------


def fill(yaml: Path, templates: Path, stop_short: int) -> dict[str, Any]:
    import arena.tournament as tournament_mod
    from arena.game.record import GameRecord
    from arena.league.config import load_config
    from arena.league.schedule import ScheduledGame
    from arena.league.store import ResultStore

    config = load_config(yaml)
    with ResultStore.open(templates) as store:
        by_number = {r.game_id.split("-")[1]: r.to_json() for r in store.records()}

    class ReplayPool:
        """Hands out round 1's records, renamed, as fast as the arena takes them."""

        def __init__(self, _settings: object, _concurrency: int) -> None:
            pass

        def run(
            self, games: Collection[ScheduledGame], on_result: Any, _on_failure: Any, _retries: int
        ) -> list[Any]:
            # The run's games, read as they are handed out (a list would hold them all).
            for g in itertools.islice(games, len(games) - stop_short):
                record = GameRecord.from_json(by_number[g.game_id.split("-")[1]])
                on_result(g, dataclasses.replace(record, game_id=g.game_id, seed=g.seed))
            return []

    tournament_mod.GamePool = ReplayPool  # type: ignore[misc,assignment]
    stamps: list[float] = []
    t0 = time.perf_counter()
    tournament_mod.run_tournament(
        config, echo=lambda _s: None, on_progress=lambda *_: stamps.append(time.perf_counter())
    )
    return {
        "games": len(stamps),
        "wall": time.perf_counter() - t0,
        "first": rate(stamps[:WINDOW]),
        "last": rate(stamps[-WINDOW:]),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--total", type=int, default=100_000, help="games in the league, at least (default 100000)"
    )
    ap.add_argument("--last", type=int, default=2000, help="real games at each end (default 2000)")
    ap.add_argument("--runs", type=int, default=2, help="alternating runs of the real games (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="timings of each reading command (default 3)")
    ap.add_argument("--fill", nargs=3, help=argparse.SUPPRESS)  # internal: the child of step 2
    args = ap.parse_args()
    if args.fill:
        print(json.dumps(fill(Path(args.fill[0]), Path(args.fill[1]), int(args.fill[2]))))
        return

    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots/c")], check=True)
    # Bytecode as an installed arena has it (PYTHONDONTWRITEBYTECODE would recompile every start).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "arena")], check=True)
    rounds = -(-args.total // PER_ROUND)
    total = rounds * PER_ROUND
    first_rounds = -(-args.last // PER_ROUND)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp_name:
        tmp = Path(tmp_name)

        def league(name: str, rounds: int) -> Path:
            path = tmp / f"{name}.yaml"
            path.write_text(tournament_yaml(rounds, tmp / name))
            return path

        print(f"league: {len(BOTS)} x '{COMMAND}', 2 players, {rounds} rounds = {total:,} games, -j 2")
        seed = league("seed", 1)
        timed_process(arena("run", str(seed), "-q"))

        big = league("big", rounds)
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--fill", str(big), str(tmp / "seed"), str(args.last)]
        filled = json.loads(subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT).stdout)
        print(
            f"\nfill: {filled['games']:,} games through run_tournament (records replayed, no bots) in "
            f"{time.perf_counter() - t0:.0f} s"
        )
        print(
            f"  the arena's own rate, first {WINDOW:,}: {filled['first']:.0f} games/s; last {WINDOW:,}: "
            f"{filled['last']:.0f} games/s; last/first {filled['last'] / filled['first']:.2f}"
        )
        print(f"  peak memory of the arena process: {filled['peak_mb']} MB")
        size = (tmp / "big" / "results.sqlite").stat().st_size
        print(f"  store: {size / 1e6:.0f} MB ({size / filled['games'] / 1000:.1f} KB per game)")

        # Real games at both ends, alternating; the filled store is copied for each run.
        pristine = tmp / "big-pristine"
        shutil.copytree(tmp / "big", pristine)
        fresh_rates, end_rates, fresh_peaks, end_peaks = [], [], [], []
        n = args.last
        print(f"\nreal games, -j 2: the first {n} of an empty league vs the last {n} of the {total:,}")
        for i in range(args.runs):
            shutil.rmtree(tmp / "fresh", ignore_errors=True)
            stamps, peak = run_with_stamps(league("fresh", first_rounds))
            fresh_rates.append(rate(stamps[:n]))
            fresh_peaks.append(peak)
            if i:
                shutil.rmtree(tmp / "big")
                shutil.copytree(pristine, tmp / "big")
            stamps, peak = run_with_stamps(big)
            end_rates.append(rate(stamps))
            end_peaks.append(peak)
            print(
                f"  run {i + 1}: first {n}: {fresh_rates[-1]:.1f} games/s ({fresh_peaks[-1]} MB);"
                f" last {n} of {total:,}: {end_rates[-1]:.1f} games/s ({end_peaks[-1]} MB)"
            )
        ratio = statistics.median(end_rates) / statistics.median(fresh_rates)
        print(
            f"  median: {statistics.median(fresh_rates):.1f} vs {statistics.median(end_rates):.1f} games/s; "
            f"last/first {ratio:.2f} (target: within 10%, i.e. >= 0.90)"
        )
        print(
            f"  peak memory (arena or its largest worker): {max(end_peaks)} MB at {total:,} games (target < 100)"
        )

        out = str(tmp / "big")
        reads = {
            "python -c 'import arena.cli' (the floor)": ([sys.executable, "-c", "'import arena.cli'"], True),
            "arena standings": (arena("standings", out), False),
            "arena games --format json | head": (
                [*arena("games", out, "--format", "json"), "|", "head"],
                True,
            ),
            "arena run (resume a finished league)": (arena("run", str(big), "-q"), False),
        }
        print(f"\nreading the {total:,}-game league (new process each; best / median of {args.repeat}):")
        for label, (cmd, shell) in reads.items():
            runs = [timed_process(cmd, shell) for _ in range(args.repeat)]
            walls = [w for w, _ in runs]
            verdict = (
                "" if label.startswith("python") else ("  ok (< 1 s)" if min(walls) < 1 else "  OVER 1 s")
            )
            print(
                f"  {label:<42}{min(walls):6.2f} s / {statistics.median(walls):.2f} s, "
                f"{max(p for _, p in runs)} MB{verdict}"
            )


if __name__ == "__main__":
    main()
