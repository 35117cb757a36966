"""``arena run`` end to end: real bots, the store, resume, standings and listings."""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ResultsWriteError
from arena.game.record import GameRecord
from arena.league.config import load_config
from arena.league.executor import GameSettings
from arena.league.game_summary import GameSummary
from arena.league.resume import schedule_for
from arena.league.schedule import ScheduledGame
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.tally import compute_standings
from tests.support.process_helpers import interrupt_when_stored, start_run, wait_for_games, wait_no_leftovers

REPO = Path(__file__).resolve().parents[3]


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


def standings_json(path: Path) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["standings", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.output)["rows"]
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
    assert {"rank", "bot", "mu", "sigma", "rating", "games", "faults", "better_than_next"} <= set(rows[0])
    assert json.loads((out / "standings.json").read_text())["rows"] == rows
    md = (out / "standings.md").read_text()
    assert "12 of 12 games played" in md and "| crash" in md and "crosstable" in md
    assert "mean points by seat" in result.output


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
    # The uninterrupted reference, one game at a time.  Enough games that the kill comes
    # mid-run: bots kept between games play a dozen in well under a second.
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    ref = league(ref_dir, marker, rounds=8, extra="")
    # Both leagues draw their seats' private seeds from one secret (a league keeps its own in
    # its results folder, so the resumed run below goes on with the one it started with).
    for out in (ref_dir / "results" / "t", tmp_path / "results" / "t"):
        out.mkdir(parents=True)
        (out / ".seed-secret").write_text("7" * 32 + "\n")
    assert CliRunner().invoke(main, ["run", str(ref), "--quiet", "-j", "1"]).exit_code == 0
    # The same league, killed with SIGKILL after a few games, then resumed.
    path = league(tmp_path, marker, rounds=8)
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
    assert 3 <= partial < 48
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert f"resuming: {partial} of 48 games already played" in result.output
    with ResultStore.open(store_file) as store:
        ids = [r.game_id for r in store.records()]
    assert sorted(ids) == sorted(g.game_id for g in schedule_for(load_config(path))) and len(set(ids)) == 48
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
    assert "kept 6, scheduled 6 new" in more.output
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
    # --restart deletes those games: not without a terminal to ask, unless --yes.
    unasked = runner.invoke(main, ["run", str(path), "--restart", "-q"])
    assert unasked.exit_code == 2 and "--yes" in unasked.output and "12 stored game(s)" in unasked.output
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert store.count() == 12 and store.get_meta("config")["seed"] == 1
    restarted = runner.invoke(main, ["run", str(path), "--restart", "--yes", "-q"])
    assert restarted.exit_code == 0
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert store.count() == 12 and store.get_meta("config")["seed"] == 2


def test_restart_asks_on_a_terminal_and_keeps_the_games_when_told_no(
    tmp_path: Path, marker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = league(tmp_path, marker)
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(path), "-q"]).exit_code == 0
    with ResultStore.open(tmp_path / "results" / "t") as store:
        before = {r.game_id: r.to_json() for r in store.records()}
    monkeypatch.setattr("arena.cli.tournament_cmds._on_terminal", lambda: True)
    declined = runner.invoke(main, ["run", str(path), "--restart", "-q"], input="n\n")
    assert declined.exit_code == 2 and "Delete them?" in declined.output and "nothing deleted" in declined.output
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert {r.game_id: r.to_json() for r in store.records()} == before
    accepted = runner.invoke(main, ["run", str(path), "--restart", "-q"], input="y\n")
    assert accepted.exit_code == 0, accepted.output
    with ResultStore.open(tmp_path / "results" / "t") as store:
        after = {r.game_id: r.to_json() for r in store.records()}
    assert after.keys() == before.keys() and after != before  # played again (the times differ)


def test_restart_of_a_folder_without_games_asks_nothing(tmp_path: Path, marker: str) -> None:
    fresh = CliRunner().invoke(main, ["run", str(league(tmp_path, marker)), "--restart", "-q"])
    assert fresh.exit_code == 0, fresh.output


