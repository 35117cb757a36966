"""The tables of ``ladder.sqlite``, and how a store of an older version is brought up to date.

Version 2 added ``bots`` (the organiser's retire and ban of a bot); version 3 ``sessions``
(the pages' sign-ins, kept so that signing out ends them); version 4 ``members``: an author
is a team of members, each with their own token (the author's own token column moved
there), each session and each logged action names the member.  An older store is upgraded
in place, in one transaction: the new tables start empty, except that each author's token
becomes one member named after the author, so every token given out keeps working.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.errors import LadderError

SCHEMA_VERSION = 4

BOTS_TABLE = """
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    retired_through INTEGER NOT NULL DEFAULT 0,
    banned INTEGER NOT NULL DEFAULT 0
);
"""

# A session is a member's (``member_id``); ``author_id`` is kept for the stores of version 3.
SESSIONS_TABLE = """
CREATE TABLE sessions (
    token_sha256 TEXT PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    began REAL NOT NULL,
    member_id INTEGER REFERENCES members(id)
);
CREATE INDEX sessions_by_author ON sessions (author_id, began);
"""

# ``token_sha256`` NULL: the member's token was revoked.
MEMBERS_TABLE = """
CREATE TABLE members (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    name TEXT NOT NULL,
    token_sha256 TEXT,
    created REAL NOT NULL,
    UNIQUE (author_id, name)
);
"""

# From version 3: each author's token becomes their one member, named after them.
_MEMBERS_FROM_AUTHORS = (
    MEMBERS_TABLE
    + """
INSERT INTO members (author_id, name, token_sha256, created) SELECT id, name, token_sha256, created FROM authors;
ALTER TABLE authors DROP COLUMN token_sha256;
ALTER TABLE actions ADD COLUMN member TEXT;
"""
)
_SESSIONS_OF_MEMBERS = """
ALTER TABLE sessions ADD COLUMN member_id INTEGER REFERENCES members(id);
UPDATE sessions SET member_id = (SELECT m.id FROM members m WHERE m.author_id = sessions.author_id);
"""

# What upgrades a store of each older version to this one.
UPGRADES = {
    "1": BOTS_TABLE + _MEMBERS_FROM_AUTHORS + SESSIONS_TABLE,
    "2": _MEMBERS_FROM_AUTHORS + SESSIONS_TABLE,
    "3": _MEMBERS_FROM_AUTHORS + _SESSIONS_OF_MEMBERS,
}

SCHEMA = (
    """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    admin INTEGER NOT NULL,
    banned INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE TABLE submissions (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    bot TEXT NOT NULL,
    version INTEGER NOT NULL,
    command TEXT NOT NULL,
    build TEXT,
    archive_name TEXT NOT NULL,
    archive_bytes INTEGER NOT NULL,
    archive_sha256 TEXT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    report TEXT,
    build_log TEXT,
    received REAL NOT NULL,
    updated REAL NOT NULL,
    UNIQUE (bot, version)
);
CREATE INDEX submissions_by_state ON submissions (state, id);
CREATE INDEX submissions_by_author ON submissions (author_id, received);
CREATE TABLE actions (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    author TEXT,
    action TEXT NOT NULL,
    subject TEXT NOT NULL,
    detail TEXT NOT NULL,
    member TEXT
);
"""
    + BOTS_TABLE
    + MEMBERS_TABLE
    + SESSIONS_TABLE
)


def schema_of(conn: sqlite3.Connection, path: Path) -> str | None:
    """The schema version of the store on ``conn`` (None: no tables yet, a new store), one this
    arena reads (an older one it upgrades, or :data:`SCHEMA_VERSION`); LadderError for any
    other file."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' LIMIT 1").fetchone() is None:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.DatabaseError as e:
        raise LadderError(f"{str(path)!r} is not a ladder store: {e}") from None
    version = str(row[0]) if row else None
    if version in UPGRADES or version == str(SCHEMA_VERSION):
        return version
    why = (
        "newer than this arena"
        if version is not None and version.isascii() and version.isdigit() and int(version) > SCHEMA_VERSION
        else "unknown"
    )
    raise LadderError(
        f"{str(path)!r}: ladder store schema version {version!r} is {why}; "
        f"this arena reads version {SCHEMA_VERSION} (use the arena that wrote it)"
    )
