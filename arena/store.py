"""The results store: one SQLite file per tournament.

It holds the tournament file as run (and its hash), the schedule, and one
row per finished game, written in its own transaction the moment the game
ends (WAL mode, so a reader never blocks the writer).  A killed arena loses
only the games that were in flight; running again resumes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import ArenaError
from .record import GameRecord
from .schedule import ScheduledGame

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
        conn = cls._connect(path)
        with conn:
            conn.executescript(_SCHEMA)
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        return cls(path, conn)

    @classmethod
    def open(cls, target: str | Path) -> ResultStore:
        path = store_path(target)
        if not path.is_file():
            raise StoreError(f"no results at {str(target)!r} (expected {str(path)!r})")
        conn = cls._connect(path)
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
        self.conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the tournament -----------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, **values: Any) -> None:
        with self.conn:
            for k, v in values.items():
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (k, json.dumps(v, sort_keys=True, default=str)),
                )

    def schedule(self) -> list[ScheduledGame]:
        rows = self.conn.execute("SELECT idx, game_id, round, seats, seed FROM schedule ORDER BY idx")
        return [ScheduledGame(i, g, r, tuple(json.loads(s)), seed) for i, g, r, s, seed in rows]

    def set_schedule(self, games: Sequence[ScheduledGame]) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM schedule")
            self.conn.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?)",
                [(g.index, g.game_id, g.round, json.dumps(list(g.seats)), g.seed) for g in games],
            )

    def reset(self) -> None:
        """Forget every game and the schedule (``--restart``)."""
        with self.conn:
            self.conn.execute("DELETE FROM games")
            self.conn.execute("DELETE FROM schedule")
            self.conn.execute("DELETE FROM meta WHERE key != 'schema'")

    # -- games ----------------------------------------------------------------------

    def save_game(self, game: ScheduledGame, record: GameRecord) -> None:
        """Write one finished game in its own transaction."""
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO games (game_id, idx, record) VALUES (?, ?, ?)",
                (game.game_id, game.index, record.to_json()),
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
