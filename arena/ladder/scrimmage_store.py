"""The scrimmages' own store: ``scrimmages/scrimmages.sqlite`` in the ladder's results folder.

A scrimmage is a request (who asked, their version, the other bot, how many games) and its
games, each written when the request is taken (its seats and seed) and filled in when it ends
(its record, or why it could not be played).  Nothing here is the league's: the league's
store, standings and ratings never read this file, so a scrimmage never counts.  A game's
record is written in one transaction as soon as it ends, so a kill -9 of the service loses no
finished game; the games still empty are played after the restart.

The file lies inside the results folder, which every sandbox masks: no bot reads another's
logs from it.  It imports nothing of the web service.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import LadderError
from arena.ladder.folders import SCRIMMAGES
from arena.league.schedule import derive_seed

STORE_FILE = "scrimmages.sqlite"
SCHEMA_VERSION = 1
DAY_S = 24 * 3600
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    author TEXT NOT NULL,          -- who asked (the ladder's author name): only they follow it
    mine TEXT NOT NULL,            -- their version, as BOT.vN
    mine_sid INTEGER NOT NULL,
    other TEXT NOT NULL,           -- the other bot: BOT.vN, or a house bot's name
    other_sid INTEGER,             -- NULL: a house bot
    other_author TEXT,             -- NULL: a house bot (the organisers')
    games INTEGER NOT NULL,
    asked REAL NOT NULL
);
CREATE INDEX requests_author ON requests (author, asked);
CREATE TABLE games (
    request INTEGER NOT NULL REFERENCES requests (id),
    n INTEGER NOT NULL,            -- 1, 2, ... within the request
    seats TEXT NOT NULL,           -- JSON: the two names in seat order
    seed INTEGER NOT NULL,
    record TEXT,                   -- the game record (JSON) once played
    points TEXT,                   -- JSON: each seat's points once played
    failure TEXT,                  -- why it could not be played (the arena's fault, not a bot's)
    finished REAL,
    PRIMARY KEY (request, n)
);
"""


@dataclass(frozen=True)
class ScrimmageGame:
    """One game of a scrimmage: its seats, and once over its points (or why it failed)."""

    request: int
    n: int
    seats: tuple[str, str]
    seed: int
    points: tuple[float, ...] | None
    failure: str | None
    finished: float | None

    @property
    def game_id(self) -> str:
        """Its name in its record and its page's address: ``s7-g2``."""
        return f"s{self.request}-g{self.n}"

    @property
    def over(self) -> bool:
        return self.finished is not None


@dataclass(frozen=True)
class Scrimmage:
    """One request, with its games."""

    id: int
    author: str
    mine: str
    mine_sid: int
    other: str
    other_sid: int | None
    other_author: str | None
    asked: float
    games: tuple[ScrimmageGame, ...]

    @property
    def done(self) -> int:
        return sum(g.over for g in self.games)

    @property
    def finished(self) -> bool:
        return self.done == len(self.games)

    @property
    def state(self) -> str:
        """``waiting`` (no game over), ``playing`` or ``finished``."""
        return "finished" if self.finished else ("playing" if self.done else "waiting")

    def score(self) -> tuple[float, float]:
        """The points of the asker's version and of the other bot, over the games played."""
        mine = other = 0.0
        for g in self.games:
            for name, p in zip(g.seats, g.points or (), strict=False):
                if name == self.mine:
                    mine += p
                else:
                    other += p
        return mine, other


Check = Callable[[int, int], None]  # (games asked in the last 24 hours, requests unfinished): raise to refuse


