"""Walks: the README and the docs followed as written, with the files the repository ships.

Each walk takes its commands from the doc's own fenced blocks (or names the doc's lines it
follows), so that a doc that changes a command changes its walk, and runs them on a copy of
the shipped files laid out as in the repository (``tournaments/`` beside ``sample_bots/``), so
that results land in a temporary folder and never in the checkout.  These are what the suite
must never lose:

- the main job: ``arena run tournaments/league.yaml`` and the Leagues section's reading commands;
- the quick start: a bot made with ``arena new``, checked, played, saved and replayed, and the
  Python bot kit's function played against it;
- ``tournaments/ladder.yaml`` served as ``docs/ladder.md`` says (the README's ladder lines are
  the doc's), a bot submitted with ``arena submit --wait``, passed and seen playing league
  games, then a second version retiring the first;
- the CI recipe: its pinned commit holds ``action.yml``, and that action's steps run;
- the gate script of ``docs/examples/``.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.ladder_helpers import Server
from tests.support.walk_helpers import (
    REPO,
    arena_argv,
    doc_command,
    env,
    run,
    section,
    sh_lines,
    shipped_tree,
    wait_until,
)

README = REPO / "README.md"
LADDER = REPO / "docs" / "ladder.md"


# -- the ladder --------------------------------------------------------------------------------


def league_rows(results: Path) -> dict[str, dict[str, Any]]:
    """The rows of the league's ``standings.json`` by bot ({} before it is written)."""
    try:
        data = json.loads((results / "standings.json").read_text())
    except (OSError, ValueError):
        return {}
    return {r["bot"]: r for r in data.get("rows", [])}


def playing(server: Server, results: Path, bot: str) -> Callable[[], dict[str, Any]]:
    """What to watch while waiting for ``bot`` to play in the league: its row, and the
    ladder's health (a league that failed ends the wait at once, with its reason)."""
    return lambda: {"row": league_rows(results).get(bot), "health": server.get("/api/health")}


def has_played(seen: dict[str, Any]) -> bool:
    league = seen["health"]["league"]
    assert league["state"] != "failed", f"the ladder's league failed: {league['detail']}"
    return seen["row"] is not None and seen["row"]["games"] > 0


@pytest.mark.slow
def test_the_shipped_ladder_takes_a_bot_plays_it_and_retires_it_for_its_next_version(
    tmp_path: Path, marker: str, servers: list[Server]
) -> None:
    # docs/ladder.md, "Start a ladder": the shipped ladder file, served from the repository's root.
    tree = shipped_tree(tmp_path / marker, "tournaments/ladder.yaml")
    results = tree / "tournaments" / "results" / "ladder"
    start, send = "Start a ladder", "Send a bot"
    # The README's short version shows the doc's own lines, so following one follows the other.
    doc_lines = sh_lines(LADDER, start) + sh_lines(LADDER, send)
    assert set(sh_lines(README, "Run a ladder or a contest")) <= set(doc_lines), sh_lines(README, "Run a ladder or a contest")
    assert "pip install -e '.[serve]'" in sh_lines(LADDER, start)
    _, add_author = arena_argv(doc_command(LADDER, start, r"^arena serve .*--add-author"))
    added = run(add_author, tree, 60)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    _, serve = arena_argv(doc_command(LADDER, start, r"^arena serve \S+ *(#.*)?$"))
    server = Server(argv=[*serve, "--port", "0"], cwd=tree)  # the doc names --port; 0 takes a free one
    servers.append(server)

    # An author sends the sample C bot's folder, as the doc's `arena submit` line does.
    shutil.copytree(
        REPO / "sample_bots" / "c", tree / "my_bot", ignore=shutil.ignore_patterns("greedy", "*.o")
    )
    assignments, submit = arena_argv(doc_command(LADDER, send, r"arena submit "))
    assert set(assignments) == {"ARENA_TOKEN"} and "--wait" in submit
    submit = [server.url if w == "http://127.0.0.1:8000" else w for w in submit]
    first = run(submit, tree, 600, {"ARENA_TOKEN": token})
    assert first.returncode == 0 and "PASSED: passed the check" in first.stdout, first.stdout + first.stderr
    bot = re.search(r"submitted (\S+) version 1:", first.stdout)
    assert bot is not None, first.stdout
    v1, v2 = f"{bot.group(1)}.v1", f"{bot.group(1)}.v2"

    # It joins the league as BOT.v1 and plays; the ladder says it is healthy.
    wait_until(f"{v1} to play league games", playing(server, results, v1), has_played, 180)
    health = server.get("/api/health")
    assert health["ok"] is True and health["league"]["state"] in {"playing", "idle"}, health
    page = server.get(f"/bots/{bot.group(1)}")
    assert "Not in the standings" not in page
    # docs/ladder.md: each version is unpacked, built and played beside the results folder, never in it.
    assert (results.parent / "ladder-bots" / "1" / "greedy").is_file()
    assert [p.name for p in (results / "submissions" / "1").iterdir() if p.is_dir()] == []

    # A second version retires the first: v1 plays no new games, its games keep counting.
    second = run(submit, tree, 600, {"ARENA_TOKEN": token})
    assert second.returncode == 0 and f"submitted {bot.group(1)} version 2:" in second.stdout, (
        second.stdout + second.stderr
    )
    wait_until(f"{v2} to play league games", playing(server, results, v2), has_played, 180)
    rows = league_rows(results)
    assert rows[v1]["retired"] is True and rows[v1]["games"] > 0 and not rows[v2]["retired"], rows
    assert server.stop() == 0, "\n".join(server.lines[-20:])


