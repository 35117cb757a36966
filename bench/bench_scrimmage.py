"""Scrimmages (``arena serve``): how soon a scrimmage's first game is over while the ladder
plays its league.

A ladder of two house bots (``sample_bots/random_bot.py``) and ``--versions`` authors' versions
(the same random bot, placed in the ladder's store as passed: the check is not what is
measured here) serves on a loopback port with its league playing ``-j`` games at once.  Once
the league has finished ``--warm`` games, the bench asks ``--requests`` scrimmages of
``--games`` games against a house bot, one after the other (each asked when the last one's
first game is over), each by the author's bearer token, and times from the request's answer
to its first game being over (``GET /api/scrimmages/{id}`` polled every 0.1 s).  It prints each
time, their median and maximum, and the league's games finished meanwhile (it kept playing).

Not a test: nothing is asserted.  Run from the repository root:

    python bench/bench_scrimmage.py [--requests 5] [--games 2] [-j 2] [--move 200ms]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.ladder.settings import load_ladder  # noqa: E402
from arena.ladder.store import LadderStore, State  # noqa: E402

BOT = f"{sys.executable} sample_bots/random_bot.py"


def ladder_text(concurrency: int, move: str) -> str:
    return f"""\
name: bench-scrimmage
players: 2
format: continuous
max_games: 100000
time_control: {{move: {move}, startup: 30s}}
concurrency: {concurrency}
output: results
cwd: {REPO}
bots:
  - {{name: house-a, command: {BOT}}}
  - {{name: house-b, command: {BOT}}}
ladder:
  scrimmage: {{max_games: 10, per_day: 10000, at_once: 1}}
"""


def prepare(home: Path, versions: int, concurrency: int, move: str) -> str:
    """The ladder file and its store with ``versions`` passed versions; the first author's token."""
    (home / "ladder.yaml").write_text(ladder_text(concurrency, move))
    ladder = load_ladder(home / "ladder.yaml")
    store = LadderStore.open(ladder.folder)
    tokens = []
    for i in range(versions):
        name = f"author{i}"
        tokens.append(store.add_author(name))
        author = store.author_named(name)
        assert author is not None
        sub = store.add_submission(author, f"bot{i}", ("python3", "random_bot.py"), None, ("b.tgz", 1, "0" * 64))
        folder = ladder.version_folder(sub.id)
        folder.mkdir(parents=True)
        shutil.copy(REPO / "sample_bots" / "random_bot.py", folder)
        store.set_state(sub.id, State.PASSED, reason="placed by the bench")
    store.close()
    return tokens[0]


def league_games(results: Path) -> int:
    path = results / "results.sqlite"
    if not path.is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as c:
            return int(c.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # made, its tables not yet
        return 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=5)
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--versions", type=int, default=2)
    p.add_argument("-j", type=int, default=2, help="the league's games at once")
    p.add_argument("--move", default="200ms")
    p.add_argument("--warm", type=int, default=4, help="league games finished before the first request")
    args = p.parse_args()

    home = Path(tempfile.mkdtemp(prefix="bench-scrimmage-"))
    token = prepare(home, args.versions, args.j, args.move)
    results = home / "results"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(home / "ladder.yaml"), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split("serving on ")[1].split()[0]
        headers = {"Authorization": f"Bearer {token}"}
        deadline = time.monotonic() + 600
        while league_games(results) < args.warm and time.monotonic() < deadline:
            time.sleep(0.5)
        start_games = league_games(results)
        print(f"league playing: {start_games} games finished; asking {args.requests} scrimmages of {args.games} games")
        times = []
        with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
            for _ in range(args.requests):
                r = client.post("/api/scrimmages", json={"version": "bot0.v1", "opponent": "house-a", "games": args.games})
                t0 = time.monotonic()
                r.raise_for_status()
                rid = r.json()["id"]
                while client.get(f"/api/scrimmages/{rid}").json()["done"] < 1:
                    time.sleep(0.1)
                times.append(time.monotonic() - t0)
                print(f"  scrimmage {rid}: first game over {times[-1]:.2f} s after the request")
                while client.get(f"/api/scrimmages/{rid}").json()["state"] != "finished":  # at_once: 1
                    time.sleep(0.2)
        played = league_games(results) - start_games
        print(
            f"request -> first finished game: median {statistics.median(times):.2f} s, max {max(times):.2f} s "
            f"({len(times)} requests, league -j {args.j}, move {args.move}); the league finished {played} games meanwhile"
        )
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
