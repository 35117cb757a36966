"""A scrimmage, for real: on a served ladder an author's checked version plays the games they
ask for with ``arena scrimmage --wait`` against a house bot, in the sandbox, beside the
league; the asker reads their bot's stderr in each game and another author cannot open the
scrimmage at all; the games never reach the league's store; and a kill -9 of the service loses
no finished game, the rest being played after the restart.

The cases without processes (settings, quotas, refusals, every route's access rules, hostile
logs) are in tests/unit/ladder/test_ladder_scrimmages.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.game.record import GameRecord
from tests.support.ladder_helpers import ARENA, REPO, Server, add_author, env, ladder_file, wait_until

# Says whose it is on stderr at every move; slow (so a game is in flight when the service is
# killed) once its folder holds the file ``slow``, which the check never sees.
CHATTY_BOT = """\
import sys, time
from collections.abc import Iterator
from pathlib import Path
from arena.botkit import run_bot

SLOW = (Path(__file__).resolve().parent / "slow").exists()


def choose(turn):
    print(f"ALICE-SECRET thinking, {len(turn.state.legal_moves())} moves", file=sys.stderr, flush=True)
    if SLOW:
        time.sleep(0.25)
    return turn.rng.choice(turn.state.legal_moves())


run_bot("chatty", choose)
"""


def _sandboxed(results: Path) -> bool:
    """Whether every seat of every scrimmage game stored ran in the sandbox."""
    path = results / "scrimmages" / "scrimmages.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as c:
        records = [GameRecord.from_json(r) for (r,) in c.execute("SELECT record FROM games WHERE record IS NOT NULL")]
    return bool(records) and all(seat.sandboxed for r in records for seat in r.seats)


def _records(results: Path) -> dict[str, str]:
    """Each finished scrimmage game's id and a digest of its record."""
    path = results / "scrimmages" / "scrimmages.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as c:
        rows = c.execute("SELECT request, n, record FROM games WHERE record IS NOT NULL").fetchall()
    return {f"s{r}-g{n}": hashlib.sha256(rec.encode()).hexdigest() for r, n, rec in rows}


@contextlib.contextmanager
def _signed_in(url: str, token: str) -> Iterator[httpx.Client]:
    """A browser signed in with ``token`` (its cookies kept)."""
    with httpx.Client(base_url=url, timeout=30, follow_redirects=False) as client:
        page = client.get("/login").text
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
        assert csrf
        assert client.post("/login", data={"token": token, "csrf": csrf.group(1)}).status_code == 303
        yield client


def _scrimmage(url: str, token: str, rid: int) -> dict[str, Any]:
    r = httpx.get(f"{url}/api/scrimmages/{rid}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.slow
def test_a_scrimmage_plays_shows_its_logs_to_the_asker_only_and_survives_kill_9(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    home = tmp_path / marker  # every process of the ladder names it: none may outlive the test
    home.mkdir()
    ladder = ladder_file(home, max_games=4, move="2s", strength_games=2)  # the league idles beside
    ladder.write_text(ladder.read_text() + "  scrimmage: {max_games: 4, per_day: 8}\n")
    alice, bob = add_author(ladder, "alice"), add_author(ladder, "bob")
    bot = home / "chatty"
    bot.mkdir()
    (bot / "chatty.py").write_text(CHATTY_BOT)
    first = Server(ladder)
    servers.append(first)
    run_env = {**env(), "ARENA_TOKEN": alice}
    sent = subprocess.run(
        [*ARENA, "submit", first.url, str(bot), "--command", "python3 chatty.py", "--name", "chatty", "--wait", "--timeout", "15m"],
        capture_output=True, text=True, env=run_env, timeout=1000, cwd=REPO,
    )  # fmt: skip
    assert sent.returncode == 0 and "PASSED" in sent.stdout, sent.stdout + sent.stderr

    # A refusal is one line naming why, exit code 2.
    refused = subprocess.run(
        [*ARENA, "scrimmage", first.url, "chatty.v1", "house-a", "--games", "9"],
        capture_output=True, text=True, env=run_env, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and "(scrimmage.max_games: 4)" in refused.stderr, refused.stderr

    # Two games with --wait: each printed as it ends, then the score.
    asked = subprocess.run(
        [*ARENA, "scrimmage", first.url, "chatty.v1", "house-a", "--games", "2", "--wait", "--timeout", "10m"],
        capture_output=True, text=True, env=run_env, timeout=700,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert re.search(r"scrimmage 1: 2 games, chatty\.v1 vs house-a: http://127\.0\.0\.1:\d+/scrimmages/1", asked.stdout)
    assert "  game 1: chatty.v1 " in asked.stdout and "  game 2: house-a " in asked.stdout, asked.stdout
    assert "FINISHED: chatty.v1 " in asked.stdout and "over 2 games (unrated)" in asked.stdout, asked.stdout

    # The asker reads their bot's stderr beside the replay; bob is told there is no such scrimmage.
    with _signed_in(first.url, alice) as mine:
        page = mine.get("/scrimmages/1/games/1")
    assert page.status_code == 200 and "ALICE-SECRET thinking" in page.text, page.text[:2000]
    with _signed_in(first.url, bob) as other:
        for url in ("/scrimmages/1", "/scrimmages/1/games/1"):
            r = other.get(url)
            assert r.status_code == 404 and "ALICE-SECRET" not in r.text
    assert _scrimmage(first.url, bob, 1) == {"error": "no scrimmage '1' of yours"}
    assert _sandboxed(home / "results")
    # Never in the league's store: its games are the league's own.
    with sqlite3.connect(f"file:{home / 'results' / 'results.sqlite'}?mode=ro", uri=True, timeout=30) as c:
        assert not c.execute("SELECT COUNT(*) FROM games WHERE game_id LIKE 's%'").fetchone()[0]

    # A kill -9 once the first game of two is over (the second, slowed, is still playing):
    # that game is kept as it was, the second is played after the restart.
    for sub in (home / "results-bots").iterdir():
        (sub / "slow").write_text("")
    r = httpx.post(
        f"{first.url}/api/scrimmages", json={"version": "chatty.v1", "opponent": "house-b", "games": 2},
        headers={"Authorization": f"Bearer {alice}"}, timeout=30,
    )  # fmt: skip
    assert r.status_code == 202, r.text
    rid = r.json()["id"]
    wait_until(lambda: _scrimmage(first.url, alice, rid), lambda s: s["done"] >= 1, 600)
    first.stop(signal.SIGKILL)
    kept = _records(home / "results")
    assert f"s{rid}-g1" in kept
    assert f"s{rid}-g2" not in kept  # played after the restart
    second = Server(ladder)
    servers.append(second)
    done = wait_until(lambda: _scrimmage(second.url, alice, rid), lambda s: s["state"] == "finished", 900)
    assert done["state"] == "finished" and all(g["points"] is not None for g in done["results"]), done
    after = _records(home / "results")
    assert {g: d for g, d in after.items() if g in kept} == kept  # no finished game played again
    second.stop()
