"""The scrimmages' keys of a ladder file (``ladder.scrimmage``), as a value.

A scrimmage is a few unrated games an author asks for between one of their versions and any
bot playing in the ladder (or another of their own versions)::

    scrimmage:
      max_games: 10                  # games one request may ask for (1 to 100)
      per_day: 40                    # games one author may ask for in 24 hours (admins: no limit)
      at_once: 1                     # requests of one author not finished yet (1 to 10)
      show_opponent_replays: false   # the other bot's author sees the public replay

Every key is optional; every error names the file, the line and the key, as the rest of the
ladder file's do.  It imports nothing of the ladder: :mod:`arena.ladder.settings` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.league.config.reader import Reader

SCRIMMAGE_KEYS = {"max_games", "per_day", "at_once", "show_opponent_replays"}
MAX_GAMES_LIMIT = 100  # a request: more is a tournament, not a scrimmage
PER_DAY_LIMIT = 10_000
AT_ONCE_LIMIT = 10


@dataclass(frozen=True)
class ScrimmageSettings:
    """What authors may ask for (``ladder.scrimmage``)."""

    max_games: int = 10
    per_day: int = 40
    at_once: int = 1
    show_opponent_replays: bool = False


def _whole(r: Reader, key: str, default: int, low: int, high: int) -> int:
    value = r.get(key, int, default)
    r.check(key, low <= value <= high, f"must be from {low} to {high}, got {value!r}")
    return int(value)


def read_scrimmage(section: Reader | None) -> ScrimmageSettings:
    """``ladder.scrimmage``, every key optional."""
    d = ScrimmageSettings()
    if section is None:
        return d
    max_games = _whole(section, "max_games", d.max_games, 1, MAX_GAMES_LIMIT)
    per_day = _whole(section, "per_day", d.per_day, 1, PER_DAY_LIMIT)
    section.check("per_day", per_day >= max_games, f"must be at least max_games ({max_games}), got {per_day}")
    return ScrimmageSettings(
        max_games=max_games,
        per_day=per_day,
        at_once=_whole(section, "at_once", d.at_once, 1, AT_ONCE_LIMIT),
        show_opponent_replays=section.get("show_opponent_replays", bool, d.show_opponent_replays),
    )
