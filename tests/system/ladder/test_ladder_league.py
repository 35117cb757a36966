"""The ladder's league: which versions play (the roster), the league file it writes, the
store's upgrade, and for real: versions that pass join the league served by ``arena serve``,
retire their previous version, and nothing is lost to a kill -9 or a SIGTERM."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import yaml

from tests.support.ladder_helpers import (
    ARENA,
    REPO,
    Server,
    add_author,
    bot_folder,
    env,
    ladder_file,
    standings_rows,
    submission,
    wait_until,
)


def _games(results: Path) -> int:
    with sqlite3.connect(f"file:{results / 'results.sqlite'}?mode=ro", uri=True, timeout=30) as c:
        return int(c.execute("SELECT count(*) FROM games").fetchone()[0])


def _league(url: str) -> dict[str, object]:
    import httpx

    league: dict[str, object] = httpx.get(f"{url}/api/ladder", timeout=30).json()["league"]
    return league


def test_passed_versions_join_the_served_league_and_survive_kill_9_and_sigterm(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=400, house_b=str(REPO / "sample_bots" / "c" / "greedy"))
    results = home / "results"
    author_env = {**env(), "ARENA_TOKEN": add_author(ladder, "alice")}
    first = Server(ladder)
    servers.append(first)
    # The house bots' league plays at once, and stops when their order is sure.
    league = wait_until(lambda: _league(first.url), lambda s: s["state"] == "idle", 300)
    assert league["state"] == "idle" and "settled" in str(league["detail"]), league
    house_games = _games(results)
    assert house_games > 0

    def send(name: str) -> None:
        sent = subprocess.run(
            [*ARENA, "submit", first.url, str(bot_folder(home / f"{name}-{_games(results)}")), "--command",
             "python3 random_bot.py", "--name", name, "--wait", "--timeout", "10m"],
            capture_output=True, text=True, env=author_env, timeout=900,
        )  # fmt: skip
        assert sent.returncode == 0 and "PASSED" in sent.stdout, sent.stdout + sent.stderr

    # A broken bot is refused with the check's words, and a replay its author can run at home.
    broken = home / "broken"
    broken.mkdir()
    shutil.copy(REPO / "tests" / "bots" / "broken" / "illegal_move.py", broken / "bot.py")
    refused = subprocess.run(
        [*ARENA, "submit", first.url, str(broken), "--command", "python3 bot.py", "--wait", "--timeout", "10m"],
        capture_output=True, text=True, env=author_env, timeout=900,
    )  # fmt: skip
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "FAILED: legal-moves: fail: illegal_move" in refused.stdout
    replay = next(line for line in refused.stdout.splitlines() if "replay it: " in line)
    assert "arena:random" in replay and "--cwd" not in replay and str(home) not in replay and str(REPO) not in replay, replay
    assert "broken.v1" not in yaml.safe_load((results / "ladder-league.yaml").read_text())["bots"][-1]["name"]

    send("rnd")
    rows = wait_until(lambda: standings_rows(results), lambda r: r.get("rnd.v1", {}).get("games", 0) > 0, 300)
    assert rows["rnd.v1"]["games"] > 0 and not rows["rnd.v1"]["retired"], rows.keys()
    send("rnd")
    rows = wait_until(lambda: standings_rows(results), lambda r: r.get("rnd.v2", {}).get("games", 0) > 0, 300)
    assert rows["rnd.v2"]["games"] > 0 and rows["rnd.v1"]["retired"] is True, rows
    v1_games = rows["rnd.v1"]["games"]
    assert v1_games > 0  # its games keep counting
    league_file = yaml.safe_load((results / "ladder-league.yaml").read_text())
    assert [(b["name"], b.get("retired", False)) for b in league_file["bots"][2:]] == [("rnd.v1", True), ("rnd.v2", False)]
    assert league_file["max_games"] > 400  # the budget counts from the games before rnd.v2 joined

    # The organiser's console shows what happened, a line each.
    console = "\n".join(first.lines)
    assert "alice: submit rnd v1" in console and "ladder: passed submission 2: passed the check" in console
    assert "ladder: league-playing league: the league is playing: 2 house bots and 1 versions" in console

    # kill -9 while the league plays: every game and verdict is kept, the league resumes.
    assert _league(first.url)["state"] == "playing"
    before = _games(results)
    first.stop(signal.SIGKILL)
    second = Server(ladder)
    servers.append(second)
    assert _games(results) >= before
    states = [submission(second.url, sid, author_env["ARENA_TOKEN"])["state"] for sid in (1, 2, 3)]
    assert states == ["failed", "passed", "passed"]
    more = wait_until(lambda: _games(results), lambda n: n > before, 300)
    assert more > before
    assert standings_rows(results)["rnd.v1"]["games"] >= v1_games
    # SIGTERM drains: the league's process is stopped, the service exits 0 and frees the folder.
    assert second.stop(signal.SIGTERM) == 0
    assert not (results / ".arena-run.lock").exists()
    settled = _games(results)
    assert settled >= more


