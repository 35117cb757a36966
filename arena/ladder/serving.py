"""How ``arena serve`` holds its connections: uvicorn's limits, and the one it lacks.

A client that opens connections and sends each request's headers a byte at a time
("slowloris") used to hold every connection for good: uvicorn drops an idle kept-alive
connection after its keep-alive timeout, but any byte cancels that timer, and a new
connection has none at all.  With the open-file limit at 1,024 (systemd's default), 1,100
such connections left no file for anyone else.  So:

- :data:`HEADER_TIMEOUT_S`: a connection gets that long, from when it is opened (or its last
  answer sent), to send a request's whole line and headers, or it is closed
  (:class:`GuardedH11Protocol`);
- :data:`KEEP_ALIVE_S`: an idle kept-alive connection is closed after that (uvicorn's own);
- :func:`connections_limit`: at most that many connections at once (uvicorn answers a
  request past it with 503, and a connection past it is closed as soon as it is accepted),
  below the open-file limit, which the service raises to its hard limit first, so that the
  service's own files (its stores, its children's pipes) are never the ones missing.

A request's body is not timed here: an upload may take minutes on a slow line.  The reverse
proxy in front bounds it (docs/ladder.md says how).
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MOST_CONNECTIONS = 500
RESERVED_FILES = 100  # the service's own: its stores, logs, children's pipes, the listening socket
FEWEST_CONNECTIONS = 16
MOST_OPEN_FILES = 65536  # what the service raises its own limit to, at most


def raise_open_files() -> int:
    """Raise this process's open-file limit to its hard limit (at most
    :data:`MOST_OPEN_FILES`); the limit it has then."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MOST_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, MOST_OPEN_FILES)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return MOST_OPEN_FILES if soft == resource.RLIM_INFINITY else soft


def connections_limit(open_files: int) -> int:
    """The connections served at once under an open-file limit of ``open_files``."""
    return max(FEWEST_CONNECTIONS, min(MOST_CONNECTIONS, open_files - RESERVED_FILES))


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request's line and headers, and
    a connection past the limit closed as soon as it is accepted."""

    header_timeout_s = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._headers_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        limit = self.limit_concurrency
        if limit is not None and len(self.connections) > limit:
            self.transport.close()  # its file is free again at once, not after a timeout
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watch()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Start the headers' deadline when the connection begins waiting for a request;
        end it once the request's headers are in (bytes in between do not move it)."""
        waiting = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
        if waiting and self._headers_deadline is None:
            self._headers_deadline = self.loop.call_later(self.header_timeout_s, self._too_slow)
        elif not waiting:
            self._stop_watch()

    def _stop_watch(self) -> None:
        if self._headers_deadline is not None:
            self._headers_deadline.cancel()
            self._headers_deadline = None

    def _too_slow(self) -> None:
        self._headers_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(app: Any, open_files: int | None = None) -> uvicorn.Config:
    """uvicorn's configuration of ``app`` as ``arena serve`` runs it: its limits (see the
    module's text) under ``open_files`` (None: this process's limit, raised first), no access
    log, the application's own startup and shutdown."""
    return uvicorn.Config(
        app,
        http=GuardedH11Protocol,
        log_level="warning",
        lifespan="on",
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE_S,
        limit_concurrency=connections_limit(raise_open_files() if open_files is None else open_files),
    )
