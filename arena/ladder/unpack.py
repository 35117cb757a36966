"""An uploaded archive (tar, tar.gz, zip) into a fresh folder, under the ladder's hard limits.

Nothing in an archive is trusted: not its headers' sizes, not its names, not its types.

- the archive's own size, the bytes written (counted while writing, never taken from a
  header), the number of entries, the compression ratio (bytes written per archive byte)
  and the depth of folders are bounded;
- a name that is absolute, holds ``..``, a NUL or a backslash, or is empty is refused;
- only files and folders are unpacked: every link (symbolic or hard, wherever it points),
  device, fifo and socket is refused, so nothing in the folder can point out of it;
- an entry that cannot be read (its compressed data damaged, a zip entry encrypted) is
  refused by name, whatever the decompressor raised;
- every file is created with ``O_EXCL | O_NOFOLLOW`` under folders opened with
  ``O_NOFOLLOW`` from the fresh top folder down, so a name given twice is refused and a
  write never goes through a link.

A refusal is one :class:`~arena.errors.ArchiveRefused` naming the rule and the entry, and
leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import enum
import io
import lzma
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.errors import ArchiveRefused
from arena.ladder.settings import ArchiveLimits

CHUNK = 64 * 1024


class Rule(enum.StrEnum):
    """The rule an archive broke; the value is the message's first words."""

    FORMAT = "format"
    ARCHIVE_SIZE = "archive size"
    UNPACKED_SIZE = "unpacked size"
    FILE_COUNT = "file count"
    RATIO = "compression ratio"
    DEPTH = "path depth"
    ABSOLUTE = "absolute path"
    PARENT = "parent path"
    NAME = "bad name"
    LINK = "link"
    SPECIAL = "special file"
    DUPLICATE = "duplicate entry"
    DAMAGED = "damaged entry"
    ENCRYPTED = "encrypted entry"


# What a decompressor raises on damaged data (besides OSError and EOFError): tarfile and
# zipfile let these through as they are.
_DAMAGED = (lzma.LZMAError, zlib.error, zipfile.BadZipFile, tarfile.TarError, EOFError, OSError)


@dataclass(frozen=True)
class Unpacked:
    """What an archive held: its entries, its bytes once written."""

    folder: Path
    entries: int
    bytes: int


@dataclass
class _Budget:
    """What is left of the limits while unpacking."""

    limits: ArchiveLimits
    archive_bytes: int
    entries: int = 0
    written: int = 0

    def entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.files:
            raise ArchiveRefused(Rule.FILE_COUNT, name, f"more than {self.limits.files} entries")

    def declared(self, name: str, size: int) -> None:
        """Refuse at once a file whose header already says it is too big (a sparse giant)."""
        if self.written + size > self.limits.unpacked_bytes:
            raise ArchiveRefused(
                Rule.UNPACKED_SIZE, name, f"{size} bytes would pass {self.limits.unpacked_bytes} unpacked"
            )

    def wrote(self, name: str, count: int) -> None:
        self.written += count
        if self.written > self.limits.unpacked_bytes:
            raise ArchiveRefused(
                Rule.UNPACKED_SIZE, name, f"more than {self.limits.unpacked_bytes} bytes unpacked"
            )
        if self.written > self.limits.ratio * max(self.archive_bytes, 1):
            raise ArchiveRefused(
                Rule.RATIO,
                name,
                f"more than {self.limits.ratio} bytes unpacked per archive byte ({self.archive_bytes} bytes)",
            )


