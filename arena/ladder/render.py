"""The pages' HTML: one Jinja2 environment, and the answer every page is sent in.

Autoescape is on, and every plain string a template prints has its control characters made
visible first (:func:`arena.untrusted.printable`, as the report does): bot names, reasons,
check lines, stderr and build logs may all be an author's.  Templates come from this
package and from the report's (its replay viewer), so a game's page is drawn by the same
viewer as ``report.html``.

Every page is sent with a Content-Security-Policy that allows this site's own scripts and
styles only (``/static``): nothing a bot wrote can run, even where escaping were missed.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from arena.ladder.service import Service, Viewer
from arena.ladder.session import CSRF_COOKIE, MAX_COOKIE_CHARS, cookie_name, csrf_token, new_csrf_cookie
from arena.league.tally import probability_text
from arena.untrusted import printable, printable_lines

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",  # pages differ by who is signed in, and change as games finish
}
CLIP_CHARS = 500  # a reason or a check's line as a page shows it


def _visible(value: Any) -> Any:
    """The templates' ``finalize``: control characters of plain text become escapes."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


def clip(value: Any, most: int = CLIP_CHARS) -> str:
    """``value``'s text cut to ``most`` characters (an ellipsis says so)."""
    text = "" if value is None else str(value)
    return text if len(text) <= most else text[: most - 1] + "…"


def lines(value: Any, most: int = 20_000) -> Markup:
    """Text of several lines for a ``<pre>``: the end of it (at most ``most`` characters),
    each line's control characters made visible, then HTML-escaped."""
    text = "" if value is None else str(value)
    if len(text) > most:
        text = "…" + text[-(most - 1) :]
    return escape(printable_lines(text))


def when(value: Any) -> str:
    """A time (seconds since 1970, or an ISO text as the stores keep) in UTC, to the second;
    a text that is no time, as it is."""
    if isinstance(value, int | float):
        moment = dt.datetime.fromtimestamp(value, dt.UTC)
    else:
        try:
            moment = dt.datetime.fromisoformat(str(value))
        except ValueError:
            return "" if value is None else str(value)
        moment = moment.replace(tzinfo=moment.tzinfo or dt.UTC).astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


@cache
def environment() -> jinja2.Environment:
    """The templates of the ladder's pages, and the report's replay viewer."""
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.PackageLoader("arena.ladder", "templates"),
                jinja2.PackageLoader("arena.report", "templates"),
            ]
        ),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(clip=clip, lines=lines, when=when, probability=probability_text)
    return env


def secure(request: Request) -> bool:
    """Whether the request came over HTTPS, here or at the reverse proxy in front."""
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def page(
    request: Request, service: Service, viewer: Viewer, template: str, status: int = 200, **context: Any
) -> HTMLResponse:
    """``template`` rendered for ``viewer``, with the headers every page has; a browser without
    the form cookie gets one (every page may hold a form: signing out at least).  The forms'
    token is bound to the viewer's session when signed in, else to the form cookie."""
    tls = secure(request)
    name = cookie_name(CSRF_COOKIE, tls)
    cookie = request.cookies.get(name)
    fresh = not cookie or len(cookie) > MAX_COOKIE_CHARS
    if fresh:
        cookie = new_csrf_cookie()
    assert cookie is not None
    html = (
        environment()
        .get_template(template)
        .render(
            viewer=viewer,
            csrf=csrf_token(service.secret, viewer.session or cookie),
            ladder_name=service.ladder.league.name,
            **context,
        )
    )
    response = HTMLResponse(html, status_code=status, headers=HEADERS)
    if fresh:
        response.set_cookie(name, cookie, httponly=True, samesite="strict", secure=tls, path="/")
    return response
