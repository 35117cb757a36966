"""A class's roster: the CSV an organiser gives ``arena serve LADDER --add-authors``, and the
file the new members' tokens are written to, once.

The roster is ``team,member[,admin]`` with a header line; each row adds one member to a team
(a team is an author of the ladder: it owns bots, versions, quotas and places), the team
being created by its first row.  Every row is checked before anything is added, and a roster
with any fault is refused whole, the message naming its line and what was wrong.  Names
follow the ladder's one rule (:func:`arena.ladder.names.check_author_name`).  It imports
nothing of the ladder but its names.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError
from arena.ladder.names import check_author_name
from arena.untrusted import csv_cell

MAX_ROSTER_BYTES = 1024 * 1024
MAX_ROSTER_ROWS = 5000  # members in one roster: a large course, not a name list to flood the store
COLUMNS = ("team", "member", "admin")
REQUIRED = ("team", "member")
YES = ("yes", "true", "1")
NO = ("no", "false", "0", "")
MEMBER_SEP = "/"  # team/member: no name holds it


@dataclass(frozen=True)
class RosterRow:
    """One member to add: their team, their name, whether the team is an organiser's (None:
    the row does not say), and the line of the roster it came from."""

    team: str
    member: str
    admin: bool | None
    line: int

    @property
    def label(self) -> str:
        return member_label(self.team, self.member)


def member_label(team: str, member: str) -> str:
    """How a member is named in the log and on the command line: ``team/member``."""
    return f"{team}{MEMBER_SEP}{member}"


def split_label(text: str, what: str) -> tuple[str, str]:
    """``TEAM/MEMBER`` as (team, member), each a fit name; ConfigError naming ``what`` otherwise."""
    team, sep, member = text.partition(MEMBER_SEP)
    if not sep:
        raise ConfigError(f"{what} {text[:140]!r}: give TEAM/MEMBER")
    try:
        return check_author_name(team), check_author_name(member)
    except ConfigError as e:
        raise ConfigError(f"{what}: {e}") from None


def _admin(raw: str, where: str) -> bool | None:
    value = raw.strip().lower()
    if value in YES:
        return True
    if value in NO:
        return None if value == "" else False
    raise ConfigError(f"{where}: admin {raw[:40]!r}: one of yes, no, true, false, 1, 0, or empty")


def parse_roster(data: bytes, source: str) -> list[RosterRow]:
    """The rows of a roster file's bytes (``source`` names it in messages); ConfigError naming
    the line and what was wrong at the first fault found."""
    if len(data) > MAX_ROSTER_BYTES:
        raise ConfigError(f"{source}: {len(data)} bytes; a roster holds at most {MAX_ROSTER_BYTES}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{source}: not UTF-8 text (byte {e.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[RosterRow] = []
    seen: dict[tuple[str, str], int] = {}
    admin_of: dict[str, tuple[bool, int]] = {}
    header: list[str] | None = None
    ended = 0  # the line the last row ended on (a quoted field may hold line breaks)
    try:
        for fields in reader:
            line, ended = ended + 1, reader.line_num
            where = f"{source}: line {line}"
            if not any(f.strip() for f in fields):
                continue  # a blank line
            if header is None:
                header = [f.strip().lower() for f in fields]
                unknown = [h for h in header if h not in COLUMNS]
                if unknown:
                    raise ConfigError(f"{where}: unknown column {unknown[0][:40]!r}; the columns are {', '.join(COLUMNS)}")
                for c in REQUIRED:
                    if c not in header:
                        raise ConfigError(f"{where}: no {c!r} column; the header is team,member[,admin]")
                if len(set(header)) != len(header):
                    raise ConfigError(f"{where}: a column named twice")
                continue
            if len(fields) != len(header):
                raise ConfigError(f"{where}: {len(fields)} fields; the header has {len(header)}")
            if len(rows) >= MAX_ROSTER_ROWS:
                raise ConfigError(f"{where}: more than {MAX_ROSTER_ROWS} members; split the roster")
            cell = dict(zip(header, (f.strip() for f in fields), strict=True))
            try:
                team = check_author_name(cell["team"])
                member = check_author_name(cell["member"])
            except ConfigError as e:
                raise ConfigError(f"{where}: {e}") from None
            admin = _admin(cell.get("admin", ""), where)
            if (team, member) in seen:
                raise ConfigError(f"{where}: member {member!r} of team {team!r} is on line {seen[team, member]} already")
            seen[team, member] = line
            if admin is not None:
                said = admin_of.setdefault(team, (admin, line))
                if said[0] != admin:
                    raise ConfigError(
                        f"{where}: team {team!r} is {'not ' if not admin else ''}an admin here but "
                        f"{'' if said[0] else 'not '}one on line {said[1]}"
                    )
            rows.append(RosterRow(team, member, admin, line))
    except csv.Error as e:
        raise ConfigError(f"{source}: line {ended + 1}: {e}") from None
    if header is None:
        raise ConfigError(f"{source}: empty; give a header team,member[,admin] and a line per member")
    if not rows:
        raise ConfigError(f"{source}: no member under the header")
    return rows


def open_tokens_file(path: Path) -> int:
    """A new file at ``path`` that only its owner can read (mode 0600), for the tokens; never
    one that exists (ConfigError naming it then)."""
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        raise ConfigError(f"{str(path)!r} exists already: the tokens are never written over a file; choose another") from None
    except OSError as e:
        raise ConfigError(f"{str(path)!r}: cannot create the tokens' file: {e.strerror or e}") from None


def tokens_text(added: Sequence[tuple[str, str, str]]) -> str:
    """The tokens' file: ``team,member,token``, a line per member added (names are checked
    ones: nothing in them needs quoting; one a spreadsheet would read as a formula, ``+1``,
    is written as text)."""
    return "team,member,token\n" + "".join(f"{csv_cell(t)},{csv_cell(m)},{token}\n" for t, m, token in added)
