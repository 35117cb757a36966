"""The unit tier's promise, kept by the tests themselves: a unit test starts no process,
opens no network socket and never sleeps.

``forbid_io`` replaces the few entry points every such action goes through with one that
fails the test at once, naming what was tried; the unit tier's conftest applies it to
every test, so a test that needs a process belongs in ``tests/system/``.  In-process
socket pairs (an event loop's self-pipe, httpx's ASGI transport) stay allowed: they
reach no other process.
"""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import subprocess
import time
from typing import Any, NoReturn

import pytest


class UnitTierViolation(AssertionError):
    """A unit test tried to start a process, use the network or sleep."""


def _refuse(what: str) -> Any:
    def refused(*args: object, **kwargs: object) -> NoReturn:
        raise UnitTierViolation(
            f"a unit test may not {what}: move the test to tests/system/ (see CONTRIBUTING.md)"
        )

    return refused


def _sleep(seconds: float) -> None:
    # A zero sleep only yields the thread: no wall time passes, nothing waits on the clock.
    if seconds > 0:
        raise UnitTierViolation(
            f"a unit test may not sleep ({seconds!r} s): wait on an event, or move the test to tests/system/"
        )


def forbid_io(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make starting a process, connecting or binding a socket and sleeping fail the test."""
    monkeypatch.setattr(subprocess.Popen, "__init__", _refuse("start a process (subprocess)"))
    # What subprocess and multiprocessing's spawn both start their children with.
    monkeypatch.setattr(_posixsubprocess, "fork_exec", _refuse("start a process (fork_exec)"))
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse(f"start a process (os.{name})"))
    for name in ("connect", "connect_ex", "bind"):
        monkeypatch.setattr(socket.socket, name, _refuse(f"use a network socket (socket.{name})"))
    monkeypatch.setattr(time, "sleep", _sleep)
