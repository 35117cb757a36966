"""The pages' forms: signing in with a token, signing out, and a new version's upload.

Every form carries the token of :mod:`arena.ladder.session` and is refused (403, nothing
done) without it.  The upload is the API's own use case (:mod:`arena.ladder.intake`: the same
quota, limits, unpacking, numbering and queue as ``POST /api/bots``); only the author comes
from the session instead of a bearer token, and the answer is a page.  A form refused is
shown again with the one line of its :class:`~arena.ladder.service.Refused`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.kitfiles import KITS
from arena.ladder import intake
from arena.ladder.names import BOT_NAME_MAX
from arena.ladder.render import page, secure
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.session import CSRF_FIELD, SESSION_COOKIE, SESSION_S, cookie_name, csrf_ok
from arena.ladder.web import form_cookie_of, refused_page, session_of, viewer_of

SMALL_FORM_BYTES = 8192  # signing in or out: a token and the form's own
MAX_TOKEN_CHARS = 512
CSRF_REFUSED = "this form's token is missing or out of date: reload the page and send the form again"


async def _small_form(request: Request) -> dict[str, str]:
    """A urlencoded form of at most :data:`SMALL_FORM_BYTES`, its fields' last values; a body
    of another type has no fields (so its CSRF token is missing: refused)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        return {}
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > SMALL_FORM_BYTES:
            raise Refused(413, f"the form passes {SMALL_FORM_BYTES} bytes")
    try:
        return dict(
            parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8, strict_parsing=False)
        )
    except (UnicodeDecodeError, ValueError) as e:
        raise Refused(400, f"cannot read the form: {e}") from None


def _check_csrf(service: Service, request: Request, viewer: Viewer, sent: Any) -> None:
    """Refuse (403) a form whose token is not the one of its page: bound to the viewer's
    session when signed in, else to the browser's form cookie."""
    bound_to = viewer.session or form_cookie_of(request)
    if not csrf_ok(service.secret, bound_to, sent if isinstance(sent, str) else None):
        raise Refused(403, CSRF_REFUSED)


# -- signing in and out -----------------------------------------------------------------------


async def login_form(service: Service, request: Request) -> Response:
    """``GET /login``: the token's form (or who is signed in)."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    return page(request, service, viewer, "login.html.j2", error=None)


async def login(service: Service, request: Request) -> Response:
    """``POST /login``: a member's token (not revoked, of an author in good standing) begins
    a new session of that member (and ends the one the browser held)."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    try:
        form = await _small_form(request)
        _check_csrf(service, request, viewer, form.get(CSRF_FIELD))
        token = form.get("token", "").strip()
        if not token or len(token) > MAX_TOKEN_CHARS:
            raise Refused(
                401, "unknown token" if token else "give your token (the organiser gave it to you)"
            )
        found = await run_in_threadpool(service.store.holder_by_token, token)
        if found is None:
            raise Refused(401, "unknown token")
        author, member = found
        if author.banned:
            raise Refused(403, f"author {author.name!r} is banned from this ladder")
    except Refused as e:
        return refused_page(request, service, viewer, e, "login.html.j2")
    session = await run_in_threadpool(service.sign_in, author, session_of(request), member)
    response = RedirectResponse("/submit", status_code=303)
    tls = secure(request)
    response.set_cookie(
        cookie_name(SESSION_COOKIE, tls), session, max_age=SESSION_S, httponly=True, samesite="lax", secure=tls, path="/"
    )
    return response


async def logout(service: Service, request: Request) -> Response:
    """``POST /logout``: the session ends (the ladder forgets it) and its cookie is dropped."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    try:
        form = await _small_form(request)
        _check_csrf(service, request, viewer, form.get(CSRF_FIELD))
    except Refused as e:
        return refused_page(request, service, viewer, e, "error.html.j2", title="Not signed out")
    held = session_of(request)
    if held:
        await run_in_threadpool(service.sign_out, held)
    response = RedirectResponse("/", status_code=303)
    tls = secure(request)
    response.delete_cookie(cookie_name(SESSION_COOKIE, tls), path="/", httponly=True, samesite="lax", secure=tls)
    return response


# -- a new version ----------------------------------------------------------------------------


def _submit_context(service: Service, viewer: Viewer) -> dict[str, Any]:
    a = service.ladder.settings.archive
    mine = [
        v for v in service.store.latest_versions() if viewer.author is not None and v[1] == viewer.author.name
    ]
    return {
        "max_mb": a.max_bytes // (1024 * 1024),
        "name_max": BOT_NAME_MAX,
        "policy": service.ladder.settings.submit.value,
        "mine": [{"bot": b, "version": n, "state": s.value} for b, _a, n, s, _u in mine],
        "sent": None,
        "fields": {"name": "", "command": "", "build": ""},
        "kits": list(KITS),
    }


async def submit_form(service: Service, request: Request) -> Response:
    """``GET /submit``: the upload form, for a signed-in author (others are sent to sign in)."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    if viewer.author is None:
        return RedirectResponse("/login", status_code=303)
    context = await run_in_threadpool(_submit_context, service, viewer)
    return page(request, service, viewer, "submit.html.j2", error=None, **context)


async def submit(service: Service, request: Request) -> Response:
    """``POST /submit``: the API's upload, by the signed-in author; a page says what became of it."""
    viewer = await run_in_threadpool(viewer_of, service, request)
    sent: dict[str, str] = {}  # the fields as they arrive: a form refused is shown with them again
    try:
        if viewer.author is None:
            raise Refused(401, "sign in first: only an author's upload is taken")
        received = await intake.take(
            service,
            viewer.author,
            request,
            lambda fields: _check_csrf(service, request, viewer, fields.get(CSRF_FIELD)),
            sent,
            viewer.actor,
        )
    except Refused as e:
        context = await run_in_threadpool(_submit_context, service, viewer)
        context["fields"] = {k: sent.get(k, "")[:200] for k in ("name", "command", "build")}
        return refused_page(request, service, viewer, e, "submit.html.j2", **context)
    context = await run_in_threadpool(_submit_context, service, viewer)
    context["sent"] = received
    return page(request, service, viewer, "submit.html.j2", received.STATUS, error=None, **context)
