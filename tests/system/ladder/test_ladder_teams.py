"""Teams on a served ladder (issue 32, item 1): a class added from a roster by ``arena serve
--add-authors``; a member revoked by another ``arena serve --revoke-member`` while the service
runs is refused at once, on the API and in their signed-in browser, and the team's other
member goes on; the console names the member who acted."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

import httpx

from tests.support.ladder_helpers import ARENA, Server, env, ladder_file, wait_until


def _serve(ladder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "serve", str(ladder), *args], capture_output=True, text=True, env=env(), timeout=60)


def _signed_in(client: httpx.Client) -> str | None:
    found = re.search(r'signed in as <b id="signed-in">([^<]*)</b>/<b id="signed-in-member">([^<]*)</b>', client.get("/").text)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def test_a_member_revoked_while_the_ladder_serves_is_refused_at_once_and_the_team_goes_on(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    ladder = ladder_file(tmp_path, max_games=2)  # its league idles: the tokens are the point
    roster = tmp_path / "roster.csv"
    roster.write_text("team,member,admin\nants,ann,\nants,bob,\nbees,cy,\norg,teach,yes\n")
    tokens_file = tmp_path / "tokens.csv"
    added = _serve(ladder, "--add-authors", str(roster), "--tokens-file", str(tokens_file))
    assert added.returncode == 0, added.stderr
    assert "3 team(s) and 4 member(s) added" in added.stdout and stat.S_IMODE(os.stat(tokens_file).st_mode) == 0o600
    tokens = {f"{t}/{m}": k for t, m, k in (line.split(",") for line in tokens_file.read_text().splitlines()[1:])}

    server = Server(ladder)
    servers.append(server)
    bearer = {who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()}
    with httpx.Client(base_url=server.url, timeout=30) as bob_browser:
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', bob_browser.get("/login").text)
        assert csrf is not None
        assert bob_browser.post("/login", data={"token": tokens["ants/bob"], "csrf": csrf.group(1)}).status_code == 303
        assert _signed_in(bob_browser) == "ants/bob"
        own = httpx.get(f"{server.url}/api/authors/ants", headers=bearer["ants/bob"], timeout=30).json()
        assert own["members"] == [{"member": "ann", "revoked": False}, {"member": "bob", "revoked": False}]

        revoked = _serve(ladder, "--revoke-member", "ants/bob")  # another process, the service running
        assert revoked.returncode == 0 and "member 'ants/bob' revoked" in revoked.stdout, revoked.stderr
        refused = httpx.post(f"{server.url}/api/bots", headers=bearer["ants/bob"], timeout=30)
        assert refused.status_code == 401 and refused.json() == {"error": "unknown token"}
        assert _signed_in(bob_browser) is None
    ann = httpx.get(f"{server.url}/api/authors/ants", headers=bearer["ants/ann"], timeout=30).json()
    assert ann["members"] == [{"member": "ann", "revoked": False}, {"member": "bob", "revoked": True}]

    assert httpx.post(f"{server.url}/api/ladder/pause", headers=bearer["org/teach"], timeout=30).status_code == 200
    wait_until(lambda: list(server.lines), lambda lines: any(re.search(r" org/teach: pause ladder$", x) for x in lines), 30)
    assert any(re.search(r" org/teach: pause ladder$", x) for x in server.lines), server.lines[-10:]
    log = httpx.get(f"{server.url}/api/log", headers=bearer["org/teach"], timeout=30).json()["actions"]
    assert [(a["member"], a["action"]) for a in log if a["member"]] == [("org/teach", "pause")]
    assert server.stop() == 0
