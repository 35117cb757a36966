"""The sandbox's settings, its fallback, sandboxed builds and old records.

The attacks of hostile bots on a sandboxed game are in test_sandbox_attacks.py.

The cases that start processes; the others are in tests/unit/game/test_sandbox.py.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.build import OUTPUT_KEEP, run_build
from arena.game.record import GameRecord
from arena.game.sandbox import bwrap as sandbox
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from arena.league.standings import render
from arena.league.tally import compute_standings
from tests.support.process_helpers import kill_leftovers, leftovers, wait_no_leftovers
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"
needs_bwrap = pytest.mark.skipif(
    unavailable_reason() is not None, reason=f"no sandbox: {unavailable_reason()}"
)


# -- settings ---------------------------------------------------------------------------------


def config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(body))
    return path


# -- when bubblewrap cannot be had -------------------------------------------------------------


def test_auto_runs_unsandboxed_with_a_warning_everywhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "bubblewrap is not installed (test)")
    saved = tmp_path / "g.json"
    result = CliRunner().invoke(main, ["play", RANDOM, RANDOM, "-q", "--save", str(saved)])
    assert result.exit_code == 0, result.output
    assert "warning: running bots WITHOUT a sandbox: bubblewrap is not installed (test)" in result.output
    record = GameRecord.from_json(saved.read_text())
    assert all(
        s.isolation["sandbox"] == "none" and "WITHOUT a sandbox" in s.isolation["warning"]
        for s in record.seats
    )
    text = render(compute_standings([record], ["random_bot", "random_bot_2"]), "plain")
    assert "WARNING: games played WITHOUT a sandbox: " in text


# -- records ------------------------------------------------------------------------------------


def test_records_of_format_1_still_load_as_unsandboxed() -> None:
    record = GameRecord.from_json(json.dumps(_format_1_record()))
    assert record.seats[0].isolation == {} and not record.seats[0].sandboxed
    assert render(compute_standings([record], ["x", "y"]), "plain").count("WITHOUT a sandbox") == 1


def _format_1_record() -> dict[str, object]:
    from arena.game.clock import TimeControl
    from arena.game.referee import BotSpec, GameSetup, play_game
    from arena.rules import random_board

    specs = [
        BotSpec(
            name=n,
            command=(sys.executable, str(REPO / "sample_bots" / "random_bot.py")),
            cwd=REPO,
            sandbox=SandboxPolicy(mode="none"),
        )
        for n in ("x", "y")
    ]
    data = play_game(
        GameSetup(board=random_board(1, 8), time_control=TimeControl(move_ms=2000), seed_secret=FIXED_SECRET), specs
    ).to_dict()
    data["format"] = 1
    for seat in data["seats"]:
        del seat["isolation"]
    return data


# -- builds -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "none"])
def test_build_timeout_kills_its_whole_process_tree(mode: str, tmp_path: Path) -> None:
    marker = f"bsa-build-{uuid.uuid4().hex[:8]}"
    script = f"sleep 300 & (setsid sleep 301 &) ; exec -a {marker} sleep 302"
    (tmp_path / "run.sh").write_text(f"#!/bin/bash\n# {marker}\n{script}\n")
    (tmp_path / "run.sh").chmod(0o755)
    result = run_build(
        ["/bin/bash", str(tmp_path / "run.sh"), marker], tmp_path, SandboxPolicy(mode=mode), 1.0
    )
    assert not result.ok and result.why == "timed out after 1 s (build_timeout)"
    assert wait_no_leftovers(marker, 5.0) == []


@pytest.mark.parametrize("mode", ["auto", "none"])
def test_build_gets_no_stdin_no_secrets_and_a_bounded_tail(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BSA_BUILD_SECRET", "hunter2")
    script = (
        "env; cat; echo read-stdin-done; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo last-line; exit 3"
    )
    result = run_build(["/bin/sh", "-c", script], tmp_path, SandboxPolicy(mode=mode), 60.0)
    assert not result.ok and result.why == "exited with 3"
    assert len(result.output.encode()) <= OUTPUT_KEEP
    assert result.tail(1) == ["last-line"]
    full = run_build(
        ["/bin/sh", "-c", "env; cat; echo read-stdin-done"], tmp_path, SandboxPolicy(mode=mode), 60.0
    )
    assert full.ok and "read-stdin-done" in full.output  # cat saw end-of-file at once
    assert "hunter2" not in full.output and "BSA_BUILD_SECRET" not in full.output


@needs_bwrap
def test_sandboxed_build_writes_its_folder_but_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    outside = tmp_path / "outside.txt"  # under /tmp: the sandbox's own tmpfs takes the write
    in_repo = REPO / "arena" / f"bsa-outside-{uuid.uuid4().hex[:8]}.txt"  # read-only in every sandbox
    script = (
        # (As root the build runs as a user of its own: the sandbox's folders leading to its
        # own are root's, so the write to ``outside`` may be refused rather than land in /tmp.)
        f"echo built > out.txt && (echo x > {outside} || true) && (echo x > {in_repo} || echo cannot-write-outside)"
    )
    try:
        result = run_build(["/bin/sh", "-c", script], folder, SandboxPolicy(mode="bwrap"), 60.0)
        assert result.ok, result.output
        assert (folder / "out.txt").read_text() == "built\n"
        assert not outside.exists() and not in_repo.exists()
        assert "cannot-write-outside" in result.output
    finally:
        in_repo.unlink(missing_ok=True)
    assert result.sandboxed


def test_sigterm_during_a_build_kills_the_build(tmp_path: Path) -> None:
    marker = f"bsa-build-{uuid.uuid4().hex[:8]}"
    program = textwrap.dedent(
        f"""
        from pathlib import Path
        from arena.game.build import run_build
        from arena.game.sandbox.bwrap import SandboxPolicy
        print("building", flush=True)
        run_build(["/bin/bash", "-c", "exec -a {marker} sleep 300"], Path({str(tmp_path)!r}), SandboxPolicy(), 600)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "building\n"
        deadline = time.monotonic() + 20
        while not leftovers(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert leftovers(marker), "the build never started"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        # Generous: on a loaded machine bubblewrap can take seconds to be scheduled and die.
        assert wait_no_leftovers(marker, 30.0) == []
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        kill_leftovers(marker)


# -- text and links a bot's author controls ---------------------------------------------------

HOSTILE_OUTPUT = "printf '\\033[2J\\033]0;pwned\\007\\000PASS  every check\\342\\200\\256\\n'; exit 1"


def test_a_builds_hostile_output_is_escaped_in_run_and_check(tmp_path: Path) -> None:
    path = config(
        tmp_path,
        f"""\
        bots:
          - {{name: a, command: {json.dumps(RANDOM)}, build: [/bin/sh, -c, {json.dumps(HOSTILE_OUTPUT)}]}}
          - {{name: b, command: {json.dumps(RANDOM)}}}
        """,
    )
    run = CliRunner().invoke(main, ["run", str(path), "-q"])
    assert run.exit_code == 2, run.output
    assert "bot 'a': build" in run.output and "exited with 1" in run.output
    junit = tmp_path / "r.xml"
    checked = CliRunner().invoke(
        main, ["check", RANDOM, "--build", f"/bin/sh -c {json.dumps(HOSTILE_OUTPUT)}", "--junit", str(junit)]
    )
    assert checked.exit_code == 1, checked.output
    for shown in (run.output, checked.output, junit.read_text()):
        assert "\\x1b[2J" in shown and "\\x07" in shown and "\\x00" in shown and "\\u202e" in shown
        assert not any(ch in shown for ch in "\x1b\x07\x00\u202e"), shown
    ET.parse(junit)  # the report stays well-formed XML


@needs_bwrap
def test_a_link_in_the_bots_folder_does_not_bind_a_file_from_elsewhere(tmp_path: Path) -> None:
    from arena.game.clock import TimeControl
    from arena.game.record import FaultKind
    from arena.game.referee import BotSpec, GameSetup, play_game
    from arena.rules import random_board

    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    secret = secret_dir / "tool"
    secret.write_text("#!/bin/sh\necho secret-tool\n")
    secret.chmod(0o755)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot").symlink_to(secret)
    specs = [
        BotSpec(name="linker", command=("./bot",), cwd=folder, sandbox=SandboxPolicy(mode="bwrap")),
        BotSpec(
            name="random",
            command=(sys.executable, str(REPO / "sample_bots" / "random_bot.py")),
            cwd=REPO,
            sandbox=SandboxPolicy(mode="bwrap"),
        ),
    ]
    record = play_game(GameSetup(board=random_board(1, 8), time_control=TimeControl(move_ms=2000), seed_secret=FIXED_SECRET), specs)
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_FAILURE
    assert "outside the bot's folder" in fault.detail and str(secret) in fault.detail
    assert record.seats[1].fault is None


# -- bots in other languages run in the sandbox -----------------------------------------------


@needs_bwrap
@pytest.mark.skipif(shutil.which("javac") is None, reason="no Java compiler here")
def test_a_java_program_builds_and_runs_in_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "Hello.java").write_text(
        'public class Hello { public static void main(String[] a) { System.out.println("hello from java"); } }\n'
    )
    policy = SandboxPolicy(mode="bwrap")
    built = run_build(["javac", "Hello.java"], tmp_path, policy, 300)
    assert built.ok and built.sandboxed, built.output
    ran = run_build(["java", "-cp", ".", "Hello"], tmp_path, policy, 300)
    assert ran.ok and ran.output.strip() == "hello from java", ran.output


