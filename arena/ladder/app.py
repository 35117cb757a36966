"""The ladder's HTTP API, a Starlette application: JSON answers everywhere.

- ``POST /api/bots``: a new version (multipart: ``archive``, ``name``, optional ``command``
  and ``build``, else the archive's bot.toml or main file says; ``Authorization: Bearer TOKEN``);
- ``GET /api/bots``: every bot and its versions, public fields only;
- ``GET /api/submissions/{id}``: one version's state, and for its author the check's report
  and build log;
- ``GET /api/ladder``: its name, whether it is paused, how many versions wait;
- for admins: ``POST /api/ladder/pause`` and ``/resume``, ``POST``/``DELETE
  /api/authors/{name}/ban``, ``GET /api/log`` (every action with its author).

Errors are ``{"error": "..."}`` with 400, 401, 403, 404, 409, 413 or 429 (with Retry-After).
"""

from __future__ import annotations

import contextlib
import hashlib
import shlex
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Message

from arena.durations import describe_seconds
from arena.errors import ArchiveRefused, ConfigError, LadderError
from arena.game.convention import resolve
from arena.ladder.league import LeagueLoop
from arena.ladder.names import check_bot_name, version_of
from arena.ladder.pages import page_routes
from arena.ladder.queue import ARCHIVE_FILE, CheckQueue, submission_folder
from arena.ladder.settings import Ladder, SubmitPolicy
from arena.ladder.store import SUBMISSIONS_FOLDER, Author, LadderStore, State
from arena.ladder.unpack import unpack

MAX_COMMAND_CHARS = 4096
FORM_SLACK_BYTES = 64 * 1024  # the form's other fields and boundaries, beside the archive
HOUR = 3600.0
DAY = 24 * HOUR


class HttpError(Exception):
    """An answer other than success: its status, message and headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass
class Service:
    """What the handlers share: the ladder, its store and its check queue."""

    ladder: Ladder
    store: LadderStore
    queue: CheckQueue
    league: LeagueLoop


def _error(e: HttpError) -> JSONResponse:
    return JSONResponse({"error": e.message}, status_code=e.status, headers=e.headers)


def _handler(fn: Callable[[Service, Request], Awaitable[JSONResponse]]) -> Callable[[Request], Awaitable[JSONResponse]]:
    async def endpoint(request: Request) -> JSONResponse:
        try:
            return await fn(request.app.state.service, request)
        except HttpError as e:
            return _error(e)

    return endpoint


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def author_of(service: Service, request: Request, required: bool) -> Author | None:
    """The author whose bearer token the request carries; 401/403 when one is required."""
    token = _bearer(request)
    author = None if token is None else service.store.author_by_token(token)
    if author is None:
        if required:
            why = "no token: send 'Authorization: Bearer TOKEN'" if token is None else "unknown token"
            raise HttpError(401, why, {"WWW-Authenticate": "Bearer"})
        return None
    if author.banned:
        raise HttpError(403, f"author {author.name!r} is banned from this ladder")
    return author


def may_submit(service: Service, author: Author) -> None:
    """Refuse (403) an author the ladder's ``submit`` setting shuts out."""
    policy = service.ladder.settings.submit
    if policy is SubmitPolicy.NOBODY or (policy is SubmitPolicy.ADMINS and not author.admin):
        raise HttpError(403, f"submissions are closed to {'everyone' if policy is SubmitPolicy.NOBODY else 'authors'}")


