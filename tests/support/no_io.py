"""The unit tier's promise, kept by the tests themselves: a unit test starts no process,
opens no network socket and never sleeps.

``forbid_io`` replaces the few entry points every such action goes through with one that
fails the test at once, naming what was tried.  The unit tier's conftest applies it while
each of its tests is set up, run and torn down, so a test that needs a process belongs in
``tests/system/``.  Only the test's own thread is held to it: pytest's and xdist's threads
(and in-process socket pairs, such as an event loop's self-pipe or httpx's ASGI transport,
which reach no other process) are left alone.
"""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest


class UnitTierViolation(AssertionError):
    """A unit test tried to start a process, use the network or sleep."""


def _in_the_test() -> bool:
    return threading.current_thread() is threading.main_thread()


def _refuse(original: Callable[..., Any], what: str) -> Callable[..., Any]:
    def refused(*args: object, **kwargs: object) -> Any:
        if _in_the_test():
            raise UnitTierViolation(
                f"a unit test may not {what}: move the test to tests/system/ (see CONTRIBUTING.md)"
            )
        return original(*args, **kwargs)

    return refused


def _no_sleep(original: Callable[[float], None]) -> Callable[[float], None]:
    def sleep(seconds: float) -> None:
        # A zero sleep only yields the thread: no wall time passes, nothing waits on the clock.
        if seconds > 0 and _in_the_test():
            raise UnitTierViolation(
                f"a unit test may not sleep ({seconds!r} s): wait on an event, or move the test to tests/system/"
            )
        original(seconds)

    return sleep


def forbid_io(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make starting a process, connecting or binding a socket and sleeping fail the test."""
    monkeypatch.setattr(
        subprocess.Popen, "__init__", _refuse(subprocess.Popen.__init__, "start a process (subprocess)")
    )
    # What subprocess and multiprocessing's spawn both start their children with.
    monkeypatch.setattr(
        _posixsubprocess, "fork_exec", _refuse(_posixsubprocess.fork_exec, "start a process (fork_exec)")
    )
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse(getattr(os, name), f"start a process (os.{name})"))
    for name in ("connect", "connect_ex", "bind"):
        monkeypatch.setattr(
            socket.socket, name, _refuse(getattr(socket.socket, name), f"use a network socket (socket.{name})")
        )
    monkeypatch.setattr(time, "sleep", _no_sleep(time.sleep))
