"""The CI recipes for bot authors work as documented."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import yaml

from arena.cli.new_cmds import write_kit

REPO = Path(__file__).resolve().parents[3]
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


ACTION = REPO / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def action(action_dir: Path = REPO) -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load((action_dir / ACTION.name).read_text())
    return spec


def sample_bot(folder: Path) -> None:
    if not (REPO / "sample_bots" / "c" / "greedy").exists():
        subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True, timeout=300)
    # A copy, not a link: the sandbox shows the bot its own folder only.
    shutil.copy(REPO / "sample_bots" / "c" / "greedy", folder / "my-bot")


@dataclass
class ActionRun:
    """What running the action's steps gave: the last step's exit, the outputs, the logs."""

    returncode: int
    outputs: dict[str, str]
    log: str


def run_action(
    inputs: dict[str, str], workspace: Path, path: str, action_dir: Path = REPO, env: dict[str, str] | None = None
) -> ActionRun:
    """Runs the composite action's steps in order as a runner would: each ``run:`` with
    ``bash --noprofile --norc -eo pipefail``, its ``env:`` with the ``${{ }}`` expressions
    evaluated from the inputs (defaults for the rest), stopping at the first failing step.
    ``action_dir``: the action's checkout (``github.action_path``); ``env``: more variables."""
    spec = action(action_dir)
    given = {name: inputs.get(name, str(i.get("default", ""))) for name, i in spec["inputs"].items()}
    assert set(inputs) <= set(given), f"not inputs of the action: {set(inputs) - set(given)}"
    context = {f"inputs.{k}": v for k, v in given.items()}
    context |= {"github.action_path": str(action_dir), "runner.temp": str(workspace / ".runner-temp")}
    (workspace / ".runner-temp").mkdir(exist_ok=True)
    step_outputs: dict[str, dict[str, str]] = {}
    log, code = "", 0
    for number, step in enumerate(spec["runs"]["steps"]):
        assert step["shell"] == "bash" and "run" in step, step
        step_env = {k: EXPRESSION.sub(lambda m: context[m.group(1)], str(v)) for k, v in step.get("env", {}).items()}
        files = {name: workspace / f".runner-temp/{name}-{number}" for name in ("GITHUB_OUTPUT", "GITHUB_PATH")}
        for f in files.values():
            f.write_text("")
        script = workspace / f".runner-temp/step-{number}.sh"
        script.write_text(step["run"])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env={**os.environ, **(env or {}), "PATH": path, **step_env, **{k: str(v) for k, v in files.items()}},
            capture_output=True,
            text=True,
            timeout=900,
        )
        log += f"--- {step['name']} ({done.returncode})\n{done.stdout}{done.stderr}"
        if "id" in step:
            lines = files["GITHUB_OUTPUT"].read_text().splitlines()
            step_outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
        for added in files["GITHUB_PATH"].read_text().splitlines():
            path = added + os.pathsep + path
        code = done.returncode
        if code:
            break
    outputs = {}
    for name, out in spec["outputs"].items():
        ref = EXPRESSION.fullmatch(out["value"])
        assert ref and ref.group(1).startswith("steps."), out
        _, step_id, _, key = ref.group(1).split(".")
        if key in step_outputs.get(step_id, {}):
            outputs[name] = step_outputs[step_id][key]
    return ActionRun(code, outputs, log)


def path_with_arena() -> str:
    return env_with_arena()["PATH"]


def test_the_workflow_pins_a_commit_this_repository_has() -> None:
    pin = workflow()["env"]["ARENA_REF"]
    assert re.fullmatch(r"[0-9a-f]{40}", pin), f"ARENA_REF {pin!r} is not a full commit SHA"
    if subprocess.run(["git", "-C", str(REPO), "rev-parse"], capture_output=True, timeout=60).returncode:
        pytest.skip("not a git checkout")
    found = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{pin}^{{commit}}"], capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, f"ARENA_REF {pin} is no commit of this repository: {found.stderr}"
    arena = next(s for s in workflow()["jobs"]["check"]["steps"] if s.get("with", {}).get("path") == ".arena")
    assert arena["with"]["ref"] == "${{ env.ARENA_REF }}"


