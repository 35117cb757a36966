"""A build's folder on a size-capped tmpfs: what bounds the bytes a build leaves on the disk.

A build writes its folder, and its author chooses what it writes: many files, ``fallocate``,
sparse files, hard links.  Were its folder the host's own, only the per-file size limit and
the build's deadline would bound what it leaves there.  So a build sees, at its folder's
path, a tmpfs of ``build_mb`` (bubblewrap's ``--size``), filled with the folder's files
before the build runs; the kernel refuses a write past it (``ENOSPC``).  The arena holds the
tmpfs open from outside (through the sandbox init's ``/proc/PID/root``), so once every
process of the build is dead it reads what is left there, which no process can change any
more, and carries it out to the host's folder only when the build succeeded and the whole
fits in ``build_mb`` as the host's disk counts it (each file's full length, so a sparse file
counts what it would take written out; each entry a block; each hard link a copy).  A build
that fails leaves the host's folder as it was.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BLOCK = 4096  # what the host's disk takes at least for an entry, and the unit a file grows by
MB = 1024 * 1024
FULL_FRACTION = 0.02  # a tmpfs with less than this left free (or 1 MiB) was filled
COPY_CHUNK = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class FolderFull(OSError):
    """The folder did not fit in its cap (on the way in, or on the way out)."""


def charge(st: os.stat_result) -> int:
    """What an entry costs the host's disk once written out: a block, and a file's whole
    length rounded up to blocks (a sparse file is charged as if written)."""
    size = st.st_size if stat.S_ISREG(st.st_mode) else 0
    return BLOCK + -(-size // BLOCK) * BLOCK


@dataclass
class _Plan:
    """What the tmpfs holds, in the order to write it out (folders before what they hold)."""

    entries: list[tuple[str, os.stat_result]]
    total: int


class CappedFolder:
    """The tmpfs a build sees as its folder, held open from outside the sandbox.

    ``limit`` is its size in bytes; ``skip`` the host folders (absolute paths) never copied
    into it (hidden folders, other bots', a checkout's history) and never touched on the way
    back.
    """

    def __init__(self, limit: int, skip: Sequence[str] = ()) -> None:
        self.limit = limit
        self.skip = tuple(os.path.realpath(p) for p in skip)
        self.fd = -1
        self.dev = -1

    @property
    def mb(self) -> str:
        """The cap, in words."""
        return f"{self.limit / MB:g} MiB"

    def open(self, init_pid: int, where: str, deadline: float) -> None:
        """Take hold of the tmpfs at ``where`` in the sandbox of ``init_pid``, once bubblewrap
        has set it up (it reports its init before it mounts anything, and waits for the
        go-ahead after); OSError when it is not there by ``deadline`` (``time.monotonic``)."""
        ours = os.stat("/")
        while True:
            fd = -1
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                root = os.stat(f"/proc/{init_pid}/root")
                fd = os.open(f"/proc/{init_pid}/root{where}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                vfs = os.fstatvfs(fd)
                if (root.st_dev, root.st_ino) != (ours.st_dev, ours.st_ino) and vfs.f_blocks * vfs.f_frsize == self.limit:
                    self.fd = fd
                    self.dev = os.fstat(fd).st_dev
                    return
            if fd >= 0:
                os.close(fd)
            if time.monotonic() > deadline:
                raise OSError(f"the build's folder {where!r} was not set up as a tmpfs of build_mb ({self.mb}) in time")
            time.sleep(0.005)

    def close(self) -> None:
        """Let the tmpfs go (its memory is freed once the sandbox is gone too)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def full(self) -> bool:
        """Whether the build filled its folder (what is left free is a sliver of it)."""
        vfs = os.fstatvfs(self.fd)
        return vfs.f_bavail * vfs.f_frsize < max(MB, int(self.limit * FULL_FRACTION))

    # -- in ------------------------------------------------------------------------------

    def fill(self, source: Path, owner: tuple[int, int] | None) -> None:
        """Copy ``source`` (files, folders, links; nothing special) into the tmpfs, every entry
        ``owner``'s (the build's user, when the arena is root).  Mount points bubblewrap made
        in it for other folders are left alone.  FolderFull when it does not fit."""
        root = os.path.realpath(source)
        if owner is not None:
            os.fchown(self.fd, *owner)
        os.fchmod(self.fd, stat.S_IMODE(os.stat(root).st_mode) & 0o777 | 0o700)
        for folder, dirs, files, src_fd in os.fwalk(root, follow_symlinks=False):
            rel = os.path.relpath(folder, root)
            dirs[:] = [d for d in dirs if not self._skipped(os.path.join(folder, d))]
            kept = []
            for name in dirs:
                st = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    self._link_in(os.readlink(name, dir_fd=src_fd), _join(rel, name), owner)
                elif self._dir_in(_join(rel, name), st, owner):
                    kept.append(name)
            dirs[:] = kept
            for name in files:
                if self._skipped(os.path.join(folder, name)):
                    continue
                st = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    self._link_in(os.readlink(name, dir_fd=src_fd), _join(rel, name), owner)
                elif stat.S_ISREG(st.st_mode):
                    self._file_in(src_fd, name, _join(rel, name), st, owner)

    def _skipped(self, path: str) -> bool:
        return os.path.realpath(path) in self.skip

    def _dir_in(self, rel: str, st: os.stat_result, owner: tuple[int, int] | None) -> bool:
        """Make folder ``rel``; False when a mount lies there (not ours to fill)."""
        try:
            os.mkdir(rel, 0o700, dir_fd=self.fd)
        except FileExistsError:
            there = os.stat(rel, dir_fd=self.fd, follow_symlinks=False)
            return stat.S_ISDIR(there.st_mode) and there.st_dev == self.dev
        except OSError as e:
            raise self._too_big(e) from None
        if owner is not None:
            os.chown(rel, *owner, dir_fd=self.fd, follow_symlinks=False)
        os.chmod(rel, stat.S_IMODE(st.st_mode) & 0o777 | 0o700, dir_fd=self.fd, follow_symlinks=False)
        return True

    def _link_in(self, target: str, rel: str, owner: tuple[int, int] | None) -> None:
        try:
            os.symlink(target, rel, dir_fd=self.fd)
        except FileExistsError:
            return  # a mount point bubblewrap made
        except OSError as e:
            raise self._too_big(e) from None
        if owner is not None:
            os.chown(rel, *owner, dir_fd=self.fd, follow_symlinks=False)

    def _file_in(self, src_dir: int, name: str, rel: str, st: os.stat_result, owner: tuple[int, int] | None) -> None:
        try:
            dst = os.open(rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=self.fd)
        except FileExistsError:
            return  # a mount point bubblewrap made
        except OSError as e:
            raise self._too_big(e) from None
        try:
            src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=src_dir)
            try:
                _copy_bytes(src, dst, None)
            finally:
                os.close(src)
            if owner is not None:
                os.fchown(dst, *owner)
            os.fchmod(dst, stat.S_IMODE(st.st_mode) & 0o777)
            os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
        except OSError as e:
            raise self._too_big(e) from None
        finally:
            os.close(dst)

    def _too_big(self, e: OSError) -> OSError:
        if e.errno == 28:  # ENOSPC
            return FolderFull(f"its folder does not fit in build_mb ({self.mb})")
        return e

    # -- out -----------------------------------------------------------------------------

    def plan(self) -> _Plan:
        """Every entry the build left (relative paths, folders before what they hold) and what
        they would cost the host's disk, up to the first past the cap.  Read once every
        process of the build is dead, so nothing changes under it; never follows a link."""
        entries: list[tuple[str, os.stat_result]] = []
        total = 0
        folders = [""]
        while folders:
            folder = folders.pop()
            fd = self.fd if not folder else os.open(folder, _DIR_FLAGS, dir_fd=self.fd)
            try:
                with os.scandir(fd) as listing:
                    found = sorted((e.name, e.stat(follow_symlinks=False)) for e in listing)
            finally:
                if fd != self.fd:
                    os.close(fd)
            for name, st in found:
                if st.st_dev != self.dev:
                    continue  # a mount bubblewrap laid over the tmpfs (gone with the sandbox)
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                    continue  # a fifo or socket: nothing a bot runs
                rel = _join(folder, name)
                total += charge(st)
                entries.append((rel, st))
                if total > self.limit:
                    return _Plan(entries, total)
                if stat.S_ISDIR(st.st_mode):
                    folders.append(rel)
        return _Plan(entries, total)

    def carry_out(self, dest: Path, default_owner: tuple[int, int] | None) -> None:
        """Write what the build left into the host's folder ``dest``: new and changed files,
        folders and links (what the build removed stays).  No set-id bit comes out.  An
        entry the build made is ``default_owner``'s (when the arena is root), one it changed
        keeps its owner.  FolderFull, with nothing written, when it does not fit."""
        plan = self.plan()
        if plan.total > self.limit:
            raise FolderFull(
                f"left more than build_mb ({self.mb}) in its folder (each file counted at its full length)"
            )
        base = os.path.realpath(dest)
        for rel, st in plan.entries:
            path = os.path.join(base, rel)
            if any(_covered(path, s) for s in self.skip):
                continue
            if stat.S_ISDIR(st.st_mode):
                _make_dir(path, st, default_owner)
            elif stat.S_ISLNK(st.st_mode):
                _replace_with(path, functools.partial(self._link_out, rel), default_owner)
            elif not _unchanged(path, st):
                _replace_with(path, functools.partial(self._file_out, rel, st), default_owner)

    def _link_out(self, rel: str, tmp: str) -> None:
        os.symlink(os.readlink(rel, dir_fd=self.fd), tmp)

    def _file_out(self, rel: str, st: os.stat_result, tmp: str) -> None:
        src = os.open(rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        try:
            dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                _copy_bytes(src, dst, st.st_size)
                os.fchmod(dst, stat.S_IMODE(st.st_mode) & 0o777)
                os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
            finally:
                os.close(dst)
        finally:
            os.close(src)


def _join(folder: str, name: str) -> str:
    return name if folder in (".", "") else os.path.join(folder, name)


def _covered(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _copy_bytes(src: int, dst: int, most: int | None) -> None:
    """Copy ``src`` to ``dst`` (at most ``most`` bytes: the length the plan charged)."""
    left = most
    while left is None or left > 0:
        chunk = os.read(src, COPY_CHUNK if left is None else min(COPY_CHUNK, left))
        if not chunk:
            return
        view = memoryview(chunk)
        while view:
            view = view[os.write(dst, view) :]
        if left is not None:
            left -= len(chunk)


def _unchanged(path: str, st: os.stat_result) -> bool:
    """Whether the host's file is the one copied in (same length and time: the build left it)."""
    with contextlib.suppress(OSError):
        there = os.lstat(path)
        return stat.S_ISREG(there.st_mode) and there.st_size == st.st_size and there.st_mtime_ns == st.st_mtime_ns
    return False


def _clear(path: str) -> tuple[int, int] | None:
    """Remove what the host has at ``path`` that is not a real folder (a link is removed, never
    followed); the owner it had, if any."""
    try:
        there = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(there.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)
    return there.st_uid, there.st_gid


def _make_dir(path: str, st: os.stat_result, owner: tuple[int, int] | None) -> None:
    """A real folder at ``path`` (whatever was there that is not one goes first)."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return
        _clear(path)
    os.mkdir(path, stat.S_IMODE(st.st_mode) & 0o777 | 0o700)
    if owner is not None and os.geteuid() == 0:
        os.lchown(path, *owner)


def _replace_with(path: str, make: Callable[[str], None], owner: tuple[int, int] | None) -> None:
    """Make the new entry beside ``path`` (``make(tmp)``) and rename it over what was there."""
    tmp = os.path.join(os.path.dirname(path), f".arena-out-{os.getpid()}-{os.path.basename(path)[:100]}")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    make(tmp)
    try:
        old = os.lstat(path)
    except FileNotFoundError:
        old = None
    if old is not None and stat.S_ISDIR(old.st_mode):
        shutil.rmtree(path)
    if os.geteuid() == 0:
        keep = (old.st_uid, old.st_gid) if old is not None else owner
        if keep is not None:
            os.lchown(tmp, *keep)
    os.rename(tmp, path)
