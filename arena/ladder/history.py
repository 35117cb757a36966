"""A bot's rating history on the ladder, and how each bot moved since yesterday.

The numbers come from :class:`arena.league.history.RatingHistory` over the league's results
store (one per service, its fits kept between page views; each view reads only the games
stored since the last).  This module adds what only the ladder knows: a bot's versions (each
a bot of the league, ``BOT.vN``), when each joined (passed its check) and retired (a newer
version passed, or the organisers retired or banned the bot or its author), and where on the
league's games each mark falls.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder.results import open_results
from arena.ladder.roster import league_name, roster
from arena.ladder.store import LadderStore, Submission
from arena.league.history import MAX_POINTS, HistoryPoint, RatingHistory, ranks_of
from arena.stats.settings import RatingConfig

MOVE_WINDOW = dt.timedelta(hours=24)
STAMP = "%Y-%m-%dT%H:%M:%SZ"  # how the store writes when a game finished


def stamp(moment: dt.datetime) -> str:
    """``moment`` as the store writes times (UTC, to the second)."""
    return moment.astimezone(dt.UTC).strftime(STAMP)


@dataclass(frozen=True)
class VersionMarks:
    """One version of a bot (or a house bot) in the league, where it joined and retired."""

    name: str  # its name in the league
    version: int | None  # None: a house bot
    joined: float | None  # when it passed its check (seconds since 1970)
    joined_position: int | None  # the league's game of its first game (None: none yet)
    retired: float | None  # when it was retired (None: it plays, or no time is known)
    retired_position: int | None  # the league's games finished by then
    active: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.name,
            "version": self.version,
            "joined": _iso(self.joined),
            "joined_position": self.joined_position,
            "retired": _iso(self.retired),
            "retired_position": self.retired_position,
            "active": self.active,
        }


def _iso(t: float | None) -> str | None:
    return None if t is None else stamp(dt.datetime.fromtimestamp(t, dt.UTC))


@dataclass(frozen=True)
class BotHistory:
    """A bot's rating over the league's games: its versions' marks, and their points."""

    bot: str
    games: int  # the league's games so far
    versions: tuple[VersionMarks, ...]
    points: tuple[HistoryPoint, ...]  # in the league's order, version by version

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": self.games,
            "max_points": MAX_POINTS,
            "versions": [v.to_json() for v in self.versions],
            "points": [p.to_json() for p in self.points],
        }


class HistoryCache:
    """The service's one :class:`RatingHistory` of its league's store, read up to date on each
    use (only the games stored since the last; no fit is made again)."""

    def __init__(self, folder: Path, cfg: RatingConfig) -> None:
        self.folder = folder
        self.history = RatingHistory(cfg)
        self._lock = threading.Lock()

    def current(self) -> RatingHistory:
        """The history with every game stored so far read."""
        with self._lock:
            store = open_results(self.folder)
            if store is not None:
                with store:
                    self.history.refresh(store)
            return self.history


def _retired_at(sub: Submission, newer: Sequence[Submission], actions: Sequence[Mapping[str, Any]]) -> float | None:
    """When version ``sub`` stopped playing new games: the first of a newer version passing,
    the organisers' retire or ban of its bot, or its author's ban (after it joined)."""
    times = [s.updated for s in newer]
    for a in actions:
        what, subject, at = a.get("action"), a.get("subject"), a.get("at")
        if not isinstance(at, int | float) or at < sub.updated:
            continue
        if what == "retire" and subject == sub.bot:
            through = str(a.get("detail", "")).rpartition("-")[2]
            if not through.isdigit() or int(through) >= sub.version:
                times.append(at)
        elif (what == "ban-bot" and subject == sub.bot) or (what == "ban" and subject == sub.author):
            times.append(at)
    return min(times, default=None)


def version_marks(store: LadderStore, bot: str, history: RatingHistory, first: Mapping[str, int]) -> list[VersionMarks]:
    """Each passed version of ``bot``: when it joined and retired, and where on the league's
    games (``first``: each league name's first game)."""
    entries = [e for e in roster(store) if e.sub.bot == bot]
    actions = [a for a in store.actions() if a.get("action") in ("retire", "ban-bot", "ban")]
    marks = []
    for e in entries:
        newer = [o.sub for o in entries if o.sub.version > e.sub.version]
        retired = None if e.active else _retired_at(e.sub, newer, actions)
        marks.append(
            VersionMarks(
                e.name,
                e.sub.version,
                e.sub.updated,
                first.get(e.name),
                retired,
                None if retired is None else history.games_by(_iso(retired) or ""),
                e.active,
            )
        )
    return marks


def bot_history(
    cache: HistoryCache, store: LadderStore, bot: str, house: bool, limit: int = MAX_POINTS
) -> BotHistory:
    """The rating history of ``bot``: a house bot's own, or each passed version's."""
    history = cache.current()
    names = [bot] if house else [league_name(s) for s in store.passed() if s.bot == bot]
    series = history.series(names, limit)
    first = {n: s[0].position for n, s in series.items() if s and not s[0].now}
    if house:
        versions = [VersionMarks(bot, None, None, first.get(bot), None, None, True)]
    else:
        versions = version_marks(store, bot, history, first)
    points = tuple(p for n in names for p in series.get(n, ()))
    return BotHistory(bot, history.count, tuple(versions), points)


@dataclass(frozen=True)
class Move:
    """How one bot moved since a moment: rank and mu then (None: it had no game then)."""

    rank_then: int | None
    mu_then: float | None
    rank_now: int
    mu_now: float

    @property
    def new(self) -> bool:
        return self.rank_then is None

    @property
    def rank_change(self) -> int | None:
        """Places gained (negative: lost)."""
        return None if self.rank_then is None else self.rank_then - self.rank_now

    @property
    def mu_change(self) -> float | None:
        return None if self.mu_then is None else self.mu_now - self.mu_then

    def text(self) -> str:
        """What the standings' column shows: ``new``, or the places gained and mu's change."""
        if self.rank_change is None or self.mu_change is None:
            return "new"
        places = self.rank_change
        arrow = f"\u25b2{places}" if places > 0 else f"\u25bc{-places}" if places < 0 else "="
        return f"{arrow} ({self.mu_change:+.2f})"

    def to_json(self) -> dict[str, Any]:
        return {
            "new": self.new,
            "rank_then": self.rank_then,
            "rank_change": self.rank_change,
            "mu_then": None if self.mu_then is None else round(self.mu_then, 3),
            "mu_change": None if self.mu_change is None else round(self.mu_change, 3),
            "text": self.text(),
        }


def yesterday(now: dt.datetime) -> str:
    """The moment the standings' moves are measured from: 24 h before ``now``, to the minute
    (so that they are fitted at most once a minute), as the store writes times."""
    return stamp((now - MOVE_WINDOW).replace(second=0, microsecond=0))


def moves(cache: HistoryCache, rows: Sequence[Mapping[str, Any]], now: dt.datetime) -> dict[str, Move]:
    """How each row of the standings moved against the standings of the games finished
    before :func:`yesterday`."""
    before = cache.current().before(yesterday(now))
    ranks = ranks_of(before)
    out = {}
    for r in rows:
        name, rank, mu = str(r.get("bot", "")), r.get("rank"), r.get("mu")
        if isinstance(rank, int) and isinstance(mu, int | float):
            had = before.get(name)
            out[name] = Move(ranks.get(name), None if had is None else had[0], rank, float(mu))
    return out
