"""A new version of a bot, from an upload to a numbered version waiting for its check.

One use case for its two doors, ``POST /api/bots`` (:mod:`arena.ladder.api`, a bearer
token) and the upload form (:mod:`arena.ladder.forms`, a session), in this order:

1. before the body is read: the deadline (and the final), the ladder's ``submit`` setting, a place among the uploads being
   received (a few of one author's, and of everyone's, at once), and the author's quota (the
   author's uploads being received count in it, and ``Content-Length`` in its bytes);
2. the form, read as it arrives (:mod:`arena.ladder.upload`), its archive written straight to
   disk; the bot's name (not a house bot's, not banned, not another author's) is refused
   before the archive is read when the form sends it first, as the ladder's form and
   ``arena submit`` do;
3. the archive unpacked under the ladder's limits in a fresh folder, the quota looked at again
   under the queue's lock, and the version numbered.

What it gives back is a :class:`Received` value that each door renders its own way; what it
refuses is a :class:`~arena.ladder.service.Refused`.
"""

from __future__ import annotations

import datetime as dt
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from arena.durations import describe_seconds
from arena.errors import ArchiveRefused, ConfigError, LadderError
from arena.game.convention import resolve
from arena.ladder import folders
from arena.ladder.deadline import closed
from arena.ladder.folders import ARCHIVE_FILE, INCOMING_PREFIX, UNPACKED
from arena.ladder.names import check_bot_name, version_of
from arena.ladder.service import UPLOAD_RETRY_S, Place, Refused, Service
from arena.ladder.settings import SubmitPolicy
from arena.ladder.store import Author, State
from arena.ladder.unpack import unpack
from arena.ladder.upload import Upload, read_upload

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
    """Refuse (403) every author once the deadline has passed or the final has started, and an
    author the ladder's ``submit`` setting shuts out."""
    why = closed(service.ladder, service.store, dt.datetime.now(dt.UTC))
    if why is not None:
        raise Refused(403, why)
    policy = service.ladder.settings.submit
    if policy is SubmitPolicy.NOBODY or (policy is SubmitPolicy.ADMINS and not author.admin):
        raise Refused(403, f"submissions are closed to {'everyone' if policy is SubmitPolicy.NOBODY else 'authors'}")


def check_quota(service: Service, author: Author, size: int, now: float, receiving: int = 0) -> None:
    """Refuse (429, with Retry-After) a version over the author's hourly, daily or byte quota;
    ``receiving``: the author's other uploads being received, each a version to come."""
    if author.admin:
        return
    q = service.ladder.settings.quotas
    times, day_bytes = service.store.recent(author, now - DAY)
    last_hour = [t for t in times if t >= now - HOUR]
    for window, seen, most, what in ((HOUR, last_hour, q.versions_per_hour, "hour"), (DAY, times, q.versions_per_day, "day")):
        if len(seen) + receiving >= most:
            first = len(seen) + receiving - most  # the version whose time frees a place
            retry = max(1, int(seen[first] + window - now) + 1) if first < len(seen) else UPLOAD_RETRY_S
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


def _declared_archive_bytes(request: Request) -> int:
    """The archive's bytes at least, as ``Content-Length`` says them (0 when it says none)."""
    declared = request.headers.get("content-length", "")
    return max(0, int(declared) - FORM_SLACK_BYTES) if declared.isascii() and declared.isdigit() else 0


def bot_name(service: Service, author: Author, raw: str) -> str:
    """``raw`` if it is a name ``author`` may send a version under: a bot's name that is no
    house bot's, not banned, and not another author's; else Refused (400, 403 or 409)."""
    try:
        name = check_bot_name(raw)
    except ConfigError as e:
        raise Refused(400, f"bot {e}") from None
    house = service.house
    if name in house or any((version_of(h) or ("",))[0] == name for h in house):
        raise Refused(409, f"bot {name!r} is a bot of the league itself; choose another name")
    if service.store.bot_flags().get(name, (0, False))[1]:
        raise Refused(403, f"bot {name!r} is banned from this ladder")
    owner = service.store.bot_owner(name)
    if owner is not None and owner != author.name:
        raise Refused(409, f"bot {name!r} belongs to another author; choose another name")
    return name


def _words(fields: dict[str, str], key: str, required: bool) -> tuple[str, ...] | None:
    value = fields.get(key)
    if value is None or value == "":
        if required:
            raise Refused(400, f"the form needs {key!r}")
        return None
    if len(value) > MAX_COMMAND_CHARS:
        raise Refused(400, f"{key!r} must be a command of at most {MAX_COMMAND_CHARS} characters")
    if "\x00" in value:  # no program takes one, and the league's file reader refuses it
        raise Refused(400, f"{key!r} holds a NUL character")
    try:
        words = tuple(shlex.split(value))
    except ValueError as e:
        raise Refused(400, f"{key!r}: cannot split {value!r} like a shell: {e}") from None
    if not words:
        raise Refused(400, f"{key!r} is empty")
    return words


