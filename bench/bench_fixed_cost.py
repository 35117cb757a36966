"""A game's fixed cost: the arena beside a bare harness, bots started per game and kept.

Three ways to play the same games between two bots, each at one game at a time
(``-j 1``), with the sandbox off and on:

- **harness**: the bare minimum that plays these games. Before timing, each game
  is played once through the referee and every line it sends is recorded, in
  order. The harness then starts the two bots the same way the arena does
  (``prlimit`` + the bot, or the same bubblewrap sandbox), writes each
  recorded line and reads each answer, and waits for the bots to exit: no
  rules, no clocks, no store, no rating. Deterministic bots give the same
  answers, so it relays the very same moves.
- **arena, per game**: ``run_tournament`` with ``multigame: false``, a real
  league of those games (schedule, worker process, referee, SQLite store,
  standings files).
- **arena, multigame**: the same league with bots kept between games.

The league's rate is its steady state: games finished from the first result
to the last, so the one-off start of the worker process is left out (it is
printed apart). Runs are interleaved (harness, per game, multigame, repeat)
and each figure is the median of ``--repeat`` runs, with its spread
(min-max). Targets (issue 13): with instant C bots the arena per game
plays at least 50% of the harness's rate and with ``multigame`` at least 100%;
with Python bot-kit bots ``multigame`` is at least 3x the per-game start.
Run from the repository root:

    python bench/bench_fixed_cost.py [--games 40] [--repeat 3] [--bots c,python] [--sandbox off,on]
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game.bothost import BotHost, BotSpec  # noqa: E402
from arena.game.limits import ResourceLimits, bot_environment  # noqa: E402
from arena.game.referee import Referee  # noqa: E402
from arena.game.sandbox import cgroups  # noqa: E402
from arena.game.sandbox.bwrap import unavailable_reason  # noqa: E402
from arena.game.sandbox.spawn import spawn_sandboxed  # noqa: E402
from arena.league.config import load_config  # noqa: E402
from arena.tournament import game_settings, run_tournament, schedule_for  # noqa: E402

BOTS = {
    "c": ["sample_bots/c/greedy", "--random"],
    "python": [sys.executable, "sample_bots/random_bot.py"],
}


@dataclass
class Line:
    seat: int
    text: str
    answered: bool  # a request (the bot answers) rather than a notice


class Recorder:
    """Wraps a referee's channel and writes down, in order, what the referee sends."""

    def __init__(self, inner: object, seat: int, log: list[Line]) -> None:
        self.inner, self.seat, self.log = inner, seat, log

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def send(self, line: str, ply: int | None = None) -> None:
        self.log.append(Line(self.seat, line, True))
        self.inner.send(line, ply)  # type: ignore[attr-defined]

    def finish(self, goodbye: str) -> None:
        self.log.append(Line(self.seat, goodbye, False))
        self.inner.finish(goodbye)  # type: ignore[attr-defined]


def league_file(folder: Path, bot: str, games: int, sandbox: str, multigame: bool) -> Path:
    rounds = max(1, games // 2)  # two bots: a meeting of two seat orders per round
    command = ", ".join(BOTS[bot])
    text = (
        f"name: bench\nseed: 5\nplayers: 2\nrounds: {rounds}\nconcurrency: 1\ncwd: {ROOT}\n"
        f"sandbox: {sandbox}\nmultigame: {str(multigame).lower()}\nend_grace: 1s\n"
        f"output: {folder / 'out'}\ntime_control: {{move: 2s, startup: 10s}}\n"
        f"bots:\n  - name: a\n    command: [{command}]\n  - name: b\n    command: [{command}]\n"
    )
    path = folder / "league.yaml"
    path.write_text(text)
    return path


def transcripts(path: Path) -> list[list[Line]]:
    """Every game of the league played once through the referee, as the lines it sent."""
    config = load_config(path)
    settings = game_settings(config)
    out = []
    with BotHost(keep=False) as host:
        for game in schedule_for(config):
            specs = [settings.bots[n] for n in game.seats]
            log: list[Line] = []
            channels = [Recorder(ch, i, log) for i, ch in enumerate(host.seat(specs))]
            try:
                record = Referee(settings.setup(game), specs, channels).run()  # type: ignore[arg-type]
            finally:
                host.release()
            if any(s.fault for s in record.seats):
                sys.exit(f"a bot was forfeited while recording: {[s.fault for s in record.seats]}")
            out.append(log)
    return out


def start(spec: BotSpec) -> tuple[subprocess.Popen[bytes], object]:
    env = bot_environment(spec.cwd, spec.env)
    if spec.sandbox.mode == "bwrap":
        proc, _init, group = spawn_sandboxed(spec.command, spec.cwd, env, spec.limits, spec.sandbox)
        return proc, group
    command = [*ResourceLimits().prlimit_command(whole_bot=False, per_user_tasks=False), *spec.command]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=spec.cwd,
        env=env,
        start_new_session=True,
        bufsize=0,
    )
    return proc, None


