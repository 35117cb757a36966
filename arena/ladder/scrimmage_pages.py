"""Scrimmages on the web: the API, the pages and the form (the use case is
:mod:`arena.ladder.scrimmages`).

- ``POST /api/scrimmages`` (a bearer token): ``{"version": "greedy.v2", "opponent":
  "house-random", "games": 4}``, answered 202 with the request (``status_url`` to follow it);
- ``GET /api/scrimmages``: the author's requests, newest first (an organiser's: everyone's);
- ``GET /api/scrimmages/{id}``: one request, its games and score (its asker and organisers);
- ``GET /scrimmages``: the form and the author's requests; ``POST /scrimmages``: the form
  (its CSRF token as every form's), answered with a redirect to the request's page;
- ``GET /scrimmages/{id}``: one request as a page; ``GET /scrimmages/{id}/games/{n}``: one
  game's replay, with the logs the viewer may read (see :func:`arena.ladder.scrimmages.shown_game`).

Everything a bot or an author controls (names, log lines, failures) is escaped by the
templates' autoescape and the render filters, as on every page.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.errors import StoreError
from arena.ladder.api import author_of
from arena.ladder.forms import check_csrf, small_form
from arena.ladder.names import version_name
from arena.ladder.render import page
from arena.ladder.roster import roster
from arena.ladder.scrimmages import Asked, ask, built, scrimmage_for, shown_game, to_json
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.session import CSRF_FIELD
from arena.ladder.web import refused_page, viewer_of
from arena.rules import PLAYER_LETTERS
from arena.untrusted import script_json

MAX_BODY = 4096  # a request's JSON: three short fields


async def _json_body(request: Request) -> dict[str, Any]:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"the body passes {MAX_BODY} bytes")
    try:
        data = json.loads(body or b"null")
    except ValueError as e:
        raise Refused(400, f"the body is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise Refused(400, 'the body must be {"version": "BOT.vN", "opponent": NAME, "games": N}')
    return data


def _asked(data: dict[str, Any]) -> Asked:
    for key in ("version", "opponent"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise Refused(400, f"{key}: a name expected (e.g. 'greedy.v2'), got {data.get(key)!r:.80}")
    return Asked(data["version"], data["opponent"], data.get("games", 1))


# -- the API ----------------------------------------------------------------------------------


async def post_scrimmage(service: Service, request: Request) -> JSONResponse:
    """A new scrimmage, asked for with a bearer token."""
    author = author_of(service, request, required=True)
    assert author is not None
    asked = _asked(await _json_body(request))
    s = await run_in_threadpool(ask, service, author, asked)
    return JSONResponse(to_json(s, Viewer(author)), status_code=202)


async def list_scrimmages(service: Service, request: Request) -> JSONResponse:
    """The author's scrimmages (an organiser's: everyone's), newest first."""
    author = author_of(service, request, required=True)
    assert author is not None
    found = await run_in_threadpool(
        service.scrimmages.recent if author.admin else lambda: service.scrimmages.of_author(author.name)
    )
    return JSONResponse({"scrimmages": [to_json(s, Viewer(author)) for s in found]})


async def get_scrimmage(service: Service, request: Request) -> JSONResponse:
    """One scrimmage, to its asker and the organisers (404 to anyone else)."""
    author = author_of(service, request, required=True)
    viewer = Viewer(author)
    s = await run_in_threadpool(scrimmage_for, service, viewer, request.path_params["sid"])
    return JSONResponse(to_json(s, viewer))


# -- the pages --------------------------------------------------------------------------------


def _choices(service: Service, viewer: Viewer) -> dict[str, Any]:
    """The form's choices: the viewer's versions that built; the bots they may meet."""
    assert viewer.author is not None
    me = viewer.author.name
    mine = [version_name(s.bot, s.version) for s in service.store.submissions() if s.author == me and built(s)]
    house = [b.name for b in service.ladder.league.bots if not b.retired]
    playing = [e.name for e in roster(service.store) if e.active and e.sub.author != me]
    found = service.scrimmages.recent() if viewer.author.admin else service.scrimmages.of_author(me)
    s = service.ladder.settings.scrimmage
    # Where the ladder shows them, the public replays of the games others asked against the viewer's bots.
    against = [
        {"version": x.other, "opponent": x.mine, "replays": [f"/scrimmages/{x.id}/games/{g.n}" for g in x.games if g.points is not None]}
        for x in (service.scrimmages.against(me) if s.show_opponent_replays else [])
    ]
    return {
        "against": [a for a in against if a["replays"]],
        "mine": mine[::-1],
        "opponents": house + playing + mine[::-1],
        "max_games": s.max_games,
        "per_day": s.per_day,
        "at_once": s.at_once,
        "scrimmages": [to_json(x, viewer) for x in found],
        "runner": service.scrimmage_loop.status,
        "fields": {"version": "", "opponent": "", "games": "2"},
    }


