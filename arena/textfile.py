"""Reading a text file a user names: regular files only, of bounded size, in UTF-8.

A tournament, board or record file may be anything the user types: a FIFO
(whose open blocks until a writer comes, forever), ``/dev/zero`` (which never
ends), a folder, or a file of gigabytes.  So the file is opened without
blocking, must be a regular file, is read up to a cap, and bytes that are not
UTF-8 are reported with their line and column instead of a codec's traceback.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from arena.errors import ConfigError

KIB = 1024
MIB = 1024 * KIB
# The caps: far above any real file of the kind, far below what hurts a machine.
TOURNAMENT_FILE_MAX_BYTES = 1 * MIB
BOARD_FILE_MAX_BYTES = 1 * MIB
RECORD_FILE_MAX_BYTES = 64 * MIB


def read_text(path: str | Path, what: str, max_bytes: int) -> str:
    """The text of the regular file ``path``; ``what`` names it in errors ("board file").

    Raises :class:`ConfigError` for anything that is not a regular file, a file
    over ``max_bytes``, or bytes that are not UTF-8 (a leading BOM is dropped).
    """
    name = str(path)
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        raise ConfigError(f"cannot read {what} {name!r}: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"cannot read {what} {name!r}: it is {_kind(mode)}, not a regular file")
        data = _read_up_to(fd, max_bytes + 1)  # one byte more tells a file that is too big
    except OSError as e:
        raise ConfigError(f"cannot read {what} {name!r}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise ConfigError(f"{what} {name!r} is larger than {_size(max_bytes)}, the limit for a {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = e.start
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise ConfigError(
            f"{name}:{line}: {what} is not UTF-8 text: byte {data[start]:#04x} at column {column}"
        ) from None


def _read_up_to(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, MIB))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def _size(n: int) -> str:
    return f"{n // MIB} MiB" if n % MIB == 0 else f"{n // KIB} KiB" if n % KIB == 0 else f"{n} bytes"
