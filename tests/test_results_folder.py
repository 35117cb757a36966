"""One run per results folder; reading it needs no lock and no write access; its files are
readable by others and no temporary file outlives a killed run; 'output' must be ours."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ResultsFolderBusy, StoreError
from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.league import results_folder
from arena.league.schedule import ScheduledGame
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.tally import compute_standings
from arena.rules import random_board

from .fakebot import engine_bot

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable


def record(game_id: str, seed: int) -> GameRecord:
    """A real game between two fake bots (no processes), named ann and bob."""
    specs = [BotSpec(name="ann", command=("fake",)), BotSpec(name="bob", command=("fake",))]
    rec = Referee(
        GameSetup(board=random_board(seed, 8), seed=seed), specs, [engine_bot("a"), engine_bot("b")]
    ).run()
    return replace(rec, game_id=game_id)


def make_results(folder: Path, games: int = 3) -> list[GameRecord]:
    """A finished results folder of ``games`` games, its store closed (no -wal, no -shm left)."""
    recs = [record(f"r1-g{i:03}", i + 1) for i in range(games)]
    with ResultStore.create(folder) as store:
        store.set_meta(config={"name": "t", "bots": [{"name": "ann"}, {"name": "bob"}]})
        for i, r in enumerate(recs):
            store.save_game(ScheduledGame(i, r.game_id, 1, ("ann", "bob"), r.seed), r)
    return recs


def tournament(tmp_path: Path, output: Path | str, rounds: int = 1, marker: str = "x") -> Path:
    path = tmp_path / "league.yaml"
    bots = "".join(
        f"  - {{name: {n}, command: [{PY}, sample_bots/random_bot.py, {marker}-{n}]}}\n"
        for n in ("ann", "bob", "cid")
    )
    path.write_text(
        f"name: t\nseed: 1\nplayers: 2\nrounds: {rounds}\ncwd: {REPO}\nconcurrency: 2\noutput: {output}\n"
        f"time_control: {{move: 2s, startup: 10s}}\nend_grace: 200ms\nbots:\n{bots}"
    )
    return path


def reading_commands(folder: Path) -> list[list[str]]:
    return [
        ["standings", str(folder)],
        ["standings", str(folder), "--format", "json"],
        ["games", str(folder)],
        ["replay", str(folder), "r1-g000", "--no-colour"],
    ]


def read_all(folder: Path) -> list[str]:
    """The output of every reading command on ``folder`` (each must succeed)."""
    outputs = []
    for args in reading_commands(folder):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.output)
    return outputs


# -- one run at a time ----------------------------------------------------------------------------


def test_a_second_run_exits_at_once_naming_the_first_while_reading_still_works(tmp_path: Path) -> None:
    out = tmp_path / "results"
    make_results(out)
    path = tournament(tmp_path, out)
    with results_folder.hold(out, "first.yaml"):
        lock = (out / results_folder.LOCK_NAME).read_text()
        assert str(os.getpid()) in lock and socket.gethostname() in lock
        started = time.monotonic()
        second = CliRunner().invoke(main, ["run", str(path)])
        assert time.monotonic() - started < 10  # at once: no bot was built or started
        assert second.exit_code == 2, second.output
        message = second.stderr.strip()  # the error: stdout has the run's header
        assert len(message.splitlines()) == 1, message
        assert f"'output' {str(out)!r} is in use by another 'arena run'" in message
        assert f"pid {os.getpid()} on {socket.gethostname()}, started " in message and "first.yaml" in message
        read_all(out)  # the reading commands need no lock
        with ResultStore.open(out) as store:
            assert store.count() == 3  # the refused run wrote nothing
    assert not (out / results_folder.LOCK_NAME).exists()  # gone with the run that held it
    with results_folder.hold(out, "again.yaml"):
        pass


HOLDER = """
import sys, time
from pathlib import Path
from arena.league import results_folder
with results_folder.hold(Path(sys.argv[1]), "holder.yaml"):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_killed_run_leaves_the_folder_free(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = subprocess.Popen([PY, "-c", HOLDER, str(out)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        with (
            pytest.raises(ResultsFolderBusy, match=f"pid {proc.pid} on "),
            results_folder.hold(out, "mine.yaml"),
        ):
            pass
        proc.kill()  # SIGKILL: no cleanup runs, the lock file stays behind...
        proc.wait(timeout=30)
        assert (out / results_folder.LOCK_NAME).exists()
        with results_folder.hold(out, "mine.yaml"):  # ...but nobody holds it any more
            assert "mine.yaml" in (out / results_folder.LOCK_NAME).read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()



@pytest.mark.slow
def test_two_real_runs_of_one_league_play_each_game_once(tmp_path: Path, marker: str) -> None:
    out = tmp_path / "results"
    path = tournament(tmp_path, out, rounds=2, marker=marker)
    first = subprocess.Popen(
        [PY, "-m", "arena", "run", str(path), "-q"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and first.poll() is None:
            with contextlib.suppress(sqlite3.Error, StoreError), ResultStore.open(out) as store:
                if store.count() >= 1:
                    break
            time.sleep(0.05)
        second = CliRunner().invoke(main, ["run", str(path)])
        assert second.exit_code == 2, second.output
        assert f"in use by another 'arena run' (pid {first.pid} on " in second.output
        games = CliRunner().invoke(main, ["games", str(out)])
        assert games.exit_code == 0 and "game(s)" in games.output, games.output
        _out, err = first.communicate(timeout=180)
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate()
    assert first.returncode == 0, err
    with ResultStore.open(out) as store:
        ids = [r.game_id for r in store.records()]
    assert len(ids) == len(set(ids)) == 12


# -- 'output' must be a folder the tournament owns ---------------------------------------------------


@pytest.mark.parametrize(
    ("output", "why"),
    [
        ("{tmp}/a-file", "not a folder"),
        ("/dev/null", "not a folder"),
        ("/proc/1/results", "system folder"),
        ("/sys/kernel/results", "system folder"),
        (
            "{tmp}/someone-elses",
            "holds other files ('notes.txt') and no results.sqlite: not a results folder",
        ),
    ],
    ids=["file", "dev-null", "proc", "sys", "foreign-folder"],
)
def test_output_must_be_a_folder_the_tournament_owns(tmp_path: Path, output: str, why: str) -> None:
    (tmp_path / "a-file").write_text("keep me")
    (tmp_path / "someone-elses").mkdir()
    (tmp_path / "someone-elses" / "notes.txt").write_text("keep me")
    target = output.format(tmp=tmp_path)
    path = tournament(tmp_path, target)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()  # the error: stdout has the run's header
    assert len(message.splitlines()) == 1, message
    # Named by the file (and line, when the tournament file's check finds it), the key and the path.
    assert message.startswith(f"Error: {path}") and "'output'" in message and repr(target) in message
    assert why in message.split(repr(target), 1)[1], message
    assert (tmp_path / "a-file").read_text() == "keep me"
    assert sorted(p.name for p in (tmp_path / "someone-elses").iterdir()) == ["notes.txt"]


def test_output_may_be_new_empty_or_a_results_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    finished = tmp_path / "finished"
    make_results(finished, games=1)
    (finished / "README").write_text("the results of our league")
    for folder in (tmp_path / "new" / "deeper", tmp_path / "empty", finished):
        with results_folder.hold(folder, "t.yaml") as real:
            assert real == folder.resolve() and real.is_dir()


def test_a_run_refused_before_it_stored_anything_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "results" / "t"
    with pytest.raises(RuntimeError), results_folder.hold(out, "t.yaml"):
        raise RuntimeError("a bot could not be built")
    assert not (tmp_path / "results").exists()


# -- the standings files ---------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o027], ids=["umask-022", "umask-027"])
def test_standings_files_get_the_mode_of_a_new_file(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        write_files(tmp_path, "t", compute_standings([], ["ann", "bob"]), 6)
    finally:
        os.umask(old)
    for name in ("standings.md", "standings.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name


def test_temporary_files_a_killed_run_left_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "results"
    make_results(out, games=1)
    stale = [out / ".standings.md.k1ll3d.tmp", out / ".standings.json.k1ll3d.tmp"]
    for p in stale:
        p.write_text("half a file")
    keep = out / ".standings.md.notes"  # not one of ours: left alone
    keep.write_text("x")
    with results_folder.hold(out, "t.yaml"):  # a run starting
        assert not any(p.exists() for p in stale) and keep.exists()
    stale[0].write_text("half a file")
    write_files(out, "t", compute_standings([], ["ann", "bob"]), 6)  # and on each write
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [".standings.md.notes"]


# -- reading without writing -------------------------------------------------------------------------


@pytest.fixture
def read_only_view(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A folder and a read-only bind mount of it (root and mount(8) needed, else skipped)."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    source, view = tmp_path / "source", tmp_path / "view"
    source.mkdir()
    view.mkdir()
    mounted = subprocess.run(
        ["mount", "--bind", str(source), str(view)], capture_output=True, text=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.strip()}")
    try:
        ro = subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(view)], capture_output=True, text=True, check=False
        )
        if ro.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {ro.stderr.strip()}")
        yield source, view
    finally:
        if subprocess.run(["umount", str(view)], check=False).returncode != 0:
            subprocess.run(["umount", "--lazy", str(view)], check=False)


def test_a_finished_results_folder_reads_on_a_read_only_mount(read_only_view: tuple[Path, Path]) -> None:
    source, view = read_only_view
    make_results(source / "results")
    assert not (source / "results" / "results.sqlite-shm").exists()  # closed cleanly: no WAL index
    with pytest.raises(OSError, match="Read-only file system"):
        (view / "results" / "probe").write_text("x")  # really read-only, even for root
    assert read_all(view / "results") == read_all(source / "results")


KILLED_WRITER = """
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("DELETE FROM games WHERE game_id = 'r1-g002'")
os._exit(0)  # killed: the change is only in the write-ahead log
"""


def test_a_killed_writers_log_is_read_on_a_read_only_mount_or_refused_in_one_line(
    read_only_view: tuple[Path, Path],
) -> None:
    source, view = read_only_view
    make_results(source / "results")
    subprocess.run(
        [PY, "-c", KILLED_WRITER, str(source / "results" / "results.sqlite")], check=True, timeout=60
    )
    assert (source / "results" / "results.sqlite-wal").stat().st_size > 0
    games = CliRunner().invoke(main, ["games", str(view / "results")])
    assert games.exit_code == 0 and "2 game(s)" in games.output, games.output  # the log counts
    # Without its index (-shm) the log cannot be read from a read-only place: say so, and what to do.
    (source / "results" / "results.sqlite-shm").unlink()
    refused = CliRunner().invoke(main, ["games", str(view / "results")])
    assert refused.exit_code == 2, refused.output
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (
        "has unmerged writes in 'results.sqlite-wal'" in refused.output
        and "copy the folder" in refused.output
    )


def test_a_folder_this_user_cannot_write_is_read(tmp_path: Path) -> None:
    """Without root, permissions alone make the folder unwritable; root ignores them, so there
    this proves nothing and is skipped (the read-only mount test covers root)."""
    if os.geteuid() == 0:
        pytest.skip("root writes whatever the permissions say: see the read-only mount test")
    out = tmp_path / "results"
    make_results(out)
    expected = read_all(out)
    for p in out.iterdir():
        p.chmod(0o444)
    out.chmod(0o555)
    try:
        assert read_all(out) == expected
        assert sorted(p.name for p in out.iterdir()) == ["results.sqlite"]  # nothing written beside it
    finally:
        out.chmod(0o755)


def test_reading_never_writes_the_store(tmp_path: Path) -> None:
    out = tmp_path / "results"
    make_results(out)
    before = (out / "results.sqlite").read_bytes()
    read_all(out)
    assert (out / "results.sqlite").read_bytes() == before
    with ResultStore.open(out) as store, pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.conn.execute("DELETE FROM games")


def test_the_temporary_file_of_an_interrupted_write_is_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    standings = compute_standings([], ["ann", "bob"])
    with monkeypatch.context() as m:  # as if killed between writing and renaming: nothing cleans up
        m.setattr(os, "replace", lambda *_a: (_ for _ in ()).throw(KeyboardInterrupt()))
        m.setattr(os, "unlink", lambda *_a: None)
        with pytest.raises(KeyboardInterrupt):
            write_files(tmp_path, "t", standings, 6)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    write_files(tmp_path, "t", standings, 6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["standings.json", "standings.md"]