def check_quota(service: Service, author: Author, size: int, now: float) -> None:
    """Refuse (429, with Retry-After) a version over the author's hourly, daily or byte quota."""
    if author.admin:
        return
    q = service.ladder.settings.quotas
    times, day_bytes = service.store.recent(author, now - DAY)
    last_hour = [t for t in times if t >= now - HOUR]
    for window, seen, most, what in ((HOUR, last_hour, q.versions_per_hour, "hour"), (DAY, times, q.versions_per_day, "day")):
        if len(seen) >= most:
            retry = max(1, int(seen[len(seen) - most] + window - now) + 1)
            raise HttpError(
                429,
                f"quota: at most {most} versions per {what}; try again in {describe_seconds(retry)}",
                {"Retry-After": str(retry)},
            )
    if day_bytes + size > q.bytes_per_day:
        retry = max(1, int(times[0] + DAY - now) + 1) if times else int(DAY)
        raise HttpError(
            429,
            f"quota: at most {q.bytes_per_day} archive bytes per day ({day_bytes} sent); "
            f"try again in {describe_seconds(retry)}",
            {"Retry-After": str(retry)},
        )


async def _bounded_body(request: Request, most: int) -> bytes:
    """The request's body, refused (413) past ``most`` bytes whatever Content-Length says."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > most:
        raise HttpError(413, f"the upload is {declared} bytes; this ladder takes archives up to {most - FORM_SLACK_BYTES}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > most:
            raise HttpError(413, f"the upload passes {most} bytes; this ladder takes archives up to {most - FORM_SLACK_BYTES}")
        chunks.append(chunk)
    return b"".join(chunks)


@contextlib.asynccontextmanager
async def _form(request: Request, body: bytes) -> AsyncIterator[dict[str, Any]]:
    """The multipart form of an already read body (its spooled files closed after)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    replay = Request(request.scope, receive)
    try:
        form = await replay.form(max_files=1, max_fields=8)
    except Exception as e:  # the parser's own errors: a malformed form is the client's
        raise HttpError(400, f"cannot read the form: {e}") from None
    try:
        yield dict(form)
    finally:
        await form.close()


def _words(form: dict[str, Any], key: str, required: bool) -> tuple[str, ...] | None:
    value = form.get(key)
    if value is None or value == "":
        if required:
            raise HttpError(400, f"the form needs {key!r}")
        return None
    if not isinstance(value, str) or len(value) > MAX_COMMAND_CHARS:
        raise HttpError(400, f"{key!r} must be a command of at most {MAX_COMMAND_CHARS} characters")
    try:
        words = tuple(shlex.split(value))
    except ValueError as e:
        raise HttpError(400, f"{key!r}: cannot split {value!r} like a shell: {e}") from None
    if not words:
        raise HttpError(400, f"{key!r} is empty")
    return words


async def post_bot(service: Service, request: Request) -> JSONResponse:
    """A new version of a bot: authenticated, within quota, unpacked, then queued for its check."""
    author = author_of(service, request, required=True)
    assert author is not None
    may_submit(service, author)
    check_quota(service, author, 0, time.time())
    limits = service.ladder.settings.archive
    body = await _bounded_body(request, limits.max_bytes + FORM_SLACK_BYTES)
    async with _form(request, body) as form:
        return await _post_form(service, author, form)


async def _post_form(service: Service, author: Author, form: dict[str, Any]) -> JSONResponse:
    """The rest of ``POST /api/bots``, once the form is read."""
    limits = service.ladder.settings.archive
    archive = form.get("archive")
    if not isinstance(archive, UploadFile):
        raise HttpError(400, "the form needs 'archive': the bot's folder as a .tar.gz or .zip file")
    data = await archive.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise HttpError(413, f"the archive passes {limits.max_bytes} bytes, this ladder's limit")
    try:
        name = check_bot_name(str(form.get("name") or ""))
    except ConfigError as e:
        raise HttpError(400, f"bot {e}") from None
    house = {b.name for b in service.ladder.league.bots}
    if name in house or any((version_of(h) or ("",))[0] == name for h in house):
        raise HttpError(409, f"bot {name!r} is a bot of the league itself; choose another name")
    if service.store.bot_flags().get(name, (0, False))[1]:
        raise HttpError(403, f"bot {name!r} is banned from this ladder")
    command = _words(form, "command", required=False)  # None: the archive's bot.toml or main file says
    build = _words(form, "build", required=False)
    check_quota(service, author, len(data), time.time())
    answer = await run_in_threadpool(_receive, service, author, name, command, build, (archive.filename or "archive", data))
    service.queue.wake()
    return answer