def test_a_league_grows_and_shrinks_without_replaying_a_game(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker)
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(path), "-q"]).exit_code == 0
    out = tmp_path / "results" / "t"
    with ResultStore.open(out) as store:
        before = {r.game_id: r.to_json() for r in store.records()}
    bot = f"  - name: dee\n    command: [{sys.executable}, sample_bots/random_bot.py, {marker}-dee]\n"
    path.write_text(path.read_text() + bot)
    grown = runner.invoke(main, ["run", str(path)])
    assert grown.exit_code == 0, grown.output
    assert "bots[3] added ('dee')" in grown.output and "kept 6, scheduled 6 new" in grown.output
    assert "6 played now" in grown.output
    with ResultStore.open(out) as store:
        after = {r.game_id: r for r in store.records()}
    assert {k: after[k].to_json() for k in before} == before  # every game played is kept as it was
    assert all("dee" in [s.name for s in r.seats] for k, r in after.items() if k not in before)
    assert len(after) == 12
    # Left out for a run, then removed from the file: nothing is replayed, its games still count.
    same = runner.invoke(main, ["run", str(path), "--without", "dee"])
    assert same.exit_code == 0 and "'dee' is retired" in same.output and "0 played now" in same.output
    assert "retired (no new games; their games played still count): dee" in same.output
    # The standings files and 'arena standings' mark it too.
    assert {r["bot"]: r["retired"] for r in standings_json(out)} == {
        "ann": False, "bob": False, "cid": False, "dee": True,
    }  # fmt: skip
    assert "| dee (retired) " in (out / "standings.md").read_text()
    assert "dee (retired)" in runner.invoke(main, ["standings", str(out)]).output
    typo = runner.invoke(main, ["run", str(path), "--without", "dea"])
    assert typo.exit_code == 2 and "did you mean 'dee'" in typo.output
    path.write_text(path.read_text().replace(bot, ""))
    shrunk = runner.invoke(main, ["run", str(path)])
    assert shrunk.exit_code == 0 and "'dee' removed" in shrunk.output, shrunk.output
    rows = standings_json(out)
    assert {r["bot"]: r["games"] for r in rows}["dee"] == 6
    assert [r["bot"] for r in rows if r["retired"]] == ["dee"]
    listed = csv.DictReader(io.StringIO(runner.invoke(main, ["standings", str(out), "--format", "csv"]).output))
    assert [row["bot"] for row in listed if row["retired"] == "true"] == ["dee"]


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, rounds=3)
    store_file = tmp_path / "results" / "t" / "results.sqlite"
    proc = start_run(path, tmp_path)
    _out, err = interrupt_when_stored(proc, store_file, 2)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert wait_no_leftovers(marker) == []
    with ResultStore.open(store_file) as store:
        assert 2 <= store.count() < 18
        for r in store.records():
            r.replay()


# -- failures of the arena: a run that gives up on games does not look like a success --------------


def test_games_the_arena_gives_up_on_are_listed_with_their_bots_and_exit_1(
    tmp_path: Path, marker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "hang" never answers a move and the time control would let it think for a minute: only
    # the watchdog (1 s here) ends its games.
    monkeypatch.setattr(GameSettings, "watchdog_seconds", lambda self: 1.0)
    hang = f"[{sys.executable}, tests/bots/broken/sleeps_on_move.py, {marker}-hang]"
    text = (
        f"name: t\nseed: 1\nplayers: 2\nrounds: 1\ncwd: {REPO}\nconcurrency: 2\nretries: 0\n"
        "time_control: {move: 60s, startup: 10s}\nend_grace: 200ms\nbots:\n"
        f"  - name: ann\n    command: [{sys.executable}, sample_bots/random_bot.py, {marker}-ann]\n"
        f"  - name: hang\n    command: {hang}\n"
    )
    path = tmp_path / "league.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert "giving up on r1-g001: game r1-g001 ran past its watchdog limit of 1.0 s (bots: ann, hang)" in (
        result.output
    )
    assert result.stderr.strip().splitlines()[-1] == (
        "FAILED: 2 of 2 games not played: r1-g001 (ann vs hang), r1-g002 (hang vs ann); "
        "run the same command to retry them"
    )
    with ResultStore.open(tmp_path / "results" / "t") as store:
        assert store.count() == 0


# -- a full disk loses nothing ----------------------------------------------------------------------------


def reported_games(output: str) -> list[str]:
    """The games ``arena run`` said it finished (its plain progress lines)."""
    return re.findall(r"^\[\d+/\d+\] (r\d+-g\d+):", output, re.MULTILINE)


def assert_store_intact(folder: Path, reported: list[str]) -> int:
    """Every reported game is in the store and loads; the database is sound. Returns the count."""
    with ResultStore.open(folder) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert set(reported) <= store.finished_ids()
        for record in store.records():
            record.replay()
        return store.count()


