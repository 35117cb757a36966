"""``arena report``: a tournament's results as one self-contained HTML page."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import click

from arena.cli.common import main
from arena.cli.results_arg import open_results
from arena.errors import ArenaError
from arena.league.results_folder import write_atomic
from arena.report import REPORT_NAME, report_page_parts, tournament_report


def write_page(path: Path, html: str | Iterable[str]) -> None:
    """Write an HTML page the command made; a failure is the arena's error (exit 2)."""
    try:
        write_atomic(path, html)
    except OSError as e:
        raise ArenaError(f"cannot write {str(path)!r}: {e.strerror or e}") from None


@main.command("report", short_help="Write the report of RESULTS (a results folder) as one HTML file.")
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"Where to write the page (default: {REPORT_NAME} in the results folder).",
)
def report_cmd(results: Path, output: Path | None) -> None:
    """Write the report of RESULTS (a results folder, or its tournament file) as one HTML file.

    The page needs nothing else (no network; open it from disk or keep it as a
    CI artifact): the standings for each number of players with their
    uncertainty and faults by kind, who beat whom, the ratings game by game,
    every game in a table you can sort and filter, each with its replay
    (a hex board you step through with the arrow keys), and the settings.
    'arena run' keeps RESULTS/report.html current by itself.
    """
    store, bots, rating = open_results(results)
    with store:  # open while the page is written: it reads the games a piece at a time
        data = tournament_report(store, bots, rating)
        target = output or store.path.parent / REPORT_NAME
        write_page(target, report_page_parts(data))
    click.echo(f"wrote {target}: {data.done} of {data.total} games; open it in a browser")
