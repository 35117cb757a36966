"""``arena serve`` for real: uvicorn on a loopback port, ``arena submit --wait`` over HTTP, a
kill -9 in the middle of a check and a restart that redoes it, SIGTERM that stops it."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.ladder_helpers import ARENA, Server, bot_folder, env, ladder_file
from tests.support.ladder_helpers import submission as _state
from tests.support.ladder_helpers import wait_for_state as _wait_for


@pytest.mark.slow
def test_a_served_ladder_checks_a_submission_and_redoes_one_cut_off_by_kill_9(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=40)
    added = subprocess.run(
        [*ARENA, "serve", str(ladder), "--add-author", "alice"], capture_output=True, text=True, env=env(), timeout=60
    )
    assert added.returncode == 0 and "shown only this once" in added.stderr
    token = added.stdout.strip()
    assert len(token) >= 40 and token not in (home / "results" / "ladder.sqlite").read_bytes().decode("latin-1")
    author_env = {**env(), "ARENA_TOKEN": token}

    first = Server(ladder)
    servers.append(first)
    sent = subprocess.run(
        [*ARENA, "submit", first.url, str(bot_folder(home / "early")), "--command", "python3 random_bot.py"],
        capture_output=True, text=True, env=author_env, timeout=120,
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
        [*ARENA, "submit", second.url, str(bot_folder(home / "late")), "--command", "python3 random_bot.py",
         "--name", "late", "--wait", "--timeout", "10m"],
        capture_output=True, text=True, env=author_env, timeout=900,
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
