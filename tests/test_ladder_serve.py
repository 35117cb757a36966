"""``arena serve`` for real: uvicorn on a loopback port, ``arena submit --wait`` over HTTP, a
kill -9 in the middle of a check and a restart that redoes it, SIGTERM that stops it."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena"]
PENDING = {"received", "unpacked", "built", "checking"}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _ladder_file(folder: Path) -> Path:
    path = folder / "ladder.yaml"
    path.write_text(
        f"""\
name: served
players: 2
format: continuous
time_control: {{move: 3s, startup: 30s}}
output: results
cwd: {REPO}
bots:
  - {{name: house-a, command: {sys.executable} sample_bots/random_bot.py}}
  - {{name: house-b, command: {sys.executable} sample_bots/random_bot.py}}
ladder:
  check: {{conformance_games: 23, concurrency: 2, timeout: 10m}}
"""
    )
    return path


def _bot_folder(folder: Path) -> Path:
    folder.mkdir()
    shutil.copy(REPO / "sample_bots" / "random_bot.py", folder / "random_bot.py")
    return folder


class Server:
    """One ``arena serve --port 0`` process and the URL it printed."""

    def __init__(self, ladder: Path) -> None:
        self.proc = subprocess.Popen(
            [*ARENA, "serve", str(ladder), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_env(),
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline() if ready else ""
        assert "serving on http://127.0.0.1:" in line, line
        self.url = line.split("serving on ")[1].split()[0]

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            return None
        finally:
            assert self.proc.stdout is not None
            self.proc.stdout.close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        s.stop(signal.SIGKILL)


def _state(url: str, sid: int, token: str) -> dict[str, object]:
    r = httpx.get(f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    r.raise_for_status()
    body: dict[str, object] = r.json()
    return body


def _wait_for(url: str, sid: int, token: str, states: set[str], seconds: float) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        sub = _state(url, sid, token)
        if sub["state"] in states or time.monotonic() > deadline:
            return sub
        time.sleep(0.5)


@pytest.mark.slow
def test_a_served_ladder_checks_a_submission_and_redoes_one_cut_off_by_kill_9(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = _ladder_file(home)
    added = subprocess.run(
        [*ARENA, "serve", str(ladder), "--add-author", "alice"], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert added.returncode == 0 and "shown only this once" in added.stderr
    token = added.stdout.strip()
    assert len(token) >= 40 and token not in (home / "results" / "ladder.sqlite").read_bytes().decode("latin-1")
    env = {**_env(), "ARENA_TOKEN": token}

    first = Server(ladder)
    servers.append(first)
    sent = subprocess.run(
        [*ARENA, "submit", first.url, str(_bot_folder(home / "early")), "--command", "python3 random_bot.py"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert sent.returncode == 0 and "submitted early version 1:" in sent.stdout, sent.stdout + sent.stderr
    sub = _wait_for(first.url, 1, token, {"checking", "passed", "failed"}, 120)
    assert sub["state"] == "checking"
    first.stop(signal.SIGKILL)  # mid-check: nothing is lost, nothing is half joined
    cut_off = home / "results" / "submissions" / ".incoming-cut-off"
    cut_off.mkdir()  # as an upload killed before it was numbered leaves it

    second = Server(ladder)
    servers.append(second)
    waited = subprocess.run(
        [*ARENA, "submit", second.url, str(_bot_folder(home / "late")), "--command", "python3 random_bot.py",
         "--name", "late", "--wait", "--timeout", "10m"],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert "PASS  handshake" in waited.stdout and "PASSED: passed the check" in waited.stdout
    early = _wait_for(second.url, 1, token, {"passed", "failed", "refused"}, 600)
    assert early["state"] == "passed", early
    assert early["report"]["passed"] is True  # type: ignore[index]
    assert _state(second.url, 1, "not-a-token").get("report") is None  # only its author sees the report
    assert not cut_off.exists()
    assert second.stop(signal.SIGTERM) == 0  # drains and exits cleanly
    assert not (home / "results" / ".arena-run.lock").exists()
