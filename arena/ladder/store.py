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
from arena.ladder.store_schema import SCHEMA, SCHEMA_VERSION, UPGRADES, schema_of
from arena.ladder.teams import MEMBER_SEP, RosterRow, member_label

LADDER_STORE_NAME = LADDER_STORE
TOKEN_BYTES = 32
SESSIONS_PER_AUTHOR = 16  # a member's sessions at once (browsers, machines); the oldest ends


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
    """One author the organiser added: a team of one or more members (see :class:`Member`)."""

    id: int
    name: str
    admin: bool
    banned: bool


@dataclass(frozen=True)
class Member:
    """One member of an author's team, with their own token (``revoked``: refused from then on)."""

    id: int
    team: str
    name: str
    revoked: bool

    @property
    def label(self) -> str:
        """``team/member``, as the log names them."""
        return member_label(self.team, self.name)


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
            schema_of(conn, path)
        finally:
            conn.close()

    def _prepare(self) -> None:
        version = schema_of(self._conn, self.path)
        if version is None:
            # One script, one transaction: a store is made whole or not at all.
            self._conn.executescript(
                f"BEGIN; {SCHEMA} INSERT INTO meta VALUES ('schema', '{SCHEMA_VERSION}'); COMMIT;"
            )
        elif version in UPGRADES:
            # The tables added since, in one transaction (a crash leaves the older version).
            self._conn.executescript(
                f"BEGIN; {UPGRADES[version]} UPDATE meta SET value='{SCHEMA_VERSION}' WHERE key='schema'; COMMIT;"
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
        """Add ``name``, a team of one member also called ``name``, and return the member's new
        token (shown once; only its hash is kept)."""
        with self._tx() as c:
            if c.execute("SELECT 1 FROM authors WHERE name=?", (name,)).fetchone():
                raise LadderError(f"author {name!r} exists already")
            author_id = self._new_author(c, name, admin)
            token = self._new_member(c, author_id, name)
            self._log(c, None, "add-author", name, "admin" if admin else "author")
        return token

    def _new_author(self, c: sqlite3.Connection, name: str, admin: bool) -> int:
        cur = c.execute("INSERT INTO authors (name, admin, created) VALUES (?, ?, ?)", (name, int(admin), time.time()))
        return int(cur.lastrowid or 0)

    def _new_member(self, c: sqlite3.Connection, author_id: int, name: str) -> str:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        c.execute(
            "INSERT INTO members (author_id, name, token_sha256, created) VALUES (?, ?, ?, ?)",
            (author_id, name, token_hash(token), time.time()),
        )
        return token

    def add_roster(
        self, rows: Sequence[RosterRow], keep: Callable[[list[tuple[str, str, str]]], None]
    ) -> tuple[int, int]:
        """Add each row's member to its team (the team made by its first row), all or none:
        LadderError naming the row's line for a member present already or a team whose admin
        flag the row contradicts.  ``keep`` is handed every (team, member, token) before they
        are committed (it writes them down: if it raises, nothing is added).  The teams and
        members added."""
        added: list[tuple[str, str, str]] = []
        # A new team is an admin's when any of its rows says so (the roster's rows agree).
        admin_of = {r.team: r.admin for r in rows if r.admin is not None}
        made: set[str] = set()
        with self._tx() as c:
            for row in rows:
                found = c.execute("SELECT id, admin FROM authors WHERE name=?", (row.team,)).fetchone()
                if found is None:
                    admin = bool(admin_of.get(row.team))
                    author_id = self._new_author(c, row.team, admin)
                    self._log(c, None, "add-author", row.team, "admin" if admin else "author")
                    made.add(row.team)
                else:
                    author_id = int(found[0])
                    if row.team not in made and row.admin is not None and bool(found[1]) != row.admin:
                        raise LadderError(
                            f"line {row.line}: team {row.team!r} exists already as "
                            f"{'an admin' if found[1] else 'not an admin'}; leave its admin column empty"
                        )
                    if c.execute("SELECT 1 FROM members WHERE author_id=? AND name=?", (author_id, row.member)).fetchone():
                        raise LadderError(f"line {row.line}: member {row.member!r} of team {row.team!r} is present already")
                added.append((row.team, row.member, self._new_member(c, author_id, row.member)))
                self._log(c, None, "add-member", row.label, "")
            keep(added)
        return len(made), len(added)

    def _member_id(self, c: sqlite3.Connection, team: str, member: str) -> int:
        found = c.execute(
            "SELECT m.id FROM members m JOIN authors a ON a.id=m.author_id WHERE a.name=? AND m.name=?", (team, member)
        ).fetchone()
        if found is None:
            raise LadderError(f"no member {member_label(team, member)!r}")
        return int(found[0])

    def revoke_member(self, team: str, member: str, by: str | None) -> None:
        """Refuse ``team/member``'s token from now on and end their sessions (the team and its
        other members go on)."""
        with self._tx() as c:
            mid = self._member_id(c, team, member)
            if c.execute("UPDATE members SET token_sha256=NULL WHERE id=? AND token_sha256 IS NOT NULL", (mid,)).rowcount != 1:
                raise LadderError(f"member {member_label(team, member)!r} is revoked already")
            c.execute("DELETE FROM sessions WHERE member_id=?", (mid,))
            self._log(c, by, "revoke-member", member_label(team, member), "")

    def new_token(self, team: str, member: str, by: str | None) -> str:
        """Give ``team/member`` a new token (a revoked member too): the old one is refused and
        their sessions end.  The new token, shown once."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._tx() as c:
            mid = self._member_id(c, team, member)
            c.execute("UPDATE members SET token_sha256=? WHERE id=?", (token_hash(token), mid))
            c.execute("DELETE FROM sessions WHERE member_id=?", (mid,))
            self._log(c, by, "new-token", member_label(team, member), "")
        return token

    def set_banned(self, name: str, banned: bool, by: str | None) -> None:
        """Ban (or unban) an author: their members' tokens are refused from then on."""
        with self._tx() as c:
            if c.execute("UPDATE authors SET banned=? WHERE name=?", (int(banned), name)).rowcount != 1:
                raise LadderError(f"no author {name!r}")
            self._log(c, by, "ban" if banned else "unban", name, "")

    _HOLDER = "a.id, a.name, a.admin, a.banned, m.id, m.name, m.token_sha256 IS NULL"

    @staticmethod
    def _holder(r: Sequence[Any]) -> tuple[Author, Member]:
        return Author(r[0], r[1], bool(r[2]), bool(r[3])), Member(r[4], r[1], r[5], bool(r[6]))

    def holder_by_token(self, token: str) -> tuple[Author, Member] | None:
        """The author (team) and member whose token this is, or None; every stored hash is
        compared, in constant time (a revoked member's is none)."""
        wanted = token_hash(token)
        found: tuple[Author, Member] | None = None
        for r in self._rows(
            f"SELECT {self._HOLDER}, m.token_sha256 FROM members m JOIN authors a ON a.id=m.author_id "
            "WHERE m.token_sha256 IS NOT NULL"
        ):
            if hmac.compare_digest(wanted, r[7]):
                found = self._holder(r)
        return found

    def author_by_token(self, token: str) -> Author | None:
        """The author (team) of the member whose token this is, or None."""
        found = self.holder_by_token(token)
        return None if found is None else found[0]

    def members_of(self, team: str) -> list[Member]:
        """The members of ``team``, in the order they were added (revoked ones too)."""
        return [
            self._holder(r)[1]
            for r in self._rows(
                f"SELECT {self._HOLDER} FROM members m JOIN authors a ON a.id=m.author_id WHERE a.name=? ORDER BY m.id",
                (team,),
            )
        ]

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
        by: str | None = None,
    ) -> Submission:
        """Number a new version of ``bot`` in ``state``; refuse a bot name another author owns.

        ``place(id)`` runs before the version is committed: it moves the version's files into
        place, so a crash (a kill -9) leaves no numbered version without its folder.  If it
        raises, the version is not numbered.  ``by``: who sent it (``team/member``; None: the
        author's name).
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
            self._log(c, by or author.name, "submit", f"{bot} v{number}", f"submission {sid}, {size} bytes")
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
        # ``team/member`` names the member; a name alone, the team (no name holds the '/').
        author = None if who is None else who.partition(MEMBER_SEP)[0]
        member = who if who is not None and MEMBER_SEP in who else None
        c.execute(
            "INSERT INTO actions (at, author, action, subject, detail, member) VALUES (?,?,?,?,?,?)",
            (at, author, action, subject, detail, member),
        )
        self._logged.append(
            {"at": at, "author": author, "member": member, "action": action, "subject": subject, "detail": detail}
        )

    def log(self, who: str | None, action: str, subject: str, detail: str = "") -> None:
        """Record that ``who`` (``team/member``; a team's name alone; None: the ladder itself)
        did ``action`` to ``subject``."""
        with self._tx() as c:
            self._log(c, who, action, subject, detail)

    def actions(self) -> list[dict[str, Any]]:
        """The action log, oldest first: each action's author (the team) and member
        (``team/member``; None: the ladder, the command line, or an older arena's entry)."""
        keys = ("at", "author", "member", "action", "subject", "detail")
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

    def begin_session(
        self, author: Author, digest: str, now: float, lasts_s: float, member: Member | None = None
    ) -> None:
        """Keep a new session of ``member`` of ``author`` (None: the team's first member whose
        token stands), its token's SHA-256 ``digest``, begun ``now``; forget the sessions over
        ``lasts_s`` old, and the member's oldest past :data:`SESSIONS_PER_AUTHOR`."""
        with self._tx() as c:
            if member is None:
                row = c.execute(
                    "SELECT id FROM members WHERE author_id=? AND token_sha256 IS NOT NULL ORDER BY id LIMIT 1", (author.id,)
                ).fetchone()
                if row is None:
                    raise LadderError(f"author {author.name!r} has no member whose token stands")
                mid = int(row[0])
            else:
                mid = member.id
            c.execute("DELETE FROM sessions WHERE began < ?", (now - lasts_s,))
            c.execute(
                "INSERT INTO sessions (token_sha256, author_id, began, member_id) VALUES (?, ?, ?, ?)",
                (digest, author.id, now, mid),
            )
            c.execute(
                "DELETE FROM sessions WHERE member_id=? AND token_sha256 NOT IN "
                "(SELECT token_sha256 FROM sessions WHERE member_id=? ORDER BY began DESC, rowid DESC LIMIT ?)",
                (mid, mid, SESSIONS_PER_AUTHOR),
            )

    def session_holder(self, digest: str, now: float, lasts_s: float) -> tuple[Author, Member] | None:
        """The author and member of the session whose token's SHA-256 is ``digest``, if it
        began less than ``lasts_s`` before ``now`` and has not ended (a revoked member's
        sessions ended with the token)."""
        rows = self._rows(
            f"SELECT {self._HOLDER} FROM sessions s JOIN members m ON m.id=s.member_id "
            "JOIN authors a ON a.id=m.author_id WHERE s.token_sha256=? AND s.began >= ? AND m.token_sha256 IS NOT NULL",
            (digest, now - lasts_s),
        )
        return self._holder(rows[0]) if rows else None

    def session_author(self, digest: str, now: float, lasts_s: float) -> Author | None:
        """The author (team) of :meth:`session_holder`."""
        found = self.session_holder(digest, now, lasts_s)
        return None if found is None else found[0]

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
