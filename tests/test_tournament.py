"""``arena run`` end to end: real bots, the store, resume, standings and listings."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.config import load_config
from arena.standings import compute_standings
from arena.store import ResultStore
from arena.tournament import schedule_for

REPO = Path(__file__).resolve().parent.parent


def league(
    tmp_path: Path, marker: str, *, rounds: int = 1, seed: int = 1, crasher: bool = False, extra: str = ""
) -> Path:
    bots = [
        f"  - name: {n}\n    command: [{sys.executable}, sample_bots/random_bot.py, {marker}-{n}]\n"
        for n in ("ann", "bob", "cid")
    ]
    if crasher:
        bots.append(f"  - name: crash\n    command: [sh, -c, 'exit 3', {marker}-crash]\n")
    text = (
        f"name: t\nseed: {seed}\nplayers: 2\nrounds: {rounds}\ncwd: {REPO}\nconcurrency: 2\n"
        f"time_control: {{move: 2s, startup: 10s}}\nend_grace: 200ms\n{extra}bots:\n" + "".join(bots)
    )
    path = tmp_path / "league.yaml"
    path.write_text(text)
    return path


def leftovers(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{pid}: {cmd}")
    return found


def wait_no_leftovers(marker: str, seconds: float = 15.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := leftovers(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def wait_for_games(
    store_file: Path, count: int, proc: subprocess.Popen[bytes] | subprocess.Popen[str]
) -> None:
    """Wait until the running arena has stored ``count`` games (or has ended)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if store_file.exists():
            with sqlite3.connect(store_file) as conn:
                try:
                    if conn.execute("SELECT count(*) FROM games").fetchone()[0] >= count:
                        return
                except sqlite3.OperationalError:  # the arena has not created the table yet
                    pass
        time.sleep(0.05)


@pytest.fixture
def marker() -> Iterator[str]:
    m = f"arena-test-{uuid.uuid4().hex[:10]}"
    yield m
    left = wait_no_leftovers(m)
    for line in left:  # never leave a process behind, even when the test failed
        os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert not left, f"processes left behind: {left}"


def standings_json(path: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["standings", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.output)
    return rows


def test_league_with_a_crashing_bot_finishes_with_it_last(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, crasher=True)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "results" / "t"
    with ResultStore.open(out) as store:
        records = list(store.records())
        assert [r.game_id for r in records] == [g.game_id for g in store.schedule()]
    assert len(records) == 12  # 4 bots, 6 pairs, both seat orders
    crash_games = [r for r in records if any(s.name == "crash" for s in r.seats)]
    assert len(crash_games) == 6
    for r in crash_games:
        seat = next(i for i, s in enumerate(r.seats) if s.name == "crash")
        fault = r.seats[seat].fault
        assert fault is not None and fault.kind.value in ("crash", "startup_failure") and r.ranking[seat] == 2
    rows = standings_json(out)
    assert rows[-1]["bot"] == "crash" and rows[-1]["faults"] == 6 and rows[-1]["games"] == 6
    assert {"rank", "bot", "mu", "sigma", "score", "games", "faults"} <= set(rows[0])
    assert json.loads((out / "standings.json").read_text()) == rows
    md = (out / "standings.md").read_text()
    assert "12 of 12 games played" in md and "| crash" in md and "crosstable" in md
    assert "mean score by seat" in result.output


def test_standings_formats_and_game_listings(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, crasher=True)
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(path), "--quiet"]).exit_code == 0
    out = str(tmp_path / "results" / "t")
    plain = runner.invoke(main, ["standings", out]).output
    assert "rank" in plain and "crash" in plain
    github = runner.invoke(main, ["standings", str(path), "--format", "github"]).output  # via the YAML too
    assert "|" in github.splitlines()[0]
    html = runner.invoke(main, ["standings", out, "--format", "html"]).output
    assert html.startswith("<table>") and "<td>crash</td>" in html
    rows = list(
        csv.DictReader(io.StringIO(runner.invoke(main, ["standings", out, "--format", "csv"]).output))
    )
    assert (len(rows) == 4 and rows[-1]["bot"] == "crash" and rows[-1]["faults"] == "crash 6") or rows[-1][
        "faults"
    ].startswith(("crash", "startup"))
    games = json.loads(runner.invoke(main, ["games", out, "--fault", "any", "--format", "json"]).output)
    assert len(games) == 6
    assert all(
        g["faults"][0]["bot"] == "crash" and g["faults"][0]["reason"] in ("crash", "startup_failure")
        for g in games
    )
    assert {"id", "seats", "ranking", "faults"} <= set(games[0])
    by_bot = runner.invoke(main, ["games", out, "--bot", "ann"])
    assert by_bot.exit_code == 0 and "6 game(s)" in by_bot.output
    replay = runner.invoke(main, ["replay", out, games[0]["id"], "--no-colour"])
    assert replay.exit_code == 0 and "forfeits" in replay.output
    missing = runner.invoke(main, ["replay", out, "r9-g999"])
    assert missing.exit_code == 2 and "no finished game 'r9-g999'" in missing.output


