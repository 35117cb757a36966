"""``arena serve --add-author/--ban`` and ``arena submit``'s refusals, in process: a token
printed once and alone on stdout, every mistake one line and exit code 2."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.ladder_cmds import listening_socket
from arena.ladder.store import LadderStore
from arena.league.config.sections import is_loopback_host

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def ladder_file(tmp_path: Path) -> Path:
    path = tmp_path / "ladder.yaml"
    path.write_text(
        f"""\
name: t
players: 2
format: continuous
cwd: {REPO}
output: results
bots:
  - {{name: one, command: {sys.executable} sample_bots/random_bot.py}}
  - {{name: two, command: {sys.executable} sample_bots/random_bot.py}}
ladder: {{}}
"""
    )
    return path


def test_add_author_prints_the_token_alone_once_and_keeps_its_hash(ladder_file: Path) -> None:
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "alice"])
    assert done.exit_code == 0, done.output
    token = done.stdout.strip()
    assert done.stdout == token + "\n" and "shown only this once" in done.stderr
    store = LadderStore.open(ladder_file.parent / "results")
    found = store.author_by_token(token)
    assert found is not None and found.name == "alice" and not found.admin
    again = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "alice"])
    assert again.exit_code == 2 and "author 'alice' exists already" in again.stderr
    admin = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "org", "--admin"])
    org = store.author_by_token(admin.stdout.strip())
    assert org is not None and org.admin


def test_ban_refuses_the_authors_token_from_then_on(ladder_file: Path) -> None:
    token = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "bob"]).stdout.strip()
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--ban", "bob"])
    assert done.exit_code == 0 and "author 'bob' banned" in done.stdout
    found = LadderStore.open(ladder_file.parent / "results").author_by_token(token)
    assert found is not None and found.banned
    unknown = CliRunner().invoke(main, ["serve", str(ladder_file), "--ban", "nobody"])
    assert unknown.exit_code == 2 and "no author 'nobody'" in unknown.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--add-author", "bad name"], "name 'bad name': must be 1-64 of"),
        (["--admin"], "--admin goes with --add-author NAME"),
    ],
    ids=["bad-name", "admin-alone"],
)
def test_serve_refuses_bad_options_in_one_line(ladder_file: Path, args: list[str], needle: str) -> None:
    done = CliRunner().invoke(main, ["serve", str(ladder_file), *args])
    assert done.exit_code == 2 and needle in done.stderr


def test_serve_refuses_a_file_without_a_ladder_section(ladder_file: Path) -> None:
    ladder_file.write_text(ladder_file.read_text().replace("ladder: {}\n", ""))
    done = CliRunner().invoke(main, ["serve", str(ladder_file), "--add-author", "x"])
    assert done.exit_code == 2 and "needs a 'ladder' section" in done.stderr


def test_submit_needs_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    done = CliRunner().invoke(main, ["submit", "http://127.0.0.1:9", str(tmp_path), "--command", "./bot"])
    assert done.exit_code == 2 and "no token: set ARENA_TOKEN or give --token-file" in done.stderr


def test_submit_refuses_a_folder_it_cannot_send_before_any_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TOKEN", "t")
    bot = tmp_path / "bot"
    bot.mkdir()
    os.mkfifo(bot / "pipe")
    done = CliRunner().invoke(main, ["submit", "http://127.0.0.1:9", str(bot), "--command", "./bot"])
    assert done.exit_code == 2 and "cannot send" in done.stderr and "a special file" in done.stderr


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


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("127.1.2.3", True), ("0.0.0.0", False), ("192.0.2.1", False), ("example.org", False)],
)
def test_only_loopback_addresses_serve_without_a_warning(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


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
