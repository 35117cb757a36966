"""The CI recipes for bot authors work as documented."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "docs" / "examples"


def env_with_arena() -> dict[str, str]:
    bindir = str(Path(sys.executable).parent)  # the arena command lives beside this Python
    return {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}


def workflow() -> dict[str, Any]:
    flow: dict[str, Any] = yaml.safe_load((EXAMPLES / "arena-check.yml").read_text())
    return flow


def step(name_part: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = workflow()["jobs"]["check"]["steps"]
    return next(s for s in steps if name_part in s.get("name", ""))


def test_workflow_is_valid_yaml_running_arena_check() -> None:
    steps = workflow()["jobs"]["check"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "arena check" in runs and "--junit" in runs and "pip install" in runs


def test_workflow_pins_the_arena_to_this_release() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    flow = workflow()
    assert flow["env"]["ARENA_REF"] == f"v{version}"  # bump it with the version
    arena = next(s for s in flow["jobs"]["check"]["steps"] if s.get("with", {}).get("path") == ".arena")
    assert arena["with"]["ref"] == "${{ env.ARENA_REF }}"


def test_workflow_publishes_the_junit_file_as_test_results() -> None:
    publish = step("Publish")
    assert publish["uses"].startswith("EnricoMi/publish-unit-test-result-action@v")
    assert publish["with"]["files"] == "arena-check.xml" and publish["if"] == "always()"
    assert "arena-check.xml" in step("Conformance")["run"]
    assert workflow()["permissions"]["checks"] == "write"


@pytest.mark.parametrize("value", ["", "someone/battle-sheep-arena"], ids=["unset", "set"])
def test_workflow_stops_clearly_when_arena_repository_is_unset(value: str) -> None:
    guard = subprocess.run(
        ["bash", "-e", "-c", step("ARENA_REPOSITORY")["run"]],
        env={**os.environ, "ARENA_REPOSITORY": value},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if value:
        assert guard.returncode == 0, guard.stdout + guard.stderr
    else:
        assert guard.returncode == 1 and "ARENA_REPOSITORY is not set" in guard.stdout


def test_workflow_check_step_runs_offline_and_writes_the_published_file(tmp_path: Path) -> None:
    # The steps that need the network (checkout, setup-python, pip) are GitHub's; the
    # arena's own step runs here as written, on a bot repository holding ./my-bot.
    if not (REPO / "sample_bots" / "c" / "greedy").exists():
        subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True)
    # A copy, not a link: the sandbox shows the bot its own folder only.
    shutil.copy(REPO / "sample_bots" / "c" / "greedy", tmp_path / "my-bot")
    run = subprocess.run(
        ["bash", "-e", "-c", step("Conformance")["run"]],
        cwd=tmp_path,
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    suite = ET.parse(tmp_path / step("Publish")["with"]["files"]).getroot()
    assert suite.get("failures") == "0" and int(suite.get("tests", "0")) >= 10


def test_shell_recipe_passes_a_good_bot_and_fails_a_broken_one(tmp_path: Path) -> None:
    if not (REPO / "sample_bots" / "c" / "greedy").exists():
        subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True)
    script = str(EXAMPLES / "arena-check.sh")
    common = ["--cwd", str(REPO), "--conformance-games", "23", "-q"]
    good = subprocess.run(
        [script, "sample_bots/c/greedy", *common],
        cwd=tmp_path,
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert (tmp_path / "arena-check.xml").exists() and (tmp_path / "arena-check.json").exists()
    bad = subprocess.run(
        [script, f"{sys.executable} tests/broken_bots/illegal_move.py", *common, "--fail-fast"],
        cwd=tmp_path,
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "legal-moves" in bad.stdout
    usage = subprocess.run([script], env=env_with_arena(), capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gate_admits_a_fit_bot_and_refuses_a_broken_one(tmp_path: Path) -> None:
    league = tmp_path / "league.yaml"
    league.write_text(
        f"name: l\ncwd: {REPO}\nbots:\n  - name: random\n    command: {sys.executable} sample_bots/random_bot.py\n"
    )
    script = str(EXAMPLES / "gate-submission.sh")
    broken = subprocess.run(
        [script, str(league), "bad", f"{sys.executable} tests/broken_bots/illegal_move.py"],
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert broken.returncode == 1
    assert "bad" not in league.read_text()
    fit = subprocess.run(
        [script, str(league), "greedy-c", "sample_bots/c/greedy"],
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert fit.returncode == 0, fit.stdout + fit.stderr
    bots = yaml.safe_load(league.read_text())["bots"]
    assert [b["name"] for b in bots] == ["random", "greedy-c"] and bots[1][
        "command"
    ] == "sample_bots/c/greedy"
