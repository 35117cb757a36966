"""The unit tier keeps its promise: a test here cannot start a process, use the network or
sleep (tests/support/no_io.py), and a thread of its own is left alone."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest

from tests.support.no_io import UnitTierViolation


def _with_socket(use: Callable[[socket.socket], object]) -> None:
    with socket.socket() as s:
        use(s)


@pytest.mark.parametrize(
    "attempt",
    [
        lambda: subprocess.run([sys.executable, "-c", "pass"], check=False),
        lambda: os.fork(),
        lambda: multiprocessing.get_context("spawn").Process(target=print).start(),
        lambda: _with_socket(lambda s: s.bind(("127.0.0.1", 0))),
        lambda: _with_socket(lambda s: s.connect(("127.0.0.1", 9))),
        lambda: time.sleep(0.01),
    ],
    ids=["subprocess", "fork", "multiprocessing", "bind", "connect", "sleep"],
)
def test_a_unit_test_that_starts_a_process_uses_the_network_or_sleeps_fails(attempt: Callable[[], object]) -> None:
    with pytest.raises(UnitTierViolation, match="a unit test may not"):
        attempt()


def test_a_zero_sleep_and_another_threads_wait_are_allowed() -> None:
    time.sleep(0)  # yields the thread, waits for nothing
    done = threading.Event()
    thread = threading.Thread(target=lambda: (time.sleep(0.001), done.set()))
    thread.start()
    thread.join(10)
    assert done.is_set()
