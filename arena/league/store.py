"""The results store: one SQLite file per tournament.

It holds the tournament file as run (and its hash), the schedule, and one
row per finished game (its record, with a summary row and one row per seat,
which is all standings, listings and resume read), written in its own
transaction the moment the game ends (WAL mode, so a reader never blocks the
writer).  It has a schema version: an older store is upgraded in place when a
run opens it, a newer or unknown one is refused.  A killed arena loses
only the games that were in flight; running again resumes.  A write that
fails (a full disk) is rolled back and stops the run with a
:class:`ResultsWriteError`: every game saved before it stays readable.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, EmptyStoreError, ResultsWriteError, StoreError
from arena.game.record import Fault, FaultKind, GameRecord
from arena.league import store_schema
from arena.league.game_filter import GameFilter
from arena.league.game_summary import GameSummary, SeatSummary
from arena.league.rating import RatingCheckpoint
from arena.league.schedule import ScheduledGame
from arena.league.sqlite_read import connect_read_only
from arena.league.store_schema import SCHEMA_VERSION, schema_version
from arena.league.tally import SQL_RESULTS_BETWEEN, SQL_TOTALS, BotTotals, Tally

STORE_NAME = "results.sqlite"
# A game's place: the schedule's order, not the order games were saved in (the
# schedule is the authority; a game no longer in it keeps the place it was saved at).
_ORDER = "coalesce(s.idx, g.idx)"


def _text(value: str) -> str:
    """Text SQLite can hold (UTF-8): a lone surrogate, which JSON writes as an escape but
    UTF-8 cannot encode, becomes a visible ``\\udXXX`` escape."""
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


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


def schedule_digest(games: Sequence[ScheduledGame]) -> str:
    """A fingerprint of a schedule, to tell cheaply whether the stored one is the same."""
    h = hashlib.sha256()
    for g in games:
        h.update(f"{g.index}\t{g.game_id}\t{g.round}\t{chr(31).join(g.seats)}\t{g.seed}\n".encode())
    return h.hexdigest()


def _scheduled(rows: Iterable[tuple[int, str, int, str, int]]) -> list[ScheduledGame]:
    """Schedule rows as games; games with the same seats share one tuple of names.

    A league has few seatings and many games (90 seatings of 10 bots in 100,000
    games), and a run holds every game it has left to play: about half of each
    game's memory was its own copy of the names.
    """
    seatings: dict[str, tuple[str, ...]] = {}
    out = []
    for i, g, r, s, seed in rows:
        seats = seatings.get(s)
        if seats is None:
            seats = seatings[s] = tuple(json.loads(s))
        out.append(ScheduledGame(i, g, r, seats, seed))
    return out


class UnfinishedGames:
    """A store's unfinished games, in schedule order, read a chunk at a time.

    How many there were when it was made is its ``len``; each pass reads the store
    again, a chunk of games after the last one handed out, so a game finished
    meanwhile (by this run: it was handed out before) is not handed out again.  Only
    the games scheduled when it was made are read: a continuous league adds games to
    the schedule as it goes, and hands those out itself.
    """

    CHUNK = 1000

    def __init__(self, store: ResultStore) -> None:
        self.store = store
        with store._reading():
            count, last = store.conn.execute(
                "SELECT count(*), max(idx) FROM schedule WHERE game_id NOT IN (SELECT game_id FROM games)"
            ).fetchone()
        self.count, self.last = int(count), -1 if last is None else int(last)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[ScheduledGame]:
        after = -1
        while after < self.last:
            chunk = self.store.unfinished_after(after, self.CHUNK, self.last)
            yield from chunk
            if len(chunk) < self.CHUNK:
                return
            after = chunk[-1].index


def _schedule_rows(games: Sequence[ScheduledGame]) -> Iterator[tuple[int, str, int, str, int]]:
    return ((g.index, g.game_id, g.round, json.dumps(list(g.seats)), g.seed) for g in games)


class ResultStore:
    """Read and write one tournament's results."""

    def __init__(self, path: Path, conn: sqlite3.Connection, version: int = SCHEMA_VERSION) -> None:
        self.path = path
        self.conn = conn
        self.closed = False
        self.version = version
        # What opening it for a run did to an older store, for the run to tell.
        self.upgrade_note: str | None = None
        # Whether every game has its summary row (a version-1 store read as it is has none).
        self.summarized = version >= 2 and self._count("summaries") == self._count("games")

    @classmethod
    def create(cls, folder: Path) -> ResultStore:
        """Open the store of ``folder`` for a run: create it, or upgrade an older one in place."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / STORE_NAME
        conn = cls._connect(path)
        try:
            version = schema_version(conn, path)
            store = cls(path, conn, version or 1)
        except BaseException:
            conn.close()
            raise
        try:
            if version is None:
                with store._writing(f"creating {str(path)!r}", "nothing was lost"), store.conn:
                    store.conn.execute("BEGIN IMMEDIATE")
                    store_schema.create(store.conn)
                store.version, store.summarized = SCHEMA_VERSION, True
            elif not store.summarized:
                store._summarize_all()
            else:
                with store._writing(f"indexing {str(path)!r}", "nothing was lost"), store.conn:
                    store_schema.add_indexes(store.conn)  # a store from before an index was added
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open(cls, target: str | Path) -> ResultStore:
        """The store of a results folder (or the file itself), opened for reading only; an
        older version is read as it is (nothing is written)."""
        path = store_path(target)
        if not path.is_file():
            raise StoreError(f"no results at {str(target)!r} (expected {str(path)!r})")
        try:  # reading only: beside a running 'arena run', or on a read-only mount
            conn = connect_read_only(path)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"cannot open results store {str(path)!r}: {e}") from None
        try:
            version = schema_version(conn, path)
            if version is None:
                raise EmptyStoreError(f"{str(path)!r} is not a results store (it is empty)")
            return cls(path, conn, version)
        except BaseException:
            conn.close()
            raise

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
        """Roll back a transaction left open and close the database."""
        self._rollback()
        self.conn.close()
        self.closed = True

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
        except BaseException:
            self._rollback()
            raise

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn a database error while reading (a damaged or tampered store) into a :class:`StoreError`."""
        try:
            yield
        except sqlite3.Error as e:
            raise StoreError(f"cannot read results store {str(self.path)!r}: {e}") from None

    def _count(self, table: str) -> int:
        with self._reading():
            return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def _parse(self, game_id: str, text: str) -> GameRecord:
        try:
            return GameRecord.from_json(text)
        except ArenaError as e:
            raise StoreError(f"{str(self.path)!r}: stored game {game_id!r}: {e}") from None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- upgrading an older store ------------------------------------------------------

    def _summarize_all(self) -> None:
        """Give every game without one its summary, in one transaction: all or nothing.

        Upgrades a version-1 store (and repairs games an older arena stored in this one).
        """
        old = self.version
        doing = f"upgrading {str(self.path)!r} from store schema {old} to {SCHEMA_VERSION}"
        with self._writing(doing, "the store is left as it was"), self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            added = store_schema.upgrade(self.conn, self._summarize_stored)
        self.version, self.summarized = SCHEMA_VERSION, True
        if old < SCHEMA_VERSION:
            self.upgrade_note = (
                f"note: upgraded {str(self.path)!r} from store schema {old} to {SCHEMA_VERSION} "
                f"({added} game(s) summarized); an older arena cannot read it any more"
            )
        else:
            self.upgrade_note = (
                f"note: summarized {added} game(s) stored without a summary in {str(self.path)!r}"
            )

    def _summarize_stored(self, game_id: str, idx: int, text: str) -> None:
        """Write the summary of a stored game from its record's text."""
        self._insert_summary(GameSummary.of(self._parse(game_id, text), idx))

    # -- the tournament -----------------------------------------------------------

    def get_meta(self, key: str) -> Any:
        """The JSON value stored under ``key`` (the tournament file, the schedule's digest...), or None."""
        with self._reading():
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (TypeError, ValueError) as e:
            raise StoreError(f"{str(self.path)!r}: stored {key!r} is not JSON: {e}") from None

    def set_meta(self, **values: Any) -> None:
        """Store each value as JSON under its key, in one transaction."""
        with self._writing(f"writing the tournament to {str(self.path)!r}", "nothing was lost"), self.conn:
            for k, v in values.items():
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    (k, json.dumps(v, sort_keys=True, default=str)),
                )

    def schedule(self) -> list[ScheduledGame]:
        """The whole schedule, in order."""
        with self._reading():
            rows = self.conn.execute("SELECT idx, game_id, round, seats, seed FROM schedule ORDER BY idx")
            return _scheduled(rows)

    def set_schedule(self, games: Sequence[ScheduledGame]) -> None:
        """Store the schedule (rewritten only when it changed: a league's is long).

        A stored game takes its place in the new schedule; if any place moved, the
        standings checkpoint no longer holds and is dropped.
        """
        digest = schedule_digest(games)
        if self.get_meta("schedule_digest") == digest:
            return
        with self._writing(f"writing the schedule to {str(self.path)!r}", "nothing was lost"), self.conn:
            self.conn.execute("DELETE FROM schedule")
            self.conn.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?)", _schedule_rows(games))
            moved = 0
            for table in ("games", "summaries"):
                moved += self.conn.execute(
                    f"UPDATE {table} SET idx = s.idx FROM schedule s "
                    f"WHERE s.game_id = {table}.game_id AND s.idx != {table}.idx"
                ).rowcount
            if moved:
                self.conn.execute("DELETE FROM meta WHERE key = 'standings'")
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schedule_digest', ?)", (json.dumps(digest),)
            )

    def extend_schedule(self, games: Sequence[ScheduledGame]) -> None:
        """Add ``games`` after the schedule's (a continuous league plans its games as it goes)."""
        if not games:
            return
        with self._writing(f"writing the schedule to {str(self.path)!r}", "nothing was lost"), self.conn:
            self.conn.executemany("INSERT INTO schedule VALUES (?, ?, ?, ?, ?)", _schedule_rows(games))
            # No digest: it would mean reading the whole schedule for every set planned (a
            # league's cost growing with its square).  The next run's set_schedule makes one.
            self.conn.execute("DELETE FROM meta WHERE key = 'schedule_digest'")

    def rounds(self) -> dict[str, int]:
        """Each scheduled game's round, by its id."""
        with self._reading():
            return {game_id: r for game_id, r in self.conn.execute("SELECT game_id, round FROM schedule")}

    def schedule_size(self) -> int:
        """How many games are scheduled."""
        return self._count("schedule")

    def unfinished(self) -> UnfinishedGames:
        """The scheduled games not finished yet, in schedule order, read as they are needed
        (a run of 100,000 games does not hold them all)."""
        return UnfinishedGames(self)

    def unfinished_after(self, index: int, limit: int, through: int | None = None) -> list[ScheduledGame]:
        """Up to ``limit`` unfinished games after schedule place ``index`` (and not after
        ``through``), in order."""
        with self._reading():
            rows = self.conn.execute(
                "SELECT idx, game_id, round, seats, seed FROM schedule WHERE idx > ? AND idx <= ? "
                "AND game_id NOT IN (SELECT game_id FROM games) ORDER BY idx LIMIT ?",
                (index, (1 << 62) if through is None else through, limit),
            )
            return _scheduled(rows)

    def unfinished_indexes(self) -> list[int]:
        """The schedule places of the unfinished games, in order."""
        with self._reading():
            rows = self.conn.execute(
                "SELECT idx FROM schedule WHERE game_id NOT IN (SELECT game_id FROM games) ORDER BY idx"
            )
            return [r[0] for r in rows]

    def reset(self) -> None:
        """Forget every game and the schedule (``--restart``)."""
        with self._writing(f"clearing {str(self.path)!r}", "nothing was deleted"), self.conn:
            for table in ("games", "summaries", "seats", "schedule"):
                self.conn.execute(f"DELETE FROM {table}")
            self.conn.execute("DELETE FROM meta WHERE key != 'schema'")

    # -- games ----------------------------------------------------------------------

    def save_game(self, game: ScheduledGame, record: GameRecord) -> GameSummary:
        """Write one finished game and its summary in one transaction; return the summary.

        Raises :class:`ResultsWriteError` when it cannot (a full disk); the
        transaction is rolled back and every game saved before stays.
        """
        text = record.to_json()
        summary = GameSummary.of(record, game.index)
        doing = f"saving game {game.game_id} to {str(self.path)!r}"
        with self._writing(doing, "every finished game before it is kept"), self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO games (game_id, idx, record) VALUES (?, ?, ?)",
                (game.game_id, game.index, text),
            )
            self._insert_summary(summary)
        return summary

    def _insert_summary(self, g: GameSummary) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?, ?)",
            (g.game_id, g.index, g.seed, g.players, g.moves, g.duration_ms),
        )
        self.conn.execute("DELETE FROM seats WHERE game_id = ?", (g.game_id,))
        self.conn.executemany(
            "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    g.game_id,
                    i,
                    _text(s.name),
                    s.rank,
                    s.hexes,
                    g.half_points(i),
                    s.fault and s.fault.kind.value,
                    s.fault and _text(s.fault.detail),
                    s.fault and s.fault.ply,
                    s.sandboxed,
                    s.network,
                )
                for i, s in enumerate(g.seats)
            ],
        )

    def finished_ids(self) -> set[str]:
        """The ids of every finished game."""
        with self._reading():
            return {r[0] for r in self.conn.execute("SELECT game_id FROM games")}

    def _ordered_records(self) -> Iterator[tuple[int, GameRecord]]:
        with self._reading():
            rows = self.conn.execute(
                f"SELECT {_ORDER} AS o, g.game_id, g.record FROM games g "
                "LEFT JOIN schedule s USING (game_id) ORDER BY o, g.game_id"
            )
            for order, game_id, text in rows:
                yield order, self._parse(game_id, text)

    def records(self) -> Iterator[GameRecord]:
        """Every finished game in schedule order (each record parsed: prefer :meth:`summaries`)."""
        for _order, record in self._ordered_records():
            yield record

    def record(self, game_id: str) -> GameRecord:
        """The record of finished game ``game_id`` (a :class:`StoreError` naming a few ids if none)."""
        with self._reading():
            row = self.conn.execute("SELECT record FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if row is None:
                known = [r[0] for r in self.conn.execute("SELECT game_id FROM games ORDER BY idx LIMIT 5")]
                raise StoreError(
                    f"no finished game {game_id!r} in {str(self.path)!r} "
                    f"(games look like {', '.join(known) or 'none yet'})"
                )
        return self._parse(game_id, row[0])

    def count(self) -> int:
        """How many games are finished."""
        return self._count("games")

    # -- summaries: what standings, listings and resume read -----------------------------

    def summaries(self) -> Iterator[GameSummary]:
        """Every finished game's summary, in schedule order (``index`` is its place)."""
        if not self.summarized:  # an older store, read as it is
            for order, record in self._ordered_records():
                yield GameSummary.of(record, order)
            return
        yield from self._summaries("", ())

    def _summaries(self, where: str, args: tuple[Any, ...]) -> Iterator[GameSummary]:
        with self._reading():
            # The stored place is the schedule's (set_schedule keeps them equal), and indexed:
            # a listing streams from its first game (CROSS JOIN: summaries outside).
            rows = self.conn.execute(
                "SELECT g.idx, g.game_id, g.seed, g.players, g.moves, g.duration_ms, "
                "t.bot, t.rank, t.hexes, t.fault, t.fault_detail, t.fault_ply, t.sandboxed, t.network "
                f"FROM summaries g CROSS JOIN seats t ON t.game_id = g.game_id {where} "
                "ORDER BY g.idx, g.game_id, t.seat",
                args,
            )
            for (order, game_id, seed, players, moves, duration), seats in itertools.groupby(
                rows, key=lambda r: r[:6]
            ):
                yield GameSummary(
                    game_id, order, seed, players, moves, duration, tuple(self._seat(r[6:]) for r in seats)
                )

    def find_summaries(self, wanted: GameFilter, offset: int, limit: int) -> tuple[list[GameSummary], int]:
        """The games ``wanted``, newest first: ``limit`` of them from the ``offset``-th, and how
        many there are in all (filtered and paged by SQLite: a listing reads one page)."""
        if not self.summarized:  # an older store, read as it is
            found = [g for g in self.summaries() if wanted.matches(g)][::-1]
            return found[offset : offset + limit], len(found)
        condition, args = wanted.sql()
        with self._reading():
            count = self.conn.execute(f"SELECT count(*) FROM summaries s WHERE {condition}", args)
            total = int(count.fetchone()[0])
        page = f"SELECT s.game_id FROM summaries s WHERE {condition} ORDER BY s.idx DESC, s.game_id DESC LIMIT ? OFFSET ?"
        games = list(self._summaries(f"WHERE g.game_id IN ({page})", (*args, limit, offset)))
        return games[::-1], total

    def recent_finishes(self, since: str) -> tuple[int, str | None]:
        """How many games finished at or after ``since`` (UTC, as ``2026-01-31T12:00:00Z``), and
        when the last one did (None: no game yet)."""
        with self._reading():
            count, last = self.conn.execute(
                "SELECT coalesce(sum(finished_at >= ?), 0), max(finished_at) FROM games", (since,)
            ).fetchone()
        return int(count), last

    def _seat(self, row: tuple[Any, ...]) -> SeatSummary:
        bot, rank, hexes, fault, detail, ply, sandboxed, network = row
        try:
            kind = None if fault is None else Fault(FaultKind(fault), detail, ply)
        except ValueError:
            raise StoreError(f"{str(self.path)!r}: a stored game has an unknown fault {fault!r}") from None
        return SeatSummary(bot, rank, hexes, kind, bool(sandboxed), bool(network))

    def tally(self) -> Tally:
        """The standings' sums over every finished game, added up by SQLite."""
        tally = Tally()
        if not self.summarized:
            for game in self.summaries():
                tally.add(game)
            return tally
        with self._reading():
            q = self.conn.execute
            tally.count = self._count("summaries")
            for bot, players, games, places, wins, half, hexes, unsandboxed, network, shared in q(SQL_TOTALS):
                tally.totals[bot, players] = BotTotals(
                    games, places, wins, half, hexes, unsandboxed, bool(network), shared
                )
            for bot, kind, n in q(
                "SELECT bot, fault, count(*) FROM seats WHERE fault IS NOT NULL GROUP BY bot, fault"
            ):
                tally.faults[bot][kind] = n
            for players, seat, n, half in q(
                "SELECT g.players, t.seat, count(*), sum(t.half_points) "
                "FROM seats t JOIN summaries g USING (game_id) GROUP BY g.players, t.seat"
            ):
                tally.seats[players, seat] = [n, half]
            for me, other, ahead, tied, behind in q(SQL_RESULTS_BETWEEN):
                for x, y, sums in ((me, other, (ahead, tied, behind)), (other, me, (behind, tied, ahead))):
                    cell = tally.cross[x].setdefault(y, [0] * 8)
                    for i, n in enumerate(sums):
                        cell[i] += n
            # 2-player board pairs: a board's two games between the same two bots.
            two = (
                "FROM summaries g JOIN seats a ON a.game_id = g.game_id "
                "JOIN seats b ON b.game_id = g.game_id AND b.seat != a.seat WHERE g.players = 2 AND a.bot < b.bot"
            )
            odd = []
            for board, a, b, n, half in q(
                f"SELECT g.seed, a.bot, b.bot, count(*), sum(a.half_points) {two} GROUP BY g.seed, a.bot, b.bot"
            ):
                if n == 2:
                    tally.board_pair(a, b, half)
                else:
                    odd.append((board, a, b))
            # A game waiting for its pair (or, off any schedule, a third one): paired in schedule order.
            for board, a, b in odd:
                for (half,) in q(
                    f"SELECT a.half_points {two} AND g.seed = ? AND a.bot = ? AND b.bot = ? ORDER BY g.idx, g.game_id",
                    (board, a, b),
                ):
                    tally.board_game(board, a, b, half)
            first = q(
                f"SELECT {_ORDER} AS o, g.players FROM summaries g LEFT JOIN schedule s USING (game_id) "
                "ORDER BY o LIMIT 1"
            ).fetchone()
            tally.first = None if first is None else (first[0], first[1])
        return tally

    def rating_games(self, start: int = 0) -> Iterator[tuple[int, list[tuple[str, int]]]]:
        """Each finished game from schedule place ``start`` on, as the rating sees it, in order."""
        if not self.summarized:
            for game in self.summaries():
                if game.index >= start:
                    yield game.index, [(s.name, s.rank) for s in game.seats]
            return
        with self._reading():
            # The stored place is the schedule's (set_schedule keeps them equal), and indexed.
            rows = self.conn.execute(
                "SELECT g.idx, g.game_id, t.bot, t.rank FROM summaries g JOIN seats t USING (game_id) "
                "WHERE g.idx >= ? ORDER BY g.idx, g.game_id, t.seat",
                (start,),
            )
            for (order, _game_id), seats in itertools.groupby(rows, key=lambda r: r[:2]):
                yield order, [(bot, rank) for _o, _g, bot, rank in seats]

    def fit_games(self) -> Iterator[tuple[int, int, list[tuple[str, int]]]]:
        """Every finished game as the batch rating sees it: (schedule place, board seed, seats), any order."""
        if not self.summarized:
            for game in self.summaries():
                yield game.index, game.seed, [(s.name, s.rank) for s in game.seats]
            return
        with self._reading():
            rows = self.conn.execute(
                "SELECT g.idx, g.game_id, g.seed, t.bot, t.rank FROM summaries g JOIN seats t USING (game_id) "
                "ORDER BY g.idx, g.game_id, t.seat"
            )
            for (order, _game_id, seed), seats in itertools.groupby(rows, key=lambda r: r[:3]):
                yield order, seed, [(bot, rank) for _o, _g, _s, bot, rank in seats]

    def timed_games(self, after: int = 0) -> Iterator[tuple[int, int, str, str, list[tuple[str, int]]]]:
        """The games stored after row ``after`` (0: every one), as the rating history reads them:
        (row, schedule place, game id, when it finished as ``2026-01-31T12:00:00Z``, seats as
        (bot, rank)), in the order they were stored (a reader keeps the row to ask for the next)."""
        if not self.summarized:  # an older store: its games at once, each row its place
            for n, game in enumerate(self.summaries(), 1):
                if n > after:
                    yield n, game.index, game.game_id, "", [(s.name, s.rank) for s in game.seats]
            return
        with self._reading():
            rows = self.conn.execute(
                "SELECT g.rowid, g.idx, g.game_id, f.finished_at, t.bot, t.rank FROM summaries g "
                "JOIN games f USING (game_id) JOIN seats t USING (game_id) WHERE g.rowid > ? "
                "ORDER BY g.rowid, t.seat",
                (after,),
            )
            for (row, order, game_id, finished), seats in itertools.groupby(rows, key=lambda r: r[:4]):
                yield row, order, game_id, finished, [(bot, rank) for *_, bot, rank in seats]

    def standings_checkpoint(self) -> StandingsCheckpoint | None:
        """Where a run's standings got to, if it still describes the stored games.

        It holds when every game it counted is still there; the games stored since
        (a run killed between two checkpoints) come with it, to be added.
        """
        if not self.summarized:
            return None
        saved = self.get_meta("standings")
        if not isinstance(saved, dict) or not isinstance(saved.get("rowid"), int):
            return None
        tally = Tally.from_dict(saved.get("tally"))
        if tally is None:
            return None
        rowid = saved["rowid"]
        with self._reading():
            kept = self.conn.execute("SELECT count(*) FROM summaries WHERE rowid <= ?", (rowid,)).fetchone()[
                0
            ]
        if kept != tally.count:
            return None
        since = list(self._summaries("WHERE g.rowid > ?", (rowid,)))
        return StandingsCheckpoint(tally, RatingCheckpoint.from_dict(saved.get("ratings")), since)

    def set_standings_checkpoint(self, tally: Tally, ratings: RatingCheckpoint) -> None:
        """Keep where the standings got to; ``tally`` must hold every stored game."""
        with self._reading():
            rowid = self.conn.execute("SELECT coalesce(max(rowid), 0) FROM summaries").fetchone()[0]
        self.set_meta(standings={"rowid": rowid, "tally": tally.to_dict(), "ratings": ratings.to_dict()})


@dataclass(frozen=True)
class StandingsCheckpoint:
    """A run's standings as it last saved them, and the games stored after that."""

    tally: Tally  # the games stored after it not included
    ratings: RatingCheckpoint | None
    since: list[GameSummary]