def _receive(
    service: Service,
    author: Author,
    name: str,
    command: tuple[str, ...] | None,
    build: tuple[str, ...] | None,
    upload: tuple[str, bytes],
) -> JSONResponse:
    """Unpack the archive in a fresh folder, then number the version (refused or received)."""
    filename, data = upload
    root = service.ladder.folder / SUBMISSIONS_FOLDER
    incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    # Unpacked in the versions' folder, beside the results folder, never inside it.
    service.ladder.versions_folder.mkdir(parents=True, exist_ok=True)
    unpacking = Path(tempfile.mkdtemp(prefix=".incoming-", dir=service.ladder.versions_folder))
    refusal: ArchiveRefused | None = None
    try:
        (incoming / ARCHIVE_FILE).write_bytes(data)
        try:
            unpack(data, unpacking / "bot", service.ladder.settings.archive, filename)
        except ArchiveRefused as e:
            refusal = e
        if command is None and refusal is None:
            try:
                found = resolve(unpacking / "bot", shown="the archive")
            except ConfigError as e:
                raise HttpError(400, f"no 'command' given, and {e}") from None
            command, build = found.command, build or found.build
        digest = hashlib.sha256(data).hexdigest()
        with service.queue.intake:
            # Again under the lock: two uploads at once must not both fit the last place.
            check_quota(service, author, len(data), time.time())

            def place(sid: int) -> None:
                # Before the version is committed (see add_submission): a folder already there
                # has no version, left by a crash between these renames and the commit.
                _move(incoming, submission_folder(service.ladder, sid))
                if refusal is None:
                    _move(unpacking / "bot", service.ladder.version_folder(sid))

            try:
                sub = service.store.add_submission(
                    author,
                    name,
                    command or (),
                    build,
                    (filename[:200], len(data), digest),
                    State.UNPACKED if refusal is None else State.REFUSED,
                    None if refusal is None else str(refusal),
                    place,
                )
            except LadderError as e:
                raise HttpError(409, str(e)) from None
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
        shutil.rmtree(unpacking, ignore_errors=True)
    if refusal is not None:
        raise HttpError(400, str(refusal))
    return JSONResponse(
        {"bot": sub.bot, "version": sub.version, "id": sub.id, "state": State.UNPACKED.value, "status_url": f"/api/submissions/{sub.id}"},
        status_code=202,
    )


def _move(folder: Path, target: Path) -> None:
    """Move ``folder`` to ``target``, replacing what a crash left there."""
    shutil.rmtree(target, ignore_errors=True)
    folder.rename(target)


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
        raise HttpError(404, f"no submission {raw!r}")
    author = author_of(service, request, required=False)
    mine = author is not None and (author.name == sub.author or author.admin)
    return JSONResponse(sub.private() if mine else sub.public())


def _admin(service: Service, request: Request) -> Author:
    author = author_of(service, request, required=True)
    assert author is not None
    if not author.admin:
        raise HttpError(403, f"author {author.name!r} is not an admin of this ladder")
    return author


async def ladder_status(service: Service, request: Request) -> JSONResponse:
    """The ladder's name, whether it is paused, who may submit, and how many versions wait."""
    pending = await run_in_threadpool(service.store.pending)
    status = service.league.status
    return JSONResponse(
        {
            "name": service.ladder.league.name,
            "paused": service.store.paused(),
            "submit": service.ladder.settings.submit.value,
            "waiting": len(pending),
            "league": {"state": status.state, "detail": status.detail, "since": status.since},
        }
    )


async def pause(service: Service, request: Request) -> JSONResponse:
    """Admins: stop checking versions (they are still taken), kept across restarts."""
    admin = _admin(service, request)
    service.store.set_paused(True, admin.name)
    service.league.changed()
    return JSONResponse({"paused": True})


