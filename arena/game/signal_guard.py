"""Holding SIGTERM and SIGINT back while a child process is being started.

Used by every start of a bot's or a build's process, so that a worker told to
stop mid-start never leaves a child that nobody holds (and so nobody kills).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGTERM and SIGINT back while a process is being started, then act on them.

    A worker's SIGTERM handler raises SystemExit; raised inside ``subprocess.Popen``
    (while it waits for the exec) it would leave a child started that nobody holds,
    and so nobody kills. Deferred to the end of the start, the caller's cleanup has
    the process in hand. (A signal mask would be inherited by the bot: handlers are not.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers only run in the main thread: nothing to defer here
        return
    pending: list[tuple[int, object]] = []
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    for sig in old:
        signal.signal(sig, lambda signum, frame: pending.append((signum, frame)))
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for signum, frame in pending:
            handler = old[signal.Signals(signum)]
            if callable(handler):
                handler(signum, frame)  # type: ignore[arg-type]
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)
