"""Every fault shows its evidence: the arena's hint, the bot's first lines, its stderr tail.

A newcomer's first broken bots (a traceback at the start, no flush, a timeout, a script named
by an absolute path from another folder, a runtime under the memory limit) each get a message
that names the cause, in ``arena play``, ``arena check`` (text, JSON, JUnit) and ``arena replay``.

The cases that need no process; the others are in tests/system/game/test_fault_evidence.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.game.diagnose import ProcessFacts, fault_hint
from arena.game.limits import ResourceLimits
from arena.game.record import Fault, FaultKind, SeatRecord, fault_evidence
from arena.game.sandbox.bwrap import SandboxPolicy, named_folders
from tests.support.fault_evidence import seat

# -- the evidence, as a value ------------------------------------------------------------------


def test_the_evidence_is_the_hint_then_the_last_lines_of_stderr_bounded() -> None:
    stderr = "".join(f"line {i}\n" for i in range(100))
    lines = fault_evidence(seat(Fault(FaultKind.CRASH, "closed its output (exit 1)", 0, "a hint"), stderr))
    assert lines[0] == "hint: a hint"
    assert lines[1] == f"its stderr (last 10 lines of {len(stderr)} bytes):"
    assert lines[2:] == [f"  line {i}" for i in range(90, 100)]
    huge = "x" * 10_000 + "\n"
    shown = fault_evidence(seat(Fault(FaultKind.CRASH, "c", 0), huge * 3))
    assert sum(len(line) for line in shown) < 2200  # at most 2 KB of it


def test_no_fault_no_evidence_and_a_silent_crash_says_its_stderr_was_empty() -> None:
    assert fault_evidence(SeatRecord("bot", ("x",))) == []
    assert fault_evidence(seat(Fault(FaultKind.CRASH, "c", 0))) == ["its stderr: (nothing)"]


def test_first_stdout_lines_are_shown_for_a_fault_at_the_start_only() -> None:
    head = ("Error occurred during initialization of VM", "Could not reserve enough space")
    at_start = fault_evidence(seat(Fault(FaultKind.PROTOCOL_ERROR, "unknown message", 0), head=head))
    assert at_start[:3] == ["its first lines on stdout:", f"  {head[0]}", f"  {head[1]}"]
    later = fault_evidence(seat(Fault(FaultKind.PROTOCOL_ERROR, "unknown message", 12), head=head))
    assert not any(head[0] in line for line in later)


# -- the hints -------------------------------------------------------------------------------


def facts(**kw: object) -> ProcessFacts:
    base: dict[str, object] = {
        "argv": ("prog",),
        "cwd": Path("/nonexistent-folder"),
        "limits": ResourceLimits(),
        "policy": None,
        "limits_text": "rlimits (memory: 2048 MB of data per process, RLIMIT_DATA)",
        "exit": "exit 1",
        "out_of_memory": False,
        "stdout_bytes": 10,
        "stderr": "",
    }
    base.update(kw)
    return ProcessFacts(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fault", "kw", "needle"),
    [
        (Fault(FaultKind.CRASH, "exited", 0), {"exit": "signal SIGKILL", "out_of_memory": True}, "cgroup's memory limit (memory_mb 2048)"),
        (Fault(FaultKind.CRASH, "exited", 4), {"exit": "signal SIGXCPU"}, "CPU-time limit (cpu_seconds 600"),
        (Fault(FaultKind.CRASH, "exited", 4), {"exit": "signal SIGXFSZ"}, "file-size limit (file_size_mb 64)"),
        (
            Fault(FaultKind.CRASH, "exited", 0),
            {"exit": "signal SIGSYS", "policy": SandboxPolicy(mode="bwrap")},
            "system call of another ABI",
        ),
        (
            Fault(FaultKind.PROTOCOL_ERROR, "unknown message 'Error'", 0),
            {"stdout_head": ("Error occurred during initialization of VM",)},
            "RLIMIT_DATA",
        ),
        (Fault(FaultKind.STARTUP_FAILURE, "no hello", 0), {"stdout_bytes": 0}, "does it flush its output"),
        (Fault(FaultKind.CRASH, "exited", 0), {"argv": ("python3", "bot.py")}, "'bot.py', which does not exist"),
        (Fault(FaultKind.CRASH, "exited", 0), {"argv": ("java", "-cp", "/no/such/dir", "Bot")}, "'/no/such/dir'"),
        (
            Fault(FaultKind.CRASH, "closed its output (exit 1)", 0),
            {"argv": ("java", "Bot"), "stderr": "Error: Could not find or load main class Bot\n"},
            "give -cp the folder that holds the .class files",
        ),
    ],
    ids=[
        "cgroup-memory", "cpu-seconds", "file-size", "other-abi", "jvm-memory", "no-flush", "missing-script",
        "missing-classpath", "no-main-class",
    ],
)
def test_the_hint_names_the_cause(fault: Fault, kw: dict[str, object], needle: str) -> None:
    assert needle in fault_hint(fault, facts(**kw))


def test_no_hint_when_the_arena_cannot_tell() -> None:
    assert fault_hint(Fault(FaultKind.ILLEGAL_MOVE, "'herd 9,9' at ply 3: not on the border", 3), facts()) == ""
    assert fault_hint(Fault(FaultKind.CRASH, "closed its output (exit 1)", 0), facts()) == ""


# -- what the sandbox shows of a command -------------------------------------------------------


def test_the_script_and_class_path_a_command_names_are_shown_and_wide_or_system_ones_are_not(
    tmp_path: Path,
) -> None:
    bot, other, lib, data = tmp_path / "bot", tmp_path / "other", tmp_path / "lib", tmp_path / "data"
    for d in (bot, other, lib, data):
        d.mkdir()
    (other / "b.py").write_text("")
    (data / "secret.txt").write_text("")
    binds, refused = named_folders(["-u", str(other / "b.py"), str(data / "secret.txt")], str(bot))
    assert (binds, refused) == ([str(other)], [])  # the script's folder; not a later argument's
    binds, refused = named_folders(["-Xmx64m", "-cp", f"{lib}:/etc", "Bot"], str(bot))
    assert binds == [str(lib)] and len(refused) == 1 and "'/etc'" in refused[0] and "system folder" in refused[0]
    assert named_folders([f"--class-path={lib}", "Bot"], str(bot))[0] == [str(lib)]
    assert named_folders([str(other)], str(bot)) == ([], [])  # a folder is no script
    _, hidden = named_folders([str(other / "b.py")], str(bot), (str(tmp_path),))
    assert hidden and "bots never see" in hidden[0]
    (bot / "own.py").write_text("")
    assert named_folders(["own.py", str(other / "b.py")], str(bot)) == ([], [])  # its own folder shows it


def test_a_script_directly_in_tmp_is_refused_with_a_reason(tmp_path: Path) -> None:
    script = Path("/tmp") / f"arena-test-{os.getpid()}.py"
    script.write_text("")
    try:
        _, refused = named_folders([str(script)], str(tmp_path))
    finally:
        script.unlink()
    assert len(refused) == 1 and "'/tmp' is too wide to show a bot" in refused[0]


# -- what a user sees ------------------------------------------------------------------------------


# -- arena check -----------------------------------------------------------------------------------


# -- a league: arena run's end, arena games --fault, the HTML replay -------------------------------


