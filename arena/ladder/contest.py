"""The contest's keys of a ladder file: ``ladder.deadline`` and ``ladder.final``, as values.

``deadline`` is when submissions close: an ISO 8601 time with its time zone
(``2026-12-20T18:00:00Z``, ``2026-12-20 18:00+01:00``).  ``final`` is the tournament the
organiser starts after it (see :mod:`arena.ladder.final`)::

    final:
      format: round_robin   # or gauntlet: the `top` seeds of the ladder against all the others
      rounds: 10            # each round plays every meeting in every seat order
      top: 4                # gauntlet only

Every error names the file, the line and the key, as the rest of the ladder file's do.  It
imports nothing of the ladder: :mod:`arena.ladder.settings` reads these keys with it.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from arena.errors import ConfigError
from arena.league.config.reader import Reader

FINAL_KEYS = {"format", "rounds", "top"}
MAX_FINAL_ROUNDS = 10_000
MAX_FINAL_TOP = 1000
DEADLINE_EXAMPLE = "2026-12-20T18:00:00Z"


class FinalFormat(enum.StrEnum):
    """Who meets whom in the final."""

    ROUND_ROBIN = "round_robin"  # every author's version against every other
    GAUNTLET = "gauntlet"  # the `top` seeds against every other (not each other)


@dataclass(frozen=True)
class FinalSettings:
    """The final tournament (``ladder.final``)."""

    format: FinalFormat = FinalFormat.ROUND_ROBIN
    rounds: int = 10
    top: int = 4  # a gauntlet's challengers: the ladder's best seeds


def parse_deadline(written: object) -> dt.datetime:
    """``written`` (text, or the time YAML read) as an aware time; ValueError saying why not."""
    if isinstance(written, dt.datetime):
        when = written
    elif isinstance(written, dt.date):
        raise ValueError(f"{written.isoformat()!r} is a day without a time: write e.g. {DEADLINE_EXAMPLE!r}")
    elif isinstance(written, str):
        try:
            when = dt.datetime.fromisoformat(written.strip())
        except ValueError:
            raise ValueError(
                f"{written[:80]!r} is not a time: write it as ISO 8601 with its zone, e.g. {DEADLINE_EXAMPLE!r}"
            ) from None
    else:
        raise ValueError(f"must be a time like {DEADLINE_EXAMPLE!r}, got {written!r}")
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(
            f"{when.isoformat()!r} names no time zone: add one (Z for UTC, or +01:00), e.g. {DEADLINE_EXAMPLE!r}"
        )
    return when.astimezone(dt.UTC)


def deadline_text(when: dt.datetime) -> str:
    """A deadline as the pages, the API and the refusals show it: UTC, to the second."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def read_deadline(section: Reader) -> dt.datetime | None:
    """``ladder.deadline``, or None when the file names none."""
    if not section.has("deadline"):
        return None
    written = section.get("deadline", (object, bool))  # any value: parse_deadline says what is wrong
    try:
        return parse_deadline(written)
    except ValueError as e:
        section.check("deadline", False, str(e))
        raise ConfigError(str(e)) from None  # not reached: check() raised


def read_final(section: Reader | None) -> FinalSettings:
    """``ladder.final``, every key optional."""
    if section is None:
        return FinalSettings()
    d = FinalSettings()
    fmt = section.get("format", str, d.format.value)
    section.check("format", fmt in {f.value for f in FinalFormat}, f"must be one of {', '.join(FinalFormat)}, got {fmt!r}")
    rounds = section.get("rounds", int, d.rounds)
    section.check("rounds", 1 <= rounds <= MAX_FINAL_ROUNDS, f"must be from 1 to {MAX_FINAL_ROUNDS}, got {rounds!r}")
    top = section.get("top", int, d.top)
    section.check("top", 1 <= top <= MAX_FINAL_TOP, f"must be from 1 to {MAX_FINAL_TOP}, got {top!r}")
    section.check("top", fmt == FinalFormat.GAUNTLET or not section.has("top"), "is a gauntlet's key: add 'format: gauntlet'")
    return FinalSettings(FinalFormat(fmt), rounds, top)
