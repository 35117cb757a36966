"""Leagues on a Dask cluster: the ``executor`` key, bot placement, and real clusters on loopback.

The slow tests start a real ``dask scheduler`` and ``dask worker`` processes
(and a ``LocalCluster``) on 127.0.0.1, without dashboards, and stop every one
of them, whatever the test's outcome.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cluster import DaskGamePool
from arena.cluster.placement import Build, Placement, pack_folder, prepare, relocate, unpack_folders
from arena.errors import ConfigError
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.referee import BotSpec
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from arena.league.config import ExecutorConfig, parse_config
from arena.league.executor import GameSettings
from arena.league.schedule import make_schedule
from arena.league.store import ResultStore
from arena.rules import Params

from .flaky_settings import FlakySettings
from .process_helpers import (
    ARENA_WITH_SIGINT,
    interrupt_when_stored,
    kill_leftovers,
    stored_games,
    wait_for_games,
    wait_no_leftovers,
)

REPO = Path(__file__).resolve().parent.parent
GREEDY = REPO / "sample_bots" / "c" / "greedy"
BIN = Path(sys.executable).parent  # the venv's: where `dask` is
BOTS = ("ann", "bob", "cid", "dan")
# Fields of a record that depend on when and where it was played, not on the game.
TIMING = {"duration_ms", "started_at", "extra"}
# What a seat's process did rather than its game: a kept (multigame) process's first stdout lines
# are those of the first game it played, which depends on where the games ran.
SEAT_TIMING = {"stderr_tail", "stderr_bytes", "exit", "exited_cleanly", "leftover_processes", "stdout_head"}


# -- the executor key ------------------------------------------------------------------------------

BASE = "bots:\n  - {name: a, command: x}\n  - {name: b, command: y}\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ("local", None, "shared", None, 10_000)),
        ("executor: dask-local\n", ("dask-local", None, "shared", None, 10_000)),
        (
            "executor: {scheduler: 'tcp://10.1.2.3:8786', insecure: true, bots: upload, connect_timeout: 3s}\n",
            ("dask", "tcp://10.1.2.3:8786", "upload", None, 3000),
        ),
        ("executor: {kind: dask-local, workers: 3}\n", ("dask-local", None, "shared", 3, 10_000)),
    ],
    ids=["default", "dask-local", "dask-mapping", "dask-local-workers"],
)
def test_executor_key_forms(text: str, expected: tuple[Any, ...]) -> None:
    e = parse_config(text + BASE, Path("t.yaml")).executor
    assert (e.kind, e.scheduler, e.bots, e.workers, e.connect_timeout_ms) == expected
    assert e.where == "t.yaml:1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("executor: cluster\n", "'executor' must be one of local, dask, dask-local (or a mapping)"),
        ("executor: {kind: dask, schedular: x}\n", "unknown key 'executor.schedular' (did you mean 'scheduler'?)"),
        ("executor: {kind: local, bots: upload}\n", "'executor.bots' only applies to kind: dask or dask-local"),
        ("executor: {kind: dask, bots: nfs}\n", "'executor.bots' must be one of shared, upload"),
        ("executor: {kind: dask-local, workers: 0}\n", "'executor.workers' must be from 1 to 256"),
        ("executor: {kind: dask, workers: 2}\n", "'executor.workers' only applies to kind: dask-local"),
        ("executor: {kind: dask-local, scheduler: 'tcp://h:1'}\n", "'executor.scheduler' only applies to kind: dask"),
        ("executor: {scheduler: 'tcp://a b'}\n", "'executor.scheduler' must be the scheduler's address"),
        ("executor: {kind: dask, connect_timeout: 0s}\n", "'executor.connect_timeout' must be more than 0"),
    ],
    ids=["kind", "typo", "bots-local", "bots-value", "workers-range", "workers-dask", "scheduler-local",
         "scheduler-space", "timeout"],
)
def test_executor_key_errors_name_the_file_line_and_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config("name: t\n" + text + BASE, Path("t.yaml"))
    assert message in str(e.value) and str(e.value).startswith("t.yaml:2:")


def test_the_executor_may_change_between_runs() -> None:
    local = parse_config(BASE, Path("t.yaml"))
    dask = parse_config("executor: {scheduler: 'tcp://h:8786', insecure: true}\n" + BASE, Path("t.yaml"))
    assert local.play_conditions() == dask.play_conditions()  # so a resume may switch executors


# -- bot placement -----------------------------------------------------------------------------


def settings_for(bots: dict[str, BotSpec]) -> GameSettings:
    return GameSettings(bots=bots, params=Params(), time_control=TimeControl(move_ms=1000), board="random")


def test_an_uploaded_folder_keeps_its_modes_and_leaves_out_vcs_venv_and_results(tmp_path: Path) -> None:
    src = tmp_path / "bot"
    for sub in (".git", ".venv/bin", "results", "lib"):
        (src / sub).mkdir(parents=True)
    (src / "run.sh").write_text("#!/bin/sh\n")
    (src / "run.sh").chmod(0o755)
    (src / "lib" / "data.txt").write_text("x")
    (src / ".git" / "HEAD").write_text("ref")
    (src / ".venv" / "bin" / "python").write_text("")
    (src / "results" / "results.sqlite").write_text("")
    data = pack_folder(src, skip=(src / "results",))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        names = {Path(n).as_posix() for n in tar.getnames()}
    assert {"run.sh", "lib", "lib/data.txt"} <= names
    assert not any(n.startswith((".git", ".venv", "results")) for n in names)
    where = unpack_folders(Placement("upload", {str(src): data}), tmp_path / "worker")
    copy = where[str(src)]
    assert copy != src and os.access(copy / "run.sh", os.X_OK) and (copy / "lib" / "data.txt").read_text() == "x"


def test_relocating_moves_every_path_inside_an_uploaded_folder_and_no_other(tmp_path: Path) -> None:
    outer, inner = tmp_path / "bots", tmp_path / "bots" / "inner"
    spec = BotSpec(
        "a",
        (str(inner / "prog"), "--flag", str(outer / "arg"), "/opt/tool/lib", f"--data={outer}/x"),
        cwd=inner,
        sandbox=SandboxPolicy(
            paths=(str(outer / "data"), "/opt/tool"),
            hidden=(str(outer / "results"),),
            never_shown=(str(outer / "results"), str(outer / "other")),
        ),
    )
    moved = relocate(settings_for({"a": spec}), {str(outer): Path("/w/0"), str(inner): Path("/w/1")}).bots["a"]
    assert moved.cwd == Path("/w/1")
    # A whole argument that is a path inside an uploaded folder names its copy (as `python3
    # /abs/bot.py` needs); other arguments, paths elsewhere included, are left as they are.
    assert moved.command == ("/w/1/prog", "--flag", "/w/0/arg", "/opt/tool/lib", f"--data={outer}/x")
    assert moved.sandbox.paths == ("/w/0/data", "/opt/tool") and moved.sandbox.hidden == ("/w/0/results",)
    assert moved.sandbox.never_shown == ("/w/0/results", "/w/0/other")


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


def test_a_worker_names_the_bot_it_cannot_run(tmp_path: Path) -> None:
    none = SandboxPolicy(mode="none")
    ok = BotSpec("ok", (str(GREEDY),), cwd=REPO, sandbox=none)
    cases = {
        "cwd": BotSpec("gone", ("x",), cwd=tmp_path / "nowhere", sandbox=none),
        "program": BotSpec("lost", ("./no-such-program",), cwd=tmp_path, sandbox=none),
    }
    _, problem = prepare(Placement(), settings_for({"ok": ok}), tmp_path)
    assert problem is None
    _, problem = prepare(Placement(), settings_for({"ok": ok, "gone": cases["cwd"]}), tmp_path)
    assert problem is not None and problem.startswith("bot 'gone': cwd ") and "is not a folder" in problem
    _, problem = prepare(Placement(), settings_for({"ok": ok, "lost": cases["program"]}), tmp_path)
    assert problem is not None and "bot 'lost': program './no-such-program' not found" in problem


# -- helpers for real clusters -----------------------------------------------------------------



@pytest.fixture(autouse=True)
def one_seed_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run of this module draws the same secret for its seats' private seeds, so that a
    league on the cluster and the same league run locally give their bots the same seeds."""
    from arena.game import seeds

    monkeypatch.setattr(seeds, "new_secret", lambda: "5" * 32)