def test_the_workflow_runs_the_action_and_publishes_its_junit_report() -> None:
    steps = workflow()["jobs"]["check"]["steps"]
    check = next(s for s in steps if s.get("uses") == "./.arena")
    assert check["with"]["bot"] and set(check["with"]) <= set(action()["inputs"])
    publish = step("Publish")
    assert publish["uses"].startswith("EnricoMi/publish-unit-test-result-action@v")
    assert publish["with"]["files"] == action()["inputs"]["junit"]["default"] and publish["if"] == "always()"
    assert workflow()["permissions"]["checks"] == "write"


def test_every_input_and_output_of_the_action_is_described_and_used() -> None:
    spec = action()
    script = " ".join(str(s.get("env", "")) for s in spec["runs"]["steps"])
    for name, i in spec["inputs"].items():
        assert i.get("description"), name
        assert f"inputs.{name} " in script.replace("}}", " }}"), f"input {name!r} is never used"
    assert {"junit", "json", "exit-code"} <= set(spec["outputs"])
    assert all(o.get("description") for o in spec["outputs"].values())


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


def test_the_action_passes_a_good_bot_and_gives_its_reports(tmp_path: Path) -> None:
    sample_bot(tmp_path)
    run = run_action({"bot": "./my-bot", "args": "--conformance-games 23 -q"}, tmp_path, path_with_arena())
    assert run.returncode == 0, run.log
    assert run.outputs["exit-code"] == "0", run.log
    suite = ET.parse(tmp_path / run.outputs["junit"]).getroot()
    assert suite.get("failures") == "0" and int(suite.get("tests", "0")) >= 10
    report = json.loads((tmp_path / run.outputs["json"]).read_text())
    assert report["passed"] is True, report


def test_the_action_fails_a_broken_bot_and_still_gives_its_reports(tmp_path: Path) -> None:
    bot = f"{sys.executable} tests/bots/broken/illegal_move.py"
    run = run_action(
        {"bot": bot, "folder": str(REPO), "args": "--conformance-games 23 --fail-fast", "junit": "out/j.xml", "json": "out/j.json"},
        tmp_path,
        path_with_arena(),
    )
    assert run.returncode == 1 and run.outputs["exit-code"] == "1", run.log
    assert "legal-moves" in run.log
    assert ET.parse(tmp_path / "out/j.xml").getroot().get("failures") != "0"


def test_the_action_given_only_a_folder_checks_the_bot_it_holds(tmp_path: Path) -> None:
    write_kit("python", tmp_path / "kit")
    run = run_action({"folder": "kit", "args": "--conformance-games 23 -q"}, tmp_path, path_with_arena())
    assert run.returncode == 0 and run.outputs["exit-code"] == "0", run.log
    assert json.loads((tmp_path / run.outputs["json"]).read_text())["command"] == ["python3", "MyBot.py"]


def test_the_action_refuses_a_folder_that_holds_no_bot_and_a_missing_arena(tmp_path: Path) -> None:
    empty = run_action({"bot": ""}, tmp_path, path_with_arena())
    assert empty.returncode == 2 and "no bot here: looked for bot.toml, MyBot.py" in empty.log
    bare = os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir())
    if shutil.which("arena", path=bare):
        pytest.skip("an arena command is installed system-wide")
    missing = run_action({"bot": "./my-bot", "install": "never"}, tmp_path, bare)
    assert missing.returncode == 2 and "no arena command on PATH" in missing.log
    wrong = run_action({"bot": "./my-bot", "install": "sometimes"}, tmp_path, path_with_arena())
    assert wrong.returncode == 2 and "install must be auto, always or never" in wrong.log


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
        [script, f"{sys.executable} tests/bots/broken/illegal_move.py", *common, "--fail-fast"],
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
def test_gate_refuses_a_broken_bot_and_leaves_the_league_as_it_was(tmp_path: Path) -> None:
    # (The gate admitting a fit bot, as docs/arena-check-in-ci.md runs it: tests/system/walks.)
    league = tmp_path / "league.yaml"
    league.write_text(
        f"name: l\ncwd: {REPO}\nbots:\n  - name: random\n    command: {sys.executable} sample_bots/random_bot.py\n"
    )
    script = str(EXAMPLES / "gate-submission.sh")
    broken = subprocess.run(
        [script, str(league), "bad", f"{sys.executable} tests/bots/broken/illegal_move.py"],
        env=env_with_arena(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert broken.returncode == 1
    assert "bad" not in league.read_text() and "admitted" not in broken.stdout, broken.stdout
    report = json.loads((tmp_path / "bad.check.json").read_text())
    assert report["passed"] is False and report["first_failure"]["check"] == "legal-moves", report
