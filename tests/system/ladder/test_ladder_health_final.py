"""A final tournament whose child process fails shows on /api/health: ``ok`` false (503), the
final's state ``failed`` and the error saying so, while the ladder's own league is fine."""

from __future__ import annotations

from pathlib import Path

import httpx

from arena.ladder.folders import FINAL_FILE
from tests.support.ladder_helpers import Server, add_author, ladder_file, wait_until


def test_a_final_whose_process_fails_makes_health_fail_saying_so(tmp_path: Path, marker: str, servers: list[Server]) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=4)
    admin = {"Authorization": f"Bearer {add_author(ladder, 'org', admin=True)}"}
    # The final's file as the service froze it, damaged: its process cannot play it.
    (home / "results" / FINAL_FILE).write_text("name: [not a league\n")
    server = Server(ladder)
    servers.append(server)
    before = httpx.get(f"{server.url}/api/health", timeout=30).json()
    assert before["final"]["state"] == "not asked"
    assert httpx.post(f"{server.url}/api/final", headers=admin, timeout=30).status_code == 202
    health = wait_until(
        lambda: httpx.get(f"{server.url}/api/health", timeout=30),
        lambda r: r.json()["final"]["state"] == "failed",
        120,
    )
    body = health.json()
    assert body["final"]["state"] == "failed", body  # waited for: the final's process failed
    assert health.status_code == 503 and body["ok"] is False
    assert body["error"].startswith("the final tournament failed: the final ended with exit code 1")
    page = httpx.get(f"{server.url}/ladder", timeout=30).text
    assert '<dd id="final-state" class="error">failed: the final ended with exit code 1' in page
    assert server.stop() == 0
