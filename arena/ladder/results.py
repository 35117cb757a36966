"""What the ladder's pages read of its league: the standings, the games, one game's record.

The league run writes ``standings.json`` as games finish and keeps every game in
``results.sqlite`` (:mod:`arena.league.store`); the pages read both, never write them.
The standings are read again only when the file changed (a page every two seconds from
each open browser costs a ``stat``), the line of a continuous league's pair tests with them
(the league writes it there: :meth:`PairTests.from_json`); a game's record is read whole only
for its own page.

A bot's stderr tail, info lines, first stdout lines, conversation and command may hold
its author's secrets: :func:`shown_record` blanks them in every seat whose bot the viewer
may not see, before the record reaches a page.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.errors import EmptyStoreError, StoreError
from arena.game.record import GameRecord
from arena.ladder.folders import STANDINGS_FILE
from arena.ladder.names import version_of
from arena.league.game_filter import GameFilter
from arena.league.game_summary import GameSummary
from arena.league.neighbours import PairTests
from arena.league.standings import RETIRED_MARK
from arena.league.store import STORE_NAME, ResultStore
from arena.league.tally import probability_text

MAX_STANDINGS_BYTES = 64 * 1024 * 1024  # a league of thousands of bots stays far below


def bot_page(name: str) -> str:
    """The path of the page of the bot a league name stands for (a version: its bot's page)."""
    return "/bots/" + quote(name, safe="")


@dataclass(frozen=True)
class Owners:
    """Who owns each bot the league plays: a version ``BOT.vN`` its bot's author; a house bot
    (the ladder file's own) nobody but the organisers."""

    authors: Mapping[str, str]  # submitted bot -> its author
    house: frozenset[str]

    def bot_of(self, name: str) -> str:
        """The bot whose page shows league name ``name``: ``BOT`` for ``BOT.vN``, else itself."""
        if name in self.house:
            return name
        split = version_of(name)
        return split[0] if split is not None and split[0] in self.authors else name

    def owner(self, name: str) -> str | None:
        """The author of league name ``name``, or None (a house bot, or none known)."""
        return None if name in self.house else self.authors.get(self.bot_of(name))

    def page(self, name: str) -> str:
        """The page of league name ``name``."""
        return bot_page(self.bot_of(name))


def shown_row(row: Mapping[str, Any]) -> dict[str, str]:
    """One standings.json row as the page shows it, cell by cell: the same text in the
    server's table and in the one the page's script redraws (so they never differ)."""

    def number(key: str, fmt: str = "{:.2f}") -> str:
        value = row.get(key)
        return fmt.format(value) if isinstance(value, int | float) else ""

    wdl = row.get("wdl") or []
    faults = row.get("faults_by_kind") or {}
    return {
        "rank": f"{row.get('rank', '')}{'?' if row.get('close') else ''}",
        "bot": str(row.get("bot", "")),
        "retired": RETIRED_MARK if row.get("retired") else "",
        "mu": f"{number('mu')} ± {number('sigma')}",
        "interval": f"{number('mu_low')} to {number('mu_high')}",
        "rating": number("rating"),
        "better": probability_text(row.get("better_than_next")),
        "games": number("games", "{}"),
        "wdl": "-".join(str(n) for n in wdl),
        "points": number("points", "{:.3f}"),
        "faults": ", ".join(f"{k} {v}" for k, v in faults.items()) if isinstance(faults, dict) else "",
    }


@dataclass(frozen=True)
class StandingsView:
    """The standings as the league last wrote them."""

    signature: str  # changes whenever the file does (the live table's ETag)
    updated: float  # the file's time, seconds since 1970
    games: int
    players: int
    rows: tuple[dict[str, Any], ...]
    crosstable: dict[str, dict[str, Any]]
    pairs: str  # a continuous league's "at 95%: ..." line, or ""


class StandingsReader:
    """``standings.json`` of a results folder, read again only when it changed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()  # held while the file is read: one reader, the others wait
        self._cached: StandingsView | None = None

    def read(self) -> StandingsView | None:
        """The standings, or None before the league wrote any (or while it writes a broken file)."""
        path = self.folder / STANDINGS_FILE
        try:
            stat = path.stat()
        except OSError:
            return None
        signature = f"{stat.st_mtime_ns:x}-{stat.st_size:x}"
        with self._lock:
            if self._cached is None or self._cached.signature != signature:
                # A file that cannot be read (a foreign one: the league writes it in one step)
                # leaves the last good one standing.
                self._cached = self._load(path, signature, stat.st_mtime, stat.st_size) or self._cached
            return self._cached

    def _load(self, path: Path, signature: str, mtime: float, size: int) -> StandingsView | None:
        if size > MAX_STANDINGS_BYTES:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rows = tuple(r for r in data["rows"] if isinstance(r, dict))
            crosstable = data.get("crosstable")
            return StandingsView(
                signature=signature,
                updated=mtime,
                games=int(data.get("games") or 0),
                players=int(data.get("players") or 0),
                rows=rows,
                crosstable=crosstable if isinstance(crosstable, dict) else {},
                pairs=_pairs_line(data, rows),
            )
        except (OSError, ValueError, TypeError, KeyError):
            return None


def _pairs_line(data: dict[str, Any], rows: tuple[dict[str, Any], ...]) -> str:
    """A continuous league's ``at 95%: ordered a > b; ...`` as standings.json holds it ("" for
    another league)."""
    better = {str(r.get("bot")): r.get("better_than_next") for r in rows}
    tests = PairTests.from_json(data.get("pairs"), data.get("pair_test"), better)
    return "" if tests is None else tests.summary()


def open_results(folder: Path) -> ResultStore | None:
    """The league's store, read-only; None before its first game was stored."""
    if not (folder / STORE_NAME).is_file():
        return None
    try:
        return ResultStore.open(folder)
    except EmptyStoreError:
        return None  # the league's first run is creating it


