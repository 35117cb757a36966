"""What freezing the bots that are not on move costs the referee per move (issue 30, item 18).

Each move the referee thaws the bot on move before its request and freezes it after its
answer: one :meth:`Freezer.thaw` and one :meth:`Freezer.now`.  This starts four sandboxed
bots (idle: each waits for its input), then times that pair for each of them in turn, by
the cgroup freezer (where the machine has one) and by SIGSTOP/SIGCONT to each process
(the fallback), and prints the cost per move and per game (about 60 moves a bot).

    python bench/bench_freeze.py [PAIRS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from arena.game.bothost import BotHost, BotSpec, Freezer
from arena.game.sandbox import cgroups
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason

IDLE = ("python3", "-c", "import sys; sys.stdin.read()")
MOVES_PER_GAME = 60


def per_move_us(freezer: Freezer, bots: list, pairs: int) -> list[float]:
    """Microseconds of one thaw (its turn) and one freeze (after its answer), ``pairs`` times."""
    costs = []
    for i in range(pairs):
        bot = bots[i % len(bots)]
        began = time.perf_counter()
        freezer.thaw(bot)
        freezer.now(bot)
        costs.append((time.perf_counter() - began) * 1e6)
    for bot in bots:
        freezer.thaw(bot)
    return costs


def main(pairs: int) -> None:
    if unavailable_reason() is not None:
        sys.exit(f"no sandbox here: {unavailable_reason()}")
    support = cgroups.support()
    spec = BotSpec("idle", IDLE, Path("/tmp"), sandbox=SandboxPolicy(mode="bwrap"))
    with BotHost(keep=False) as host:
        channels = host.seat([spec] * 4)
        bots = [ch.bot for ch in channels if not isinstance(ch, BaseException)]
        freezer = Freezer()
        for bot in bots:
            freezer.now(bot)
        ways = []
        if support is not None and support.can_freeze and all(b.cgroup is not None for b in bots):
            ways.append(("cgroup freezer", per_move_us(freezer, bots, pairs)))
        groups = [b.cgroup for b in bots]
        for bot in bots:
            bot.cgroup = None  # the fallback: SIGSTOP / SIGCONT to each process of the bot
        for bot in bots:
            freezer.now(bot)
        ways.append(("SIGSTOP/SIGCONT", per_move_us(freezer, bots, pairs)))
        for bot, group in zip(bots, groups, strict=True):
            bot.cgroup = group
        for name, costs in ways:
            median = statistics.median(costs)
            p90 = statistics.quantiles(costs, n=10)[-1]
            print(
                f"{name:16} per move (thaw + freeze): median {median:.0f} us, p90 {p90:.0f} us; "
                f"a game of {MOVES_PER_GAME} moves a bot: {median * MOVES_PER_GAME / 1000:.1f} ms a bot"
            )
        host.release()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
