"""The contest walk: docs/contest.md followed as written with ``tournaments/contest.yaml``.

A roster of three teams of two and an organiser; each team makes a kit bot with ``arena new``
and sends it with ``arena submit --wait``; a member asks for a scrimmage and their teammate
follows it while another team is told there is none; the organiser sets the deadline, after
which a version is refused; ``arena serve --final`` starts the final, a kill -9 during it loses
no game and plays none twice, and ``/final``, ``teams.csv`` and ``arena standings --format
csv`` list the three teams.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
import shlex
import signal
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml

from tests.support.ladder_helpers import Server
from tests.support.walk_helpers import REPO, arena_argv, doc_command, run, section, shipped_tree, wait_until

CONTEST = REPO / "docs" / "contest.md"
TEAMS = ("ants", "bees", "owls")
URL = "http://127.0.0.1:8000"  # the doc's; the walk's server takes a free port


def _roster(doc: Path) -> str:
    """The doc's roster: its ```csv block."""
    found = re.findall(r"^```csv\n(.*?)^```", section(doc, "2. The class: teams and their tokens"), re.M | re.S)
    assert len(found) == 1, found
    return str(found[0])


def _final_games(folder: Path) -> dict[str, str]:
    """Each game the final stored, with a digest of its record."""
    path = folder / "results.sqlite"
    if not path.exists():
        return {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as c:
        try:
            rows = c.execute("SELECT game_id, record FROM games").fetchall()
        except sqlite3.OperationalError as e:  # the final's store is made, its tables not yet
            if "no such table" not in str(e):
                raise
            return {}
    return {g: hashlib.sha256(r.encode()).hexdigest() for g, r in rows}


def _with(words: list[str], url: str) -> list[str]:
    return [url if w == URL else w for w in words]


@pytest.mark.slow
def test_a_contest_from_the_roster_to_the_final_as_the_doc_says(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    tree = shipped_tree(tmp_path / marker, "tournaments/contest.yaml")
    # 1. The ladder file: the doc's copy of the shipped one, beside it.
    copy = shlex.split(next(line for line in re.findall(r"^cp .*$", section(CONTEST, "1. The ladder file"), re.M)), comments=True)
    assert subprocess.run(copy, cwd=tree, timeout=30).returncode == 0
    assert (tree / "tournaments" / "my-contest.yaml").is_file()
    results = tree / "tournaments" / "results" / "contest"
    final = results.parent / "contest-final"

    # 2. The class, from the doc's roster: tokens written once to a file only the owner reads.
    roster = _roster(CONTEST)
    assert {row["team"] for row in csv.DictReader(io.StringIO(roster))} == {*TEAMS, "staff"}
    (tree / "roster.csv").write_text(roster)
    _, add = arena_argv(doc_command(CONTEST, "2. The class: teams and their tokens", r"--add-authors"))
    added = run(add, tree, 120)
    assert added.returncode == 0, added.stdout + added.stderr
    said = added.stdout + added.stderr
    assert "4 team(s) and 7 member(s) added from roster.csv" in said, said
    tokens_file = Path(re.search(r"only you can read the file\): (\S+)", said).group(1))  # type: ignore[union-attr]
    assert tokens_file.stat().st_mode & 0o077 == 0
    tokens = {(r["team"], r["member"]): r["token"] for r in csv.DictReader(io.StringIO(tokens_file.read_text()))}
    organiser = {"Authorization": f"Bearer {tokens[('staff', 'teacher')]}"}

    # 4. Serve.
    _, serve = arena_argv(doc_command(CONTEST, "4. Serve", r"^arena serve "))
    server = Server(argv=[*serve, "--port", "0"], cwd=tree)
    servers.append(server)

    # 3. Each team makes a kit bot and sends it (at once: the queue checks them in turn).
    new_words = doc_command(CONTEST, "3. Kits for the students", r"^arena new ")
    assignments, submit = arena_argv(doc_command(CONTEST, "3. Kits for the students", r"arena submit "))
    assert set(assignments) == {"ARENA_TOKEN"} and "--wait" in submit

    def send(team: str, member: str) -> subprocess.CompletedProcess[str]:
        folder = f"{team}-bot"
        made = run(arena_argv([w.replace("ants-bot", folder) for w in new_words])[1], tree, 60)
        assert made.returncode == 0, made.stdout + made.stderr
        argv = [w.replace("ants-bot", folder) for w in _with(submit, server.url)]
        return run(argv, tree, 900, {"ARENA_TOKEN": tokens[(team, member)]})

    members = {"ants": "ann", "bees": "cy", "owls": "eve"}
    with ThreadPoolExecutor(len(TEAMS)) as pool:
        sent = list(pool.map(lambda t: send(t, members[t]), TEAMS))
    for s in sent:
        assert s.returncode == 0 and "PASSED" in s.stdout, s.stdout + s.stderr

    # 5. A scrimmage asked by one member, followed by their teammate; another team sees none.
    assignments, scrimmage = arena_argv(doc_command(CONTEST, "5. During the contest: scrimmages and logs", r"arena scrimmage "))
    asked = run(_with(scrimmage, server.url), tree, 600, {"ARENA_TOKEN": tokens[("ants", "ann")]})
    assert asked.returncode == 0 and "(unrated)" in asked.stdout, asked.stdout + asked.stderr
    sid = re.search(r"scrimmage (\d+): ", asked.stdout).group(1)  # type: ignore[union-attr]
    teammate = httpx.get(f"{server.url}/api/scrimmages/{sid}", headers={"Authorization": f"Bearer {tokens[('ants', 'bob')]}"}, timeout=30)
    assert teammate.status_code == 200 and teammate.json()["state"] == "finished", teammate.text
    other = httpx.get(f"{server.url}/api/scrimmages/{sid}", headers={"Authorization": f"Bearer {tokens[('bees', 'dee')]}"}, timeout=30)
    assert other.status_code == 404, other.text

    # 6. The deadline, a moment away, set by the organiser; then a version is refused.
    soon = (dt.datetime.now(dt.UTC) + dt.timedelta(seconds=2)).isoformat()
    assert httpx.post(f"{server.url}/api/deadline", json={"deadline": soon}, headers={"Authorization": f"Bearer {tokens[('ants', 'bob')]}"}, timeout=30).status_code == 403
    assert httpx.post(f"{server.url}/api/deadline", json={"deadline": soon}, headers=organiser, timeout=30).status_code == 200
    wait_until("submissions to close", lambda: server.get("/api/ladder"), lambda s: s["submissions_closed"], 60)
    late = run([w.replace("ants-bot", "owls-bot") for w in _with(submit, server.url)], tree, 300, {"ARENA_TOKEN": tokens[("owls", "fay")]})
    assert late.returncode != 0 and "has passed" in late.stdout + late.stderr, late.stdout + late.stderr

    # The final, from the console; a kill -9 while it plays; a new service resumes it.
    _, start_final = arena_argv(doc_command(CONTEST, "6. The deadline and the final", r"--final"))
    asked_final = run(start_final, tree, 120)
    assert asked_final.returncode == 0, asked_final.stdout + asked_final.stderr
    wait_until("the final to store 3 games", lambda: len(_final_games(final)), lambda n: n >= 3, 600)
    server.stop(signal.SIGKILL)
    before = _final_games(final)
    second = Server(argv=[*serve, "--port", "0"], cwd=tree)
    servers.append(second)
    ended = wait_until("the final to end", lambda: second.get("/api/final"), lambda f: f["state"] == "ended", 900)
    after = _final_games(final)
    rounds = yaml.safe_load((REPO / "tournaments" / "contest.yaml").read_text())["ladder"]["final"]["rounds"]
    assert len(after) == 3 * 2 * rounds == ended["games_done"], (len(after), ended["games_done"])
    assert not [g for g, digest in before.items() if after.get(g) != digest], "a game of the final was played again"
    assert [e["seed"] for e in ended["entries"]] == [1, 2, 3]

    # 7. Published and exported: /final lists the teams, teams.csv their members, and the
    # doc's standings command gives a row per team with every game counted.
    page = httpx.get(f"{second.url}/final", timeout=30).text
    assert all(f"/bots/{t}-bot/v1" in page for t in TEAMS), page[:3000]
    assert httpx.get(f"{second.url}/final/report.html", timeout=30).status_code == 403
    report = httpx.get(f"{second.url}/final/report.html", headers=organiser, timeout=30)
    assert report.status_code == 200 and "attachment" in report.headers["content-disposition"]
    teams_csv = {r["team"]: r["members"] for r in csv.DictReader(io.StringIO((final / "teams.csv").read_text()))}
    assert set(teams_csv) == set(TEAMS) and "ann" in teams_csv["ants"] and "bob" in teams_csv["ants"], teams_csv
    export = shlex.split(re.search(r"^\s*(arena standings .*?)(?: >.*)?$", section(CONTEST, "7. Publish and grade"), re.M).group(1))  # type: ignore[union-attr]
    out = run(arena_argv(export)[1], tree, 120)
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert sorted(r["bot"] for r in rows) == sorted(TEAMS) and all(int(r["games"]) == 2 * 2 * rounds for r in rows), rows
    assert second.stop(signal.SIGTERM) == 0
    assert not (final / ".arena-run.lock").exists() and not (results / ".arena-run.lock").exists()
