"""Open an SQLite file for reading only: beside a running writer, or on a read-only mount.

The reading commands (``arena standings``, ``games``, ``replay``) never need to
write, and must work on a finished results folder that was copied to, or
mounted as, a read-only place.  A store in WAL mode is read through its WAL
index (the ``-shm`` file), which SQLite creates beside the store when it is
missing; where it cannot be created (a read-only mount, another user's
folder), the store is opened as *immutable*: no lock, no index, the file read
as it is, which is exact when no write-ahead log holds games the file does not.
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from pathlib import Path


class ReadOnlyOpenError(sqlite3.OperationalError):
    """The file cannot be read without writing beside it (a write-ahead log is pending)."""


def connect_read_only(path: Path, timeout: float = 10.0) -> sqlite3.Connection:
    """A connection that cannot write to ``path``; raises :class:`sqlite3.Error` when it cannot read."""
    uri = "file:" + urllib.parse.quote(str(path.absolute()))
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # open it now, not at first use
        return conn
    except sqlite3.Error as e:
        conn.close()
        if not isinstance(e, sqlite3.OperationalError) or os.access(path.parent, os.W_OK):
            raise  # not for want of a WAL index: a real error, reported as it is
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        # Immutable would read the file without the games in the log: silently wrong.
        raise ReadOnlyOpenError(
            f"{str(path)!r} has unmerged writes in {wal.name!r} (its writer was killed) and its folder "
            "is read-only here, so SQLite cannot read them; copy the folder somewhere writable and read the copy"
        )
    conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, timeout=timeout)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn
