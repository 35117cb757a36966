"""A bot's private copy of its folder: the only folder its build (and a ``writable`` bot) may write.

Bots often share a folder (the sample league runs every bot from the repository
root), and a build writes where it runs.  Had it written the shared folder, one
bot's build could rewrite another bot's program, or plant code (``.git/hooks``,
``conftest.py``) that a later ``git pull`` or ``pytest`` runs outside any sandbox.
So a bot that builds, or is ``writable``, gets a copy of its folder of its own;
the sandbox shows the copy at the folder's own path (``SandboxPolicy.source``),
and the real folder is never written.

Before a build (when the arena runs as root) the copy is handed to the build's
own unprivileged user; after it, every set-id bit is stripped and the copy is
given back to root (group ``nogroup``, readable by every bot user), so nothing a
build made can lend a privilege to whoever runs it outside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from arena import package_parent
from arena.errors import ConfigError
from arena.game.sandbox.bwrap import SANDBOX_GID

SKIPPED = (".git",)  # a checkout's history and hooks: never part of what a bot runs
SET_ID = stat.S_ISUID | stat.S_ISGID


def arena_checkout() -> str:
    """The folder holding the arena's own package (a checkout, or site-packages)."""
    return package_parent()


def new_root(prefix: str = "arena-bots-") -> Path:
    """A folder for one run's copies, only root's (or the arena user's) to list."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("ARENA_WORKSPACES") or None))
    root.chmod(0o711)  # bot users pass through to their own copy, and list nothing
    return root


def make_copy(source: Path, root: Path, name: str, skip: Sequence[Path] = ()) -> Path:
    """Copy ``source`` into ``root/name`` (links kept as links; ``.git``, ``skip`` and any
    special file left out); raises ConfigError naming what could not be copied."""
    dest = root / name
    skipped = {os.path.realpath(p) for p in skip}

    def ignore(folder: str, names: list[str]) -> list[str]:
        out = []
        for n in names:
            p = os.path.join(folder, n)
            st = os.lstat(p)
            special = not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode))
            if n in SKIPPED or os.path.realpath(p) in skipped or special:
                out.append(n)
        return out

    try:
        shutil.copytree(source, dest, symlinks=True, ignore=ignore)
    except (OSError, shutil.Error) as e:
        raise ConfigError(f"cannot copy the bot's folder {str(source)!r} to {str(dest)!r}: {e}") from None
    dest.chmod(0o755)
    return dest


def _walk(top: Path) -> Iterator[str]:
    yield str(top)
    for folder, dirs, files in os.walk(top):
        for n in dirs + files:
            yield os.path.join(folder, n)


Owners = dict[str, tuple[int, int]]


def hand_to(folder: Path, user: tuple[int, int] | None) -> Owners:
    """Make ``folder`` the build user's own (when the arena is root), so the build writes it;
    the owners it had, for :func:`give_back`."""
    owners: Owners = {}
    if user is None:
        return owners
    for p in _walk(folder):
        st = os.lstat(p)
        owners[p] = (st.st_uid, st.st_gid)
        os.lchown(p, *user)
    return owners


def give_back(folder: Path, owners: Owners, default: tuple[int, int]) -> None:
    """After a build: every file to the owner it had, what the build made to ``default``.
    (Set-id bits are stripped first: a chown would clear them, but not on every file system.)"""
    for p in _walk(folder):
        os.lchown(p, *owners.get(p, default))


def strip_set_id(folder: Path) -> list[str]:
    """Remove every set-uid and set-gid bit under ``folder``; the paths that had one."""
    stripped = []
    for p in _walk(folder):
        st = os.lstat(p)
        if not stat.S_ISLNK(st.st_mode) and st.st_mode & SET_ID:
            os.chmod(p, stat.S_IMODE(st.st_mode) & ~SET_ID)
            stripped.append(os.path.relpath(p, folder))
    return stripped


def open_to_bots(copy: Path, writable: bool) -> None:
    """Make a private copy readable by every bot user (each start runs as a user of its own);
    a ``writable`` copy also writable by the bots' group.  Anything but files, folders and
    links (a fifo or socket a build left) is removed: nothing a bot runs."""
    for p in _walk(copy):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if not (is_dir or stat.S_ISREG(st.st_mode)):
            os.unlink(p)
            continue
        mode = stat.S_IMODE(st.st_mode) & ~SET_ID
        mode |= 0o444 | (0o111 if is_dir or mode & 0o100 else 0)
        if writable:
            mode |= 0o020 | (0o010 if is_dir else 0)
        os.chmod(p, mode)


def seal(copy: Path, writable: bool) -> None:
    """Ready a private copy for its bot: root's and the bots' group's (when root), open to bots."""
    if os.geteuid() == 0:
        for p in _walk(copy):
            os.lchown(p, 0, SANDBOX_GID)
    open_to_bots(copy, writable)