def archive_kind(data: bytes) -> str | None:
    """``zip``, ``tar`` (plain or compressed) or None, from the archive's first bytes."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if (
        data[:2] == b"\x1f\x8b"
        or data[:3] == b"BZh"
        or data[:6] == b"\xfd7zXZ\x00"
        or data[257:262] == b"ustar"
    ):
        return "tar"
    return None


def unpack(source: bytes | Path, target: Path, limits: ArchiveLimits, name: str = "archive") -> Unpacked:
    """Unpack ``source`` (the archive's bytes, or its file, read as it goes) into ``target``
    (created here: it must not exist) under ``limits``.

    On a refusal ``target`` is removed and :class:`ArchiveRefused` says which rule and entry.
    """
    with contextlib.ExitStack() as stack:
        if isinstance(source, Path):
            archive: IO[bytes] = stack.enter_context(source.open("rb"))
            size = os.fstat(archive.fileno()).st_size
        else:
            archive, size = io.BytesIO(source), len(source)
        if size > limits.max_bytes:
            raise ArchiveRefused(Rule.ARCHIVE_SIZE, name, f"{size} bytes, more than {limits.max_bytes}")
        kind = archive_kind(archive.read(512))
        archive.seek(0)
        if kind is None:
            raise ArchiveRefused(Rule.FORMAT, name, "not a tar, tar.gz or zip archive")
        os.mkdir(target, 0o755)
        budget = _Budget(limits, size)
        try:
            root = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                if kind == "zip":
                    _unpack_zip(archive, root, budget, name)
                else:
                    _unpack_tar(archive, root, budget, name)
            finally:
                os.close(root)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
    return Unpacked(target, budget.entries, budget.written)


def _parts(name: str, limits: ArchiveLimits) -> list[str]:
    """The folders and file of an entry's name, refused unless it stays inside the folder."""
    if "\x00" in name or "\\" in name:
        raise ArchiveRefused(Rule.NAME, name, "a NUL or a backslash in the name")
    if name.startswith("/"):
        raise ArchiveRefused(Rule.ABSOLUTE, name, "an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveRefused(Rule.PARENT, name, "'..' leaves the folder")
    if len(parts) > limits.depth:
        raise ArchiveRefused(Rule.DEPTH, name, f"{len(parts)} levels deep, more than {limits.depth}")
    if any(len(p.encode("utf-8", "surrogateescape")) > 255 for p in parts):
        raise ArchiveRefused(Rule.NAME, name, "a name longer than 255 bytes")
    return parts


@contextlib.contextmanager
def _folder_of(root: int, parts: list[str], name: str) -> Iterator[int]:
    """A descriptor of the folder holding ``parts[-1]``, every folder on the way made and
    opened without following a link."""
    fd = os.dup(root)
    try:
        for part in parts[:-1]:
            inner = _enter(fd, part, name)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _enter(fd: int, part: str, name: str) -> int:
    """Open (making it if new) the folder ``part`` under ``fd``, never through a link."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(part, 0o755, dir_fd=fd)
    try:
        return os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
    except NotADirectoryError:
        raise ArchiveRefused(Rule.DUPLICATE, name, f"{part!r} is a file and a folder") from None


def _make_folder(root: int, parts: list[str], name: str) -> None:
    if not parts:
        return  # the top folder itself ("./")
    with _folder_of(root, [*parts, ""], name):
        pass


def _write_file(root: int, parts: list[str], name: str, src: IO[bytes], mode: int, budget: _Budget) -> None:
    if not parts:
        raise ArchiveRefused(Rule.NAME, name, "a file with no name")
    perms = 0o755 if mode & 0o111 else 0o644
    with _folder_of(root, parts, name) as folder:
        try:
            out = os.open(
                parts[-1],
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                perms,
                dir_fd=folder,
            )
        except FileExistsError:
            raise ArchiveRefused(Rule.DUPLICATE, name, "given twice") from None
        try:
            while chunk := _read(src, name):
                budget.wrote(name, len(chunk))
                os.write(out, chunk)
        finally:
            os.close(out)


def _read(src: IO[bytes], name: str) -> bytes:
    """The entry's next chunk; its damaged data refused by the entry's name."""
    try:
        return src.read(CHUNK)
    except _DAMAGED as e:
        raise ArchiveRefused(Rule.DAMAGED, name, f"its data cannot be read: {e}") from None


def _unpack_tar(archive: IO[bytes], root: int, budget: _Budget, name: str) -> None:
    try:
        with tarfile.open(fileobj=archive, mode="r:*") as tar:
            for member in tar:  # headers one at a time: 100,000 entries stop at the limit
                budget.entry(member.name)
                parts = _parts(member.name, budget.limits)
                if member.issym() or member.islnk():
                    raise ArchiveRefused(
                        Rule.LINK, member.name, f"a link to {member.linkname!r}: no links are unpacked"
                    )
                if member.isdir():
                    _make_folder(root, parts, member.name)
                elif member.isreg():
                    budget.declared(member.name, member.size)
                    src = tar.extractfile(member)
                    assert src is not None
                    _write_file(root, parts, member.name, src, member.mode, budget)
                else:
                    raise ArchiveRefused(Rule.SPECIAL, member.name, "a device, fifo or other special file")
    except (*_DAMAGED, ValueError) as e:
        raise ArchiveRefused(Rule.FORMAT, name, f"cannot read it as a tar archive: {e}") from None


def _unpack_zip(archive: IO[bytes], root: int, budget: _Budget, name: str) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            if len(infos) > budget.limits.files:
                raise ArchiveRefused(
                    Rule.FILE_COUNT,
                    infos[budget.limits.files].filename,
                    f"more than {budget.limits.files} entries",
                )
            for info in infos:
                budget.entry(info.filename)
                parts = _parts(info.filename, budget.limits)
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                if kind == stat.S_IFLNK:
                    raise ArchiveRefused(Rule.LINK, info.filename, "a symbolic link: no links are unpacked")
                if info.is_dir():
                    _make_folder(root, parts, info.filename)
                elif info.flag_bits & 0x1:  # encrypted: zipfile would ask for a password
                    raise ArchiveRefused(Rule.ENCRYPTED, info.filename, "an encrypted entry: send it unencrypted")
                elif kind in (0, stat.S_IFREG):
                    budget.declared(info.filename, info.file_size)
                    with zf.open(info) as src:
                        _write_file(root, parts, info.filename, src, mode, budget)
                else:
                    raise ArchiveRefused(Rule.SPECIAL, info.filename, "a device, fifo or other special file")
    except (*_DAMAGED, zipfile.LargeZipFile, ValueError, NotImplementedError) as e:
        raise ArchiveRefused(Rule.FORMAT, name, f"cannot read it as a zip archive: {e}") from None