@pytest.fixture
def marker() -> Iterator[str]:
    m = f"arena-dask-{uuid.uuid4().hex[:10]}"
    yield m
    left = wait_no_leftovers(m)
    if left:  # never leave a process behind, even when the test failed
        kill_leftovers(m)
    assert not left, f"processes left behind: {left}"


def league(
    tmp_path: Path,
    marker: str,
    *,
    executor: str = "local",
    name: str = "t",
    cwd: Path = REPO,
    command: str | list[str] = "sample_bots/c/greedy --random",
    bot_extra: str = "",
    top_extra: str = "",
) -> Path:
    """A 4-bot round robin (12 games) of instant bots, each with the marker in its command line."""

    def argv(bot: str) -> str:
        if isinstance(command, str):
            return f"{command} {marker}-{bot}"
        return json.dumps([*command, f"{marker}-{bot}"])  # JSON is YAML

    bots = "".join(f"  - name: {b}\n    command: {argv(b)}\n{bot_extra}" for b in BOTS)
    text = (
        f"name: {name}\nseed: 7\nplayers: 2\nrounds: 1\ncwd: {cwd}\nsandbox: none\n"
        f"time_control: {{move: 2s, startup: 10s}}\nend_grace: 200ms\nconcurrency: 2\n{top_extra}"
        f"executor: {executor}\noutput: {tmp_path / ('out-' + name)}\nbots:\n{bots}"
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


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
        # The tests' own settings classes (tests.flaky_settings) must load on the workers.
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


def test_executor_dask_without_an_address_says_where_to_give_it(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, executor="dask")
    line = path.read_text().splitlines().index("executor: dask") + 1
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2
    assert f"{path}:{line}: executor 'dask' needs the scheduler's address" in result.output
    assert stored_games(tmp_path / "out-t" / "results.sqlite") == 0  # nothing started


# -- real clusters -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_league_on_a_scheduler_and_two_workers_matches_the_local_executor(
    tmp_path: Path, marker: str, cli_cluster: CliCluster
) -> None:
    path = league(tmp_path, marker, executor="{kind: dask, connect_timeout: 5s}", name="cli")
    out = run_ok(str(path), "--scheduler", cli_cluster.address)
    assert out.count(" ready (") == 2
    used = workers_of(tmp_path / "out-cli")
    assert all(w.startswith("tcp://127.0.0.1:") for w in used) and len(set(used)) == 2  # both played
    same_as_local(tmp_path, marker, path)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    path = league(
        tmp_path, marker, executor="dask", command=slow_start(0.3), top_extra="multigame: false\n", name="lost"
    )
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


