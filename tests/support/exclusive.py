"""Tests marked ``exclusive`` have the machine to themselves under ``pytest -n N``.

A test that measures latency or load (the ladder's readers, a flood's cost to the other
bots) reads another worker's games as its own slowness.  Each test holds a lock on one
file for the run: shared for an ordinary test, exclusive for a marked one.  A turnstile
taken before either keeps a waiting exclusive test from being starved by ordinary tests
that keep taking the shared lock.  Without xdist (one process) the lock is never taken.
The two files are removed when the run ends (by xdist's controller, once every worker is down).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# How long a test may wait for its turn: the longest test fits many times.
WAIT_S = 900.0
# Taken before any test can replace it (the unit tier's guard refuses a sleep in a test).
_sleep = time.sleep


def _lock(fd: int, mode: int, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {WAIT_S:.0f} s for {what}") from None
            _sleep(0.05)


def _files() -> tuple[Path, Path] | None:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return None
    base = Path(tempfile.gettempdir())
    return base / f"arena-tests-{run}.turnstile", base / f"arena-tests-{run}.lock"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    files = _files()
    if files is None:
        yield
        return
    exclusive = item.get_closest_marker("exclusive") is not None
    turnstile = os.open(files[0], os.O_RDWR | os.O_CREAT, 0o600)
    main = os.open(files[1], os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(turnstile, fcntl.LOCK_EX, "the turnstile of the exclusive tests' lock")
        if exclusive:
            _lock(main, fcntl.LOCK_EX, f"the machine to itself ({item.nodeid})")
        else:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            _lock(main, fcntl.LOCK_SH, "an exclusive test on another worker to end")
        yield
    finally:
        os.close(main)  # closing drops the locks
        os.close(turnstile)


_left: set[str] = set()  # the controller's: the files its workers said they used


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    files = _files()
    if workeroutput is not None and files is not None:  # a worker: tell the controller
        workeroutput["arena_exclusive_files"] = [str(f) for f in files]
        return
    for name in _left:  # the controller, after every worker is down: no lock is held
        Path(name).unlink(missing_ok=True)


def pytest_testnodedown(node: object, error: object) -> None:
    _left.update(getattr(node, "workeroutput", {}).get("arena_exclusive_files", []))