def read_line(fd: int, buffers: dict[int, bytes]) -> bytes:
    while b"\n" not in buffers[fd]:
        select.select([fd], [], [], 10)
        chunk = os.read(fd, 65536)
        if not chunk:
            raise SystemExit("a bot ended its output early in the harness")
        buffers[fd] += chunk
    line, _, buffers[fd] = buffers[fd].partition(b"\n")
    return line


def harness_game(specs: list[BotSpec], lines: list[Line]) -> None:
    bots = [start(spec) for spec in specs]
    ins = [p.stdin.fileno() for p, _ in bots]  # type: ignore[union-attr]
    outs = [p.stdout.fileno() for p, _ in bots]  # type: ignore[union-attr]
    buffers = dict.fromkeys(outs, b"")
    for line in lines:
        os.write(ins[line.seat], line.text.encode() + b"\n")
        while line.answered:
            if not read_line(outs[line.seat], buffers).startswith(b"info"):
                break
    for proc, group in bots:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(10)
        proc.stdout.close()  # type: ignore[union-attr]
        if isinstance(group, cgroups.BotCgroup):
            group.remove()


def harness_rate(path: Path, logs: list[list[Line]]) -> float:
    config = load_config(path)
    settings = game_settings(config)
    games = schedule_for(config)
    t0 = time.perf_counter()
    for game, lines in zip(games, logs, strict=True):
        harness_game([settings.bots[n] for n in game.seats], lines)
    return len(games) / (time.perf_counter() - t0)


def arena_rate(path: Path) -> tuple[float, float]:
    """(steady games/s from the first result to the last, seconds to the first result)."""
    config = load_config(path)
    stamps: list[float] = []
    t0 = time.perf_counter()
    state = run_tournament(
        config, restart=True, echo=lambda _l: None, on_progress=lambda *_: stamps.append(time.perf_counter())
    )
    if state.failures or len(stamps) < 2:
        sys.exit(f"the league failed: {state.failures}")
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]), stamps[0] - t0


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.1f} games/s ({min(xs):.1f}-{max(xs):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per run (even)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved")
    parser.add_argument("--bots", default="c,python", help="which bots: c, python")
    parser.add_argument("--sandbox", default="off,on", help="off, on")
    args = parser.parse_args()
    cg = cgroups.support()
    print(
        f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}; sandbox limits: "
        f"{cg.description if cg else 'rlimits'}"
    )
    for sandbox in args.sandbox.split(","):
        mode = "bwrap" if sandbox == "on" else "none"
        if mode == "bwrap" and (why := unavailable_reason()) is not None:
            print(f"\nsandbox on: skipped ({why})")
            continue
        for bot in args.bots.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                for sub in ("per", "multi"):
                    (Path(tmp) / sub).mkdir()
                per_game = league_file(Path(tmp) / "per", bot, args.games, mode, False)
                multi = league_file(Path(tmp) / "multi", bot, args.games, mode, True)
                logs = transcripts(per_game)
                rates: dict[str, list[float]] = {"harness": [], "per game": [], "multigame": []}
                warmups: list[float] = []
                for _ in range(args.repeat):
                    rates["harness"].append(harness_rate(per_game, logs))
                    rate, warm = arena_rate(per_game)
                    rates["per game"].append(rate)
                    rate, warm2 = arena_rate(multi)
                    rates["multigame"].append(rate)
                    warmups += [warm, warm2]
            base = statistics.median(rates["harness"])
            per = statistics.median(rates["per game"])
            print(
                f"\n{bot} bots, sandbox {sandbox}, {len(logs)} games a run, {args.repeat} runs, medians (min-max):"
            )
            for label, xs in rates.items():
                print(f"  {label:10} {spread(xs)}   x{statistics.median(xs) / base:.2f} of the harness")
            mg = statistics.median(rates["multigame"])
            print(
                f"  multigame / per game: x{mg / per:.2f}; worker start-up before the first game: "
                f"{statistics.median(warmups):.2f} s (left out of the rates)"
            )
            if bot == "c":
                print(
                    f"  target: per game >= 0.50 of the harness: {'PASS' if per / base >= 0.5 else 'FAIL'} "
                    f"(x{per / base:.2f}); multigame >= 1.00: {'PASS' if mg / base >= 1 else 'FAIL'} (x{mg / base:.2f})"
                )
            else:
                print(
                    f"  target: multigame >= 3x per game: {'PASS' if mg / per >= 3 else 'FAIL'} (x{mg / per:.2f})"
                )


if __name__ == "__main__":
    main()
