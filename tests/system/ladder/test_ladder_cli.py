"""``arena serve --add-author/--ban`` and ``arena submit``'s refusals, in process: a token
printed once and alone on stdout, every mistake one line and exit code 2.

The cases that start processes; the others are in tests/unit/ladder/test_ladder_cli.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.ladder_cmds import listening_socket
from tests.support.ladder_helpers import Server, ladder_file


def test_submit_to_a_server_that_hangs_up_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TOKEN", "t")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        url = f"http://127.0.0.1:{s.getsockname()[1]}"

        def hang_up() -> None:  # a server that closes every connection without an answer
            with contextlib.suppress(OSError):
                conn, _ = s.accept()
                conn.close()

        closer = threading.Thread(target=hang_up)
        closer.start()
        done = CliRunner().invoke(main, ["submit", url, str(tmp_path), "--command", "./bot", "--name", "b"])
        closer.join(30)
    assert done.exit_code == 2 and f"{url}/api/bots: cannot send the bot" in done.stderr


def test_a_client_that_connects_as_the_service_says_where_it_serves_is_never_refused(
    tmp_path: Path, servers: list[Server]
) -> None:
    """``arena serve`` prints its address once its socket listens: a connection made on that
    line waits while the service starts, where one to a socket only bound was refused."""
    server = Server(ladder_file(tmp_path, max_games=2))
    servers.append(server)
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=60) as conn:  # refused: ConnectionRefusedError
        conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        conn.settimeout(60)
        assert conn.recv(64).startswith(b"HTTP/1.1 "), "the service took the connection and never answered"
    sock = listening_socket("127.0.0.1", 0)
    try:  # listening already, before any server runs on it
        with socket.create_connection(sock.getsockname()[:2], timeout=30):
            pass
    finally:
        sock.close()


def test_the_services_connections_send_each_answer_at_once() -> None:
    # uvicorn serves on this socket through asyncio, which sets TCP_NODELAY only on the
    # connections of a socket made as TCP by name; without it each answer on a kept-alive
    # connection waited for the client's delayed ACK (some 40 ms).
    sock = listening_socket("127.0.0.1", 0)
    nodelay: list[int] = []

    class Accepted(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            nodelay.append(
                transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            )
            transport.close()

    async def connect_once() -> None:
        server = await asyncio.get_running_loop().create_server(Accepted, sock=sock)
        async with server:
            reader, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            await reader.read()  # until the server closes it
            writer.close()

    asyncio.run(asyncio.wait_for(connect_once(), 60))
    assert nodelay and nodelay[0] != 0


def test_waiting_for_a_verdict_rides_out_a_ladder_that_drops_connections() -> None:
    """A restart of the service (or a connect that fails) mid-check does not end the wait."""
    from arena.ladder.client import wait_for_verdict

    answers = [b"", b"", b'{"state": "checking"}', b"", b'{"state": "passed", "reason": "passed the check"}']
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        url = f"http://127.0.0.1:{s.getsockname()[1]}"

        def serve() -> None:  # hangs up without an answer where the list says b""
            for body in answers:
                conn, _ = s.accept()
                with conn:
                    conn.recv(65536)
                    if body:
                        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                        conn.sendall(head.encode() + body)

        server = threading.Thread(target=serve, daemon=True)
        server.start()
        seen: list[str] = []
        sub = wait_for_verdict(url, "t", "/api/submissions/1", 120, seen.append)
        server.join(30)
    assert sub["state"] == "passed"
    # Each loss is said once, until an answer comes again.
    assert ["lost" if t.startswith("(cannot reach the ladder: ") else t for t in seen] == ["lost", "checking", "lost", "passed"]