class ScrimmageStore:
    """The scrimmages' SQLite file, shared by the web handlers, the service's loop and the
    process that plays the games (each opens it; SQLite's locks keep them apart)."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, results: Path) -> ScrimmageStore:
        """Open (or create) ``results/scrimmages/scrimmages.sqlite``."""
        folder = results / SCRIMMAGES
        path = folder / STORE_FILE
        try:
            folder.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            made = conn.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone()
            if made is None:
                conn.executescript(f"BEGIN; {_SCHEMA} INSERT INTO meta VALUES ('schema', '{SCHEMA_VERSION}'); COMMIT;")
            else:
                row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None or row[0] != str(SCHEMA_VERSION):
                    conn.close()
                    raise LadderError(f"{str(path)!r}: a scrimmage store of schema {row and row[0]!r}, not {SCHEMA_VERSION}")
        except (OSError, sqlite3.Error) as e:
            raise LadderError(f"{str(path)!r}: cannot open the scrimmages' store: {e}") from None
        return cls(path, conn)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, args))

    # Requests ---------------------------------------------------------------------------

    def add(
        self,
        author: str,
        mine: tuple[str, int],
        other: tuple[str, int | None, str | None],
        games: int,
        now: float,
        check: Check,
    ) -> int:
        """Store a request of ``games`` games (seats alternating, so each bot moves first in
        half of them) once ``check`` passes on the author's counts, in the same transaction (two
        requests at once cannot both pass a quota only one fits); its id."""
        with self._tx() as c:
            asked_today = c.execute(
                "SELECT COALESCE(SUM(games), 0) FROM requests WHERE author=? AND asked>?", (author, now - DAY_S)
            ).fetchone()[0]
            unfinished = c.execute(
                "SELECT COUNT(DISTINCT g.request) FROM games g JOIN requests r ON r.id=g.request "
                "WHERE r.author=? AND g.finished IS NULL",
                (author,),
            ).fetchone()[0]
            check(int(asked_today), int(unfinished))
            cur = c.execute(
                "INSERT INTO requests (author, mine, mine_sid, other, other_sid, other_author, games, asked) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (author, mine[0], mine[1], other[0], other[1], other[2], games, now),
            )
            rid = cur.lastrowid
            assert rid is not None
            for n in range(1, games + 1):
                seats = (mine[0], other[0]) if n % 2 else (other[0], mine[0])
                seed = derive_seed("scrimmage", rid, (n + 1) // 2)  # both seat orders of a pair share a board
                c.execute("INSERT INTO games (request, n, seats, seed) VALUES (?, ?, ?, ?)", (rid, n, json.dumps(seats), seed))
            return rid

    def get(self, rid: int) -> Scrimmage | None:
        """Request ``rid`` with its games, or None."""
        found = self._requests("WHERE id=?", (rid,))
        return found[0] if found else None

    def of_author(self, author: str, limit: int = 50) -> list[Scrimmage]:
        """The author's newest requests first."""
        return self._requests("WHERE author=? ORDER BY id DESC LIMIT ?", (author, limit))

    def against(self, author: str, limit: int = 50) -> list[Scrimmage]:
        """Other authors' newest requests against a version of ``author``'s first."""
        return self._requests("WHERE other_author=? AND author<>? ORDER BY id DESC LIMIT ?", (author, author, limit))

    def recent(self, limit: int = 50) -> list[Scrimmage]:
        """Everyone's newest requests first (the organisers' view)."""
        return self._requests("ORDER BY id DESC LIMIT ?", (limit,))

    def _requests(self, where: str, args: Sequence[Any]) -> list[Scrimmage]:
        rows = self._rows(
            "SELECT id, author, mine, mine_sid, other, other_sid, other_author, asked FROM requests " + where, args
        )
        if not rows:
            return []
        ids = [r[0] for r in rows]
        games: dict[int, list[ScrimmageGame]] = {i: [] for i in ids}
        marks = ",".join("?" * len(ids))
        for g in self._rows(
            f"SELECT request, n, seats, seed, points, failure, finished FROM games WHERE request IN ({marks}) ORDER BY request, n",
            ids,
        ):
            games[g[0]].append(_game(g))
        return [Scrimmage(*r, games=tuple(games[r[0]])) for r in rows]  # type: ignore[misc]

    # Games ------------------------------------------------------------------------------

    def next_game(self) -> tuple[Scrimmage, ScrimmageGame] | None:
        """The game to play next: of the requests with games left, the one with the fewest
        played (then the oldest), so that one author's ten games do not hold up another's first."""
        rows = self._rows(
            "SELECT request, SUM(finished IS NOT NULL) AS played FROM games GROUP BY request "
            "HAVING SUM(finished IS NULL) > 0 ORDER BY played, request LIMIT 1"
        )
        if not rows:
            return None
        s = self.get(int(rows[0][0]))
        assert s is not None
        return s, next(g for g in s.games if not g.over)

    def unplayed(self) -> int:
        """Games asked for and not over."""
        return int(self._rows("SELECT COUNT(*) FROM games WHERE finished IS NULL")[0][0])

    def finish(self, game: ScrimmageGame, record: str | None, points: Sequence[float] | None, failure: str | None, now: float) -> None:
        """Store how ``game`` ended: its record and points, or why it could not be played."""
        if failure is not None:  # it may quote a bot: a lone surrogate is not text SQLite takes
            failure = failure.encode("utf-8", "replace").decode("utf-8")
        with self._tx() as c:
            c.execute(
                "UPDATE games SET record=?, points=?, failure=?, finished=? WHERE request=? AND n=? AND finished IS NULL",
                (record, None if points is None else json.dumps(list(points)), failure, now, game.request, game.n),
            )

    def record(self, rid: int, n: int) -> str | None:
        """Game ``n`` of request ``rid``'s record (JSON), or None when it has none."""
        rows = self._rows("SELECT record FROM games WHERE request=? AND n=?", (rid, n))
        return rows[0][0] if rows else None


def _game(row: tuple[Any, ...]) -> ScrimmageGame:
    rid, n, seats, seed, points, failure, finished = row
    a, b = json.loads(seats)
    return ScrimmageGame(
        rid, n, (a, b), seed, None if points is None else tuple(json.loads(points)), failure, finished
    )