def test_a_full_disk_while_saving_a_game_stops_the_run_in_one_line(
    tmp_path: Path, marker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before the third game, the database may not grow by a page: SQLite itself then
    # answers SQLITE_FULL ("database or disk is full"), as on a full disk.
    real_save = ResultStore.save_game

    def save_on_a_filling_disk(store: ResultStore, game: ScheduledGame, record: GameRecord) -> GameSummary:
        if store.count() == 2:
            pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
            store.conn.execute(f"PRAGMA max_page_count = {pages}")
        return real_save(store, game, record)

    monkeypatch.setattr(ResultStore, "save_game", save_on_a_filling_disk)
    path = league(tmp_path, marker)
    out = tmp_path / "results" / "t"
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is not None
    error = result.stderr.strip().splitlines()
    assert len(error) == 1 and re.fullmatch(
        rf"Error: results disk full while saving game r1-g00\d to {re.escape(repr(str(out / 'results.sqlite')))}: "
        r"database or disk is full; every finished game before it is kept "
        r"\(free some space, then run the same command to resume\)",
        error[0],
    ), error
    reported = reported_games(result.stdout)
    assert len(reported) == 2 and assert_store_intact(out, reported) == 2
    # Space again: the same command resumes and plays the rest.
    monkeypatch.setattr(ResultStore, "save_game", real_save)
    again = CliRunner().invoke(main, ["run", str(path)])
    assert again.exit_code == 0, again.output
    assert "resuming: 2 of 6 games already played" in again.output
    assert assert_store_intact(out, []) == 6


def test_a_full_disk_while_writing_the_standings_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full to make writes fail with ENOSPC")
    standings = compute_standings([], ["ann", "bob"])
    write_files(tmp_path, "t", standings, 6)
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    real_mkstemp = tempfile.mkstemp

    def mkstemp_on_a_full_disk(*args: Any, **kwargs: Any) -> tuple[int, str]:
        fd, name = real_mkstemp(*args, **kwargs)  # the file exists; what is written goes nowhere
        full = os.open("/dev/full", os.O_WRONLY)  # every write: ENOSPC
        os.dup2(full, fd)
        os.close(full)
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_on_a_full_disk)
    with pytest.raises(ResultsWriteError) as failed:
        write_files(tmp_path, "t", standings, 6)
    assert str(failed.value) == (
        f"results disk full while writing {str(tmp_path / 'standings.md')!r}: No space left on device; "
        f"every finished game is kept in {str(tmp_path / 'results.sqlite')!r} "
        "(free some space, then run the same command to resume)"
    )
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == before  # no temporary file, nothing torn


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A file system of its own, 8 MB of tmpfs, to fill up (unmounted afterwards)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("a real full disk needs root on Linux, to mount a small tmpfs")
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or f'exit {done.returncode}'}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], check=False, timeout=30).returncode != 0:
            subprocess.run(["umount", "--lazy", str(disk)], check=False, timeout=30)


def fill(path: Path) -> None:
    """Write ``path`` until its file system has not a byte left."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):  # ENOSPC, checked below
            while True:
                os.write(fd, bytes(65536))
    finally:
        os.close(fd)
    with pytest.raises(OSError) as full:
        (path.parent / "one-more").write_bytes(b"x")
    assert full.value.errno == errno.ENOSPC


def test_a_real_full_disk_stops_the_run_in_one_line_and_loses_no_finished_game(
    tmp_path: Path, marker: str, tiny_disk: Path
) -> None:
    out = tiny_disk / "results"
    path = league(tmp_path, marker, rounds=4, extra=f"output: {out}\n")
    proc = start_run(path, tmp_path)
    try:
        wait_for_games(out / "results.sqlite", 3, proc)
        fill(tiny_disk / "filler")  # mid-run: the next game, or standings file, finds no space
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("Error: results disk full while ") and str(out) in last, stderr
    assert "run the same command to resume" in last
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]  # no temporary file left
    reported = reported_games(stdout)
    # Three games were stored before the disk filled; the third's line may not have been
    # printed (its standings write can be the one that finds the disk full), the first two's were.
    assert len(reported) >= 2
    # Free the space (SQLite needs a little to open a store), then every reported game is there.
    (tiny_disk / "filler").unlink()
    played = assert_store_intact(out, reported)
    assert len(reported) <= played < 24
    again = CliRunner().invoke(main, ["run", str(path), "-q"])
    assert again.exit_code == 0, again.output
    assert assert_store_intact(out, []) == 24
