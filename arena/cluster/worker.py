"""What runs on a Dask worker: the run's plugin, the game task and the worker's report.

:class:`ArenaPlugin` is registered by the arena for one run.  On each worker
(those there at the start and any that join later) it prepares the bots in a
background thread (unpack, build, check: :func:`arena.cluster.placement.prepare`),
so a long build never stalls the worker's heartbeat, and keeps the outcome in
a :class:`WorkerRun`.  The arena asks each worker for it with :func:`report`
and sends games only to the fit ones.

Games run through :func:`play`, one at a time per worker process: the arena
takes only workers with one thread.  The worker's :class:`~arena.game.bothost.BotHost`
is made at its first game and kept, so bots that declare ``multigame`` keep
their process across the games this worker plays, as in a local worker; the
plugin's teardown (the run's end, or the worker closing) stops them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import traceback
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from arena.cluster.placement import Placement, prepare
from arena.game.bothost import BotHost
from arena.game.proctree import adopt_orphans
from arena.league.executor import GameSettings, play_scheduled
from arena.league.schedule import ScheduledGame

# This process's runs by key (one, unless several tournaments share the cluster).
_RUNS: dict[str, WorkerRun] = {}
_RUNS_LOCK = threading.Lock()


class WorkerRun:
    """One run's state in one worker process: its bots, ready or not, and their host."""

    def __init__(self, key: str, scratch: Path) -> None:
        self.key = key
        self.scratch = scratch  # this worker's copies of uploaded folders
        self.lock = threading.Lock()
        self.prepared = threading.Event()
        self.settings: GameSettings | None = None
        self.problem: str | None = None
        self.host: BotHost | None = None
        self.busy = False
        self.closed = False

    def prepare(self, settings: GameSettings, placement: Placement) -> None:
        try:
            self.settings, self.problem = prepare(placement, settings, self.scratch)
        except Exception as e:  # a bug or the machine: the worker takes no games and says why
            self.problem = f"preparing the bots failed: {type(e).__name__}: {e}"
        finally:
            self.prepared.set()
            with self.lock:
                if self.closed:  # the run ended while we built
                    self._release()

    @contextlib.contextmanager
    def playing(self) -> Iterator[tuple[GameSettings, BotHost]]:
        """The settings and the worker's bot host, for one game."""
        with self.lock:
            if self.closed or self.settings is None or self.problem is not None:
                raise RuntimeError(f"this worker is not ready for run {self.key}: {self.problem or 'closed'}")
            self.busy = True
            if self.host is None:
                self.host = self.settings.host()
            settings, host = self.settings, self.host
        try:
            yield settings, host
        finally:
            with self.lock:
                self.busy = False
                if self.closed:  # the run ended during this game: its teardown left the rest to us
                    self._release()

    def close(self) -> None:
        """Stop the kept bots and remove the uploaded copies (after the game in progress, if any)."""
        with self.lock:
            self.closed = True
            if not self.busy and self.prepared.is_set():
                self._release()

    def _release(self) -> None:
        host, self.host = self.host, None
        if host is not None:
            host.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class ArenaPlugin(WorkerPlugin):
    """The bots of one run, made ready on every worker (picklable: Dask ships it)."""

    def __init__(self, key: str, settings: GameSettings, placement: Placement) -> None:
        self.key = key
        self.settings = settings
        self.placement = placement

    def setup(self, worker: Any) -> None:
        adopt_orphans()  # this process is the bots' parent, as a local worker is
        run = WorkerRun(self.key, Path(worker.local_directory) / "arena-bots" / self.key)
        with _RUNS_LOCK:
            old = _RUNS.pop(self.key, None)
            _RUNS[self.key] = run
        if old is not None:
            old.close()
        threading.Thread(
            target=run.prepare, args=(self.settings, self.placement), name=f"arena-prepare-{self.key}", daemon=True
        ).start()

    def teardown(self, worker: Any) -> None:
        with _RUNS_LOCK:
            run = _RUNS.pop(self.key, None)
        if run is not None:
            run.close()


def plugin_name(key: str) -> str:
    return f"arena-{key}"


def machine_id() -> str:
    """What tells this worker's machine (the kernel whose cores it shares) from others.

    Not the host name: clones of one image share it.  The kernel's boot id is drawn
    afresh at every boot, so cloned machines differ, while containers on one kernel,
    which do share its cores, have the same one.
    """
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read(64).strip()
    except OSError:
        boot = ""
    return boot or f"host:{socket.gethostname()}"


def report(key: str, dask_worker: Any = None) -> dict[str, Any]:
    """What the arena needs to know of this worker for a run (run by ``Client.run``)."""
    run = _RUNS.get(key)
    facts: dict[str, Any] = {
        "host": socket.gethostname(),
        "machine": machine_id(),
        "id": str(dask_worker.id) if dask_worker is not None else "",
        "cores": len(os.sched_getaffinity(0)),
        "threads": dask_worker.state.nthreads if dask_worker is not None else 1,
        "ready": run is not None and run.prepared.is_set(),
        "problem": run.problem if run is not None else None,
    }
    return facts


def play(key: str, game: ScheduledGame) -> tuple[str, Any, str]:
    """Play one game here: ("done", record dict, worker) or ("error", traceback, worker).

    An error of the arena comes back as a value, not an exception, so the arena
    decides on a retry and Dask does not rerun it by itself.
    """
    address = str(get_worker().address)
    try:
        run = _RUNS.get(key)
        if run is None:
            raise RuntimeError(f"run {key} is not set up on this worker")
        with run.playing() as (settings, host):
            record = play_scheduled(settings, game, host)
        record = replace(record, extra={**record.extra, "worker": address})
        return "done", record.to_dict(), address
    except Exception:
        return "error", traceback.format_exc(limit=8), address
