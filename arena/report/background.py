"""``report.html`` kept current by a child process while a run plays on.

The page holds every game's record, so making it costs time and memory in
proportion to the league (about 150 MB at 20,000 games).  Made in the arena
process, that cost sat in the loop that hands out games and stayed in the
process's memory for the rest of the run.  A child opens the store read-only
(WAL: the run keeps writing meanwhile), writes the page in one step and exits,
taking its memory with it; the run only starts it and later looks whether it is
done.  One page at a time: a refresh due while a page is still being made is
skipped, and the last page of a run is waited for.  A page of a few hundred
games is quicker to make than a child is to start, and is made in place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from arena import package_parent
from arena.errors import ArenaError, ResultsWriteError
from arena.league.store import ResultStore
from arena.stats.settings import RatingConfig

# Below this many games a page is made in the run's own process: it takes less time
# (about 0.5 ms a game) than starting a child does (about 0.2 s), and little memory.
CHILD_FROM_GAMES = 500
ERROR_KEEP = 4000
ARENA_ERROR_EXIT = 3  # the child's exit code for an arena error (Python's own failures exit 1)  # bytes of a failed child's message kept for the run's error


def write_page(folder: Path, bots: Sequence[str], rating: RatingConfig, running: bool) -> None:
    """Make and write ``folder``'s report.html from its store (what the child runs)."""
    from arena.report import tournament_report, write_report  # here: the run itself never needs jinja

    with ResultStore.open(folder) as store:  # open while the page is written: it reads the games
        write_report(folder, tournament_report(store, bots, rating, running=running))


class BackgroundReport:
    """Writes a run's report.html in a child process, one page at a time."""

    def __init__(self, folder: Path, bots: Sequence[str], rating: RatingConfig) -> None:
        self.folder = folder
        self.bots = list(bots)
        self.rating = rating
        self._child: tuple[subprocess.Popen[bytes], IO[bytes], IO[bytes]] | None = None
        self._began = 0.0
        self.cost = 0.0  # wall seconds the last page took, the child's start included

    def __enter__(self) -> BackgroundReport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def busy(self) -> bool:
        """Whether a page is being made; raises the error of one that failed."""
        if self._child is None:
            return False
        proc, out, err = self._child
        if proc.poll() is None:
            return True
        self._reap()
        out.seek(0)
        took = math.nan
        with contextlib.suppress(ValueError):  # the child says how long it took, start included
            took = float(out.read(100).decode("ascii", "replace").strip() or "nan")
        out.close()
        # Without its word (it failed), the time until this look: at least that long.
        self.cost = took if math.isfinite(took) and took >= 0 else time.monotonic() - self._began
        err.seek(0)
        why = err.read(ERROR_KEEP).decode("utf-8", "replace").strip().splitlines()
        err.close()
        if proc.returncode == ARENA_ERROR_EXIT and why:
            raise ResultsWriteError(why[-1])  # a failed write (a full disk) stops the run
        if proc.returncode != 0:
            last = why[-1] if why else "no message"
            raise ResultsWriteError(
                f"making report.html failed (its process ended with exit code {proc.returncode}: "
                f"{last}); every finished game is kept"
            )
        return False

    def _reap(self) -> None:
        assert self._child is not None
        proc = self._child[0]
        self._child = None
        proc.wait()

    def start(self, running: bool = True, games: int = CHILD_FROM_GAMES) -> bool:
        """Start making a page of ``games`` games, unless one is still being made; whether
        it started.  A small page is made here and now: that is quicker than starting a child."""
        if self.busy():
            return False
        self._began = time.monotonic()
        if games < CHILD_FROM_GAMES:
            write_page(self.folder, self.bots, self.rating, running)
            self.cost = time.monotonic() - self._began
            return True
        # The job goes in on stdin, from a file: a league's list of bots can be longer than
        # one command-line argument may be (128 KiB on Linux).
        job = {
            "folder": str(self.folder),
            "bots": self.bots,
            "rating": dataclasses.asdict(self.rating),
            "running": running,
            "launched": time.time(),
        }
        # The arena this process runs, wherever it was imported from (installed or not).
        package_root = package_parent()
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        # Files, not pipes: written whole before the child starts, read after it ends (so
        # neither side ever waits on the other).  Closed in busy()/close().
        files = [tempfile.TemporaryFile() for _ in range(3)]  # noqa: SIM115
        job_in, out, err = files
        try:
            job_in.write(json.dumps(job).encode())
            job_in.seek(0)
            proc = subprocess.Popen(
                [sys.executable, "-m", __name__],
                env={**os.environ, "PYTHONPATH": path},
                stdin=job_in,
                stdout=out,
                stderr=err,
                start_new_session=True,  # Ctrl-C is the run's to handle: it waits or stops this child
            )
        except BaseException:
            for f in files:
                f.close()
            raise
        finally:
            job_in.close()  # the child has its own copy of the descriptor
        self._child = (proc, out, err)
        return True

    def wait(self) -> None:
        """Wait for the page being made (if any); raises its error."""
        if self._child is not None:
            self._child[0].wait()
            self.busy()

    def finish(self, running: bool = False, games: int = CHILD_FROM_GAMES) -> None:
        """Write the run's last page and wait for it (after the one being made, if any)."""
        self.wait()
        self.start(running, games)
        self.wait()

    def close(self) -> None:
        """Stop making pages: a page still being made is abandoned (the last one written stays)."""
        if self._child is not None:
            proc, out, err = self._child
            proc.kill()  # an interrupted run does not wait for a page
            self._reap()
            out.close()
            err.close()


def main() -> int:
    job = json.load(sys.stdin)
    try:
        write_page(Path(job["folder"]), job["bots"], RatingConfig(**job["rating"]), job["running"])
    except ArenaError as e:
        print(e, file=sys.stderr)  # the run stops with this line, as if it had written the page
        return ARENA_ERROR_EXIT
    except Exception:
        traceback.print_exc(limit=6)
        return 2
    # How long the page took, this process's start included: the run spaces pages by it.
    print(f"{time.time() - job['launched']:.3f}")
    return 0


if __name__ == "__main__":
    # Not a command for people ('arena report' is): the run's child for one page.
    sys.exit(main())
