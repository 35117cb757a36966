"""A ladder store as version 3 of the arena wrote it (and versions 1 and 2, without the tables
they lacked), with an author of that time: to test the upgrades."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

BOTS_V3 = """
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    retired_through INTEGER NOT NULL DEFAULT 0,
    banned INTEGER NOT NULL DEFAULT 0
);
"""

SESSIONS_V3 = """
CREATE TABLE sessions (
    token_sha256 TEXT PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    began REAL NOT NULL
);
CREATE INDEX sessions_by_author ON sessions (author_id, began);
"""

SCHEMA_V3 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_sha256 TEXT NOT NULL,
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
    detail TEXT NOT NULL
);
""" + BOTS_V3 + SESSIONS_V3


def old_store(folder: Path, version: int, authors: dict[str, str]) -> None:
    """Write ``folder/ladder.sqlite`` as ``version`` (1-3) wrote it, with ``authors`` (name:
    token) added, and for version 3 a session of each (its hash ``s-NAME`` hashed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "submissions").mkdir(exist_ok=True)
    with sqlite3.connect(folder / "ladder.sqlite") as c:
        c.executescript(SCHEMA_V3)
        if version < 3:
            c.execute("DROP TABLE sessions")
        if version < 2:
            c.execute("DROP TABLE bots")
        c.execute("INSERT INTO meta VALUES ('schema', ?)", (str(version),))
        for i, (name, token) in enumerate(authors.items(), 1):
            digest = hashlib.sha256(token.encode()).hexdigest()
            c.execute("INSERT INTO authors (id, name, token_sha256, admin, created) VALUES (?, ?, ?, 0, 1.0)", (i, name, digest))
            c.execute("INSERT INTO actions (at, author, action, subject, detail) VALUES (1.0, NULL, 'add-author', ?, 'author')", (name,))
            if version == 3:
                c.execute("INSERT INTO sessions VALUES (?, ?, ?)", (session_digest(name), i, 1000.0))


def session_digest(name: str) -> str:
    """The stored hash of the version-3 session :func:`old_store` gave ``name``."""
    return hashlib.sha256(f"s-{name}".encode()).hexdigest()
