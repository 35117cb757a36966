"""An upload's multipart form, read as it arrives: its text fields kept, its archive written
straight to a file, nothing held whole in memory.

The body is bounded (413 past it, whatever ``Content-Length`` says), so is each text field,
their number, and the archive's own size; when the archive's part begins, a check is given
the fields sent before it, before a byte of the archive is read (a form sends its name first), so that an upload that can be
refused by its name is refused before its archive is read.  The archive's SHA-256 is taken
while it is written.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from arena.ladder.service import Refused

FIELD_MAX_BYTES = 16 * 1024  # a command is at most 4096 characters: anything longer is not one
MAX_FIELDS = 8
ARCHIVE_FIELD = "archive"


@dataclass
class Upload:
    """What an upload sent: its text fields, and its archive (None: it sent none)."""

    fields: dict[str, str]
    archive: Path | None = None
    filename: str = ""
    size: int = 0
    sha256: str = ""


class _Part:
    """The part being read: its name, and whether it is the archive."""

    def __init__(self) -> None:
        self.disposition = b""
        self.name = ""
        self.is_file = False
        self.data = bytearray()


class _Reader:
    """The multipart parser's callbacks: text fields into ``upload.fields``, the archive's
    bytes into its file (a descriptor), each bound checked as it grows."""

    def __init__(
        self, upload: Upload, target: Path, archive_most: int, charset: str, before_archive: Callable[[dict[str, str]], None]
    ) -> None:
        self.upload = upload
        self.before_archive = before_archive
        self.target = target
        self.archive_most = archive_most
        self.charset = charset
        self.part = _Part()
        self.header_name = b""
        self.header_value = b""
        self.fd: int | None = None
        self.digest = hashlib.sha256()
        self.files = 0

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def on_part_begin(self) -> None:
        self.part = _Part()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def on_header_end(self) -> None:
        if self.header_name.lower() == b"content-disposition":
            self.part.disposition = self.header_value
        self.header_name = self.header_value = b""

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self.part.disposition)
        name = options.get(b"name")
        if name is None:
            raise Refused(400, "cannot read the form: a part without a name")
        self.part.name = name.decode(self.charset, "replace")
        if b"filename" in options:
            self.files += 1
            if self.files > 1 or self.part.name != ARCHIVE_FIELD:
                raise Refused(400, f"the form sends one file, as {ARCHIVE_FIELD!r}")
            self.part.is_file = True
            self.upload.filename = options[b"filename"].decode(self.charset, "replace")
            self.before_archive(dict(self.upload.fields))  # before a byte of it is read
            self.fd = os.open(self.target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        elif len(self.upload.fields) >= MAX_FIELDS:
            raise Refused(400, f"the form has more than {MAX_FIELDS} fields")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        chunk = data[start:end]
        if not self.part.is_file:
            self.part.data += chunk
            if len(self.part.data) > FIELD_MAX_BYTES:
                raise Refused(400, f"the form's field {self.part.name[:40]!r} passes {FIELD_MAX_BYTES} bytes")
            return
        self.upload.size += len(chunk)
        if self.upload.size > self.archive_most:
            raise Refused(413, f"the archive passes {self.archive_most} bytes, this ladder's limit")
        self.digest.update(chunk)
        assert self.fd is not None
        view = memoryview(chunk)
        while view:
            view = view[os.write(self.fd, view) :]

    def on_part_end(self) -> None:
        if self.part.is_file:
            self.close()
            self.upload.archive = self.target
            self.upload.sha256 = self.digest.hexdigest()
        else:
            self.upload.fields[self.part.name] = self.part.data.decode(self.charset, "replace")


async def read_upload(
    request: Request,
    target: Path,
    archive_most: int,
    body_most: int,
    before_archive: Callable[[dict[str, str]], None],
    fields: dict[str, str] | None = None,
) -> Upload:
    """The upload ``request`` sends, its archive written to ``target`` (at most
    ``archive_most`` bytes, the body at most ``body_most``); ``before_archive(fields)`` runs
    when the archive's part begins, with the fields sent before it, and may refuse.  The text
    fields go into ``fields`` as they arrive (a form refused shows them again).  A body that
    is not a multipart form sends no field and no archive."""
    upload = Upload({} if fields is None else fields)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > body_most:
        raise Refused(413, f"the upload is {declared} bytes; this ladder takes archives up to {archive_most}")
    content_type, params = parse_options_header(request.headers.get("content-type", ""))
    if content_type != b"multipart/form-data":
        return upload
    boundary = params.get(b"boundary")
    if not boundary:
        raise Refused(400, "cannot read the form: no boundary in its Content-Type")
    charset = params.get(b"charset", b"utf-8").decode("latin-1")
    try:
        charset = codecs.lookup(charset).name
    except LookupError:
        charset = "utf-8"
    reader = _Reader(upload, target, archive_most, charset, before_archive)
    callbacks = {
        "on_part_begin": reader.on_part_begin,
        "on_part_data": reader.on_part_data,
        "on_part_end": reader.on_part_end,
        "on_header_field": reader.on_header_field,
        "on_header_value": reader.on_header_value,
        "on_header_end": reader.on_header_end,
        "on_headers_finished": reader.on_headers_finished,
    }
    size = 0
    try:
        parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
        async for chunk in request.stream():
            size += len(chunk)
            if size > body_most:
                raise Refused(413, f"the upload passes {body_most} bytes; this ladder takes archives up to {archive_most}")
            parser.write(chunk)
        parser.finalize()
    except FormParserError as e:
        raise Refused(400, f"cannot read the form: {e}") from None
    finally:
        reader.close()
    return upload
