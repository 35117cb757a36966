"""What the bubblewrap sandbox costs: games/s and a bot's start, with and without it, in one run.

Plays 2-player games between two instant C bots (``sample_bots/c/greedy
--random``) through :func:`arena.game.referee.play_game`, alternating the modes
game by game (unsandboxed; sandboxed; sandboxed but sharing the host's
network, to show what creating a network namespace costs), so that a noisy
machine hits every mode alike.  Then times one bot's start-to-stop (start,
handshake, ``end``, teardown) the same way.  Reports medians, the spread
(quartiles) and the ratios to the unsandboxed figure.  Run from the
repository root after ``make -C sample_bots/c``:

    python bench/bench_sandbox.py [--games 40] [--starts 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from arena.game.botproc import BotPool
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits, bot_environment
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from arena.game.sandbox.cgroups import support
from arena.rules import random_board

ROOT = Path(__file__).resolve().parent.parent
BOT = ("sample_bots/c/greedy", "--random")
MODES = {
    "none": SandboxPolicy(mode="none"),
    "bwrap": SandboxPolicy(mode="bwrap"),
    "bwrap+host-net": SandboxPolicy(mode="bwrap", network=True),
}


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def game_seconds(policy: SandboxPolicy, seed: int) -> float:
    specs = [BotSpec(name=n, command=BOT, cwd=ROOT, sandbox=policy) for n in ("a", "b")]
    setup = GameSetup(
        game_id="bench", seed=seed, board=random_board(seed, 8), time_control=TimeControl(move_ms=1000)
    )
    t0 = time.perf_counter()
    record = play_game(setup, specs)
    seconds = time.perf_counter() - t0
    if any(s.fault for s in record.seats):
        sys.exit(f"a bot was forfeited in mode {policy}: {[s.fault for s in record.seats]}")
    return seconds


def start_stop_seconds(policy: SandboxPolicy) -> float:
    t0 = time.perf_counter()
    with BotPool() as pool:
        bot = pool.start("a", BOT, ROOT, bot_environment(ROOT), ResourceLimits(), policy)
        pool.send(bot, "hello 1")
        pool.read_line(bot, time.monotonic() + 10)
        pool.stop(bot, "end 1 2", 1.0)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per mode")
    parser.add_argument("--starts", type=int, default=60, help="bot starts per mode")
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        sys.exit(f"no sandbox to measure: {reason}")
    cg = support()
    print(f"sandbox: bubblewrap; limits: {cg.description if cg else 'rlimits (no cgroup here)'}")
    for label, measure, count in (
        ("game (2 instant C bots, 8-tile board)", game_seconds, args.games),
        ("bot start to stop (handshake, end, teardown)", None, args.starts),
    ):
        times: dict[str, list[float]] = {m: [] for m in MODES}
        for i in range(count):
            for mode, policy in MODES.items():  # interleaved: noise hits every mode alike
                seconds = measure(policy, 1000 + i) if measure else start_stop_seconds(policy)
                times[mode].append(seconds)
        base = statistics.median(times["none"])
        print(f"\n{label}, {count} per mode, medians (quartiles):")
        for mode, xs in times.items():
            lo, med, hi = quartiles(xs)
            rate = f"{1 / med:7.1f} /s" if measure else ""
            print(
                f"  {mode:15} {med * 1000:7.1f} ms  ({lo * 1000:.1f}-{hi * 1000:.1f}) {rate}"
                f"  x{med / base:.2f} of unsandboxed"
            )


if __name__ == "__main__":
    main()
