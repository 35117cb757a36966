"""A new version of a bot, from an upload to a numbered version waiting for its check.

One use case for its two doors, ``POST /api/bots`` (:mod:`arena.ladder.api`, a bearer
token) and the upload form (:mod:`arena.ladder.forms`, a session): the ladder's ``submit``
setting, the author's quota (looked at before the body is read, and again under the queue's
lock once its size is known), the archive's size, the form's fields, the bot's name (not a
house bot's, not banned, not another author's), the archive unpacked under the ladder's
limits in a fresh folder, and the version numbered.  What it gives back is a
:class:`Received` value that each door renders its own way; what it refuses is a
:class:`~arena.ladder.service.Refused`.
"""

from __future__ import annotations

import contextlib
import hashlib
import shlex
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.types import Message

from arena.durations import describe_seconds
from arena.errors import ArchiveRefused, ConfigError, LadderError
from arena.ladder import folders
from arena.ladder.folders import ARCHIVE_FILE, INCOMING_PREFIX, UNPACKED
from arena.ladder.names import check_bot_name, version_of
from arena.ladder.service import Refused, Service
from arena.ladder.settings import SubmitPolicy
from arena.ladder.store import Author, State
from arena.ladder.unpack import unpack

MAX_COMMAND_CHARS = 4096
FORM_SLACK_BYTES = 64 * 1024  # the form's other fields and boundaries, beside the archive
HOUR = 3600.0
DAY = 24 * HOUR


@dataclass(frozen=True)
class Received:
    """A version numbered and unpacked, waiting for its check."""

    STATUS: ClassVar[int] = 202  # accepted: its check is still to come

    id: int
    bot: str
    version: int
    state: State

    def to_json(self) -> dict[str, Any]:
        """The API's answer: the version, its state, and where to follow it."""
        return {
            "bot": self.bot,
            "version": self.version,
            "id": self.id,
            "state": self.state.value,
            "status_url": f"/api/submissions/{self.id}",
        }


def may_submit(service: Service, author: Author) -> None:
    """Refuse (403) an author the ladder's ``submit`` setting shuts out."""
    policy = service.ladder.settings.submit
    if policy is SubmitPolicy.NOBODY or (policy is SubmitPolicy.ADMINS and not author.admin):
        raise Refused(403, f"submissions are closed to {'everyone' if policy is SubmitPolicy.NOBODY else 'authors'}")


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
            raise Refused(
                429,
                f"quota: at most {most} versions per {what}; try again in {describe_seconds(retry)}",
                {"Retry-After": str(retry)},
            )
    if day_bytes + size > q.bytes_per_day:
        retry = max(1, int(times[0] + DAY - now) + 1) if times else int(DAY)
        raise Refused(
            429,
            f"quota: at most {q.bytes_per_day} archive bytes per day ({day_bytes} sent); "
            f"try again in {describe_seconds(retry)}",
            {"Retry-After": str(retry)},
        )


def admit(service: Service, author: Author) -> None:
    """What can be refused before the upload is read: the ``submit`` setting, the quota."""
    may_submit(service, author)
    check_quota(service, author, 0, time.time())


