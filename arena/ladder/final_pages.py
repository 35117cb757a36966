"""The contest's doors: the deadline and the final tournament, as a page and in the API.

- ``GET /final``: the final's state and progress, its field (each author's version and seed),
  its standings and crosstable once games finish; organisers also get its report;
- ``GET /final/report.html``: organisers only (it holds every bot's logs), as a download;
- ``GET /api/final``: the same as the page, in JSON;
- ``POST /api/final`` (admins): close submissions and start the final once every version
  sent has its verdict (``arena serve LADDER --final`` does the same from the console);
- ``POST /api/deadline`` (admins): ``{"deadline": "2026-12-20T18:00:00Z"}`` sets the
  deadline in force over the ladder file's, ``{"deadline": null}`` removes it.

Everything an author controls (names) is escaped by the templates' autoescape and the
render filters, as on every page.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from arena.errors import StoreError
from arena.ladder.api import author_of, organiser_of
from arena.ladder.contest import deadline_text, parse_deadline
from arena.ladder.deadline import ask_final, closed, deadline, set_deadline
from arena.ladder.final import FinalEntry, final_progress, kept_entries
from arena.ladder.folders import final_folder
from arena.ladder.render import page
from arena.ladder.results import StandingsView, shown_row
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.web import viewer_of
from arena.untrusted import printable

REPORT_FILE = "report.html"
MAX_DEADLINE_BODY = 4096
STANDINGS_KEYS = ("rank", "bot", "mu", "sigma", "mu_low", "mu_high", "rating", "games", "wdl", "points", "wins", "faults")


def _version_page(e: FinalEntry) -> str:
    return f"/bots/{quote(e.bot, safe='')}/v{e.version}"


def _standings(service: Service) -> StandingsView | None:
    return service.final_standings.read()


def final_state(service: Service) -> dict[str, Any]:
    """What the page and ``GET /api/final`` show (reads the stores: call it in a worker thread)."""
    settings = service.ladder.settings.final
    when = deadline(service.ladder, service.store)
    status = service.final.status
    entries = kept_entries(service.store)
    by_author = {e.author: e for e in entries}
    try:
        progress = final_progress(service.ladder)
    except StoreError as e:
        raise Refused(503, f"the final's results cannot be read: {e}") from None
    view = _standings(service)
    rows = [r for r in (view.rows if view else ()) if str(r.get("bot")) in by_author]
    return {
        "state": status.state,
        "detail": printable(status.detail),
        "since": status.since,
        "deadline": when.isoformat() if when else None,
        "deadline_text": deadline_text(when) if when else "none",
        "submissions": closed(service.ladder, service.store, dt.datetime.now(dt.UTC)) or "open",
        "format": settings.format.value,
        "rounds": settings.rounds,
        "top": settings.top if settings.format.value == "gauntlet" else None,
        "games_done": progress.done,
        "games_total": progress.total,
        "entries": [
            {
                "seed": e.seed,
                "author": e.author,
                "members": list(e.members),
                "bot": e.bot,
                "version": e.version,
                "ladder_rank": e.ladder_rank,
            }
            for e in entries
        ],
        "standings": [
            {
                **{k: r.get(k) for k in STANDINGS_KEYS},
                "author": str(r.get("bot")),
                "members": list(by_author[str(r.get("bot"))].members),
                "bot": by_author[str(r.get("bot"))].bot,
                "version": by_author[str(r.get("bot"))].version,
            }
            for r in rows
        ],
        "crosstable": view.crosstable if view else {},
    }


async def final_json(service: Service, request: Request) -> JSONResponse:
    """``GET /api/final``: the final's state, progress, field, standings and crosstable."""
    return JSONResponse(await run_in_threadpool(final_state, service), headers={"Cache-Control": "no-cache"})


