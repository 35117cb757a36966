"""Results people look at: a tournament's report and a game's replay, as self-contained HTML.

:func:`tournament_report` gathers what a results store holds,
:func:`report_page` and :func:`replay_page` turn it into one HTML file each
(no network, works from ``file://``), and :func:`write_report` keeps
``report.html`` beside the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..config import RatingConfig
from ..league_table import retired_bots
from ..record import GameRecord
from ..results_folder import write_atomic
from ..store import ResultStore, store_path, write_error
from .page import replay_page, report_page
from .summary import ReportData, build_report_data

REPORT_NAME = "report.html"

__all__ = [
    "REPORT_NAME",
    "ReportData",
    "replay_page",
    "report_page",
    "tournament_report",
    "write_report",
]


def tournament_report(
    store: ResultStore,
    bots: Sequence[str] = (),
    rating: RatingConfig | None = None,
    running: bool = False,
    records: Sequence[GameRecord] | None = None,
) -> ReportData:
    """The report of what ``store`` holds (``records``: its games, when already read)."""
    games = list(store.records()) if records is None else list(records)
    schedule = store.schedule()
    raw = store.get_meta("config") or {}
    name = store.get_meta("name") or raw.get("name") or store.path.parent.name
    return build_report_data(
        name=str(name),
        records=games,
        bots=bots,
        total=len(schedule),
        raw_config=raw,
        rounds={g.game_id: g.round for g in schedule},
        rating=rating,
        running=running,
        retired=retired_bots(store),
    )


def write_report(folder: Path, data: ReportData) -> Path:
    """Write ``report.html`` in ``folder`` in one step; a failure is a ResultsWriteError."""
    path = folder / REPORT_NAME
    try:
        write_atomic(path, report_page(data))
    except OSError as e:
        kept = f"every finished game is kept in {str(store_path(folder))!r}"
        raise write_error(f"writing {str(path)!r}", e, kept) from e
    return path
