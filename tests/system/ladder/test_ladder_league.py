"""The ladder's league: which versions play (the roster), the league it plays, the
store's upgrade, and for real: versions that pass join the league served by ``arena serve``,
and nothing is lost to a kill -9 or a SIGTERM (a next version retiring the first is walked
with the shipped ladder in tests/system/walks).

The cases that start processes; the others are in tests/unit/ladder/test_ladder_league.py.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.ladder.league import LeagueLoop
from arena.ladder.settings import load_ladder
from arena.ladder.store import LadderStore
from arena.league.store import ResultStore
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


def _league_played(results: Path) -> dict[str, Any]:
    """The league's tournament as its process last stored it (the service writes no file of it)."""
    with ResultStore.open(results) as store:
        config: dict[str, Any] = store.get_meta("config")
    return config


def _league(url: str) -> dict[str, object]:
    import httpx

    league: dict[str, object] = httpx.get(f"{url}/api/ladder", timeout=30).json()["league"]
    return league


@pytest.mark.slow
def test_passed_versions_join_the_served_league_and_survive_kill_9_and_sigterm(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=400, house_b=str(REPO / "sample_bots" / "c" / "greedy"), strength_games=2)
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
    assert "broken.v1" not in [b["name"] for b in _league_played(results)["bots"]]

    # (A second version retiring the first is the shipped ladder's walk: tests/system/walks.)
    send("rnd")
    rows = wait_until(lambda: standings_rows(results), lambda r: r.get("rnd.v1", {}).get("games", 0) > 0, 300)
    assert rows["rnd.v1"]["games"] > 0 and not rows["rnd.v1"]["retired"], rows.keys()
    v1_games = rows["rnd.v1"]["games"]
    league_file = _league_played(results)
    assert [(b["name"], b.get("retired", False)) for b in league_file["bots"][2:]] == [("rnd.v1", False)]
    assert league_file["max_games"] > 400  # the budget counts from the games before rnd.v1 joined

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
    states = [submission(second.url, sid, author_env["ARENA_TOKEN"])["state"] for sid in (1, 2)]
    assert states == ["failed", "passed"]
    more = wait_until(lambda: _games(results), lambda n: n > before, 300)
    assert more > before
    assert standings_rows(results)["rnd.v1"]["games"] >= v1_games
    # SIGTERM drains: the league's process is stopped, the service exits 0 and frees the folder.
    assert second.stop(signal.SIGTERM) == 0
    assert not (results / ".arena-run.lock").exists()
    settled = _games(results)
    assert settled >= more


def test_a_league_tried_again_after_it_failed_is_failed_until_it_finishes_a_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 30: the health must not say ok while the league cannot play, retries included.
    ladder = load_ladder(ladder_file(tmp_path))
    loop = LeagueLoop(ladder, LadderStore.open(ladder.folder))
    children: list[subprocess.Popen[bytes]] = []
    games = [0]

    def child(module: str, args: list[str], out: Any) -> subprocess.Popen[bytes]:
        children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]))
        return children[-1]

    monkeypatch.setattr("arena.ladder.league.start_child", child)
    monkeypatch.setattr("arena.ladder.league.finished_games", lambda folder: games[0])
    try:
        loop._step()
        assert loop.status.state == "playing"
        children[-1].kill()  # the league's process dies: a house bot that does not build, say
        children[-1].wait(30)
        loop._step()
        assert loop.status.state == "failed" and "exit code -9" in loop.status.detail
        assert loop._failed_roster is not None
        loop._failed_roster = (loop._failed_roster[0], 0.0)  # its pause is over
        loop._step()
        assert len(children) == 2 and children[-1].poll() is None
        assert loop.status.state == "failed" and "tried again: no game finished since" in loop.status.detail
        loop._step()
        assert loop.status.state == "failed"
        games[0] = 1  # it finished a game: it can play
        loop._step()
        assert loop.status.state == "playing"
    finally:
        for c in children:
            c.kill()
            c.wait(30)
