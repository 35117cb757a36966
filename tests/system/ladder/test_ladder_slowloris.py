"""``arena serve`` under a slowloris (issue 30, item 9): connections that send their headers a
byte at a time, more of them than the server has open files, no longer stop it for everyone.
Each connection has a deadline for its request's headers, so held ones are dropped, and the
connections past the server's limit are closed at once, so its files never run out."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.support.ladder_helpers import Server, ladder_file, wait_until

HELD = 600  # more than the server's open files (512 below)
HALF_SENT = b"GET /api/health HTTP/1.1\r\nHost: ladder\r\nX-Slow: "


def _hold(url: str, count: int) -> list[socket.socket]:
    """``count`` connections, each with half a request sent (those the server closes at once
    are left out)."""
    host, port = url.removeprefix("http://").split(":")
    held = []
    for _ in range(count):
        s = socket.create_connection((host, int(port)), timeout=10)
        try:
            s.sendall(HALF_SENT)
        except OSError:
            s.close()
            continue
        held.append(s)
    return held


def _closed_by_server(s: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``s`` within ``seconds``."""
    s.settimeout(seconds)
    try:
        return s.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def _health(url: str) -> dict[str, object] | None:
    """The ladder's own health answer (not uvicorn's 503 past its limit), or None."""
    try:
        answer = httpx.get(url + "/api/health", timeout=10).json()
    except (httpx.HTTPError, ValueError):
        return None
    return answer if isinstance(answer, dict) and "ok" in answer else None


def _trickle(url: str, lines: int, dropped: threading.Event) -> None:
    """Send one more header line every 0.5 s: the keep-alive timer alone never fires."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: ladder\r\n")
        for i in range(lines):
            try:
                s.sendall(b"X-Slow-%d: x\r\n" % i)
            except OSError:
                dropped.set()
                return
            time.sleep(0.5)
        if _closed_by_server(s, 1):
            dropped.set()


@pytest.mark.slow
def test_held_half_sent_requests_are_dropped_and_others_are_served(tmp_path: Path, servers: list[Server]) -> None:
    ladder = ladder_file(tmp_path, max_games=2)  # its league idles: the connections are the point
    server = Server(argv=["prlimit", "--nofile=512:512", "--", sys.executable, "-m", "arena", "serve", str(ladder), "--port", "0"])
    servers.append(server)
    dropped = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(server.url, 120, dropped), daemon=True)
    trickler.start()
    held = _hold(server.url, HELD)
    try:
        # Others are served again once the held connections' deadline passed (and meanwhile
        # the server's own files did not run out: the next answers are not 500s).
        health = wait_until(lambda: _health(server.url), lambda h: h is not None, 90, every=1.0)
        assert health is not None, "nobody else was served while the half-sent requests were held"
        assert held and _closed_by_server(held[0], 60), "a half-sent request was never dropped"
        trickler.join(90)
        assert dropped.is_set(), "a request whose headers trickle in was never dropped"
    finally:
        for s in held:
            s.close()
    assert server.stop() == 0