@needs_bwrap
@pytest.mark.skipif(shutil.which("rustc") is None, reason="no Rust compiler here")
def test_a_rust_binary_runs_in_the_sandbox(tmp_path: Path) -> None:
    # A Rust bot is a compiled program: built here (the toolchain lives in the builder's
    # home, which the sandbox does not show unless listed in 'readable'), run in the sandbox.
    (tmp_path / "hello.rs").write_text('fn main() { println!("hello from rust"); }\n')
    rustc = shutil.which("rustc")
    assert rustc is not None
    subprocess.run([rustc, "-O", "-o", str(tmp_path / "hello"), str(tmp_path / "hello.rs")], check=True)
    ran = run_build(["./hello"], tmp_path, SandboxPolicy(mode="bwrap"), 60)
    assert ran.ok and ran.sandboxed and ran.output.strip() == "hello from rust", ran.output


@needs_bwrap
def test_python_in_the_sandbox_imports_the_kit_from_the_bound_folder(tmp_path: Path) -> None:
    # Run from a folder outside the checkout, touching no sys.path: only the bound kit can serve it.
    code = "import arena.botkit, arena.rules, arena.protocol; print(arena.botkit.__file__)"
    ran = run_build(["python3", "-c", code], tmp_path, SandboxPolicy(mode="bwrap"), 60)
    assert ran.ok and ran.sandboxed, ran.output
    assert Path(ran.output.strip()) == Path(sandbox.arena_kit_dir()) / "arena" / "botkit.py"


# -- cgroups: names another process left behind -------------------------------------------------


@needs_bwrap
def test_a_hidden_folder_inside_another_hidden_one_is_masked_with_it(tmp_path: Path) -> None:
    # A ladder's results folder inside the house bots' folder, holding a version's folder:
    # both hidden, the inner one with the outer (issue 30: bwrap could not mount it again).
    results = tmp_path / "results"
    version = results / "submissions" / "1" / "bot"
    version.mkdir(parents=True)
    (version / "secret.txt").write_text("theirs")
    (results / "ladder.sqlite").write_text("key")
    policy = SandboxPolicy(mode="bwrap", hidden=(str(results), str(version)))  # sorted, as leagues give them
    script = "ls -A results; cat results/ladder.sqlite results/submissions/1/bot/secret.txt || echo hidden"
    result = run_build(["/bin/sh", "-c", script], tmp_path, policy, 60.0)
    assert result.ok and result.sandboxed, result.output
    assert "hidden" in result.output and "key" not in result.output and "theirs" not in result.output
