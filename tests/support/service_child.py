"""A child of a ladder-like service for the tests of :mod:`arena.ladder.child`:
``python -m tests.support.service_child MARKER SERVICE_PID``.

It is made like the ladder's check job at its worst: a process of its group that
Ctrl-C does not end (as a check's pool worker that was mid-game), and an exit that waits
for that process (as multiprocessing's exit joins its workers).  It prints ``ready`` once
both are in place, then waits for the end.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import time

from arena.ladder.child import die_with_service


def main(argv: list[str]) -> int:
    marker, service = argv
    watch = die_with_service(int(service))
    if watch is None:
        return 3
    try:
        deaf = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); print(flush=True); time.sleep(600)"
        worker = subprocess.Popen([sys.executable, "-c", deaf, marker], stdout=subprocess.PIPE)
        assert worker.stdout is not None
        worker.stdout.readline()  # it is deaf to Ctrl-C from now on
        atexit.register(worker.wait)
        print("ready", flush=True)
        time.sleep(600)
    finally:
        watch.end_group_if_gone()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
