"""One run per results folder; reading it needs no lock and no write access; its files are
readable by others and no temporary file outlives a killed run; 'output' must be ours.

The cases that need no process; the others are in tests/system/league/test_results_folder.py.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.league import results_folder
from arena.league.standings import write_files
from arena.league.store import ResultStore
from arena.league.tally import compute_standings
from tests.support.results_folder import make_results, read_all, tournament

REPO = Path(__file__).resolve().parents[3]


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
