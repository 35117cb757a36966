"""A loop of the ladder service: a thread that keeps one child process going (the league, the
final, the scrimmages), woken at once by the service when something it watches changes and
every few seconds in any case, and stopped with the service.

Each loop's own work is its :meth:`ChildLoop._step` (look at the ladder, start, watch or end
its process) and :meth:`ChildLoop._halt` (end the process); what it is doing is a
:class:`LoopStatus`, shown on the ladder's health and pages.  A step that raises (the ladder's
own failure, a full disk...) halts the process and is the loop's :meth:`ChildLoop._failed`;
the next step tries again.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class LoopStatus:
    """What a loop is doing: its state (each loop names its own), one line why, and since when."""

    state: str
    detail: str
    since: float


class ChildLoop:
    """The thread and its controls; subclasses give the steps."""

    def __init__(self, name: str, status: LoopStatus, poll_s: float) -> None:
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._status = status
        self._poll_s = poll_s
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def status(self) -> LoopStatus:
        return self._status

    def start(self) -> None:
        self._thread.start()

    def changed(self) -> None:
        """Say something the loop watches changed: it looks again now."""
        self._wake.set()

    def stop(self, timeout_s: float) -> None:
        """Stop the loop and its process (each loop keeps what its process finished)."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def _set(self, state: str, detail: str) -> None:
        if (state, detail) != (self._status.state, self._status.detail):
            self._status = LoopStatus(state, detail, time.time())
            self._noted(state, detail)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    self._step()
                except Exception as e:  # the ladder's own failure (a full disk...): tried again
                    self._halt()
                    self._failed(e)
                self._wake.wait(self._poll_s)
                self._wake.clear()
        finally:
            self._halt()
            self._on_stop()

    # -- what each loop gives -----------------------------------------------------------------

    def _step(self) -> None:
        raise NotImplementedError

    def _halt(self) -> None:
        raise NotImplementedError

    def _failed(self, e: Exception) -> None:
        """A step raised ``e`` (its process already halted)."""
        raise NotImplementedError

    def _noted(self, state: str, detail: str) -> None:
        """The status changed to ``state`` (say, to write it in the action log)."""

    def _on_stop(self) -> None:
        """The loop is over (its process halted)."""
