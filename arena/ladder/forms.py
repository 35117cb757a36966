"""The pages' forms: signing in with a token, signing out, and a new version's upload.

Every form carries the token of :mod:`arena.ladder.session` and is refused (403, nothing
done) without it.  The upload takes the API's own path (:mod:`arena.ladder.app`: the same
quota, limits, unpacking, numbering and queue as ``POST /api/bots``); only the author comes
from the session instead of a bearer token, and the answer is a page.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena.kitfiles import KITS
from arena.ladder.names import BOT_NAME_MAX
from arena.ladder.render import page, secure
from arena.ladder.session import CSRF_COOKIE, CSRF_FIELD, SESSION_COOKIE, SESSION_S, csrf_ok, session_cookie
from arena.ladder.site import Site, Viewer, site_of

SMALL_FORM_BYTES = 8192  # signing in or out: a token and the form's own
MAX_TOKEN_CHARS = 512
CSRF_REFUSED = "this form's token is missing or out of date: reload the page and send the form again"


class FormRefused(Exception):
    """A form that is not acted on: the status of its answer page and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def _small_form(request: Request) -> dict[str, str]:
    """A urlencoded form of at most :data:`SMALL_FORM_BYTES`, its fields' last values; a body
    of another type has no fields (so its CSRF token is missing: refused)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        return {}
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > SMALL_FORM_BYTES:
            raise FormRefused(413, f"the form passes {SMALL_FORM_BYTES} bytes")
    try:
        return dict(
            parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8, strict_parsing=False)
        )
    except (UnicodeDecodeError, ValueError) as e:
        raise FormRefused(400, f"cannot read the form: {e}") from None


def _check_csrf(site: Site, request: Request, sent: Any) -> None:
    if not csrf_ok(site.secret, request.cookies.get(CSRF_COOKIE), sent if isinstance(sent, str) else None):
        raise FormRefused(403, CSRF_REFUSED)


def _refused(
    request: Request, site: Site, viewer: Viewer, e: FormRefused, template: str, **context: Any
) -> Response:
    return page(request, site, viewer, template, e.status, error=str(e), **context)


# -- signing in and out -----------------------------------------------------------------------


async def login_form(request: Request) -> Response:
    """``GET /login``: the token's form (or who is signed in)."""
    site = site_of(request)
    viewer = await run_in_threadpool(site.viewer, request)
    return page(request, site, viewer, "login.html.j2", error=None)


async def login(request: Request) -> Response:
    """``POST /login``: a token of an author in good standing starts a session (a signed cookie)."""
    site = site_of(request)
    viewer = await run_in_threadpool(site.viewer, request)
    try:
        form = await _small_form(request)
        _check_csrf(site, request, form.get(CSRF_FIELD))
        token = form.get("token", "").strip()
        if not token or len(token) > MAX_TOKEN_CHARS:
            raise FormRefused(
                401, "unknown token" if token else "give your token (the organiser gave it to you)"
            )
        author = await run_in_threadpool(site.store.author_by_token, token)
        if author is None:
            raise FormRefused(401, "unknown token")
        if author.banned:
            raise FormRefused(403, f"author {author.name!r} is banned from this ladder")
    except FormRefused as e:
        return _refused(request, site, viewer, e, "login.html.j2")
    response = RedirectResponse("/submit", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session_cookie(site.secret, author.name, time.time()),
        max_age=SESSION_S,
        httponly=True,
        samesite="lax",
        secure=secure(request),
        path="/",
    )
    return response


async def logout(request: Request) -> Response:
    """``POST /logout``: the session cookie is dropped."""
    site = site_of(request)
    viewer = await run_in_threadpool(site.viewer, request)
    try:
        form = await _small_form(request)
        _check_csrf(site, request, form.get(CSRF_FIELD))
    except FormRefused as e:
        return _refused(request, site, viewer, e, "error.html.j2", title="Not signed out", message=str(e))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
    return response


# -- a new version ----------------------------------------------------------------------------


def _submit_context(site: Site, viewer: Viewer) -> dict[str, Any]:
    a = site.ladder.settings.archive
    mine = [
        v for v in site.store.latest_versions() if viewer.author is not None and v[1] == viewer.author.name
    ]
    return {
        "max_mb": a.max_bytes // (1024 * 1024),
        "name_max": BOT_NAME_MAX,
        "policy": site.ladder.settings.submit.value,
        "mine": [{"bot": b, "version": n, "state": s.value} for b, _a, n, s, _u in mine],
        "sent": None,
        "fields": {"name": "", "command": "", "build": ""},
        "kits": list(KITS),
    }


async def submit_form(request: Request) -> Response:
    """``GET /submit``: the upload form, for a signed-in author (others are sent to sign in)."""
    site = site_of(request)
    viewer = await run_in_threadpool(site.viewer, request)
    if viewer.author is None:
        return RedirectResponse("/login", status_code=303)
    context = await run_in_threadpool(_submit_context, site, viewer)
    return page(request, site, viewer, "submit.html.j2", error=None, **context)


async def submit(request: Request) -> Response:
    """``POST /submit``: the API's upload, by the signed-in author; a page says what became of it."""
    # The API's module imports this one (for its routes): its functions are imported here.
    from arena.ladder.app import (
        FORM_SLACK_BYTES,
        HttpError,
        _bounded_body,
        _form,
        _post_form,
        check_quota,
        may_submit,
    )

    site = site_of(request)
    service = site.service
    viewer = await run_in_threadpool(site.viewer, request)
    fields = {"name": "", "command": "", "build": ""}
    try:
        if viewer.author is None:
            raise FormRefused(401, "sign in first: only an author's upload is taken")
        author = viewer.author
        try:
            may_submit(service, author)
            check_quota(service, author, 0, time.time())
            body = await _bounded_body(request, service.ladder.settings.archive.max_bytes + FORM_SLACK_BYTES)
            async with _form(request, body) as form:
                fields = {k: v if isinstance(v := form.get(k), str) else "" for k in fields}
                _check_csrf(site, request, form.get(CSRF_FIELD))
                answer = await _post_form(service, author, form)
        except HttpError as e:
            raise FormRefused(e.status, e.message) from None
    except FormRefused as e:
        context = await run_in_threadpool(_submit_context, site, viewer)
        context["fields"] = {k: v[:200] for k, v in fields.items()}
        return _refused(request, site, viewer, e, "submit.html.j2", **context)
    sent = json.loads(bytes(answer.body))
    context = await run_in_threadpool(_submit_context, site, viewer)
    context["sent"] = sent
    return page(request, site, viewer, "submit.html.j2", answer.status_code, error=None, **context)


def form_routes() -> list[BaseRoute]:
    """The forms' routes."""
    return [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/submit", submit_form, methods=["GET"]),
        Route("/submit", submit, methods=["POST"]),
    ]