def _page_context(service: Service, viewer: Viewer) -> dict[str, Any]:
    state = final_state(service)
    entries = {e.author: e for e in kept_entries(service.store)}
    view = _standings(service)
    rows = [r for r in (view.rows if view else ()) if str(r.get("bot")) in entries]
    order = [str(r.get("bot")) for r in rows] or list(entries)
    matrix = []
    for a in order:
        cells = (view.crosstable.get(a) if view else None) or {}
        line = []
        for b in order:
            cell = cells.get(b) if a != b else None
            line.append(f"{cell.get('points', 0):g}/{cell.get('games', 0)}" if isinstance(cell, dict) else "")
        matrix.append({"author": a, "cells": line})
    report = final_folder(service.ladder.folder) / REPORT_FILE
    return {
        "final": state,
        "field": [{**s, "page": _version_page(entries[s["author"]])} for s in state["entries"]],
        "rows": [_row(r, entries[str(r.get("bot"))]) for r in rows],
        "order": order,
        "matrix": matrix,
        "report": report.is_file() and viewer.author is not None and viewer.author.admin,
    }


def _row(r: dict[str, Any], e: FinalEntry) -> dict[str, Any]:
    """A standings row as the table shows it: the author, and the version that played."""
    return {"shown": {**shown_row(r), "bot": f"{e.author} ({e.version_name})"}, "page": _version_page(e)}


async def final_page(service: Service, request: Request) -> Response:
    """``/final``: the final tournament, its progress and its results."""

    def work() -> tuple[Viewer, dict[str, Any]]:
        viewer = viewer_of(service, request)
        return viewer, _page_context(service, viewer)

    viewer, context = await run_in_threadpool(work)
    return page(request, service, viewer, "final.html.j2", 200, **context)


async def final_report(service: Service, request: Request) -> Response:
    """``/final/report.html``: organisers only (signed in, or an admin token): the final's
    offline report, which holds every bot's logs, as a download."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    admin = viewer.author is not None and viewer.author.admin
    if not admin:
        author = author_of(service, request, required=False)
        admin = author is not None and author.admin
    if not admin:
        raise Refused(403, "the final's report holds every bot's logs: organisers only")
    report = final_folder(service.ladder.folder) / REPORT_FILE
    if not report.is_file():
        raise Refused(404, "the final has no report yet")
    return FileResponse(report, media_type="text/html", filename="final-report.html", content_disposition_type="attachment")


async def start_final(service: Service, request: Request) -> JSONResponse:
    """``POST /api/final`` (admins): close submissions and start the final tournament."""
    admin = organiser_of(service, request)
    asked = await run_in_threadpool(ask_final, service.store, admin.actor)
    service.league.changed()
    service.final.changed()
    state = await run_in_threadpool(final_state, service)
    return JSONResponse({"asked": asked, **state}, status_code=202 if asked else 200)


async def post_deadline(service: Service, request: Request) -> JSONResponse:
    """``POST /api/deadline`` (admins): ``{"deadline": TIME}`` sets the deadline in force,
    ``{"deadline": null}`` removes it (the ladder file's too)."""
    admin = organiser_of(service, request)
    body = await request.body()
    if len(body) > MAX_DEADLINE_BODY:
        raise Refused(413, f"the body must be at most {MAX_DEADLINE_BODY} bytes")
    try:
        data = json.loads(body or b"null")
    except ValueError:
        raise Refused(400, 'the body must be JSON: {"deadline": "2026-12-20T18:00:00Z"} or {"deadline": null}') from None
    if not isinstance(data, dict) or "deadline" not in data:
        raise Refused(400, 'the body must be {"deadline": TIME} (or null for none)')
    written = data["deadline"]
    when = None
    if written is not None:
        try:
            when = parse_deadline(written)
        except ValueError as e:
            raise Refused(400, f"deadline: {e}") from None
    await run_in_threadpool(set_deadline, service.store, when, admin.actor)
    return JSONResponse(
        {
            "deadline": when.isoformat() if when else None,
            "deadline_text": deadline_text(when) if when else "none",
            "submissions": closed(service.ladder, service.store, dt.datetime.now(dt.UTC)) or "open",
        }
    )
