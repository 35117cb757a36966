"""Leagues on a Dask cluster: the ``executor`` key, bot placement, and real clusters on loopback.

The slow tests start a real ``dask scheduler`` and ``dask worker`` processes
(and a ``LocalCluster``) on 127.0.0.1, without dashboards, and stop every one
of them, whatever the test's outcome.

The cases that need no process; the others are in tests/system/cluster/test_dask.py.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cluster.placement import Placement, pack_folder, prepare, relocate, unpack_folders
from arena.errors import ConfigError
from arena.game.referee import BotSpec
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.config import parse_config
from tests.support.dask_helpers import GREEDY, league, settings_for
from tests.support.process_helpers import (
    stored_games,
)

REPO = Path(__file__).resolve().parents[3]


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


# -- without a cluster ---------------------------------------------------------------------------


def test_executor_dask_without_an_address_says_where_to_give_it(tmp_path: Path, marker: str) -> None:
    path = league(tmp_path, marker, executor="dask")
    line = path.read_text().splitlines().index("executor: dask") + 1
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2
    assert f"{path}:{line}: executor 'dask' needs the scheduler's address" in result.output
    assert stored_games(tmp_path / "out-t" / "results.sqlite") == 0  # nothing started


# -- real clusters -----------------------------------------------------------------------------