async def scrimmages_page(service: Service, request: Request) -> Response:
    """``GET /scrimmages``: the form and the viewer's scrimmages (others are sent to sign in)."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    if viewer.author is None:
        return RedirectResponse("/login", status_code=303)
    context = await run_in_threadpool(_choices, service, viewer)
    return page(request, service, viewer, "scrimmages.html.j2", error=None, **context)


async def scrimmage_form(service: Service, request: Request) -> Response:
    """``POST /scrimmages``: the form's request, by the signed-in author."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    form: dict[str, str] = {}
    try:
        if viewer.author is None:
            raise Refused(401, "sign in first: scrimmages are asked for by an author")
        form = await small_form(request)
        check_csrf(service, request, viewer, form.get(CSRF_FIELD))
        asked = Asked(form.get("version", ""), form.get("opponent", ""), form.get("games", ""))
        s = await run_in_threadpool(ask, service, viewer.author, asked)
    except Refused as e:
        if viewer.author is None:
            return refused_page(request, service, viewer, e)
        context = await run_in_threadpool(_choices, service, viewer)
        context["fields"] = {k: form.get(k, "")[:200] for k in ("version", "opponent", "games")}
        return refused_page(request, service, viewer, e, "scrimmages.html.j2", **context)
    return RedirectResponse(f"/scrimmages/{s.id}", status_code=303)


async def scrimmage_page(service: Service, request: Request) -> Response:
    """``GET /scrimmages/{id}``: one scrimmage, to its asker and the organisers."""
    raw = request.path_params["sid"]

    def work() -> tuple[Viewer, dict[str, Any]]:
        viewer = viewer_of(service, request)
        return viewer, {"s": to_json(scrimmage_for(service, viewer, raw), viewer), "runner": service.scrimmage_loop.status}

    viewer, context = await run_in_threadpool(work)
    return page(request, service, viewer, "scrimmage.html.j2", **context)


async def scrimmage_game_page(service: Service, request: Request) -> Response:
    """``GET /scrimmages/{id}/games/{n}``: one game's replay, with the logs the viewer may read."""
    rid, n = request.path_params["sid"], request.path_params["n"]

    def work() -> tuple[Viewer, dict[str, Any]]:
        viewer = viewer_of(service, request)
        try:
            s, game, record = shown_game(service, viewer, rid, n)
        except StoreError as e:
            raise Refused(503, str(e)) from None
        places = {st.player: st for st in record.standings}
        seats = [
            {
                "letter": PLAYER_LETTERS[i],
                "bot": seat.name,
                "rank": places[i].rank,
                "hexes": places[i].hexes,
                "fault": None if seat.fault is None else f"{seat.fault.kind.value} at ply {seat.fault.ply}: {seat.fault.detail}",
                # shown_game blanked the logs the viewer may not read: what is left is theirs.
                "mine": bool(seat.stderr_tail or seat.infos),
                "stderr": seat.stderr_tail,
                "infos": seat.infos,
            }
            for i, seat in enumerate(record.seats)
        ]
        return viewer, {
            "s": s,
            "game": game,
            "record": record,
            "seats": seats,
            "moves": [(i + 1, PLAYER_LETTERS[m.player], m.move, m.ms) for i, m in enumerate(record.moves)],
            "data_json": Markup(
                script_json({"kind": "replay", "running": False, "refresh_s": 0, "games": [record.to_dict()]})
            ),
            "report": None,
        }

    viewer, context = await run_in_threadpool(work)
    return page(request, service, viewer, "scrimmage_game.html.j2", **context)