def test_sigkill_mid_run_then_resume_matches_an_uninterrupted_run(tmp_path: Path, marker: str) -> None:
    # The uninterrupted reference, one game at a time.
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    ref = league(ref_dir, marker, rounds=2, extra="")
    assert CliRunner().invoke(main, ["run", str(ref), "--quiet", "-j", "1"]).exit_code == 0
    # The same league, killed with SIGKILL after a few games, then resumed.
    path = league(tmp_path, marker, rounds=2)
    store_file = tmp_path / "results" / "t" / "results.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(path), "-q"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_games(store_file, 3, proc)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert wait_no_leftovers(marker) == []  # workers and their bots followed the arena
    with ResultStore.open(store_file) as store:
        partial = store.count()
    assert 3 <= partial < 12
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert f"resuming: {partial} of 12 games already played" in result.output
    with ResultStore.open(store_file) as store:
        ids = [r.game_id for r in store.records()]
    assert sorted(ids) == sorted(g.game_id for g in schedule_for(load_config(path))) and len(set(ids)) == 12
    assert standings_json(store_file.parent) == standings_json(ref_dir / "results" / "t")


def test_ratings_follow_schedule_order_not_completion_order(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker)
    assert CliRunner().invoke(main, ["run", str(path), "-q"]).exit_code == 0
    with ResultStore.open(tmp_path / "results" / "t") as store:
        records = list(store.records())
        schedule = store.schedule()
    # Store the same games again in reverse completion order: the standings must not move.
    other = ResultStore.create(tmp_path / "other")
    for game in reversed(schedule):
        other.save_game(game, next(r for r in records if r.game_id == game.game_id))
    bots = ["ann", "bob", "cid"]
    assert [r.game_id for r in other.records()] == [g.game_id for g in schedule]
    assert (
        compute_standings(list(other.records()), bots).to_json_rows()
        == compute_standings(records, bots).to_json_rows()
    )
    other.close()


def test_changed_file_is_explained_and_resumed_only_when_games_are_unaffected(
    tmp_path: Path, marker: str
) -> None:
    path = league(tmp_path, marker)
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(path), "-q"]).exit_code == 0
    # More rounds: the games played stay as they were, so the run resumes and adds round 2.
    path.write_text(path.read_text().replace("rounds: 1", "rounds: 2"))
    more = runner.invoke(main, ["run", str(path)])
    assert more.exit_code == 0, more.output
    assert "rounds: 1 -> 2" in more.output and "resuming: 6 of 12" in more.output
    # Another time control keeps the schedule but changes how games are played: refused.
    path.write_text(path.read_text().replace("move: 2s", "move: 3s"))
    slower = runner.invoke(main, ["run", str(path)])
    assert slower.exit_code == 2
    assert (
        "time_control.move: '2s' -> '3s'" in slower.output and "changes how games are played" in slower.output
    )
    path.write_text(path.read_text().replace("move: 3s", "move: 2s"))
    # Another seed changes every board: refused, with the reason and the way out.
    path.write_text(path.read_text().replace("seed: 1", "seed: 2"))
    refused = runner.invoke(main, ["run", str(path)])
    assert refused.exit_code == 2
    assert "seed: 1 -> 2" in refused.output and "--restart" in refused.output
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert store.count() == 12  # nothing already saved was lost
    restarted = runner.invoke(main, ["run", str(path), "--restart", "-q"])
    assert restarted.exit_code == 0
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert store.count() == 12 and store.get_meta("config")["seed"] == 2


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, rounds=3)
    store_file = tmp_path / "results" / "t" / "results.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(path)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_games(store_file, 2, proc)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert wait_no_leftovers(marker) == []
    with ResultStore.open(store_file) as store:
        assert 2 <= store.count() < 18
        for r in store.records():
            r.replay()
