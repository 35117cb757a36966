"""One run per results folder; reading it needs no lock and no write access; its files are
readable by others and no temporary file outlives a killed run; 'output' must be ours.

The cases that start processes; the others are in tests/unit/league/test_results_folder.py.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ResultsFolderBusy, StoreError
from arena.league import results_folder
from arena.league.store import ResultStore
from tests.support.results_folder import PY, make_results, read_all, tournament

REPO = Path(__file__).resolve().parents[3]


# -- one run at a time ----------------------------------------------------------------------------


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


# -- the standings files ---------------------------------------------------------------------------


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


