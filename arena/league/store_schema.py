"""The results store's schema: its tables, its version, and the upgrade of an older store.

A store records its schema version in ``meta``; this arena reads every version in
:data:`READABLE_VERSIONS`, upgrades an older one in place when a run opens it
(:func:`upgrade`), and refuses a newer or unknown one (:func:`schema_version`).
:mod:`arena.league.store` reads and writes the rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from arena.errors import StoreError

# 2 added a summary of each game (tables summaries and seats) beside its record.
SCHEMA_VERSION = 2
# Versions this arena reads; a version-1 store is upgraded when a run opens it.
READABLE_VERSIONS = (1, 2)

TABLES_V1 = {
    "meta": "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "schedule": """CREATE TABLE IF NOT EXISTS schedule (
        idx INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL UNIQUE,
        round INTEGER NOT NULL,
        seats TEXT NOT NULL,
        seed INTEGER NOT NULL
    )""",
    "games": """CREATE TABLE IF NOT EXISTS games (
        game_id TEXT PRIMARY KEY,
        idx INTEGER NOT NULL,
        finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
        record TEXT NOT NULL
    )""",
}
# What standings, listings and resume read, so that they never parse a record:
# one row per game and one per seat, written in the game's own transaction.
TABLES_V2 = {
    **TABLES_V1,
    "summaries": """CREATE TABLE IF NOT EXISTS summaries (
        game_id TEXT PRIMARY KEY,
        idx INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        players INTEGER NOT NULL,
        moves INTEGER NOT NULL,
        duration_ms REAL NOT NULL
    )""",
    "seats": """CREATE TABLE IF NOT EXISTS seats (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        bot TEXT NOT NULL,
        rank INTEGER NOT NULL,
        hexes INTEGER NOT NULL,
        half_points INTEGER NOT NULL,
        fault TEXT,
        fault_detail TEXT,
        fault_ply INTEGER,
        sandboxed INTEGER NOT NULL,
        network INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
}

# Ratings read the games after a checkpoint by their place in the schedule.
INDEXES = ("CREATE INDEX IF NOT EXISTS summaries_by_idx ON summaries (idx)",)


def schema_version(conn: sqlite3.Connection, path: Path) -> int | None:
    """The store's schema version, checked; None for a new, empty database."""
    name = str(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return None
        row = (
            conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if "meta" in tables
            else None
        )
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{name!r} is not a results store: {e}") from None
    if row is None:
        raise StoreError(f"{name!r} is not a results store (it holds no schema version)")
    value = row[0]
    if isinstance(value, int) or (isinstance(value, str) and value.isascii() and value.isdigit()):
        version = int(value)
    else:
        raise StoreError(f"{name!r} has a schema version that is not a whole number: {value!r}")
    known = f"this arena knows versions {READABLE_VERSIONS[0]} to {SCHEMA_VERSION}"
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{name!r} was written by a newer arena (store schema version {version}; {known}): "
            "use that arena, or another 'output'"
        )
    if version not in READABLE_VERSIONS:
        raise StoreError(f"{name!r} has an unknown store schema version {version} ({known})")
    needed = TABLES_V1 if version == 1 else TABLES_V2
    missing = [t for t in needed if t not in tables]
    if missing:
        raise StoreError(f"{name!r} is damaged: its table(s) {', '.join(missing)} are missing")
    return version


def _make_tables(conn: sqlite3.Connection) -> None:
    """Make every table and index of this version that the store lacks."""
    for sql in (*TABLES_V2.values(), *INDEXES):
        conn.execute(sql)


def create(conn: sqlite3.Connection) -> None:
    """Make a new store's tables and indexes and mark its version (in the caller's transaction)."""
    _make_tables(conn)
    conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))


def add_indexes(conn: sqlite3.Connection) -> None:
    """Make the indexes a store from before one of them was added lacks."""
    for sql in INDEXES:
        conn.execute(sql)


# A stored game to summarize: its id, its schedule place and its record's JSON text.
Summarize = Callable[[str, int, str], None]


def upgrade(conn: sqlite3.Connection, summarize: Summarize) -> int:
    """Bring a store to :data:`SCHEMA_VERSION` (in the caller's transaction): the tables it
    lacks, and ``summarize`` called for every game without a summary; how many there were.

    Upgrades a version-1 store (and repairs games an older arena stored in a version-2 one).
    """
    _make_tables(conn)
    rows = conn.execute(
        "SELECT game_id, idx, record FROM games WHERE game_id NOT IN (SELECT game_id FROM summaries)"
    )
    added = 0
    for game_id, idx, text in rows:
        summarize(game_id, idx, text)
        added += 1
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
    return added
