"""The submissions queue: a fair order, and the thread that builds and checks each version.

Fair means round-robin over authors, each author's oldest first: one author's ten
submissions do not starve another's first.  Each version is unpacked afresh from its kept
archive, then built and checked in a process of its own (:mod:`arena.ladder.job`) under the
ladder's deadline; a version left half done by a stop is redone from its archive on the next
start, never half joined.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.errors import ArchiveRefused
from arena.ladder import folders
from arena.ladder.child import end_child, start_child
from arena.ladder.folders import ARCHIVE_FILE, INCOMING_PREFIX, JOB_STDERR, RESULT_FILE
from arena.ladder.jobfiles import CheckJob, CheckResult
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore, State, Submission
from arena.ladder.unpack import unpack
from arena.league.schedule import derive_seed

IDLE_WAIT_S = 1.0  # how long the thread sleeps with nothing to do (a new submission wakes it)
STOP_GRACE_S = 10.0  # from SIGINT to SIGKILL of a check being abandoned
MAX_ATTEMPTS = 2  # a check whose own process dies is tried again once, then failed
STDERR_TAIL = 4000


def next_submission(pending: Sequence[Submission], served: dict[str, int]) -> Submission | None:
    """The submission to work on next: of the author served longest ago (never first; then
    the author whose oldest waits longest), that author's oldest."""
    oldest: dict[str, Submission] = {}
    for s in sorted(pending, key=lambda s: s.id):
        oldest.setdefault(s.author, s)
    if not oldest:
        return None
    return min(oldest.values(), key=lambda s: (served.get(s.author, -1), s.id))


class CheckQueue:
    """The thread that takes pending submissions in fair order and stores their verdicts."""

    def __init__(self, ladder: Ladder, store: LadderStore, on_verdict: Callable[[], None] = lambda: None) -> None:
        self.ladder = ladder
        self.store = store
        self.on_verdict = on_verdict  # a version passed or failed: the league's roster may change
        self.intake = threading.Lock()  # held while a submission is stored and its folder made
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._served: dict[str, int] = {}
        self._turn = 0
        self._attempts: dict[int, int] = {}
        self._job: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._run, name="ladder-checks", daemon=True)

    def start(self) -> None:
        """Start taking work (submissions left half done by an earlier run come first in turn)."""
        # Uploads cut off before they were numbered (a crash mid-request) left only these.
        for root in (self.ladder.folder / folders.SUBMISSIONS, self.ladder.versions_folder):
            for stale in root.glob(INCOMING_PREFIX + "*"):
                shutil.rmtree(stale, ignore_errors=True)
        self._thread.start()

    def wake(self) -> None:
        """Say a submission arrived."""
        self._wake.set()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop taking work; a check in flight is abandoned (and redone on the next start)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.store.paused():
                self._wake.wait(IDLE_WAIT_S)
                self._wake.clear()
                continue
            with self.intake:
                chosen = next_submission(self.store.pending(), self._served)
            if chosen is None:
                self._wake.wait(IDLE_WAIT_S)
                self._wake.clear()
                continue
            self._turn += 1
            self._served[chosen.author] = self._turn
            try:
                self._work_on(chosen)
            except Exception as e:  # the ladder's own failure (a full disk...): the queue goes on
                self.store.set_state(chosen.id, State.FAILED, reason=f"the ladder could not check it: {e!r}")

    def _work_on(self, sub: Submission) -> None:
        folder = folders.submission_folder(self.ladder.folder, sub.id)
        bot = self.ladder.version_folder(sub.id)
        shutil.rmtree(bot, ignore_errors=True)  # half built by an earlier run: start again
        bot.parent.mkdir(parents=True, exist_ok=True)
        (folder / RESULT_FILE).unlink(missing_ok=True)
        try:
            unpack(folder / ARCHIVE_FILE, bot, self.ladder.settings.archive, sub.archive_name)
        except ArchiveRefused as e:
            self.store.set_state(sub.id, State.REFUSED, reason=str(e))
            return
        except OSError as e:
            self.store.set_state(sub.id, State.FAILED, reason=f"cannot unpack the kept archive: {e}")
            return
        self.store.set_state(sub.id, State.UNPACKED)
        CheckJob(
            ladder_path=self.ladder.league.path,
            ladder_text=self.ladder.text,
            bot=bot,
            command=sub.command,
            build=sub.build,
            seed=derive_seed(self.ladder.league.seed, "ladder-check", sub.bot, sub.version),
        ).write(folder)
        self.store.set_state(sub.id, State.CHECKING)
        self._finish(sub, folder, *self._run_job(folder))

    def _run_job(self, folder: Path) -> tuple[int | None, str]:
        """Run the job to its end, its deadline or a stop: its exit code (None: not ended) and stderr."""
        err_path = folder / JOB_STDERR
        with err_path.open("wb") as err:
            self._job = proc = start_child("arena.ladder.job", [str(folder)], err)
            deadline = time.monotonic() + self.ladder.settings.check.timeout_ms / 1000
            while proc.poll() is None and not self._stop.is_set() and time.monotonic() < deadline:
                self._stop.wait(0.2)
            code = proc.poll()
            if code is None:
                end_child(proc, STOP_GRACE_S)
            self._job = None
        with err_path.open("rb") as f:
            f.seek(max(0, err_path.stat().st_size - STDERR_TAIL))
            tail = f.read().decode("utf-8", "replace")
        return (None if self._stop.is_set() and code is None else code), tail

    def _finish(self, sub: Submission, folder: Path, code: int | None, stderr: str) -> None:
        if code is None and self._stop.is_set():
            return  # abandoned: still pending, redone on the next start
        if code == 0 and (folder / RESULT_FILE).is_file():
            r = CheckResult.read(folder)
            self.store.set_state(sub.id, r.state, r.reason, r.report, r.build_log)
            self.on_verdict()
            return
        if code is None:
            why = f"the build and check took longer than {self.ladder.settings.check.timeout_ms / 1000:g} s"
            self.store.set_state(sub.id, State.FAILED, reason=why)
            return
        self._attempts[sub.id] = tries = self._attempts.get(sub.id, 0) + 1
        if tries < MAX_ATTEMPTS:
            self.store.log(None, "retry", f"submission {sub.id}", f"the check's process ended with {code}")
            return  # still pending: taken again in its turn
        last = stderr.strip().splitlines()[-1:] or [""]
        self.store.set_state(sub.id, State.FAILED, reason=f"the check could not run (exit {code}): {last[0]}")

