"""The scrimmage loop of ``arena serve``: a thread that keeps the scrimmages' games playing.

Whenever games are asked for and none is being played, it starts the scrimmages' process
(:mod:`arena.ladder.scrimmage_job`), which plays them one at a time and ends when none has
been left for half a minute.  That process runs beside the league's, never inside its pool: a scrimmage's first game
starts within a poll of the request (ahead of every rated game still to come), and the league
keeps every worker it had, so scrimmages cost it at most one game's worth of the machine at a
time (the pool's ``concurrency`` plus one) and never starve it.  While the organiser pauses the
ladder, and once the final tournament is asked for, no scrimmage game starts (the final has
the machines); the games asked for wait, kept in their store.
"""

from __future__ import annotations

import contextlib
import json
import time

from arena.ladder.child import end_child, start_child
from arena.ladder.child_loop import ChildLoop, LoopStatus
from arena.ladder.deadline import final_asked
from arena.ladder.folders import SCRIMMAGE_LOG, SCRIMMAGES
from arena.ladder.jobfiles import LeagueJob
from arena.ladder.scrimmage_store import ScrimmageStore
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore
from arena.league.results_folder import write_atomic

JOB_FILE = "job.json"  # in scrimmages/: the ladder file, for the scrimmages' process
LOG_MAX_BYTES = 1024 * 1024
POLL_S = 2.0
RETRY_AFTER_S = 30.0  # after the scrimmages' process failed
STOP_GRACE_S = 15.0


class ScrimmageLoop(ChildLoop):
    """The thread that plays the scrimmages asked for, in a child process, one game at a time
    (states: "idle", "playing", "paused", "final", "failed" or "stopped")."""

    def __init__(self, ladder: Ladder, store: LadderStore, scrimmages: ScrimmageStore) -> None:
        super().__init__("ladder-scrimmages", LoopStatus("stopped", "not started", time.time()), POLL_S)
        self.ladder = ladder
        self.store = store
        self.scrimmages = scrimmages
        self._retry_at = 0.0

    def stop(self, timeout_s: float = STOP_GRACE_S + 15) -> None:
        """Stop the games (finished ones kept; the one in flight is played again at the next start)."""
        super().stop(timeout_s)

    def _failed(self, e: Exception) -> None:
        self._set("failed", f"the scrimmages could not start: {e!r}")
        self._retry_at = time.time() + RETRY_AFTER_S

    def _on_stop(self) -> None:
        self._set("stopped", "the service stopped")

    def _step(self) -> None:
        if self.store.paused() or final_asked(self.store):
            self._halt()
            if self.store.paused():
                self._set("paused", "the organiser paused the ladder: scrimmages wait")
            else:
                self._set("final", "the final tournament has the machines: scrimmages wait")
            return
        if self._proc is not None:
            code = self._proc.poll()
            if code is None:
                left = self.scrimmages.unplayed()
                self._set("playing", f"{left} scrimmage game(s) to play" if left else "waiting for the next request")
                return
            self._proc = None
            if code != 0:
                self._retry_at = time.time() + RETRY_AFTER_S
                self._set("failed", f"the scrimmages' process ended with exit code {code}: see {SCRIMMAGE_LOG}")
                return
        left = self.scrimmages.unplayed()
        if not left:
            self._set("idle", "no scrimmage game waits")
            return
        if time.time() < self._retry_at:
            return
        self._launch()
        self._set("playing", f"{left} scrimmage game(s) to play")

    def _launch(self) -> None:
        path = self.ladder.folder / SCRIMMAGES / JOB_FILE
        write_atomic(path, json.dumps(LeagueJob(self.ladder.league.path, self.ladder.text, 0).to_json()))
        log = self.ladder.folder / SCRIMMAGE_LOG
        with contextlib.suppress(OSError):
            if log.stat().st_size > LOG_MAX_BYTES:
                log.write_bytes(log.read_bytes()[-LOG_MAX_BYTES // 4 :])
        with log.open("ab") as out:
            self._proc = start_child("arena.ladder.scrimmage_job", [str(path)], out)

    def _halt(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            end_child(proc, STOP_GRACE_S)

