"""The results folder of a tournament: claimed, locked for one run, and written atomically.

``output`` must be a folder the tournament owns: new, empty, or already a
results folder.  A run holds an exclusive lock on it from start to end (an
``flock`` on :data:`LOCK_NAME` in the folder, which the kernel releases when
the run ends however it ends), so a second ``arena run`` on the same folder
stops at once, naming the first; reading the results needs no lock.  Files
are replaced atomically, readable as any other file (0644 under the usual
umask), and a temporary file a killed run left behind is removed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from arena.errors import ResultsFolderBusy, ResultsFolderError
from arena.league.store import STORE_NAME
from arena.untrusted import printable

LOCK_NAME = ".arena-run.lock"
# What a run writes in its folder; anything else there means the folder is someone else's.
# The ladder service (``arena serve``) adds its store, the submissions, its league's job and
# log (and a league file of an older arena), its final tournament's file and log, and its scrimmages'
# folder and log: in this order, the names
# ``arena/ladder/folders.py`` gives them, its one home (the ladder sits above the league).
LADDER_NAMES = (
    "ladder.sqlite",
    "submissions",
    "ladder-league.yaml",
    "ladder-league.json",
    "ladder-league.log",
    "ladder-final.yaml",
    "ladder-final.log",
    "scrimmages",
    "ladder-scrimmage.log",
)
_OWN_NAMES = (STORE_NAME, "standings.md", "standings.json", "report.html", LOCK_NAME, ".seed-secret", *LADDER_NAMES)
_OWN_PREFIXES = (
    f"{STORE_NAME}-",
    ".standings.md.",
    ".standings.json.",
    ".report.html.",
    ".seed-secret.",
    "ladder.sqlite-",
    ".ladder-league.yaml.",
    ".ladder-league.json.",
    ".ladder-final.yaml.",
)


# Where results cannot go: trees of the kernel and of devices, not of files (results
# written there go nowhere, or somewhere they must not) ...
SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
# ... but for these folders inside them: /dev/shm is a tmpfs folder like any other.
SYSTEM_FOLDER_EXCEPTIONS = (Path("/dev/shm"),)


def system_folder_of(path: Path) -> Path | None:
    """The system folder (of :data:`SYSTEM_FOLDERS`) that ``path``, resolved, lies in, or None
    when it is an ordinary folder that results may go to."""
    if any(path.is_relative_to(e) for e in SYSTEM_FOLDER_EXCEPTIONS):
        return None
    return next((tree for tree in SYSTEM_FOLDERS if path.is_relative_to(tree)), None)


def claim_folder(folder: Path, where: str) -> tuple[Path, list[Path]]:
    """Create ``folder`` or check it is empty or a results folder.

    Returns it resolved, and the folders created for it (deepest first). ``where``
    names the file that chose it (the tournament file), for the message.
    """

    def refuse(why: str) -> ResultsFolderError:
        return ResultsFolderError(f"{where}: 'output' {str(folder)!r} {why}")

    real = folder.resolve()
    tree = system_folder_of(real)
    if tree is not None:
        resolved = f" (it resolves to {str(real)!r})" if real != folder else ""
        raise refuse(f"is under {str(tree)!r}{resolved}: results need a folder of their own")
    if real.exists() and not real.is_dir():
        raise refuse("exists and is not a folder: results need a folder of their own")
    created = [d for d in (real, *real.parents) if not d.exists()]
    try:
        real.mkdir(parents=True, exist_ok=True)
        foreign = sorted(e.name for e in real.iterdir() if not _is_own(e.name))
    except OSError as e:
        raise refuse(f"cannot be created or read: {e.strerror or e}") from None
    if foreign and not (real / STORE_NAME).is_file():
        listing = ", ".join(repr(printable(n)) for n in foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise refuse(
            f"holds other files ({listing}) and no {STORE_NAME}: not a results folder; "
            "set 'output' to a new or empty folder"
        )
    return real, created


def _is_own(name: str) -> bool:
    return name in _OWN_NAMES or name.startswith(_OWN_PREFIXES)


@contextlib.contextmanager
def hold(folder: Path, where: str) -> Iterator[Path]:
    """Claim ``folder`` (:func:`claim_folder`) and hold it for one run of the tournament ``where``.

    Raises :class:`ResultsFolderBusy` at once when another run holds it. ``where``
    (the tournament file) is written in the lock file with this process's pid, host
    and start time, for the message the other run gets.
    """
    real, created = claim_folder(folder, where)
    try:
        fd = _lock(real / LOCK_NAME, folder, where)
        try:
            _write_holder(fd, where)
            remove_stale_temporaries(real)
            yield real
        finally:
            # Remove the file while still holding it: a run waiting on the old file then
            # sees it gone and starts over on a new one (see _lock).
            with contextlib.suppress(OSError):
                os.unlink(real / LOCK_NAME)
            os.close(fd)
    finally:
        # A run refused before it stored anything (a bad bot, a busy folder) leaves no trace.
        for d in created:
            with contextlib.suppress(OSError):
                d.rmdir()


def _lock(path: Path, folder: Path, where: str) -> int:
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise ResultsFolderError(
                f"{where}: 'output' {str(folder)!r}: cannot create the lock file {str(path)!r}: {e.strerror or e}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _read_holder(fd)
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise ResultsFolderError(
                    f"{where}: 'output' {str(folder)!r}: cannot lock {str(path)!r}: {e.strerror or e}"
                ) from None
            raise ResultsFolderBusy(
                f"{where}: 'output' {str(folder)!r} is in use by another 'arena run' ({holder}); "
                "wait for it to end, or set another 'output'"
            ) from None
        # The run that held it may have ended and removed the file between our open and our
        # lock: then we hold a file nobody else will ever open. Only the file at the path counts.
        with contextlib.suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd
        os.close(fd)


def _write_holder(fd: int, what: str) -> None:
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": started, "tournament": what}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)


def _read_holder(fd: int) -> str:
    """The running run, as its lock file names it."""
    try:
        raw = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        h = json.loads(raw)
        text = f"pid {h['pid']} on {h['host']}, started {h['started']}, running {h['tournament']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "which has not written its pid yet"
    return printable(text)


# --- files ------------------------------------------------------------------------


def _temp_prefix(name: str) -> str:
    return f".{name}."


def remove_stale_temporaries(
    folder: Path, names: tuple[str, ...] = ("standings.md", "standings.json", "report.html")
) -> None:
    """Remove the temporary files of :func:`write_atomic` that a killed run left in ``folder``.

    Only the run that holds the folder calls this, so no other writer's file is touched.
    """
    for name in names:
        for tmp in folder.glob(f"{_temp_prefix(name)}*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for every thread)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Replace ``path`` in one step, so a reader never sees half a file (``text``: the
    whole text, or its pieces in order, written as they come).

    The text goes to a temporary file beside it, renamed over it when whole; when
    that fails (a full disk) the temporary file is removed and ``path`` is left as
    it was.  The file gets the mode a new file gets (0644 under the usual umask),
    not the 0600 of a temporary file: a web server or another user may read it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())
            if isinstance(text, str):
                f.write(text)
            else:
                f.writelines(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    remove_stale_temporaries(path.parent, (path.name,))  # any a killed run left beside it
