"""Results people look at: a tournament's report and a game's replay, as self-contained HTML.

:func:`tournament_report` gathers what a results store holds,
:func:`report_page` and :func:`replay_page` turn it into one HTML file each
(no network, works from ``file://``), and :func:`write_report` keeps
``report.html`` beside the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from arena.errors import StoreError
from arena.game.record import GameRecord
from arena.league.results_folder import write_atomic
from arena.league.store import ResultStore, store_path, write_error
from arena.league.stored import StoredLeague
from arena.report.page import replay_page, report_page, report_page_parts
from arena.report.summary import ReportData, build_report_data
from arena.stats.settings import RatingConfig

REPORT_NAME = "report.html"

__all__ = [
    "REPORT_NAME",
    "ReportData",
    "StoredRecords",
    "replay_page",
    "report_page",
    "report_page_parts",
    "tournament_report",
    "write_report",
]


class StoredRecords:
    """A store's finished games, in schedule order, read afresh (and parsed one at a
    time) on each pass: a report reads them twice and keeps none.

    Every pass gives the games of the first whole one: a league that runs on finishes
    games between the two, and a page whose replays were not its table's games would
    open the wrong one.
    """

    def __init__(self, store: ResultStore) -> None:
        self.store = store
        self.game_ids: set[str] | None = None  # the first whole pass's

    def __iter__(self) -> Iterator[GameRecord]:
        if self.store.closed:
            raise StoreError(
                f"{str(self.store.path)!r} was closed before its report's page was written: "
                "the page reads the games from the store"
            )
        if self.game_ids is not None:
            return (r for r in self.store.records() if r.game_id in self.game_ids)
        return self._first_pass()

    def _first_pass(self) -> Iterator[GameRecord]:
        seen = set()
        for record in self.store.records():
            seen.add(record.game_id)
            yield record
        self.game_ids = seen


def tournament_report(
    store: ResultStore,
    bots: Sequence[str] = (),
    rating: RatingConfig | None = None,
    running: bool = False,
    records: Sequence[GameRecord] | None = None,
) -> ReportData:
    """The report of what ``store`` holds (``records``: its games, when already read).

    Without ``records`` the store is read again when the page is written: write it
    while the store is open.
    """
    games: Iterable[GameRecord] = StoredRecords(store) if records is None else list(records)
    stored = StoredLeague.read(store)
    return build_report_data(
        name=stored.title(),
        records=games,
        bots=bots,
        total=store.schedule_size(),
        raw_config=stored.raw,
        rounds=store.rounds(),
        rating=rating,
        running=running,
        retired=stored.retired(),
    )


def write_report(folder: Path, data: ReportData) -> Path:
    """Write ``report.html`` in ``folder`` in one step; a failure is a ResultsWriteError."""
    path = folder / REPORT_NAME
    try:
        write_atomic(path, report_page_parts(data))
    except OSError as e:
        kept = f"every finished game is kept in {str(store_path(folder))!r}"
        raise write_error(f"writing {str(path)!r}", e, kept) from e
    return path
