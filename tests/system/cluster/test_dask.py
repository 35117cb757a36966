"""Leagues on a Dask cluster: the ``executor`` key, bot placement, and real clusters on loopback.

The slow tests start a real ``dask scheduler`` and ``dask worker`` processes
(and a ``LocalCluster``) on 127.0.0.1, without dashboards, and stop every one
of them, whatever the test's outcome.

The cases that start processes; the others are in tests/unit/cluster/test_dask.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cluster import DaskGamePool
from arena.cluster.placement import Build, Placement, pack_folder, prepare
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.referee import BotSpec
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from arena.league.config import ExecutorConfig
from arena.league.listener import Lines, Quiet
from arena.league.schedule import make_schedule
from arena.league.store import ResultStore
from arena.rules import Params
from tests.support.dask_helpers import GREEDY, league, settings_for
from tests.support.flaky_settings import FlakySettings
from tests.support.process_helpers import (
    ARENA_WITH_SIGINT,
    interrupt_when_stored,
    stored_games,
    wait_for_games,
)

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent  # the venv's: where `dask` is
# Fields of a record that depend on when and where it was played, not on the game.
TIMING = {"duration_ms", "started_at", "extra"}
# What a seat's process did rather than its game: a kept (multigame) process's first stdout lines
# (and what it wrote on stderr before its hello) are those of the first game it played, which
# depends on where the games ran.
SEAT_TIMING = {
    "stderr_tail",
    "stderr_turns",
    "stderr_bytes",
    "exit",
    "exited_cleanly",
    "leftover_processes",
    "stdout_head",
}


# -- the executor key ------------------------------------------------------------------------------


# -- bot placement -----------------------------------------------------------------------------


def test_bots_sharing_an_uploaded_folder_each_build_and_write_a_copy_of_their_own(tmp_path: Path) -> None:
    # Four bots in one folder, as the sample league runs them: two build, one is writable,
    # one only reads. Each build appends to a log: in a folder shared by both it would hold
    # two lines (or the second build would be skipped and both bots play one build).
    src = tmp_path / "bots"
    src.mkdir()
    (src / "bot.sh").write_text("#!/bin/sh\nexec true\n")
    (src / "bot.sh").chmod(0o755)
    build = ("sh", "-c", "echo built >> builds.log && cp bot.sh built.sh")
    none = SandboxPolicy(mode="none")
    specs = {
        name: BotSpec(name, ("./bot.sh",), cwd=src, sandbox=replace(none, writable=name == "writer"))
        for name in ("b1", "b2", "writer", "reader")
    }
    placement = Placement(
        "upload",
        {str(src): pack_folder(src)},
        (Build("b1", build, False), Build("b2", build, False)),
    )
    settings, problem = prepare(placement, settings_for(specs), tmp_path / "worker")
    assert problem is None, problem
    bots = settings.bots
    shared = bots["reader"].cwd
    assert {spec.cwd for spec in bots.values()} == {shared} and shared != src  # the worker's unpacked folder
    copies = {name: Path(spec.sandbox.source) for name, spec in bots.items() if spec.sandbox.source}
    assert set(copies) == {"b1", "b2", "writer"} and len(set(copies.values())) == 3
    for name in ("b1", "b2"):
        assert (copies[name] / "builds.log").read_text() == "built\n", name
        assert os.access(copies[name] / "built.sh", os.X_OK)
    assert not (shared / "builds.log").exists() and not (copies["writer"] / "builds.log").exists()
    assert bots["reader"].sandbox.source is None  # it writes nothing: the shared copy serves it
    # An unsandboxed bot runs in its copy itself (no sandbox shows the copy at the folder's path).
    from arena.game.botproc import BotPool

    with BotPool() as pool:
        bot = pool.start("b1", ("./built.sh",), shared, dict(os.environ), ResourceLimits(), bots["b1"].sandbox)
        assert bot.proc.wait(30) == 0
        assert bot.cwd == copies["b1"]


# -- helpers for real clusters -----------------------------------------------------------------


def slow_start(seconds: float) -> list[str]:
    """A bot that takes ``seconds`` to start (its marker is ``$0``, kept by exec)."""
    return ["sh", "-c", f'sleep {seconds}; exec {GREEDY} --random "$0"']


def records(path: Path) -> list[dict[str, Any]]:
    """The stored records, without what depends on when or where a game was played."""
    with ResultStore.open(path) as store:
        out = []
        for r in store.records():
            d = {k: v for k, v in r.to_dict().items() if k not in TIMING}
            d["moves"] = [m[:2] for m in d["moves"]]
            d["seats"] = [{k: v for k, v in s.items() if k not in SEAT_TIMING} for s in d["seats"]]
            out.append(d)
        return out


def workers_of(path: Path) -> list[str]:
    with ResultStore.open(path) as store:
        return [r.extra.get("worker", "") for r in store.records()]


def run_ok(*args: str) -> str:
    result = CliRunner().invoke(main, ["run", *args])
    assert result.exit_code == 0, result.output
    return result.output


def same_as_local(tmp_path: Path, marker: str, dask_file: Path) -> None:
    """The league of ``dask_file``, run again with the local executor, gives the same games
    and the same standings."""
    local = tmp_path / "local.yaml"
    text = dask_file.read_text().replace(f"out-{dask_file.stem}", "out-local")
    local.write_text("\n".join(x for x in text.splitlines() if not x.startswith("executor:")) + "\n")
    run_ok(str(local), "-q")
    ours, theirs = tmp_path / f"out-{dask_file.stem}", tmp_path / "out-local"
    assert len(records(ours)) == 12
    assert records(ours) == records(theirs)
    assert (ours / "standings.json").read_text() == (theirs / "standings.json").read_text()


@dataclass
class CliCluster:
    """A ``dask scheduler`` and ``dask worker`` processes, each in its own process group."""

    address: str
    procs: list[subprocess.Popen[bytes]]
    folder: Path

    def add_worker(self, name: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        with (self.folder / f"{name}.log").open("wb") as log:
            proc = subprocess.Popen(
                [str(BIN / "dask"), "worker", self.address, "--nworkers", "1", "--nthreads", "1",
                 "--no-dashboard", "--host", "127.0.0.1", "--name", name,
                 "--local-directory", str(self.folder / name)],
                stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, env=env,
            )  # fmt: skip
        self.procs.append(proc)
        return proc

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=20, set_as_default=False) as client:
            client.wait_for_workers(n, timeout=60)

    def stop(self, proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        with contextlib.suppress(ProcessLookupError):  # and whatever it started (the worker process)
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def group_members(pgid: int, wait_s: float = 10.0) -> list[int]:
    """The live (not zombie) processes of a process group, after up to ``wait_s`` for them to die."""
    deadline = time.monotonic() + wait_s
    while True:
        members = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError):
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    members.append(int(entry))
        if not members or time.monotonic() > deadline:
            return members
        time.sleep(0.1)


def children(pid: int) -> list[int]:
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(x) for x in f.read().split()]
    return kids


@pytest.fixture(scope="module")
def cli_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CliCluster]:
    with running_cluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@contextlib.contextmanager
def running_cluster(folder: Path, workers: int = 2) -> Iterator[CliCluster]:
    """A scheduler and ``workers`` workers on loopback, all stopped (and checked gone) at the end."""
    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    with (folder / "scheduler.log").open("wb") as log:
        scheduler = subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(scheduler_file)],
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
        )  # fmt: skip
    cluster = CliCluster("", [scheduler], folder)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not scheduler_file.exists():
            assert scheduler.poll() is None, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # written at once, but let it finish
        cluster.address = json.loads(scheduler_file.read_text())["address"]
        assert cluster.address.startswith("tcp://127.0.0.1:")
        # The tests' own settings classes (tests.support.flaky_settings) must load on the workers.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        for n in range(1, workers + 1):
            cluster.add_worker(f"w{n}", env)
        cluster.wait_for_workers(workers)
        yield cluster
    finally:
        for proc in reversed(cluster.procs):
            cluster.stop(proc)
        left = {proc.pid: group_members(proc.pid) for proc in cluster.procs}
        assert not any(left.values()), f"cluster processes left behind: {left}"


# -- without a cluster ---------------------------------------------------------------------------


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path: Path, marker: str) -> None:
    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        path = league(tmp_path, marker, executor="{kind: dask, connect_timeout: 1s}")
        started = time.monotonic()
        result = CliRunner().invoke(main, ["run", str(path), "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert result.exit_code == 2, result.output
    assert time.monotonic() - started < 15
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"Error: cannot reach the Dask scheduler 'tcp://127.0.0.1:{port}' (from --scheduler)")
    assert "within 1 s" in last
    assert stored_games(tmp_path / "out-t" / "results.sqlite") == 0


# -- real clusters -----------------------------------------------------------------------------


def test_a_league_on_a_scheduler_and_two_workers_matches_the_local_executor(
    tmp_path: Path, marker: str, cli_cluster: CliCluster
) -> None:
    path = league(tmp_path, marker, executor="{kind: dask, connect_timeout: 5s}", name="cli")
    out = run_ok(str(path), "--scheduler", cli_cluster.address)
    assert out.count(" ready (") == 2
    used = workers_of(tmp_path / "out-cli")
    assert all(w.startswith("tcp://127.0.0.1:") for w in used) and len(set(used)) == 2  # both played
    same_as_local(tmp_path, marker, path)


def test_a_worker_that_cannot_find_a_bot_takes_no_games_and_is_named(
    tmp_path: Path, marker: str, cli_cluster: CliCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bot's program is found on PATH: the arena's and a third worker's PATH have it,
    # the two workers of the module's cluster do not.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = f"greedy-{marker}"
    shutil.copy(GREEDY, bin_dir / program)
    path_with = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    monkeypatch.setenv("PATH", path_with)
    third = cli_cluster.add_worker(f"w3-{marker}", env={**os.environ, "PATH": path_with})
    try:
        cli_cluster.wait_for_workers(3)
        path = league(tmp_path, marker, executor="dask", command=f"{program} --random", name="path")
        out = run_ok(str(path), "--scheduler", cli_cluster.address)
        refusals = [line for line in out.splitlines() if "takes no games" in line]
        assert len(refusals) == 2, out
        assert all(f"bot 'ann': program '{program}' not found" in line for line in refusals)
        assert out.count(" ready (") == 1
        used = set(workers_of(tmp_path / "out-path"))
        assert len(used) == 1 and not any(w in line for w in used for line in refusals)
    finally:
        cli_cluster.stop(third)
        cli_cluster.procs.remove(third)


def test_killing_a_worker_mid_league_loses_no_game_and_charges_no_bot(
    tmp_path: Path, marker: str, cli_cluster: CliCluster
) -> None:
    # Bots that take a moment to start, started afresh for every game: a worker is nearly
    # always in a game, and the test waits until one surely is (its bots are its children).
    path = league(
        tmp_path, marker, executor="dask", command=slow_start(0.3), top_extra="multigame: false\n", name="kill"
    )
    store_file = tmp_path / "out-kill" / "results.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(path), "--scheduler", cli_cluster.address],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_games(store_file, 2, proc)
        killed = None
        deadline = time.monotonic() + 30
        while killed is None and time.monotonic() < deadline and proc.poll() is None:
            for nanny in cli_cluster.procs[1:3]:
                for worker in children(nanny.pid):
                    if any(marker.encode() in Path(f"/proc/{k}/cmdline").read_bytes()
                           for k in children(worker) if Path(f"/proc/{k}").exists()):  # fmt: skip
                        os.kill(worker, signal.SIGKILL)  # mid-game; its nanny starts a new one
                        killed = worker
                        break
                if killed:
                    break
            time.sleep(0.02)
        assert killed is not None, "no worker was seen in a game"
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out + err
    assert "left the cluster" in out
    assert "retrying" not in out and "giving up" not in out + err  # Dask reran it: no failure
    with ResultStore.open(tmp_path / "out-kill") as store:
        recs = list(store.records())
    assert len(recs) == 12 and [r.game_id for r in recs] == sorted(r.game_id for r in recs)
    assert all(s.fault is None for r in recs for s in r.seats)  # no bot charged
    cli_cluster.wait_for_workers(2)  # the nanny's new worker: the cluster is whole for the next test


def test_ctrl_c_keeps_finished_games_and_the_same_command_resumes(
    tmp_path: Path, marker: str, cli_cluster: CliCluster
) -> None:
    path = league(
        tmp_path, marker, executor="dask", command=slow_start(0.2), top_extra="multigame: false\n", name="int"
    )
    store_file = tmp_path / "out-int" / "results.sqlite"
    command = [sys.executable, "-m", "arena", "run", str(path), "--scheduler", cli_cluster.address]
    # (with Python's Ctrl-C handler set in the child: a suite started with SIGINT ignored
    # passes that on, and the arena would play on to the end)
    interruptible = [sys.executable, "-c", ARENA_WITH_SIGINT, *command[3:]]
    proc = subprocess.Popen(interruptible, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupt_when_stored(proc, store_file, 3)
    assert proc.returncode == 130, out + err
    assert "interrupted: finished games are saved" in err
    kept = stored_games(store_file)
    assert 3 <= kept < 12
    resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming: {kept} of 12 games already played" in resumed.stdout
    assert stored_games(store_file) == 12


@pytest.mark.slow
def test_losing_the_scheduler_mid_league_says_so_keeps_the_games_and_a_rerun_resumes(
    tmp_path: Path, marker: str
) -> None:
    # The client gives a lost scheduler up after connect_timeout (10 s by default) of trying.
    path = league(
        tmp_path, marker, executor="{kind: dask, connect_timeout: 4s}", command=slow_start(0.3),
        top_extra="multigame: false\n", name="lost",
    )  # fmt: skip
    store_file = tmp_path / "out-lost" / "results.sqlite"
    with running_cluster(tmp_path / "first", workers=1) as cluster:
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "run", str(path), "--scheduler", cluster.address],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_for_games(store_file, 2, proc)
            assert proc.poll() is None, proc.communicate()
            # The scheduler goes (its machine crashed): no goodbye to anyone.
            os.killpg(cluster.procs[0].pid, signal.SIGKILL)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        address = cluster.address
    assert proc.returncode == 2, out + err  # ExitCode.ARENA_ERROR
    assert "Traceback" not in out + err, out + err
    (line,) = [x for x in err.splitlines() if "lost the Dask scheduler" in x]
    assert line.startswith(f"Error: lost the Dask scheduler {address!r} mid-run ("), line
    assert line.endswith("finished games are kept: run the same command again to resume"), line
    with ResultStore.open(tmp_path / "out-lost") as store:
        kept = [r.game_id for r in store.records()]
    assert 2 <= len(kept) < 12, kept
    # The same command against the scheduler that replaced it plays only what is left.
    with running_cluster(tmp_path / "second", workers=1) as cluster:
        command = [sys.executable, "-m", "arena", "run", str(path), "--scheduler", cluster.address]
        resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming: {len(kept)} of 12 games already played" in resumed.stdout
    with ResultStore.open(tmp_path / "out-lost") as store:
        recs = list(store.records())
    assert len(recs) == 12 and set(kept) <= {r.game_id for r in recs}
    assert all(s.fault is None for r in recs for s in r.seats)  # no bot charged for the lost scheduler


@pytest.mark.slow
def test_a_local_cluster_with_uploaded_bots_built_on_each_worker_matches_the_local_executor(
    tmp_path: Path, marker: str
) -> None:
    # The bots' folder holds only the source: each worker builds its own copy (in the
    # sandbox where bubblewrap works), and nothing is built in the original folder.
    src = tmp_path / "greedy"
    src.mkdir()
    for name in ("greedy.c", "Makefile"):
        shutil.copy(REPO / "sample_bots" / "c" / name, src / name)
    sandbox = "auto" if unavailable_reason() is None else "none"
    path = league(
        tmp_path, marker, executor="{kind: dask-local, workers: 2, bots: upload}", cwd=src,
        command="./greedy --random", bot_extra="    build: make\n", name="upload",
    )  # fmt: skip
    path.write_text(path.read_text().replace("sandbox: none", f"sandbox: {sandbox}"))
    out = run_ok(str(path))
    # Each worker says it is ready (a worker that its nanny replaced under load says so again).
    assert out.count(" ready (") >= 2
    assert not (src / "greedy").exists()  # built on the workers only
    with ResultStore.open(tmp_path / "out-upload") as store:
        recs = list(store.records())
    assert all(s.sandboxed == (sandbox == "auto") for r in recs for s in r.seats)
    assert all(s.exit == "kept for its next game" for r in recs for s in r.seats)  # multigame kept
    assert len(set(workers_of(tmp_path / "out-upload"))) >= 2  # both workers played
    same_as_local(tmp_path, marker, path)


def flaky(tmp_path: Path, mode: str) -> FlakySettings:
    """Settings whose every game fails its first attempt: an arena error ("raise") or the
    death of the worker process ("die")."""
    none = SandboxPolicy(mode="none")
    return FlakySettings(
        bots={n: BotSpec(n, (str(GREEDY), "--random"), cwd=REPO, sandbox=none) for n in ("a", "b")},
        params=Params(), time_control=TimeControl(move_ms=2000), board="random", end_grace_s=0.2,
        flag_dir=str(tmp_path), mode=mode,
    )  # fmt: skip


def test_an_arena_error_is_retried_then_reported_with_the_game_its_bots_and_the_worker(
    tmp_path: Path, cli_cluster: CliCluster
) -> None:
    games = make_schedule(["a", "b"], 2, 1, seed=1)
    executor = ExecutorConfig(kind="dask", scheduler=cli_cluster.address, where="test")
    results: list[str] = []
    failures: list[tuple[str, str, bool]] = []
    pool = DaskGamePool(flaky(tmp_path / "once", "raise"), executor, Placement(), 1, Quiet())
    (tmp_path / "once").mkdir()
    failed = pool.run(
        games, lambda g, r: results.append(g.game_id), lambda g, why, retry: failures.append((g.game_id, why, retry)), 1
    )
    assert failed == [] and sorted(results) == ["r1-g001", "r1-g002"]
    assert sorted(f[0] for f in failures) == ["r1-g001", "r1-g002"] and all(f[2] for f in failures)
    first = failures[0][1].splitlines()[0]
    assert first.startswith(f"arena error in game {failures[0][0]} (bots: ")
    assert " on worker tcp://127.0.0.1:" in first and first.endswith("RuntimeError: injected arena failure")

    (tmp_path / "never").mkdir()
    pool = DaskGamePool(flaky(tmp_path / "never", "raise"), executor, Placement(), 1, Quiet())
    failed = pool.run(games[:1], lambda g, r: None, lambda g, why, retry: None, 0)
    assert [g.game_id for g, _ in failed] == ["r1-g001"]  # no retry left: reported, not dropped
    assert failed[0][1].startswith("arena error in game r1-g001 (bots: a, b) on worker tcp://127.0.0.1:")


def test_a_worker_that_dies_is_replaced_and_its_game_played_again_without_a_failure(
    tmp_path: Path, cli_cluster: CliCluster
) -> None:
    # Each game's first attempt kills its worker process; the nanny starts a new worker (a new
    # address), and the game, bound to the dead worker, is handed to the new one.
    games = make_schedule(["a", "b"], 2, 1, seed=1)
    executor = ExecutorConfig(kind="dask", scheduler=cli_cluster.address, where="test")
    results: list[str] = []
    failures: list[str] = []
    said: list[str] = []
    try:
        failed = DaskGamePool(flaky(tmp_path, "die"), executor, Placement(), 1, Lines(said.append)).run(
            games, lambda g, r: results.append(g.game_id), lambda g, why, retry: failures.append(why), 0
        )
    finally:
        cli_cluster.wait_for_workers(2)  # the nannies' new workers: whole again for the next test
    assert failed == [] and failures == [] and sorted(results) == ["r1-g001", "r1-g002"]
    assert any("left the cluster" in line for line in said)