async def _bounded_body(request: Request, most: int) -> bytes:
    """The request's body, refused (413) past ``most`` bytes whatever Content-Length says."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > most:
        raise Refused(413, f"the upload is {declared} bytes; this ladder takes archives up to {most - FORM_SLACK_BYTES}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > most:
            raise Refused(413, f"the upload passes {most} bytes; this ladder takes archives up to {most - FORM_SLACK_BYTES}")
        chunks.append(chunk)
    return b"".join(chunks)


@contextlib.asynccontextmanager
async def upload_form(service: Service, request: Request) -> AsyncIterator[dict[str, Any]]:
    """The multipart form of an upload, its body bounded by the ladder's archive limit (413
    past it) and read whole; its spooled files closed after."""
    body = await _bounded_body(request, service.ladder.settings.archive.max_bytes + FORM_SLACK_BYTES)
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
        raise Refused(400, f"cannot read the form: {e}") from None
    try:
        yield dict(form)
    finally:
        await form.close()


def _words(form: dict[str, Any], key: str, required: bool) -> tuple[str, ...] | None:
    value = form.get(key)
    if value is None or value == "":
        if required:
            raise Refused(400, f"the form needs {key!r}")
        return None
    if not isinstance(value, str) or len(value) > MAX_COMMAND_CHARS:
        raise Refused(400, f"{key!r} must be a command of at most {MAX_COMMAND_CHARS} characters")
    try:
        words = tuple(shlex.split(value))
    except ValueError as e:
        raise Refused(400, f"{key!r}: cannot split {value!r} like a shell: {e}") from None
    if not words:
        raise Refused(400, f"{key!r} is empty")
    return words


async def take(service: Service, author: Author, form: dict[str, Any]) -> Received:
    """The version ``form`` sends, by ``author`` (already admitted): checked, unpacked and
    numbered, and the queue told."""
    limits = service.ladder.settings.archive
    archive = form.get("archive")
    if not isinstance(archive, UploadFile):
        raise Refused(400, "the form needs 'archive': the bot's folder as a .tar.gz or .zip file")
    data = await archive.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise Refused(413, f"the archive passes {limits.max_bytes} bytes, this ladder's limit")
    try:
        name = check_bot_name(str(form.get("name") or ""))
    except ConfigError as e:
        raise Refused(400, f"bot {e}") from None
    house = service.house
    if name in house or any((version_of(h) or ("",))[0] == name for h in house):
        raise Refused(409, f"bot {name!r} is a bot of the league itself; choose another name")
    if service.store.bot_flags().get(name, (0, False))[1]:
        raise Refused(403, f"bot {name!r} is banned from this ladder")
    command = _words(form, "command", required=True)
    assert command is not None
    build = _words(form, "build", required=False)
    check_quota(service, author, len(data), time.time())
    received = await run_in_threadpool(
        _receive, service, author, name, command, build, (archive.filename or "archive", data)
    )
    service.queue.wake()
    return received


def _receive(
    service: Service,
    author: Author,
    name: str,
    command: tuple[str, ...],
    build: tuple[str, ...] | None,
    upload: tuple[str, bytes],
) -> Received:
    """Unpack the archive in a fresh folder, then number the version (refused or received)."""
    filename, data = upload
    root = service.ladder.folder / folders.SUBMISSIONS
    incoming = Path(tempfile.mkdtemp(prefix=INCOMING_PREFIX, dir=root))
    # Unpacked in the versions' folder, beside the results folder, never inside it.
    service.ladder.versions_folder.mkdir(parents=True, exist_ok=True)
    unpacking = Path(tempfile.mkdtemp(prefix=INCOMING_PREFIX, dir=service.ladder.versions_folder))
    refusal: ArchiveRefused | None = None
    try:
        (incoming / ARCHIVE_FILE).write_bytes(data)
        try:
            unpack(data, unpacking / UNPACKED, service.ladder.settings.archive, filename)
        except ArchiveRefused as e:
            refusal = e
        digest = hashlib.sha256(data).hexdigest()
        with service.queue.intake:
            # Again under the lock: two uploads at once must not both fit the last place.
            check_quota(service, author, len(data), time.time())

            def place(sid: int) -> None:
                # Before the version is committed (see add_submission): a folder already there
                # has no version, left by a crash between these renames and the commit.
                _move(incoming, folders.submission_folder(service.ladder.folder, sid))
                if refusal is None:
                    _move(unpacking / UNPACKED, service.ladder.version_folder(sid))

            try:
                sub = service.store.add_submission(
                    author,
                    name,
                    command,
                    build,
                    (filename[:200], len(data), digest),
                    State.UNPACKED if refusal is None else State.REFUSED,
                    None if refusal is None else str(refusal),
                    place,
                )
            except LadderError as e:
                raise Refused(409, str(e)) from None
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
        shutil.rmtree(unpacking, ignore_errors=True)
    if refusal is not None:
        raise Refused(400, str(refusal))
    return Received(sub.id, sub.bot, sub.version, State.UNPACKED)


def _move(folder: Path, target: Path) -> None:
    """Move ``folder`` to ``target``, replacing what a crash left there."""
    shutil.rmtree(target, ignore_errors=True)
    folder.rename(target)