async def resume(service: Service, request: Request) -> JSONResponse:
    """Admins: check versions again."""
    admin = _admin(service, request)
    service.store.set_paused(False, admin.name)
    service.queue.wake()
    service.league.changed()
    return JSONResponse({"paused": False})


async def ban(service: Service, request: Request) -> JSONResponse:
    """Admins: ban (``POST``) or unban (``DELETE``) an author."""
    admin = _admin(service, request)
    name = request.path_params["name"]
    banned = request.method == "POST"
    if name == admin.name:
        raise HttpError(400, "an admin cannot ban themselves")
    try:
        service.store.set_banned(name, banned, admin.name)
    except LadderError as e:
        raise HttpError(404, str(e)) from None
    service.league.changed()  # a banned author's bots play no more
    return JSONResponse({"author": name, "banned": banned})


async def retire_bot(service: Service, request: Request) -> JSONResponse:
    """Admins: retire every version of a bot so far (its games keep counting; a later
    version joins again)."""
    admin = _admin(service, request)
    name = request.path_params["bot"]
    try:
        newest = service.store.retire_bot(name, admin.name)
    except LadderError as e:
        raise HttpError(404, str(e)) from None
    service.league.changed()
    return JSONResponse({"bot": name, "retired_through": newest})


async def ban_bot(service: Service, request: Request) -> JSONResponse:
    """Admins: ban (``POST``) a bot, retiring it and refusing its new versions, or lift the ban (``DELETE``)."""
    admin = _admin(service, request)
    name = request.path_params["bot"]
    banned = request.method == "POST"
    try:
        service.store.set_bot_banned(name, banned, admin.name)
    except LadderError as e:
        raise HttpError(404, str(e)) from None
    service.league.changed()
    return JSONResponse({"bot": name, "banned": banned})


async def action_log(service: Service, request: Request) -> JSONResponse:
    """Admins: every action, oldest first, with who did it."""
    _admin(service, request)
    return JSONResponse({"actions": await run_in_threadpool(service.store.actions)})


async def not_found(request: Request, exc: Exception) -> JSONResponse:
    """Unknown paths and methods answer in JSON too."""
    status = getattr(exc, "status_code", 404)
    return JSONResponse({"error": f"{request.method} {request.url.path}: {getattr(exc, 'detail', 'not found')}"}, status_code=status)


def make_app(ladder: Ladder, store: LadderStore, start_queue: bool = True) -> Starlette:
    """The application over ``store``; with ``start_queue`` its check queue and its league
    run while it serves (and are stopped, in that order, when it stops)."""
    league = LeagueLoop(ladder, store)
    queue = CheckQueue(ladder, store, on_verdict=league.changed)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if start_queue:
            queue.start()
            league.start()
        try:
            yield
        finally:
            await run_in_threadpool(queue.stop)
            if start_queue:
                await run_in_threadpool(league.stop)

    app = Starlette(
        routes=[
            Route("/api/bots", _handler(post_bot), methods=["POST"]),
            Route("/api/bots", _handler(list_bots), methods=["GET"]),
            Route("/api/submissions/{sid}", _handler(get_submission), methods=["GET"]),
            Route("/api/ladder", _handler(ladder_status), methods=["GET"]),
            Route("/api/ladder/pause", _handler(pause), methods=["POST"]),
            Route("/api/ladder/resume", _handler(resume), methods=["POST"]),
            Route("/api/authors/{name}/ban", _handler(ban), methods=["POST", "DELETE"]),
            Route("/api/bots/{bot}/retire", _handler(retire_bot), methods=["POST"]),
            Route("/api/bots/{bot}/ban", _handler(ban_bot), methods=["POST", "DELETE"]),
            Route("/api/log", _handler(action_log), methods=["GET"]),
            *page_routes(),
        ],
        exception_handlers={404: not_found, 405: not_found},
        lifespan=lifespan,
    )
    app.state.service = Service(ladder, store, queue, league)
    return app
