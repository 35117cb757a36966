"""The contest's end, for real: a served ladder whose deadline passes refuses a submission
with a message saying so; the final tournament of each author's last passing version runs to
its end on the ladder's league settings, survives a kill -9 of the service with no game
played twice, and is published on /final and in ``arena standings --format csv``.

The cases without processes are in tests/unit/ladder/test_ladder_final.py.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import signal
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.ladder_helpers import ARENA, Server, add_author, bot_folder, env, ladder_file, wait_until

AUTHORS = ("ada", "bea", "cy")
ROUNDS = 4  # 3 authors, 2 players: 3 meetings x 2 seat orders x 4 rounds = 24 games


def _games(folder: Path) -> dict[str, str]:
    """Each stored game's id and a digest of its record ({} before the store exists)."""
    if not (folder / "results.sqlite").is_file():
        return {}
    with sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True, timeout=30) as c:
        return {g: hashlib.sha256(r.encode()).hexdigest() for g, r in c.execute("SELECT game_id, record FROM games")}


def _final(url: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx.get(f"{url}/api/final", timeout=30).json()
    return body


def _submit(url: str, token: str, folder: Path, name: str, wait: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ARENA, "submit", url, str(folder), "--command", "python3 random_bot.py", "--name", name,
         *(["--wait", "--timeout", "15m"] if wait else [])],
        capture_output=True, text=True, env={**env(), "ARENA_TOKEN": token}, timeout=1000,
    )  # fmt: skip


@pytest.mark.slow
def test_the_deadline_closes_submissions_and_the_final_runs_resumes_after_kill_9_and_is_published(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=30, move="2s", strength_games=2)
    ladder.write_text(ladder.read_text() + f"  final: {{rounds: {ROUNDS}}}\n")
    final = home / "results-final"
    tokens = {a: add_author(ladder, a) for a in AUTHORS}
    admin = {"Authorization": f"Bearer {add_author(ladder, 'org', admin=True)}"}
    first = Server(ladder)
    servers.append(first)

    # Each author's bot passes its check (sent at once: the queue takes them in turn).
    with ThreadPoolExecutor(len(AUTHORS)) as pool:
        sent = list(pool.map(lambda a: _submit(first.url, tokens[a], bot_folder(home / a), f"{a}-bot", True), AUTHORS))
    for s in sent:
        assert s.returncode == 0 and "PASSED" in s.stdout, s.stdout + s.stderr

    # The organiser sets a deadline a moment away; once it passes a version is refused, saying so.
    soon = (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=2)).isoformat()
    bad = httpx.post(f"{first.url}/api/deadline", json={"deadline": "friday"}, headers=admin, timeout=30)
    assert bad.status_code == 400 and "'friday' is not a time" in bad.json()["error"], bad.text
    not_admin = httpx.post(f"{first.url}/api/deadline", json={"deadline": soon}, headers={"Authorization": f"Bearer {tokens['ada']}"}, timeout=30)
    assert not_admin.status_code == 403
    set_ = httpx.post(f"{first.url}/api/deadline", json={"deadline": soon}, headers=admin, timeout=30)
    assert set_.status_code == 200, set_.text
    state = wait_until(lambda: _final(first.url), lambda f: f["submissions"] != "open", 60)
    assert state["submissions"].startswith("submissions are closed: the deadline ("), state
    late = _submit(first.url, tokens["ada"], home / "ada", "ada-bot", False)
    assert late.returncode != 0, late.stdout
    assert "403" in late.stderr + late.stdout and "the deadline (" in late.stderr + late.stdout and "has passed" in late.stderr + late.stdout
    assert 'the deadline (' in httpx.get(f"{first.url}/final", timeout=30).text

    # The organiser starts the final; the ladder's league stops for it.
    started = httpx.post(f"{first.url}/api/final", headers=admin, timeout=30)
    assert started.status_code == 202, started.text
    playing = wait_until(lambda: _final(first.url), lambda f: f["games_done"] >= 2, 300)
    assert playing["state"] == "playing" and playing["games_done"] >= 2, playing
    assert playing["games_total"] == 3 * 2 * ROUNDS
    assert [e["seed"] for e in playing["entries"]] == [1, 2, 3]
    assert {e["author"] for e in playing["entries"]} == set(AUTHORS)
    assert httpx.get(f"{first.url}/api/ladder", timeout=30).json()["league"]["state"] == "final"

    # kill -9 during the final (looked for in its store, not over HTTP: quick even on a busy
    # machine): a new service resumes it, and no game is played again.  A machine slow to look
    # may see the final end first; the restart must then leave every record as it was.
    wait_until(lambda: len(_games(final)), lambda n: n >= 3, 300, every=0.05)
    first.stop(signal.SIGKILL)
    before = _games(final)
    assert 0 < len(before) <= 3 * 2 * ROUNDS, len(before)
    second = Server(ladder)
    servers.append(second)
    ended = wait_until(lambda: _final(second.url), lambda f: f["state"] == "ended", 900, every=2)
    assert ended["state"] == "ended", ended
    after = _games(final)
    assert len(after) == 3 * 2 * ROUNDS == ended["games_done"] == ended["games_total"]
    changed = [g for g, digest in before.items() if after.get(g) != digest]
    assert not changed, f"played again after the restart: {changed}"
    assert "final-asked" in "\n".join(second.lines) or "final-ended" in "\n".join(second.lines)

    # Published: the page lists each author with its version, its standings and crosstable ...
    page = httpx.get(f"{second.url}/final", timeout=30).text
    for a in AUTHORS:
        assert f"{a} ({a}-bot.v1)" in page and f"/bots/{a}-bot/v1" in page
    assert 'id="final-crosstable"' in page and "ended" in page
    assert {r["author"] for r in ended["standings"]} == set(AUTHORS)
    # ... the report goes to organisers only ...
    assert httpx.get(f"{second.url}/final/report.html", timeout=30).status_code == 403
    report = httpx.get(f"{second.url}/final/report.html", headers=admin, timeout=30)
    assert report.status_code == 200 and "attachment" in report.headers["content-disposition"]
    # ... and the CSV a teacher grades from has one row per author.
    out = subprocess.run([*ARENA, "standings", str(final), "--format", "csv"], capture_output=True, text=True, env=env(), timeout=120)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert sorted(r["bot"] for r in rows) == sorted(AUTHORS)
    assert all(int(r["games"]) == 2 * 2 * ROUNDS for r in rows), rows
    # Beside it, each team's members (an author added alone: a team of one), joined on the name.
    teams = list(csv.DictReader(io.StringIO((final / "teams.csv").read_text())))
    assert sorted((t["team"], t["members"]) for t in teams) == [(a, a) for a in sorted(AUTHORS)]
    assert second.stop(signal.SIGTERM) == 0
    assert not (final / ".arena-run.lock").exists()