@pytest.mark.slow
def test_an_arena_error_is_retried_then_reported_with_the_game_its_bots_and_the_worker(
    tmp_path: Path, cli_cluster: CliCluster
) -> None:
    games = make_schedule(["a", "b"], 2, 1, seed=1)
    executor = ExecutorConfig(kind="dask", scheduler=cli_cluster.address, where="test")
    results: list[str] = []
    failures: list[tuple[str, str, bool]] = []
    pool = DaskGamePool(flaky(tmp_path / "once", "raise"), executor, Placement(), 1, echo=lambda _s: None)
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
    pool = DaskGamePool(flaky(tmp_path / "never", "raise"), executor, Placement(), 1, echo=lambda _s: None)
    failed = pool.run(games[:1], lambda g, r: None, lambda g, why, retry: None, 0)
    assert [g.game_id for g, _ in failed] == ["r1-g001"]  # no retry left: reported, not dropped
    assert failed[0][1].startswith("arena error in game r1-g001 (bots: a, b) on worker tcp://127.0.0.1:")


@pytest.mark.slow
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
        failed = DaskGamePool(flaky(tmp_path, "die"), executor, Placement(), 1, echo=said.append).run(
            games, lambda g, r: results.append(g.game_id), lambda g, why, retry: failures.append(why), 0
        )
    finally:
        cli_cluster.wait_for_workers(2)  # the nannies' new workers: whole again for the next test
    assert failed == [] and failures == [] and sorted(results) == ["r1-g001", "r1-g002"]
    assert any("left the cluster" in line for line in said)
