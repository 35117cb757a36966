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
