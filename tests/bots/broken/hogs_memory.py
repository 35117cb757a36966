#!/usr/bin/env python3
"""Plays randomly, but at its first request starts CHILDREN processes that each fill
MB megabytes and hold them for two seconds together: a bot whose memory only a limit on
the whole bot (a cgroup) can stop, since each process alone stays under a per-process one.

It waits for its children and writes how each ended to stderr ("child 1: exit 0",
"child 2: signal 9"), then plays on.  Arguments: ``CHILDREN MB`` (default ``3 200``).
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the arena checkout

from arena.botkit import Turn, run_bot
from arena.rules import Move

CHILDREN = int(sys.argv[1]) if len(sys.argv) > 1 else 3
MB = int(sys.argv[2]) if len(sys.argv) > 2 else 200
done = False


def grab() -> None:
    pids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:
            try:
                block = bytearray(MB * 1024 * 1024)
                for i in range(0, len(block), 4096):  # touch every page: resident, not just reserved
                    block[i] = 1
                time.sleep(2)
            except MemoryError:
                os._exit(3)
            os._exit(0)
        pids.append(pid)
    for n, pid in enumerate(pids, 1):
        _, status = os.waitpid(pid, 0)
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        print(f"child {n}: {how}", file=sys.stderr, flush=True)


def choose(turn: Turn) -> Move:
    global done
    if not done:
        done = True
        grab()
    return turn.rng.choice(turn.state.legal_moves())


if __name__ == "__main__":
    run_bot("hogs-memory", choose)
