"""The league loop of ``arena serve``: one continuous league that keeps playing.

A thread watches the roster (:mod:`arena.ladder.roster`): the versions that passed their
checks, which of them are retired, whether the ladder is paused.  While the league has
games to play it runs in a child process (:mod:`arena.ladder.league_job`); when the roster
changes the child is stopped like Ctrl-C stops ``arena run`` (finished games kept) and
started again on the new roster, so the new version plays next: the league gives every
new meeting its first sets before it goes back to the least sure pairs.  When the league
stops by itself (every adjacent pair settled, or its budget spent) the loop is idle until
the roster changes.  A league that fails (a house bot that does not build, a ladder file
edited in a way the stored games forbid) is tried again after a pause, and the failure is
logged and shown on the ladder's health: the league is called failed until it finishes a game
again (or ends by itself), so that a monitor never sees a league that cannot play as playing.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

from arena.ladder.child import end_child, start_child
from arena.ladder.child_loop import ChildLoop, LoopStatus
from arena.ladder.deadline import final_asked
from arena.ladder.folders import LEAGUE_FILE, LEAGUE_LOG
from arena.ladder.jobfiles import LeagueJob
from arena.ladder.league_job import EXIT_ENDED, EXIT_INTERRUPTED
from arena.ladder.roster import roster, roster_key
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore
from arena.league.store import STORE_NAME, ResultStore

LOG_KEEP_BYTES = 256 * 1024  # of the log, kept when it passes LOG_MAX_BYTES at a start
LOG_MAX_BYTES = 1024 * 1024
POLL_S = 2.0  # how often the roster is looked at (the service's own changes wake the loop at once)
RETRY_AFTER_S = 60.0  # after a league that failed, before it is tried again on the same file
STOP_GRACE_S = 30.0  # from SIGINT to SIGKILL of the league's process


class LeagueLoop(ChildLoop):
    """The thread that keeps the ladder's league playing on the current roster (states:
    "playing", "idle", "paused", "final", "failed" or "stopped")."""

    def __init__(self, ladder: Ladder, store: LadderStore) -> None:
        super().__init__("ladder-league", LoopStatus("stopped", "not started", time.time()), POLL_S)
        self.ladder = ladder
        self.store = store
        # Each roster is known by its key (roster.roster_key): the one playing, the one the
        # league last stopped on by itself, the one that failed (and when to try it again).
        self._running_text: str | None = None
        self._ended_text: str | None = None
        self._failed_roster: tuple[str, float] | None = None
        # Why the league last failed, until it finishes a game again (or ends by itself): a
        # league tried again is not called playing before it has shown it can play.
        self._failure: str | None = None
        self._games_at_retry = 0

    def start(self) -> None:
        """Start the loop: the league resumes (or stays idle if it had ended on this roster)."""
        # The league's file of an older arena: the roster is read from the store now.
        with contextlib.suppress(OSError):
            (self.ladder.folder / LEAGUE_FILE).unlink(missing_ok=True)
        super().start()

    def stop(self, timeout_s: float = STOP_GRACE_S + 15) -> None:
        """Stop the league (finished games kept, games in flight abandoned) and the loop."""
        super().stop(timeout_s)

    def _noted(self, state: str, detail: str) -> None:
        if state != "stopped":  # the service's own stop is not the league's news
            self.store.log(None, f"league-{state}", "league", detail)

    def _failed(self, e: Exception) -> None:
        self._failure = f"the league could not start: {e!r}"
        self._set("failed", self._failure)
        self._failed_roster = ("", time.time() + RETRY_AFTER_S)

    def _on_stop(self) -> None:
        self._set("stopped", "the service stopped")

    def _step(self) -> None:
        if self.store.paused():
            if self._proc is not None:
                self._halt()
            self._set("paused", "the organiser paused the ladder")
            return
        if final_asked(self.store):  # the final tournament has the machines from now on
            if self._proc is not None:
                self._halt()
            self._set("final", "the ladder's league stopped for the final tournament (see /final)")
            return
        text = roster_key(self.ladder, self.store)
        if self._proc is not None:
            code = self._proc.poll()
            if code is None:
                if text != self._running_text:
                    self._halt()  # started again on the new file at the next step
                elif self._failure is not None and finished_games(self.ladder.folder) > self._games_at_retry:
                    self._failure = None
                    self._set("playing", self._playing())
                return
            self._ended(code)
        if text == self._ended_text:
            return
        if self._failed_roster is not None and (self._failed_roster[0] in ("", text)) and time.time() < self._failed_roster[1]:
            return
        self._launch(text)

    def _launch(self, text: str) -> None:
        job = LeagueJob(self.ladder.league.path, self.ladder.text, self._budget_base(text))
        path = job.write(self.ladder.folder)
        log = self.ladder.folder / LEAGUE_LOG
        _trim(log)
        with log.open("ab") as out:
            self._proc = start_child("arena.ladder.league_job", [str(path)], out)
        self._running_text = text
        self._failed_roster = None
        if self._failure is None:
            self._set("playing", self._playing())
        else:
            self._games_at_retry = finished_games(self.ladder.folder)
            self._set("failed", f"{self._failure} (tried again: no game finished since)")

    def _playing(self) -> str:
        house = [b for b in self.ladder.league.bots if not b.retired]
        versions = [e.name for e in roster(self.store) if e.active]
        return f"the league is playing: {len(house)} house bots and {len(versions)} versions"

    def _budget_base(self, key: str) -> int:
        """The games the league had when its roster became the one of ``key`` (kept across
        restarts): the ladder's ``max_games`` counts from there."""
        digest = key
        if self.store.kept("league.roster") == digest:
            return int(self.store.kept("league.games_before") or 0)
        base = 0
        if (self.ladder.folder / STORE_NAME).is_file():
            with ResultStore.open(self.ladder.folder) as results:
                base = results.schedule_size()
        self.store.keep("league.games_before", str(base))
        self.store.keep("league.roster", digest)
        return base

    def _ended(self, code: int) -> None:
        """The league's process ended by itself with ``code``."""
        text, self._proc, self._running_text = self._running_text, None, None
        if code == EXIT_ENDED:
            self._ended_text = text
            self._failure = None
            self._set("idle", _last_line(self.ladder.folder / LEAGUE_LOG) or "the league stopped")
            return
        why = _last_line(self.ladder.folder / LEAGUE_LOG) or f"exit code {code}"
        self._failed_roster = (text or "", time.time() + RETRY_AFTER_S)
        self._failure = f"the league ended with exit code {code}: {why}"
        self._set("failed", self._failure)

    def _halt(self) -> None:
        """Stop the league's process like Ctrl-C, then kill its group if it does not end."""
        proc, self._proc, self._running_text = self._proc, None, None
        if proc is None:
            return
        code = end_child(proc, STOP_GRACE_S)
        if code not in (EXIT_ENDED, EXIT_INTERRUPTED, -signal.SIGKILL):
            self.store.log(None, "league-stopped", "league", f"exit code {code}")


def finished_games(folder: Path) -> int:
    """The games the league in ``folder`` has finished (0 before its store is made)."""
    if not (folder / STORE_NAME).is_file():
        return 0
    with ResultStore.open(folder) as results:
        return results.count()


def _trim(log: Path) -> None:
    """Keep the log's tail when it grew past LOG_MAX_BYTES."""
    with contextlib.suppress(OSError):
        if log.stat().st_size > LOG_MAX_BYTES:
            with log.open("rb") as f:
                f.seek(-LOG_KEEP_BYTES, os.SEEK_END)
                tail = f.read()
            log.write_bytes(tail)


def _last_line(log: Path) -> str:
    """The log's last line (the league's own words on why it stopped)."""
    with contextlib.suppress(OSError), log.open("rb") as f:
        f.seek(max(0, log.stat().st_size - 4096))
        lines = f.read().decode("utf-8", "replace").strip().splitlines()
        # Without the time the league job puts in front of each of its lines.
        return re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ", "", lines[-1])[:500] if lines else ""
    return ""
