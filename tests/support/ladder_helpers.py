"""What the ladder's tests share: a ladder file, a bot folder, an ``arena serve`` process on a
loopback port, and waiting for a submission's state."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena"]
PENDING = {"received", "unpacked", "built", "checking"}
VERDICTS = {"passed", "failed", "refused"}


def env() -> dict[str, str]:
    """The environment the arena's processes get: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": str(REPO)}


def ladder_file(
    folder: Path,
    max_games: int = 2000,
    house_b: str = f"{sys.executable} sample_bots/random_bot.py",
    move: str = "3s",
    strength_games: int | None = None,
    confidence: float | None = None,
) -> Path:
    """A 2-player ladder in ``folder`` whose league stops after ``max_games``, ``move`` a move;
    the house bots start at the repository's root.  With ``strength_games``, the check plays
    that many games of its strength part and passes any score (for tests whose point is not
    the gate: each check costs a few games instead of twenty).  With ``confidence``, the
    league's (near 1, two equal bots are never settled in a test's time: at the default 95%
    they are ordered by chance in up to 5% of leagues)."""
    gate = "" if strength_games is None else f", games: {strength_games}, min_points: 0"
    sure = "" if confidence is None else f"confidence: {confidence}\n"
    path = folder / "ladder.yaml"
    path.write_text(
        f"""\
name: served
players: 2
format: continuous
max_games: {max_games}
{sure}time_control: {{move: {move}, startup: 30s}}
output: results
cwd: {REPO}
bots:
  - {{name: house-a, command: {sys.executable} sample_bots/random_bot.py}}
  - {{name: house-b, command: {house_b}}}
ladder:
  check: {{conformance_games: 23, concurrency: 2, timeout: 10m{gate}}}
"""
    )
    return path


def bot_folder(folder: Path) -> Path:
    """A folder holding the sample random bot (``python3 random_bot.py``)."""
    folder.mkdir()
    shutil.copy(REPO / "sample_bots" / "random_bot.py", folder / "random_bot.py")
    return folder


def add_author(ladder: Path, name: str, admin: bool = False) -> str:
    """Add an author with ``arena serve --add-author``; their token."""
    added = subprocess.run(
        [*ARENA, "serve", str(ladder), "--add-author", name, *(["--admin"] if admin else [])],
        capture_output=True, text=True, env=env(), timeout=60,
    )  # fmt: skip
    assert added.returncode == 0 and "shown only this once" in added.stderr, added.stderr
    return added.stdout.strip()


class Server:
    """One ``arena serve --port 0`` process and the URL it printed (``argv`` and ``cwd``: a
    command line of the docs' own, run where the docs run it)."""

    def __init__(self, ladder: Path | None = None, argv: list[str] | None = None, cwd: Path | None = None) -> None:
        assert (ladder is None) != (argv is None), "a ladder file or a command line"
        self.proc = subprocess.Popen(
            argv or [*ARENA, "serve", str(ladder), "--port", "0"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env(),
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        line = self.proc.stdout.readline() if ready else ""
        if "serving on http://127.0.0.1:" not in line:
            os.killpg(self.proc.pid, signal.SIGKILL)  # none of it may outlive the failure
            self.proc.wait(10)
            self.proc.stdout.close()
            raise AssertionError(f"arena serve did not start: {line!r}")
        self.url = line.split("serving on ")[1].split()[0]
        # Its console, read as it comes (an unread pipe would fill and stop the service).
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def get(self, path: str) -> Any:
        """The answer to ``GET path``: JSON as a value, anything else as text."""
        r = httpx.get(self.url + path, timeout=30)
        return r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        """Send ``sig`` and wait for the exit code (None: it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(90)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            return None
        finally:
            self._reader.join(10)
            assert self.proc.stdout is not None
            self.proc.stdout.close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """The servers a test starts; each is killed at the end (when the test did not stop it)."""
    started: list[Server] = []
    yield started
    for s in started:
        if s.proc.poll() is None:
            s.stop(signal.SIGKILL)


def submission(url: str, sid: int, token: str) -> dict[str, Any]:
    """``GET /api/submissions/SID`` as ``token`` sees it."""
    r = httpx.get(f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    r.raise_for_status()
    body: dict[str, Any] = r.json()
    return body


def wait_for_state(url: str, sid: int, token: str, states: set[str], seconds: float) -> dict[str, Any]:
    """The submission once it is in one of ``states``, or as it is after ``seconds``."""
    return wait_until(lambda: submission(url, sid, token), lambda s: s["state"] in states, seconds)


def wait_until(get: Callable[[], Any], done: Callable[[Any], bool], seconds: float, every: float = 0.5) -> Any:
    """``get()`` once ``done`` holds for it, or its last value after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = get()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(every)


def standings_rows(results: Path) -> dict[str, dict[str, Any]]:
    """The rows of ``results/standings.json`` by bot ({} before it is written)."""
    try:
        data = json.loads((results / "standings.json").read_text())
    except (OSError, ValueError):
        return {}
    return {r["bot"]: r for r in data.get("rows", [])}


@dataclass(frozen=True)
class Reading:
    """One answer a reader got (or the error it got instead), and how long it took."""

    path: str
    seconds: float
    response: httpx.Response | None
    error: str | None


def read_concurrently(url: str, paths: Sequence[str], readers: int, seconds: float) -> list[Reading]:
    """``readers`` readers, one kept-alive connection each, fetching ``paths`` in turn for
    ``seconds``: every answer they got.

    Each connection is made and used once before the clock starts: on a shared machine a
    loopback connect now and then goes unanswered for seconds whatever the server (seen with an
    idle ``python -m http.server``), and what is timed is the server's answers."""
    return asyncio.run(_read_concurrently(url, paths, readers, seconds))


async def _read_concurrently(url: str, paths: Sequence[str], readers: int, seconds: float) -> list[Reading]:
    readings: list[Reading] = []
    clients = [httpx.AsyncClient(base_url=url, timeout=60) for _ in range(readers)]

    async def reader(client: httpx.AsyncClient, first: int, deadline: float) -> None:
        k = first
        while time.perf_counter() < deadline:
            path = paths[k % len(paths)]
            k += 1
            began = time.perf_counter()
            try:
                r = await client.get(path)
            except httpx.HTTPError as e:
                readings.append(Reading(path, time.perf_counter() - began, None, repr(e)))
                continue
            readings.append(Reading(path, time.perf_counter() - began, r, None))

    try:
        await asyncio.gather(*(c.get(paths[0]) for c in clients))
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(reader(c, i, deadline) for i, c in enumerate(clients)))
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
    return readings


class LifespanFailed(AssertionError):
    """The application's startup or shutdown failed: the message it sent."""


@contextlib.asynccontextmanager
async def running(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """``app`` as a server runs it: its lifespan's startup, a client of it, then its shutdown
    (httpx's ASGI transport alone skips the lifespan); LifespanFailed if either fails."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def receive() -> dict[str, Any]:
        return await inbox.get()

    async def send(message: dict[str, Any]) -> None:
        await outbox.put(message)

    async def answer(expected: str) -> None:
        message = await asyncio.wait_for(outbox.get(), 60)
        if message["type"] != expected:
            raise LifespanFailed(f"{message['type']}: {message.get('message', '')}")

    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send))
    await inbox.put({"type": "lifespan.startup"})
    await answer("lifespan.startup.complete")
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ladder.test") as client:
            yield client
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        try:
            await answer("lifespan.shutdown.complete")
        finally:
            with contextlib.suppress(Exception):  # the failure is the message above
                await asyncio.wait_for(task, 60)
