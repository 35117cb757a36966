"""What the API, the pages and the forms share over HTTP: a handler handed the service, who
sent a request, and a :class:`~arena.ladder.service.Refused` rendered once, as JSON for the
API (``/api/...``: ``{"error": "..."}``) and as a page for the rest."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.ladder.render import page, secure
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.session import CSRF_COOKIE, SESSION_COOKIE, cookie_name

Handler = Callable[[Service, Request], Awaitable[Response]]
API_PREFIX = "/api/"
ERROR_PAGE = "error.html.j2"
# The error page's title by status (a form's own page says its refusal in its own words).
TITLES = {400: "Bad request", 404: "Not found", 503: "The league's results cannot be read"}


def bind(service: Service, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` as a Starlette endpoint of the application serving ``service``."""

    async def endpoint(request: Request) -> Response:
        return await handler(service, request)

    endpoint.__name__ = endpoint.__qualname__ = getattr(handler, "__name__", "endpoint")
    endpoint.__doc__ = handler.__doc__
    return endpoint


def session_of(request: Request) -> str | None:
    """The session cookie ``request`` carries (its ``__Host-`` name over TLS), if any."""
    return request.cookies.get(cookie_name(SESSION_COOKIE, secure(request)))


def form_cookie_of(request: Request) -> str | None:
    """The form cookie ``request`` carries (its ``__Host-`` name over TLS), if any."""
    return request.cookies.get(cookie_name(CSRF_COOKIE, secure(request)))


def viewer_of(service: Service, request: Request) -> Viewer:
    """Who sent ``request``, by its session cookie (reads the store: call it in a worker thread)."""
    return service.viewer(session_of(request))


def refused_json(e: Refused) -> JSONResponse:
    """The API's answer to ``e``: ``{"error": "..."}`` with its status and headers."""
    return JSONResponse({"error": e.message}, status_code=e.status, headers=e.headers)


def refused_page(
    request: Request, service: Service, viewer: Viewer, e: Refused, template: str = ERROR_PAGE, **context: Any
) -> Response:
    """A page's answer to ``e``: ``template`` (the error page, or the form refused) saying
    why, with its status and headers; a redirect for a 3xx."""
    if 300 <= e.status < 400:
        return RedirectResponse(e.headers.get("Location", "/"), status_code=e.status)
    if template == ERROR_PAGE:
        context = {"title": TITLES.get(e.status, "Refused"), "message": e.message, **context}
    else:
        context["error"] = e.message
    response = page(request, service, viewer, template, e.status, **context)
    response.headers.update(e.headers)
    return response


async def answer_refused(service: Service, request: Request, e: Refused) -> Response:
    """The one answer to a refusal: JSON under ``/api/``, a page elsewhere."""
    if request.url.path.startswith(API_PREFIX):
        return refused_json(e)
    if 300 <= e.status < 400:
        return refused_page(request, service, Viewer(None), e)
    viewer = await run_in_threadpool(viewer_of, service, request)
    return refused_page(request, service, viewer, e)