async def take(
    service: Service,
    author: Author,
    request: Request,
    check: Callable[[dict[str, str]], None] = lambda _fields: None,
    fields: dict[str, str] | None = None,
    by: str | None = None,
) -> Received:
    """The version ``request`` uploads, by ``author``: admitted, read, checked, unpacked and
    numbered, and the queue told.  ``check(fields)`` (a form's CSRF token) runs once, on the
    fields sent before the archive (or on all of them, when none is sent); the fields go
    into ``fields`` as they arrive; ``by`` names the member who sent it in the log."""
    may_submit(service, author)
    limits = service.ladder.settings.archive
    with service.uploads.taking(author.name) as place:
        check_quota(service, author, _declared_archive_bytes(request), time.time(), place.others())
        checked = False

        def before_archive(sent: dict[str, str]) -> None:
            nonlocal checked
            checked = True
            check(sent)
            if "name" in sent:
                bot_name(service, author, sent["name"])

        root = service.ladder.folder / folders.SUBMISSIONS
        incoming = Path(tempfile.mkdtemp(prefix=INCOMING_PREFIX, dir=root))
        try:
            upload = await read_upload(
                request, incoming / ARCHIVE_FILE, limits.max_bytes, limits.max_bytes + FORM_SLACK_BYTES, before_archive, fields
            )
            if not checked:
                check(upload.fields)
            if upload.archive is None:
                raise Refused(400, "the form needs 'archive': the bot's folder as a .tar.gz or .zip file")
            name = bot_name(service, author, upload.fields.get("name", ""))
            command = _words(upload.fields, "command", required=False)  # None: the archive's bot.toml or main file says
            build = _words(upload.fields, "build", required=False)
            check_quota(service, author, upload.size, time.time(), place.others())
            received = await run_in_threadpool(_receive, service, author, (name, command, build), upload, incoming, place, by)
        finally:
            shutil.rmtree(incoming, ignore_errors=True)
    service.queue.wake()
    return received


def _receive(
    service: Service,
    author: Author,
    version: tuple[str, tuple[str, ...] | None, tuple[str, ...] | None],
    upload: Upload,
    incoming: Path,
    place: Place,
    by: str | None = None,
) -> Received:
    """Unpack the archive kept in ``incoming`` in a fresh folder, then number the version
    (refused or received)."""
    name, command, build = version
    assert upload.archive is not None
    filename = upload.filename or "archive"
    # Unpacked in the versions' folder, beside the results folder, never inside it.
    service.ladder.versions_folder.mkdir(parents=True, exist_ok=True)
    unpacking = Path(tempfile.mkdtemp(prefix=INCOMING_PREFIX, dir=service.ladder.versions_folder))
    refusal: ArchiveRefused | None = None
    try:
        try:
            unpack(upload.archive, unpacking / UNPACKED, service.ladder.settings.archive, filename)
        except ArchiveRefused as e:
            refusal = e
        if command is None and refusal is None:
            try:
                found = resolve(unpacking / UNPACKED, shown="the archive")
            except ConfigError as e:
                raise Refused(400, f"no 'command' given, and {e}") from None
            command, build = found.command, build or found.build
            # The form's bound holds for a bot.toml's command too: it is what a version adds
            # to the league (issue 30).
            if len(shlex.join(command)) > MAX_COMMAND_CHARS or any("\x00" in w for w in command):
                raise Refused(
                    400, f"the archive's command must be at most {MAX_COMMAND_CHARS} characters, with no NUL"
                )
        with service.queue.intake:
            # Again under the lock: two uploads at once must not both fit the last place.
            check_quota(service, author, upload.size, time.time(), place.others())

            def move_into_place(sid: int) -> None:
                # Before the version is committed (see add_submission): a folder already there
                # has no version, left by a crash between these renames and the commit.
                _move(incoming, folders.submission_folder(service.ladder.folder, sid))
                if refusal is None:
                    _move(unpacking / UNPACKED, service.ladder.version_folder(sid))

            try:
                sub = service.store.add_submission(
                    author,
                    name,
                    command or (),
                    build,
                    (filename[:200], upload.size, upload.sha256),
                    State.UNPACKED if refusal is None else State.REFUSED,
                    None if refusal is None else str(refusal),
                    move_into_place,
                    by,
                )
            except LadderError as e:
                raise Refused(409, str(e)) from None
            place.give_back()  # stored: from now on the version itself counts in the quota
    finally:
        shutil.rmtree(unpacking, ignore_errors=True)
    if refusal is not None:
        raise Refused(400, str(refusal))
    return Received(sub.id, sub.bot, sub.version, State.UNPACKED)


def _move(folder: Path, target: Path) -> None:
    """Move ``folder`` to ``target``, replacing what a crash left there."""
    shutil.rmtree(target, ignore_errors=True)
    folder.rename(target)