# -- the main job ------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_main_job_runs_the_shipped_league_and_its_results_read_as_the_readme_says(
    tmp_path: Path, marker: str
) -> None:
    # README, "Set up on a fresh machine": the install line ends with the main job.
    (setup,) = [line for line in sh_lines(README, "Set up on a fresh machine") if "arena run" in line]
    *installs, main_job = (part.strip() for part in setup.split("&&"))
    assert any("pip install -e ." in part for part in installs)
    tree = shipped_tree(tmp_path / marker, "tournaments/league.yaml")
    done = run(arena_argv(shlex.split(main_job))[1], tree, 600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = tree / "tournaments" / "results" / "league"
    rows = league_rows(results)
    assert set(rows) == {"mcts", "greedy-c", "greedy-js", "random"} and "faults" in done.stdout, done.stdout
    # README, "Leagues" and "Reports and replays": every command on the league's results.
    reading = [
        line
        for heading in ("Leagues", "Reports and replays")
        for line in sh_lines(README, heading)
        if "tournaments/results/league" in line and "--step" not in line
    ]
    assert len(reading) >= 5, reading
    for line in reading:
        shown = run(arena_argv(shlex.split(line, comments=True))[1], tree, 120)
        assert shown.returncode == 0, f"{line}: {shown.stdout[-2000:]}{shown.stderr[-2000:]}"
    assert (results / "report.html").is_file() and (tree / "r1-g003.html").is_file()


# -- the quick start ---------------------------------------------------------------------------


def on_a_terminal(argv: list[str], cwd: Path, keys: bytes, seconds: float) -> tuple[int, str]:
    """``argv`` run on a pseudo-terminal of its own, sent ``keys``: its exit code and output."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env(), stdin=follower, stdout=follower, stderr=follower, start_new_session=True
    )
    os.close(follower)
    out = b""
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            # Again and again: a terminal switched to raw mode drops the keys typed before.
            os.write(leader, keys)
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal's last process ended (EIO)
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
        code = proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        os.close(leader)
    return code, out.decode(errors="replace")


def test_a_bot_made_as_the_quick_start_says_is_checked_plays_and_replays(tmp_path: Path, marker: str) -> None:
    heading = "Quick start for bot authors"
    tree = shipped_tree(tmp_path / marker)
    new, check, play, replay = (
        arena_argv(doc_command(README, heading, rf"^arena {verb} "))[1] for verb in ("new", "check", "play", "replay")
    )
    made = run(new, tree, 60)
    assert made.returncode == 0 and (tree / "my-bot" / "bot.toml").is_file(), made.stdout + made.stderr
    checked = run(check, tree, 600)
    assert checked.returncode == 0 and "PASS  handshake" in checked.stdout, checked.stdout + checked.stderr
    assert "PASSED" in checked.stdout.splitlines()[-1], checked.stdout
    done = run(play, tree, 300)
    assert done.returncode == 0 and (tree / "game.json").is_file(), done.stdout + done.stderr
    game = json.loads((tree / "game.json").read_text())
    assert len(game["seats"]) == 2 and not any(s.get("fault") for s in game["seats"]), game["seats"]
    # The Python bot kit's function, played against the kit's bot as the text says.
    (bot,) = re.findall(r"^```python\n(.*?)^```", section(README, heading), re.M | re.S)
    (tree / "my_bot.py").write_text(bot)
    (kit_play,) = re.findall(r"`(arena play \"python3 my_bot\.py\" [^`]+)`", section(README, heading))
    played = run(arena_argv(shlex.split(kit_play))[1] + ["--save", "kit.json"], tree, 300)
    assert played.returncode == 0, played.stdout + played.stderr
    seats = json.loads((tree / "kit.json").read_text())["seats"]
    assert not any(s.get("fault") for s in seats), seats
    # `arena replay game.json --step` waits for keys on a terminal: End, then q.
    code, shown = on_a_terminal(replay, tree, b"q", 60)
    assert code == 0 and "ply" in shown.lower(), shown[-2000:]


# -- the CI recipe -----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_ci_recipe_pins_a_commit_that_holds_the_action_and_its_steps_run(tmp_path: Path) -> None:
    from tests.system.check.test_ci_recipes import path_with_arena, run_action, sample_bot, workflow

    pin = workflow()["env"]["ARENA_REF"]
    git = ["git", "-C", str(REPO)]
    if subprocess.run([*git, "rev-parse", "--git-dir"], capture_output=True, timeout=60).returncode:
        pytest.skip(
            "the repository has no git history here (an archive, not a clone): the pin cannot be looked up"
        )
    listed = subprocess.run([*git, "ls-tree", "--name-only", pin], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, (
        f"docs/examples/arena-check.yml pins {pin}, no commit of this repository: {listed.stderr}"
    )
    assert "action.yml" in listed.stdout.split(), (
        f"the pinned commit {pin} has no action.yml: {listed.stdout.split()}"
    )
    on_main = subprocess.run(
        [*git, "merge-base", "--is-ancestor", pin, "HEAD"], capture_output=True, timeout=60
    )
    assert on_main.returncode == 0, f"the pinned commit {pin} is not in this checkout's history"
    # The workflow checks the arena out at the pin and runs its action (`uses: ./.arena`).
    # (Into a folder of its own: the action pip-installs it outside the workspace, and the
    # sandbox masks the bot's folder from its opponents, the built-in ones included.)
    arena = tmp_path / "arena-at-pin"
    workspace = tmp_path / "workspace"
    arena.mkdir()
    workspace.mkdir()
    archive = subprocess.run([*git, "archive", pin], capture_output=True, timeout=120, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(arena)], input=archive, check=True, timeout=120)
    steps = workflow()["jobs"]["check"]["steps"]
    (inputs,) = [s["with"] for s in steps if s.get("uses") == "./.arena"]
    sample_bot(workspace)  # the workflow's `make` built ./my-bot
    # The arena installed in this environment runs the pinned commit's code.
    ran = run_action(
        {k: str(v) for k, v in inputs.items()},
        workspace,
        path_with_arena(),
        arena,
        {"PYTHONPATH": str(arena)},
    )
    assert ran.returncode == 0 and ran.outputs["exit-code"] == "0", ran.log
    assert json.loads((workspace / ran.outputs["json"]).read_text())["passed"] is True


# -- the gate script ---------------------------------------------------------------------------


def test_the_gate_script_admits_a_bot_to_the_shipped_league_as_documented(
    tmp_path: Path, marker: str
) -> None:
    ci_doc = REPO / "docs" / "arena-check-in-ci.md"
    heading = "Gating a league's submissions"
    gate = doc_command(ci_doc, heading, r"gate-submission\.sh ")
    assert doc_command(ci_doc, heading, r"^arena run ") == ["arena", "run", "tournaments/league.yaml"]
    tree = shipped_tree(tmp_path / marker, "tournaments/league.yaml", "docs/examples/gate-submission.sh")
    # The doc's `python3 submissions/newbot.py`: here one that plays the C sample's greedy
    # moves, to pass the doc's strength gate against the random bot.
    (tree / "submissions").mkdir()
    (tree / "submissions" / "newbot.py").write_text(
        'import os\nos.execv("sample_bots/c/greedy", ["greedy"])\n'
    )
    done = run(gate, tree, 600)
    assert done.returncode == 0 and "newbot admitted to tournaments/league.yaml" in done.stdout, (
        done.stdout + done.stderr
    )
    import yaml

    bots = yaml.safe_load((tree / "tournaments" / "league.yaml").read_text())["bots"]
    assert bots[-1] == {"name": "newbot", "command": "python3 submissions/newbot.py"}
    assert json.loads((tree / "tournaments" / "newbot.check.json").read_text())["passed"] is True
