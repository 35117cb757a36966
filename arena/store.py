"""The results store: one SQLite file per tournament.

It holds the tournament file as run (and its hash), the schedule, and one
row per finished game, written in its own transaction the moment the game
ends (WAL mode, so a reader never blocks the writer).  A killed arena loses
only the games that were in flight; running again resumes.  A write that
fails (a full disk) is rolled back and stops the run with a
:class:`ResultsWriteError`: every game saved before it stays readable.
"""

from __future__ import annotations

import contextlib
import errno
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import ArenaError
from .record import GameRecord
from .schedule import ScheduledGame
from .sqlite_read import connect_read_only

STORE_NAME = "results.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    idx INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    round INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    record TEXT NOT NULL
);
"""


class StoreError(ArenaError):
    """The results store is missing, locked, or not ours."""


class ResultsWriteError(StoreError):
    """Results could not be written (a full disk, an I/O error): the run must stop.

    Every game saved before the failed write is kept; running again resumes.
    """


RESUME_HINT = "run the same command to resume"


def is_disk_full(error: BaseException) -> bool:
    """Whether an error from SQLite or the file system means the disk (or quota) is full."""
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(error)
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def write_error(doing: str, error: BaseException, kept: str) -> ResultsWriteError:
    """The one-line error for a failed write: what was being done, why, and what is safe."""
    why = (error.strerror or str(error)) if isinstance(error, OSError) else str(error)
    if is_disk_full(error):
        return ResultsWriteError(
            f"results disk full while {doing}: {why}; {kept} (free some space, then {RESUME_HINT})"
        )
    return ResultsWriteError(f"cannot write results while {doing}: {why}; {kept} ({RESUME_HINT})")


def store_path(target: str | Path) -> Path:
    """The SQLite file for an output folder (or the file itself)."""
    p = Path(target)
    return p / STORE_NAME if p.is_dir() or p.suffix != ".sqlite" else p


class ResultStore:
    """Read and write one tournament's results."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @classmethod
    def create(cls, folder: Path) -> ResultStore:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / STORE_NAME
        store = cls(path, cls._connect(path))
        try:
            with store._writing(f"creating {str(path)!r}", "nothing was lost"), store.conn:
                store.conn.executescript(_SCHEMA)
                store.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, target: str | Path) -> ResultStore:
        """The store of a results folder (or the file itself), opened for reading only."""
        path = store_path(target)
        if not path.is_file():
            raise StoreError(f"no results at {str(target)!r} (expected {str(path)!r})")
        try:  # reading only: beside a running 'arena run', or on a read-only mount
            conn = connect_read_only(path)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open results store {str(path)!r}: {e}") from None
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError as e:
            conn.close()
            raise StoreError(f"{str(path)!r} is not a results store: {e}") from None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            conn.close()
            raise StoreError(f"{str(path)!r} has an unknown schema version {row and row[0]!r}")
        return cls(path, conn)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(path, timeout=10, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open results store {str(path)!r}: {e}") from None
        conn.isolation_level = "DEFERRED"  # 'with conn' = one transaction
        return conn

    def close(self) -> None:
        self._rollback()
        self.conn.close()

    def _rollback(self) -> None:
        """End a transaction a failed write left open (SQLite may have ended it already)."""
        if self.conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self.conn.rollback()

    @contextlib.contextmanager
    def _writing(self, doing: str, kept: str) -> Iterator[None]:
        """Turn a failed write into a :class:`ResultsWriteError`, its transaction rolled back."""
        try:
            yield
        except sqlite3.Error as e:
            self._rollback()
            raise write_error(doing, e, kept) from e

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the tournament -----------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, **values: Any) -> None:
        with self._writing(f"writing the tournament to {str(self.path)!r}", "nothing was lost"), self.conn:
            for k, v in values.items():
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (k, json.dumps(v, sort_keys=True, default=str)),
                )

    def schedule(self) -> list[ScheduledGame]:
        rows = self.conn.execute("SELECT idx, game_id, round, seats, seed FROM schedule ORDER BY idx")
        return [ScheduledGame(i, g, r, tuple(json.loads(s)), seed) for i, g, r, s, seed in rows]

    def set_schedule(self, games: Sequence[ScheduledGame]) -> None:
        with self._writing(f"writing the schedule to {str(self.path)!r}", "nothing was lost"), self.conn:
            self.conn.execute("DELETE FROM schedule")
            self.conn.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?)",
                [(g.index, g.game_id, g.round, json.dumps(list(g.seats)), g.seed) for g in games],
            )

    def reset(self) -> None:
        """Forget every game and the schedule (``--restart``)."""
        with self._writing(f"clearing {str(self.path)!r}", "nothing was deleted"), self.conn:
            self.conn.execute("DELETE FROM games")
            self.conn.execute("DELETE FROM schedule")
            self.conn.execute("DELETE FROM meta WHERE key != 'schema'")

    # -- games ----------------------------------------------------------------------

    def save_game(self, game: ScheduledGame, record: GameRecord) -> None:
        """Write one finished game in its own transaction.

        Raises :class:`ResultsWriteError` when it cannot (a full disk); the
        transaction is rolled back and every game saved before stays.
        """
        text = record.to_json()
        doing = f"saving game {game.game_id} to {str(self.path)!r}"
        with self._writing(doing, "every finished game before it is kept"), self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO games (game_id, idx, record) VALUES (?, ?, ?)",
                (game.game_id, game.index, text),
            )

    def finished_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT game_id FROM games")}

    def records(self) -> Iterator[GameRecord]:
        """Every finished game in schedule order."""
        # The schedule's order, not the order games were saved in: a resumed run
        # with more rounds renumbers nothing, but the schedule is the authority.
        rows = self.conn.execute(
            "SELECT g.record FROM games g LEFT JOIN schedule s USING (game_id) ORDER BY coalesce(s.idx, g.idx)"
        )
        for (text,) in rows:
            yield GameRecord.from_json(text)

    def record(self, game_id: str) -> GameRecord:
        row = self.conn.execute("SELECT record FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            known = [r[0] for r in self.conn.execute("SELECT game_id FROM games ORDER BY idx LIMIT 5")]
            raise StoreError(
                f"no finished game {game_id!r} in {str(self.path)!r} (games look like {', '.join(known) or 'none yet'})"
            )
        return GameRecord.from_json(row[0])

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM games").fetchone()[0])
