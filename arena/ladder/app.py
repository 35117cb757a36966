"""The ladder's Starlette application: its one routing table, each handler handed the service.

The API is in :mod:`arena.ladder.api`, the read-only pages in :mod:`arena.ladder.pages`, the
forms in :mod:`arena.ladder.forms`; every one of them is handed the same
:class:`~arena.ladder.service.Service`, and every refusal any of them raises is answered by
:func:`arena.ladder.web.answer_refused` (JSON under ``/api/``, a page elsewhere).  Unknown
paths and methods answer in JSON.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from arena.ladder import api, final_pages, forms, kits, pages, scrimmage_pages
from arena.ladder.service import Refused, Service
from arena.ladder.settings import Ladder
from arena.ladder.store import LadderStore
from arena.ladder.web import Handler, answer_refused, bind


def routes(service: Service) -> list[BaseRoute]:
    """Every path the ladder answers, and who answers it."""

    def route(path: str, handler: Handler, *methods: str) -> Route:
        return Route(path, bind(service, handler), methods=list(methods))

    return [
        # The API (JSON).
        route("/api/bots", api.post_bot, "POST"),
        route("/api/bots", api.list_bots, "GET"),
        route("/api/submissions/{sid}", api.get_submission, "GET"),
        route("/api/ladder", api.ladder_status, "GET"),
        route("/api/ladder/pause", api.pause, "POST"),
        route("/api/ladder/resume", api.resume, "POST"),
        route("/api/authors/{name}/ban", api.ban, "POST", "DELETE"),
        route("/api/authors/{name}", api.team, "GET"),
        route("/api/authors/{name}/members/{member}", api.revoke_member, "DELETE"),
        route("/api/authors/{name}/members/{member}/token", api.new_member_token, "POST"),
        route("/api/bots/{bot}/retire", api.retire_bot, "POST"),
        route("/api/bots/{bot}/ban", api.ban_bot, "POST", "DELETE"),
        route("/api/log", api.action_log, "GET"),
        # The deadline and the final tournament.
        route("/api/deadline", final_pages.post_deadline, "POST"),
        route("/api/final", final_pages.start_final, "POST"),
        route("/api/final", final_pages.final_json, "GET"),
        route("/final", final_pages.final_page, "GET"),
        route("/final/report.html", final_pages.final_report, "GET"),
        # Scrimmages: unrated games an author asks for.
        route("/api/scrimmages", scrimmage_pages.post_scrimmage, "POST"),
        route("/api/scrimmages", scrimmage_pages.list_scrimmages, "GET"),
        route("/api/scrimmages/{sid}", scrimmage_pages.get_scrimmage, "GET"),
        route("/scrimmages", scrimmage_pages.scrimmages_page, "GET"),
        route("/scrimmages", scrimmage_pages.scrimmage_form, "POST"),
        route("/scrimmages/{sid}", scrimmage_pages.scrimmage_page, "GET"),
        route("/scrimmages/{sid}/games/{n}", scrimmage_pages.scrimmage_game_page, "GET"),
        # The pages, and the two JSON answers they and monitors poll.
        route("/", pages.standings_page, "GET"),
        route("/api/standings", pages.standings_json, "GET"),
        route("/api/health", pages.health_json, "GET"),
        route("/bots", pages.bots_page, "GET"),
        route("/authors/{name}", pages.author_page, "GET"),
        route("/log", pages.log_page, "GET"),
        route("/bots/{bot}", pages.bot_page_handler, "GET"),
        route("/bots/{bot}/v{n}", pages.version_page, "GET"),
        route("/api/bots/{bot}/history", pages.history_json, "GET"),
        route("/games", pages.games_page, "GET"),
        route("/games/{game_id}", pages.game_page, "GET"),
        route("/ladder", pages.ladder_page, "GET"),
        # The forms.
        route("/login", forms.login_form, "GET"),
        route("/login", forms.login, "POST"),
        route("/logout", forms.logout, "POST"),
        route("/submit", forms.submit_form, "GET"),
        route("/submit", forms.submit, "POST"),
        # The starter kits, to download (the files `arena new` writes).
        Route("/kits/{language}.tar.gz", kits.kit_download, methods=["GET"]),
        Mount(
            "/static",
            StaticFiles(packages=[("arena.ladder", "static"), ("arena.report", "static")]),
            name="static",
        ),
    ]


def make_app(ladder: Ladder, store: LadderStore, start_queue: bool = True) -> Starlette:
    """The application over ``store``; with ``start_queue`` its check queue and its league
    run while it serves (and are stopped, in that order, when it stops)."""
    service = Service(ladder, store)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if start_queue:
            service.start()
        try:
            yield
        finally:
            await run_in_threadpool(service.stop)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return await answer_refused(service, request, exc)

    app = Starlette(
        routes=routes(service),
        exception_handlers={Refused: refused, 404: api.not_found, 405: api.not_found},
        lifespan=lifespan,
    )
    app.state.service = service
    return app
