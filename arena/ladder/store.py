"""``ladder.sqlite``: the ladder's authors, submissions and action log, beside ``results.sqlite``.

The league's own store is untouched (``arena standings``, ``games``, ``replay`` and ``report``
read it as ever); this one holds what only the service knows.  Tokens are never stored: only
their SHA-256, looked up by comparing every author's hash in constant time.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
import re
import secrets
import shlex
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import LadderError
from arena.ladder.folders import LADDER_STORE, SUBMISSIONS

LADDER_STORE_NAME = LADDER_STORE
SCHEMA_VERSION = 3
# Version 2 added ``bots``: the organiser's retire and ban of a bot; version 3 ``sessions``:
# the pages' sign-ins, kept so that signing out ends them (an older store is upgraded in
# place: the new tables start empty).
TOKEN_BYTES = 32
SESSIONS_PER_AUTHOR = 16  # an author's sessions at once (browsers, machines); the oldest ends

_BOTS_TABLE = """
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    retired_through INTEGER NOT NULL DEFAULT 0,
    banned INTEGER NOT NULL DEFAULT 0
);
"""

_SESSIONS_TABLE = """
CREATE TABLE sessions (
    token_sha256 TEXT PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    began REAL NOT NULL
);
CREATE INDEX sessions_by_author ON sessions (author_id, began);
"""
# What upgrades a store of each older version to this one.
_UPGRADES = {"1": _BOTS_TABLE + _SESSIONS_TABLE, "2": _SESSIONS_TABLE}

_SCHEMA = """
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
""" + _BOTS_TABLE + _SESSIONS_TABLE


class State(enum.StrEnum):
    """Where a submission is; the value is stored and shown."""

    RECEIVED = "received"  # archive saved, not unpacked yet
    UNPACKED = "unpacked"  # unpacked under the limits, waiting for the queue
    BUILT = "built"  # its build ran in the sandbox
    CHECKING = "checking"  # ``arena check`` is playing its games
    PASSED = "passed"  # the check passed: the hand-over point to the league
    FAILED = "failed"  # the build or the check failed: the report says why
    REFUSED = "refused"  # the archive broke an unpacking rule: never built

    @property
    def pending(self) -> bool:
        """Whether the queue still has work to do for it (redone from its archive on a restart)."""
        return self in (State.RECEIVED, State.UNPACKED, State.BUILT, State.CHECKING)


# The states a version ends in: each is written to the action log.
_VERDICTS = (State.PASSED, State.FAILED, State.REFUSED)


@dataclass(frozen=True)
class Author:
    """One author the organiser added."""

    id: int
    name: str
    admin: bool
    banned: bool


@dataclass(frozen=True)
class Submission:
    """One numbered version of a bot, and where it is."""

    id: int
    author: str
    bot: str
    version: int
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    archive_name: str
    archive_bytes: int
    state: State
    reason: str | None
    report: dict[str, Any] | None
    build_log: str | None
    received: float
    updated: float

    def public(self) -> dict[str, Any]:
        """What anyone may see of it: no report, no build log (they may hold the author's secrets)."""
        return {
            "id": self.id,
            "bot": self.bot,
            "version": self.version,
            "author": self.author,
            "state": self.state.value,
            "received": self.received,
            "updated": self.updated,
        }

    def private(self) -> dict[str, Any]:
        """What its author sees: also its command, build, the reason, the check report and build log."""
        return {
            **self.public(),
            "command": list(self.command),
            "build": None if self.build is None else list(self.build),
            "archive_bytes": self.archive_bytes,
            "reason": self.reason,
            "report": self.report,
            "build_log": self.build_log,
        }

    def withheld(self, text: str, folders: Sequence[Path]) -> str:
        """``text`` (its reason, a line of its check) as anyone but its author reads it: its
        command, as a message quotes it, and the server's ``folders`` withheld."""
        for spelled in dict.fromkeys((" ".join(self.command), shlex.join(self.command))):
            for quoted in (repr(spelled), f"'{spelled}'", f'"{spelled}"'):
                text = text.replace(quoted, "its command")
        # The longest first: the version's own folder before the folder that holds it; a path
        # inside one goes with it (its file names are the command's).
        for folder in sorted({str(f) for f in folders if f.is_absolute() and len(f.parts) > 1}, key=len, reverse=True):
            within = f"{re.escape(folder)}(?![^/\\s'\"])"  # the folder itself or a path in it
            text = re.sub(f"(['\"]){within}(?:/[^'\"]*)?\\1", "its folder", text)  # quoted: up to its quote
            text = re.sub(f"{within}(?:/[^\\s,;:)'\"]*)?", "its folder", text)  # up to a space or a stop
        return text


def _schema_of(conn: sqlite3.Connection, path: Path) -> str | None:
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
    if version in _UPGRADES or version == str(SCHEMA_VERSION):
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


def token_hash(token: str) -> str:
    """The SHA-256 of a token, as stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


class LadderStore:
    """The ladder's SQLite file, shared by the web handlers and the queue's thread."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        # Told of each action once it is stored (``arena serve`` prints them on its console).
        self.on_action: Callable[[dict[str, Any]], None] | None = None
        self._logged: list[dict[str, Any]] = []

    @classmethod
    def open(cls, folder: Path) -> LadderStore:
        """Open (or create) ``folder/ladder.sqlite``; refuse one of a newer or unknown schema."""
        path = folder / LADDER_STORE_NAME
        if path.is_file():
            # Read-only until its schema is known: a foreign file is refused untouched (switching
            # it to WAL, as a ladder store is, would already change it).
            cls._look(path)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / SUBMISSIONS).mkdir(exist_ok=True)
        try:
            conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.OperationalError as e:  # unreadable, a folder, no space...
            raise LadderError(f"{str(path)!r}: cannot open the ladder store: {e}") from None
        except sqlite3.DatabaseError as e:
            raise LadderError(f"{str(path)!r} is not a ladder store: {e}") from None
        store = cls(path, conn)
        try:
            store._prepare()
        except BaseException:
            conn.close()
            raise
        return store

    @staticmethod
    def _look(path: Path) -> None:
        """Refuse ``path`` unless it is empty or a ladder store this arena reads, opened read-only."""
        try:
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        except sqlite3.Error as e:
            raise LadderError(f"{str(path)!r}: cannot open the ladder store: {e}") from None
        try:
            try:
                conn.execute("PRAGMA schema_version").fetchone()
            except sqlite3.OperationalError as e:  # unreadable, locked...
                raise LadderError(f"{str(path)!r}: cannot open the ladder store: {e}") from None
            except sqlite3.DatabaseError as e:  # not SQLite at all
                raise LadderError(f"{str(path)!r} is not a ladder store: {e}") from None
            _schema_of(conn, path)
        finally:
            conn.close()

    def _prepare(self) -> None:
        version = _schema_of(self._conn, self.path)
        if version is None:
            # One script, one transaction: a store is made whole or not at all.
            self._conn.executescript(
                f"BEGIN; {_SCHEMA} INSERT INTO meta VALUES ('schema', '{SCHEMA_VERSION}'); COMMIT;"
            )
        elif version in _UPGRADES:
            # The tables added since, in one transaction (a crash leaves the older version).
            self._conn.executescript(
                f"BEGIN; {_UPGRADES[version]} UPDATE meta SET value='{SCHEMA_VERSION}' WHERE key='schema'; COMMIT;"
            )

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._logged.clear()
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            if self._conn.in_transaction:
                self._conn.execute("COMMIT")
            logged, self._logged = self._logged, []
        if self.on_action is not None:
            for action in logged:
                self.on_action(action)

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql, args))

    # Authors ----------------------------------------------------------------------------

    def add_author(self, name: str, admin: bool = False) -> str:
        """Add ``name`` and return its new token (shown once; only its hash is kept)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._tx() as c:
            if c.execute("SELECT 1 FROM authors WHERE name=?", (name,)).fetchone():
                raise LadderError(f"author {name!r} exists already")
            c.execute(
                "INSERT INTO authors (name, token_sha256, admin, created) VALUES (?, ?, ?, ?)",
                (name, token_hash(token), int(admin), time.time()),
            )
            self._log(c, None, "add-author", name, "admin" if admin else "author")
        return token

    def set_banned(self, name: str, banned: bool, by: str | None) -> None:
        """Ban (or unban) an author: their token is refused from then on."""
        with self._tx() as c:
            if c.execute("UPDATE authors SET banned=? WHERE name=?", (int(banned), name)).rowcount != 1:
                raise LadderError(f"no author {name!r}")
            self._log(c, by, "ban" if banned else "unban", name, "")

    def author_by_token(self, token: str) -> Author | None:
        """The author whose token this is, or None; every stored hash is compared, in constant time."""
        wanted = token_hash(token)
        found: Author | None = None
        for id_, name, stored, admin, banned in self._rows(
            "SELECT id, name, token_sha256, admin, banned FROM authors"
        ):
            if hmac.compare_digest(wanted, stored):
                found = Author(id_, name, bool(admin), bool(banned))
        return found

    def authors(self) -> list[Author]:
        """Every author, in the order they were added."""
        return [
            Author(i, n, bool(a), bool(b))
            for i, n, a, b in self._rows("SELECT id, name, admin, banned FROM authors ORDER BY id")
        ]

    # Submissions ------------------------------------------------------------------------

    def add_submission(
        self,
        author: Author,
        bot: str,
        command: Sequence[str],
        build: Sequence[str] | None,
        archive: tuple[str, int, str],
        state: State = State.RECEIVED,
        reason: str | None = None,
        place: Callable[[int], None] = lambda _sid: None,
    ) -> Submission:
        """Number a new version of ``bot`` in ``state``; refuse a bot name another author owns.

        ``place(id)`` runs before the version is committed: it moves the version's files into
        place, so a crash (a kill -9) leaves no numbered version without its folder.  If it
        raises, the version is not numbered.
        """
        name, size, digest = archive
        now = time.time()
        with self._tx() as c:
            owner = c.execute(
                "SELECT a.name FROM submissions s JOIN authors a ON a.id=s.author_id WHERE s.bot=? LIMIT 1",
                (bot,),
            ).fetchone()
            if owner is not None and owner[0] != author.name:
                raise LadderError(f"bot {bot!r} belongs to another author; choose another name")
            version = c.execute("SELECT coalesce(max(version), 0) + 1 FROM submissions WHERE bot=?", (bot,))
            number = int(version.fetchone()[0])
            cur = c.execute(
                "INSERT INTO submissions (author_id, bot, version, command, build, archive_name, "
                "archive_bytes, archive_sha256, state, received, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    author.id,
                    bot,
                    number,
                    json.dumps(list(command)),
                    None if build is None else json.dumps(list(build)),
                    name,
                    size,
                    digest,
                    state.value,
                    now,
                    now,
                ),
            )
            sid = int(cur.lastrowid or 0)
            if reason is not None:
                c.execute("UPDATE submissions SET reason=? WHERE id=?", (reason, sid))
            self._log(c, author.name, "submit", f"{bot} v{number}", f"submission {sid}, {size} bytes")
            if state in _VERDICTS:
                self._log(c, None, state.value, f"submission {sid}", reason or "")
            place(sid)
        found = self.submission(sid)
        assert found is not None
        return found

    def set_state(
        self,
        sid: int,
        state: State,
        reason: str | None = None,
        report: dict[str, Any] | None = None,
        build_log: str | None = None,
    ) -> None:
        """Move submission ``sid`` to ``state`` (with what was found, when it ends)."""
        with self._tx() as c:
            c.execute(
                "UPDATE submissions SET state=?, reason=coalesce(?, reason), report=coalesce(?, report), "
                "build_log=coalesce(?, build_log), updated=? WHERE id=?",
                (
                    state.value,
                    reason,
                    None if report is None else json.dumps(report),
                    build_log,
                    time.time(),
                    sid,
                ),
            )
            if state in _VERDICTS:
                self._log(c, None, state.value, f"submission {sid}", reason or "")

    _COLUMNS = (
        "s.id, a.name, s.bot, s.version, s.command, s.build, s.archive_name, s.archive_bytes, s.state, "
        "s.reason, s.report, s.build_log, s.received, s.updated"
    )

    def _submissions(self, where: str, args: Sequence[Any] = ()) -> list[Submission]:
        rows = self._rows(
            f"SELECT {self._COLUMNS} FROM submissions s JOIN authors a ON a.id=s.author_id {where}", args
        )
        return [
            Submission(
                r[0],
                r[1],
                r[2],
                r[3],
                tuple(json.loads(r[4])),
                None if r[5] is None else tuple(json.loads(r[5])),
                r[6],
                r[7],
                State(r[8]),
                r[9],
                None if r[10] is None else json.loads(r[10]),
                r[11],
                r[12],
                r[13],
            )
            for r in rows
        ]

    def submission(self, sid: int) -> Submission | None:
        """Submission ``sid``, or None."""
        found = self._submissions("WHERE s.id=?", (sid,))
        return found[0] if found else None

    def submissions(self) -> list[Submission]:
        """Every submission, oldest first."""
        return self._submissions("ORDER BY s.id")

    def passed(self) -> list[Submission]:
        """The versions that passed their checks, oldest first, without their reports and build
        logs (the league's roster is read often)."""
        rows = self._rows(
            "SELECT s.id, a.name, s.bot, s.version, s.command, s.build, s.archive_name, s.archive_bytes, "
            "s.received, s.updated FROM submissions s JOIN authors a ON a.id=s.author_id "
            "WHERE s.state=? ORDER BY s.id",
            (State.PASSED.value,),
        )
        return [
            Submission(
                r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), None if r[5] is None else tuple(json.loads(r[5])),
                r[6], r[7], State.PASSED, None, None, None, r[8], r[9],
            )
            for r in rows
        ]

    def pending(self) -> list[Submission]:
        """The submissions the queue has still to finish, oldest first."""
        states = [s.value for s in State if s.pending]
        return self._submissions(f"WHERE s.state IN ({','.join('?' * len(states))}) ORDER BY s.id", states)

    def recent(self, author: Author, since: float) -> tuple[list[float], int]:
        """When ``author`` submitted since ``since`` (oldest first), and the archive bytes of those."""
        rows = self._rows(
            "SELECT received, archive_bytes FROM submissions WHERE author_id=? AND received>=? ORDER BY received",
            (author.id, since),
        )
        return [r[0] for r in rows], sum(r[1] for r in rows)

    # The organiser's retire and ban of a bot ------------------------------------------------

    def retire_bot(self, bot: str, by: str | None) -> int:
        """Retire every version of ``bot`` submitted so far (a later one joins again); the
        newest version retired, 0 when the bot has none."""
        with self._tx() as c:
            newest = int(c.execute("SELECT coalesce(max(version), 0) FROM submissions WHERE bot=?", (bot,)).fetchone()[0])
            if newest == 0:
                raise LadderError(f"no bot {bot!r}")
            c.execute(
                "INSERT INTO bots (name, retired_through) VALUES (?, ?) "
                "ON CONFLICT(name) DO UPDATE SET retired_through=excluded.retired_through",
                (bot, newest),
            )
            self._log(c, by, "retire", bot, f"versions 1-{newest}")
        return newest

    def set_bot_banned(self, bot: str, banned: bool, by: str | None) -> None:
        """Ban ``bot`` (every version retired, no new one taken) or lift the ban."""
        with self._tx() as c:
            if c.execute("SELECT 1 FROM submissions WHERE bot=? LIMIT 1", (bot,)).fetchone() is None:
                raise LadderError(f"no bot {bot!r}")
            c.execute(
                "INSERT INTO bots (name, banned) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET banned=excluded.banned",
                (bot, int(banned)),
            )
            self._log(c, by, "ban-bot" if banned else "unban-bot", bot, "")

    def bot_flags(self) -> dict[str, tuple[int, bool]]:
        """Each flagged bot's (newest version retired, banned)."""
        return {n: (int(r), bool(b)) for n, r, b in self._rows("SELECT name, retired_through, banned FROM bots")}

    # What the service keeps between its runs ------------------------------------------------

    def kept(self, key: str) -> str | None:
        """The value the service kept under ``key`` (see :meth:`keep`), or None."""
        row = self._rows("SELECT value FROM meta WHERE key=?", (f"kept.{key}",))
        return str(row[0][0]) if row else None

    def keep(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` across restarts."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"kept.{key}", value))

    # The ladder's own switches ------------------------------------------------------------

    def paused(self) -> bool:
        """Whether the organiser paused the ladder (it takes versions, but checks none)."""
        row = self._rows("SELECT value FROM meta WHERE key='paused'")
        return bool(row) and row[0][0] == "1"

    def set_paused(self, paused: bool, by: str | None) -> None:
        """Pause or resume the ladder (kept across restarts)."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES ('paused', ?)", ("1" if paused else "0",))
            self._log(c, by, "pause" if paused else "resume", "ladder", "")

    # The action log ---------------------------------------------------------------------

    def _log(self, c: sqlite3.Connection, who: str | None, action: str, subject: str, detail: str) -> None:
        at = time.time()
        c.execute(
            "INSERT INTO actions (at, author, action, subject, detail) VALUES (?,?,?,?,?)",
            (at, who, action, subject, detail),
        )
        self._logged.append({"at": at, "author": who, "action": action, "subject": subject, "detail": detail})

    def log(self, who: str | None, action: str, subject: str, detail: str = "") -> None:
        """Record that ``who`` (None: the ladder itself) did ``action`` to ``subject``."""
        with self._tx() as c:
            self._log(c, who, action, subject, detail)

    def actions(self) -> list[dict[str, Any]]:
        """The action log, oldest first."""
        keys = ("at", "author", "action", "subject", "detail")
        return [
            dict(zip(keys, r, strict=True))
            for r in self._rows(f"SELECT {', '.join(keys)} FROM actions ORDER BY id")
        ]

    # What the web pages read ----------------------------------------------------------------

    def session_secret(self) -> bytes:
        """The key that signs the pages' form tokens: drawn at the first start that asks, then
        kept (a restart keeps every form's token good)."""
        with self._tx() as c:
            c.execute("INSERT OR IGNORE INTO meta VALUES ('session_secret', ?)", (secrets.token_hex(32),))
            value = c.execute("SELECT value FROM meta WHERE key='session_secret'").fetchone()[0]
        return bytes.fromhex(str(value))

    def begin_session(self, author: Author, digest: str, now: float, lasts_s: float) -> None:
        """Keep a new session of ``author`` (its token's SHA-256 ``digest``), begun ``now``;
        forget the sessions over ``lasts_s`` old, and the author's oldest past
        :data:`SESSIONS_PER_AUTHOR`."""
        with self._tx() as c:
            c.execute("DELETE FROM sessions WHERE began < ?", (now - lasts_s,))
            c.execute("INSERT INTO sessions (token_sha256, author_id, began) VALUES (?, ?, ?)", (digest, author.id, now))
            c.execute(
                "DELETE FROM sessions WHERE author_id=? AND token_sha256 NOT IN "
                "(SELECT token_sha256 FROM sessions WHERE author_id=? ORDER BY began DESC, rowid DESC LIMIT ?)",
                (author.id, author.id, SESSIONS_PER_AUTHOR),
            )

    def session_author(self, digest: str, now: float, lasts_s: float) -> Author | None:
        """The author of the session whose token's SHA-256 is ``digest``, if it began less than
        ``lasts_s`` before ``now`` and has not ended."""
        rows = self._rows(
            "SELECT a.id, a.name, a.admin, a.banned FROM sessions s JOIN authors a ON a.id=s.author_id "
            "WHERE s.token_sha256=? AND s.began >= ?",
            (digest, now - lasts_s),
        )
        return Author(rows[0][0], rows[0][1], bool(rows[0][2]), bool(rows[0][3])) if rows else None

    def end_session(self, digest: str) -> None:
        """Forget the session whose token's SHA-256 is ``digest`` (signed out)."""
        with self._tx() as c:
            c.execute("DELETE FROM sessions WHERE token_sha256=?", (digest,))

    def author_named(self, name: str) -> Author | None:
        """The author called ``name``, or None."""
        rows = self._rows("SELECT id, name, admin, banned FROM authors WHERE name=?", (name,))
        return Author(rows[0][0], rows[0][1], bool(rows[0][2]), bool(rows[0][3])) if rows else None

    def versions_of(self, bot: str) -> list[Submission]:
        """Every version of ``bot``, oldest first."""
        return self._submissions("WHERE s.bot=? ORDER BY s.version", (bot,))

    def version(self, bot: str, number: int) -> Submission | None:
        """Version ``number`` of ``bot``, or None."""
        found = self._submissions("WHERE s.bot=? AND s.version=?", (bot, number))
        return found[0] if found else None

    def bot_owner(self, bot: str) -> str | None:
        """The author of ``bot`` (None: no version of it yet)."""
        rows = self._rows(
            "SELECT a.name FROM submissions s JOIN authors a ON a.id=s.author_id WHERE s.bot=? LIMIT 1", (bot,)
        )
        return str(rows[0][0]) if rows else None

    def bot_owners(self) -> dict[str, str]:
        """Each submitted bot's author (no report is read: cheap enough for every page)."""
        return dict(
            self._rows("SELECT DISTINCT s.bot, a.name FROM submissions s JOIN authors a ON a.id=s.author_id")
        )

    def latest_versions(self) -> list[tuple[str, str, int, State, float]]:
        """Each submitted bot's newest version: (bot, author, version, state, updated), by bot name."""
        rows = self._rows(
            "SELECT s.bot, a.name, s.version, s.state, s.updated FROM submissions s JOIN authors a ON a.id=s.author_id "
            "WHERE s.version = (SELECT max(version) FROM submissions t WHERE t.bot = s.bot) ORDER BY s.bot"
        )
        return [(r[0], r[1], r[2], State(r[3]), r[4]) for r in rows]

    def state_counts(self) -> dict[State, int]:
        """How many versions are in each state."""
        return {State(s): n for s, n in self._rows("SELECT state, count(*) FROM submissions GROUP BY state")}
