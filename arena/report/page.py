"""HTML pages from report data and game records, with one jinja2 template.

The page is one file that needs nothing else: its style and scripts are
inlined from the package's ``static`` folder, the games' records are embedded
as JSON (the same JSON ``arena replay`` reads), and a Content-Security-Policy
forbids the page any request and any script but its own (by its hash), so it
works from ``file://`` and as a CI artifact.  Every value the template prints is HTML-escaped (autoescape) after
its control characters were made visible (:func:`arena.untrusted.printable`):
names, fault details and the rest may come from a bot.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from arena.game.record import GameRecord
from arena.league.tally import probability_text
from arena.report.chart import intervals, line_chart
from arena.report.summary import ReportData
from arena.untrusted import printable, script_json

# While a league runs, its report reloads itself this often (seconds).
REFRESH_S = 15


def _visible(value: Any) -> Any:
    """The template's ``finalize``: control characters of plain text become escapes."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.report", "templates"),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["share"] = lambda pg: f"{pg[0]:g}/{pg[1]}" if pg[1] else "-"
    env.filters["probability"] = probability_text
    return env


@cache
def _static(name: str) -> Markup:
    """One of our own static files, to inline as it is (it holds no outside text)."""
    text = resources.files("arena.report").joinpath("static", name).read_text(encoding="utf-8")
    if "</" in text and name.endswith(".js"):
        raise AssertionError(f"static/{name} must not contain '</': it would end its <script>")
    return Markup(text)


@cache
def _script_hash(js: str) -> str:
    """The CSP source that allows our one script and no other (no injected handler either)."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode() + "'"


# Stands for the games' JSON in the rendered template: the page is written around it, a
# game at a time.  A NUL never reaches the page otherwise (printable() makes control
# characters visible in every text a bot chose).
_GAMES = "\x00arena-games\x00"


def _page(title: str, kind: str, records: Iterable[GameRecord], running: bool, **context: Any) -> Iterator[str]:
    """The page in pieces: the template around the games' records, one JSON text each, so
    that a league's report never holds them all (the page is 5-6 KB a game)."""
    header = {"kind": kind, "running": running, "refresh_s": REFRESH_S}
    js = _static("viewer.js")
    template = _environment().get_template("page.html.j2")
    html = template.render(
        title=title,
        kind=kind,
        running=running,
        refresh_s=REFRESH_S,
        css=_static("viewer.css"),
        js=js,
        js_hash=_script_hash(js),
        data_json=Markup(_GAMES),
        **context,
    )
    head, tail = html.split(_GAMES)  # (exactly once: the template prints data_json once)
    # The JSON of {**header, "games": [...]}, as script_json writes it whole.
    yield head + script_json(header)[:-1] + ',"games":['
    for i, record in enumerate(records):
        yield ("," if i else "") + script_json(record.to_dict())
    yield "]}" + tail


def report_page_parts(data: ReportData) -> Iterator[str]:
    """The whole report of a tournament, in pieces to write one after the other: standings,
    tables, chart, games and their replays.  Reads ``data.records`` once."""
    charts = {g.players: line_chart(g.history) for g in data.groups}
    bars = {g.players: intervals([(r.mu, r.sigma) for r in g.standings.rows]) for g in data.groups}
    return _page(
        f"{data.name}: tournament report",
        "report",
        data.records,
        data.running,
        report=data,
        charts=charts,
        bars=bars,
    )


def report_page(data: ReportData) -> str:
    """The whole report of a tournament as one text (:func:`report_page_parts` joined)."""
    return "".join(report_page_parts(data))


def replay_page(record: GameRecord) -> str:
    """A page with one game's replay viewer alone."""
    names = " vs ".join(s.name for s in record.seats)
    return "".join(_page(f"{record.game_id}: {names}", "replay", [record], False, report=None))