def find_games(folder: Path, wanted: GameFilter, offset: int, limit: int) -> tuple[list[GameSummary], int]:
    """A page of the games ``wanted``, newest first, and how many there are."""
    store = open_results(folder)
    if store is None:
        return [], 0
    with store:
        return store.find_summaries(wanted, offset, limit)


def game_record(folder: Path, game_id: str) -> GameRecord | None:
    """Finished game ``game_id``'s record, or None when there is no such game."""
    store = open_results(folder)
    if store is None:
        return None
    with store:
        try:
            return store.record(game_id)
        except StoreError:
            if game_id in store.finished_ids():
                raise  # there, but unreadable: the store's fault, not an unknown game
            return None


def recent_games(folder: Path, since: str) -> tuple[int, int, str | None]:
    """Games in all, those finished since ``since`` (UTC ISO), and when the last one finished."""
    store = open_results(folder)
    if store is None:
        return 0, 0, None
    with store:
        recent, last = store.recent_finishes(since)
        return store.count(), recent, last


def shown_record(record: GameRecord, may_see: Callable[[str], bool]) -> GameRecord:
    """``record`` with what only a bot's author may read blanked in every seat of a bot for
    which ``may_see(name)`` is False: its stderr (its tail and its turns), info lines, first
    stdout lines, conversation, command and the arena's hint (it may quote a path); also the
    run's own notes (``extra``, e.g. a worker's address) unless every seat may be seen."""
    seats = tuple(
        s
        if may_see(s.name)
        else replace(
            s,
            command=(),
            stderr_tail="",
            stderr_turns=(),
            stdout_head=(),
            infos=(),
            info_plies=(),
            transcript=(),
            fault=None if s.fault is None else replace(s.fault, hint=""),
        )
        for s in record.seats
    )
    whole = all(may_see(s.name) for s in record.seats)
    return replace(record, seats=seats, extra=record.extra if whole else {})
