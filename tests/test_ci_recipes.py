"""The CI recipes for bot authors work as documented."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "docs" / "examples"


def env_with_arena() -> dict[str, str]:
    bindir = str(Path(sys.executable).parent)  # the arena command lives beside this Python
    return {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}


def test_workflow_is_valid_yaml_running_arena_check() -> None:
    flow = yaml.safe_load((EXAMPLES / "arena-check.yml").read_text())
    steps = flow["jobs"]["check"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "arena check" in runs and "--junit" in runs and "pip install" in runs


def test_shell_recipe_passes_a_good_bot_and_fails_a_broken_one(tmp_path: Path) -> None:
    if not (REPO / "sample_bots" / "c" / "greedy").exists():
        subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True)
    script = str(EXAMPLES / "arena-check.sh")
    common = ["--cwd", str(REPO), "--conformance-games", "18", "-q"]
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
