"""The ladder's HTTP API: JSON answers everywhere.

- ``POST /api/bots``: a new version (multipart: ``archive``, ``name``, ``command``, optional
  ``build``; ``Authorization: Bearer TOKEN``), taken by :mod:`arena.ladder.intake`;
- ``GET /api/bots``: every bot and its versions, public fields only;
- ``GET /api/submissions/{id}``: one version's state, and for its author the check's report
  and build log;
- ``GET /api/ladder``: its name, whether it is paused, how many versions wait;
- for admins: ``POST /api/ladder/pause`` and ``/resume``, ``POST``/``DELETE
  /api/authors/{name}/ban``, ``POST /api/bots/{bot}/retire``, ``POST``/``DELETE
  /api/bots/{bot}/ban``, ``GET /api/log`` (every action with its author and member),
  ``DELETE /api/authors/{name}/members/{member}`` (revoke a member's token) and ``POST
  /api/authors/{name}/members/{member}/token`` (a new one);
- ``GET /api/authors/{name}``: a team (an author) and its members' names.

A token is a member's: the request is the member's team's (the author's, who owns bots,
versions and quotas), and the action log names the member (``team/member``).

Each handler is handed the :class:`~arena.ladder.service.Service` (the routes are in
:mod:`arena.ladder.app`).  Errors are ``{"error": "..."}`` with 400, 401, 403, 404, 409, 413
or 429 (with Retry-After): a :class:`~arena.ladder.service.Refused`, rendered by
:mod:`arena.ladder.web`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from arena.errors import ConfigError, LadderError
from arena.ladder import intake
from arena.ladder.deadline import closed, deadline
from arena.ladder.names import check_author_name
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.store import Author


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def caller_of(service: Service, request: Request, required: bool) -> Viewer:
    """Who sent the request's bearer token: its member's team (the viewer's author) and the
    member; 401 when one is required and none or an unknown (or revoked) one is sent, 403
    for a banned author's."""
    token = _bearer(request)
    found = None if token is None else service.store.holder_by_token(token)
    if found is None:
        if required:
            why = "no token: send 'Authorization: Bearer TOKEN'" if token is None else "unknown token"
            raise Refused(401, why, {"WWW-Authenticate": "Bearer"})
        return Viewer(None)
    author, member = found
    if author.banned:
        raise Refused(403, f"author {author.name!r} is banned from this ladder")
    return Viewer(author, None, member.name)


def author_of(service: Service, request: Request, required: bool) -> Author | None:
    """The author (team) whose member's bearer token the request carries; 401/403 when one is required."""
    return caller_of(service, request, required).author


def organiser_of(service: Service, request: Request) -> Viewer:
    """The admin who sent the request (its team an organisers'), else 401 or 403."""
    caller = caller_of(service, request, required=True)
    assert caller.author is not None
    if not caller.author.admin:
        raise Refused(403, f"author {caller.author.name!r} is not an admin of this ladder")
    return caller


def admin_of(service: Service, request: Request) -> Author:
    """The admin team of :func:`organiser_of`."""
    author = organiser_of(service, request).author
    assert author is not None
    return author


async def post_bot(service: Service, request: Request) -> JSONResponse:
    """A new version of a bot: authenticated, within quota, unpacked, then queued for its check."""
    caller = caller_of(service, request, required=True)
    assert caller.author is not None
    received = await intake.take(service, caller.author, request, by=caller.actor)
    return JSONResponse(received.to_json(), status_code=received.STATUS)


async def list_bots(service: Service, request: Request) -> JSONResponse:
    """Every bot with its versions, oldest first: public fields only."""
    bots: dict[str, dict[str, Any]] = {}
    for sub in await run_in_threadpool(service.store.submissions):
        entry = bots.setdefault(sub.bot, {"bot": sub.bot, "author": sub.author, "versions": []})
        entry["versions"].append(sub.public())
    return JSONResponse({"bots": list(bots.values())})


async def get_submission(service: Service, request: Request) -> JSONResponse:
    """One submission: public fields, and its report and build log for its own author."""
    raw = request.path_params["sid"]
    # ASCII digits only: str.isdigit() also takes '²', which int() refuses.
    sub = service.store.submission(int(raw)) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None
    if sub is None:
        raise Refused(404, f"no submission {raw!r}")
    mine = caller_of(service, request, required=False).may_see(sub.author)
    return JSONResponse(sub.private() if mine else sub.public())


async def ladder_status(service: Service, request: Request) -> JSONResponse:
    """The ladder's name, whether it is paused, who may submit, how many versions wait, the
    deadline in force and whether submissions are closed (and why)."""

    def read() -> tuple[int, dt.datetime | None, str | None]:
        now = dt.datetime.now(dt.UTC)
        return len(service.store.pending()), deadline(service.ladder, service.store), closed(service.ladder, service.store, now)

    waiting, until, shut = await run_in_threadpool(read)
    status = service.league.status
    return JSONResponse(
        {
            "name": service.ladder.league.name,
            "paused": service.store.paused(),
            "submit": service.ladder.settings.submit.value,
            "waiting": waiting,
            "league": {"state": status.state, "detail": status.detail, "since": status.since},
            "deadline": None if until is None else until.astimezone(dt.UTC).isoformat(),
            "submissions_closed": shut is not None,
            "closed_because": shut,
        }
    )


async def pause(service: Service, request: Request) -> JSONResponse:
    """Admins: stop checking versions (they are still taken), kept across restarts."""
    admin = organiser_of(service, request)
    service.store.set_paused(True, admin.actor)
    service.league.changed()
    return JSONResponse({"paused": True})


async def resume(service: Service, request: Request) -> JSONResponse:
    """Admins: check versions again."""
    admin = organiser_of(service, request)
    service.store.set_paused(False, admin.actor)
    service.queue.wake()
    service.league.changed()
    return JSONResponse({"paused": False})


async def ban(service: Service, request: Request) -> JSONResponse:
    """Admins: ban (``POST``) or unban (``DELETE``) an author."""
    admin = organiser_of(service, request)
    assert admin.author is not None
    name = request.path_params["name"]
    banned = request.method == "POST"
    if name == admin.author.name:
        raise Refused(400, "an admin cannot ban themselves")
    try:
        service.store.set_banned(name, banned, admin.actor)
    except LadderError as e:
        raise Refused(404, str(e)) from None
    service.league.changed()  # a banned author's bots play no more
    return JSONResponse({"author": name, "banned": banned})


async def retire_bot(service: Service, request: Request) -> JSONResponse:
    """Admins: retire every version of a bot so far (its games keep counting; a later
    version joins again)."""
    admin = organiser_of(service, request)
    name = request.path_params["bot"]
    try:
        newest = service.store.retire_bot(name, admin.actor)
    except LadderError as e:
        raise Refused(404, str(e)) from None
    service.league.changed()
    return JSONResponse({"bot": name, "retired_through": newest})


async def ban_bot(service: Service, request: Request) -> JSONResponse:
    """Admins: ban (``POST``) a bot, retiring it and refusing its new versions, or lift the ban (``DELETE``)."""
    admin = organiser_of(service, request)
    name = request.path_params["bot"]
    banned = request.method == "POST"
    try:
        service.store.set_bot_banned(name, banned, admin.actor)
    except LadderError as e:
        raise Refused(404, str(e)) from None
    service.league.changed()
    return JSONResponse({"bot": name, "banned": banned})


def _team_and_member(request: Request) -> tuple[str, str]:
    """The path's team and member names, checked (400 for a name no member can have)."""
    try:
        return check_author_name(request.path_params["name"]), check_author_name(request.path_params["member"])
    except ConfigError as e:
        raise Refused(400, str(e)) from None


async def revoke_member(service: Service, request: Request) -> JSONResponse:
    """Admins: ``DELETE /api/authors/{name}/members/{member}``: the member's token is refused
    from now on and their sessions end; the team and its other members go on."""
    admin = organiser_of(service, request)
    team, member = _team_and_member(request)
    if admin.author is not None and team == admin.author.name and member == admin.member:
        raise Refused(400, "an admin cannot revoke their own token")
    try:
        await run_in_threadpool(service.store.revoke_member, team, member, admin.actor)
    except LadderError as e:
        raise Refused(404 if str(e).startswith("no member") else 409, str(e)) from None
    return JSONResponse({"author": team, "member": member, "revoked": True})


async def new_member_token(service: Service, request: Request) -> JSONResponse:
    """Admins: ``POST /api/authors/{name}/members/{member}/token``: a new token for the member
    (shown in this answer only); the old one is refused and their sessions end."""
    admin = organiser_of(service, request)
    team, member = _team_and_member(request)
    try:
        token = await run_in_threadpool(service.store.new_token, team, member, admin.actor)
    except LadderError as e:
        raise Refused(404, str(e)) from None
    return JSONResponse({"author": team, "member": member, "token": token}, headers={"Cache-Control": "no-store"})


async def team(service: Service, request: Request) -> JSONResponse:
    """``GET /api/authors/{name}``: a team, its members' names (never their tokens) and its
    bots; its own members and the organisers also see which members are revoked."""
    name = request.path_params["name"]
    author = await run_in_threadpool(service.store.author_named, name) if len(name) <= 64 else None
    if author is None:
        raise Refused(404, f"no author {name[:80]!r}")
    members = await run_in_threadpool(service.store.members_of, author.name)
    caller = caller_of(service, request, required=False)
    owners = await run_in_threadpool(service.store.bot_owners)
    shown = [
        {"member": m.name, "revoked": m.revoked} if caller.may_see(author.name) else {"member": m.name}
        for m in members
        if caller.may_see(author.name) or not m.revoked
    ]
    return JSONResponse(
        {
            "author": author.name,
            "admin": author.admin,
            "banned": author.banned,
            "members": shown,
            "bots": sorted(b for b, a in owners.items() if a == author.name),
        }
    )


async def action_log(service: Service, request: Request) -> JSONResponse:
    """Admins: every action, oldest first, with who did it (its author, the team, and its
    member, ``team/member``)."""
    admin_of(service, request)
    return JSONResponse({"actions": await run_in_threadpool(service.store.actions)})


async def not_found(request: Request, exc: Exception) -> JSONResponse:
    """Unknown paths and methods answer in JSON too."""
    status = getattr(exc, "status_code", 404)
    return JSONResponse({"error": f"{request.method} {request.url.path}: {getattr(exc, 'detail', 'not found')}"}, status_code=status)
