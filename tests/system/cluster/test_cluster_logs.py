"""A lost Dask scheduler is said once, in the arena's words: distributed's own tracebacks
of it stay off stderr, whenever they come.

When the scheduler dies, distributed logs the event its own way, depending on timing: a
batched write that met the closed connection logs its traceback at INFO (often before the
client has noticed the loss), and the client's reconnect attempts and closing log from its
event loop's thread, some after the run has already ended.  The run itself ends with one
``ClusterError`` line (tests/system/cluster/test_dask.py kills a scheduler mid-league for that).  Here the
records distributed would log are logged as it logs them, at those moments.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from distributed.comm.core import CommClosedError

from arena.cluster.pool import connect
from arena.league.config.model import ExecutorConfig, ExecutorKind

BIN = Path(sys.executable).parent


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``dask scheduler`` on a free port of loopback, in its own process group."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (tmp_path / "scheduler.log").open("wb") as log:
        proc = subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
        )  # fmt: skip
    try:
        yield f"tcp://127.0.0.1:{port}", proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture
def printed() -> Iterator[io.StringIO]:
    """What distributed's loggers print, set up as distributed sets them up in ``arena run``
    (a handler of their own, to stderr; under pytest, whose handlers come first, it sets none)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    loggers = [logging.getLogger(n) for n in ("distributed", "distributed.client")]
    before = [(lg.propagate, lg.level) for lg in loggers]
    for lg, level in zip(loggers, (logging.INFO, logging.WARNING), strict=True):
        lg.addHandler(handler)
        lg.propagate = False
        lg.setLevel(level)
    try:
        yield out
    finally:
        for lg, (propagate, level) in zip(loggers, before, strict=True):
            lg.removeHandler(handler)
            lg.propagate = propagate
            lg.setLevel(level)


def batched_write_failed() -> None:
    """What distributed.batched logs when a write meets the closed connection."""
    try:
        raise CommClosedError("in <TCP (closed) ConnectionPool.send local=... remote=...>: Stream is closed")
    except CommClosedError:
        logging.getLogger("distributed.batched").info("Batched Comm Closed %r", "<BatchedSend>", exc_info=True)


def test_distributeds_own_account_of_a_lost_scheduler_never_reaches_stderr(
    scheduler: tuple[str, subprocess.Popen[bytes]], printed: io.StringIO
) -> None:
    address, proc = scheduler
    executor = ExecutorConfig(kind=ExecutorKind.DASK, scheduler=address, connect_timeout_ms=20_000, where="test")
    with connect(executor, 1) as client:
        logging.getLogger("distributed.client").warning("still said while connected")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        batched_write_failed()  # before the client noticed, or after: it depends on timing
        deadline = time.monotonic() + 30
        while client.status == "running":
            assert time.monotonic() < deadline, "the client never noticed that its scheduler died"
            time.sleep(0.02)
        logging.getLogger("distributed.client").info("Reconnecting...")
    # From the client's loop thread, after the arena has closed it and said the loss itself:
    logging.getLogger("distributed.client").error(
        "Failed to reconnect to scheduler after %.2f seconds, closing client", 20.0
    )
    try:
        raise AssertionError("closing a client that lost its scheduler")
    except AssertionError:
        logging.getLogger("distributed.utils").error("closing", exc_info=True)
    err = printed.getvalue()
    assert "still said while connected" in err  # distributed's other records are not lost
    for said in ("Traceback", "Batched Comm Closed", "Reconnecting", "Failed to reconnect", "closing"):
        assert said not in err, err
