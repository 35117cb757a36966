"""The arena's guess at why a bot failed: one sentence under its fault, when it can tell.

A newcomer's first failures are nearly always one of a few: a file the command names that
the bot cannot see, a limit that killed it, a runtime that could not start under the memory
limit, a bot that never flushes its output.  :func:`fault_hint` looks at what the arena knows
of the process (its exit, what it wrote, the limits that held it) and names the cause.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.game.limits import ResourceLimits
from arena.game.record import Fault, FaultKind
from arena.game.sandbox.bwrap import SandboxPolicy, named_folders

# What a language runtime writes when it cannot get the memory it wants at its start.
_MEMORY_WORDS = (
    "Error occurred during initialization of VM",
    "Could not reserve enough space",
    "Could not allocate",
    "Cannot allocate memory",
    "MemoryError",
    "out of memory",
    "failed to reserve",
    "JavaScript heap out of memory",
    "insufficient memory",
    "Not enough space",
    "failed to map",
)
# Files whose names say they are a script or a program's part, even without a "/".
_SCRIPT_ENDINGS = (".py", ".js", ".mjs", ".pl", ".rb", ".jar", ".class", ".lua", ".php", ".sh", ".R")
# How each language of the kits flushes a line (protocol/PROTOCOL.md, section 1, says the same).
FLUSH_IDIOMS = "; ".join(
    (
        "Python: print(..., flush=True)",
        "JavaScript/TypeScript: process.stdout.write(line + '\\n') sends at once",
        "C: fflush(stdout), or setvbuf(stdout, NULL, _IONBF, 0) once",
        "C++: << std::flush or std::endl (cin.tie(nullptr) stops cin from flushing cout for you)",
        "Java: System.out.flush(), or a PrintWriter made with autoFlush",
        "Go: Flush() your bufio.Writer",
        "Rust: io::stdout().flush() after a BufWriter (use std::io::Write)",
        "C#: Console.Out.Flush(), or AutoFlush = true on your StreamWriter",
    )
)


@dataclass(frozen=True)
class ProcessFacts:
    """What the arena knows of a bot's process when it is forfeited."""

    argv: tuple[str, ...]
    cwd: Path
    limits: ResourceLimits
    policy: SandboxPolicy | None  # the sandbox it ran in, None for a plain process
    limits_text: str  # how its limits held ("cgroup v2 (...)", "rlimits (...)")
    exit: str | None  # "exit 1", "signal SIGKILL", ...
    out_of_memory: bool  # its cgroup saw the kernel kill a process for memory
    stdout_bytes: int
    stderr: str
    stdout_head: tuple[str, ...] = ()  # its first lines on stdout (a JVM writes its errors there)


def fault_hint(fault: Fault, facts: ProcessFacts) -> str:
    """One sentence naming the likely cause of ``fault``, or "" when the arena cannot tell."""
    for rule in (_unseen_file, _limit_kill, _runtime_memory, _no_main_class, _silent):
        hint = rule(fault, facts)
        if hint:
            return hint
    return ""


def _unseen_file(fault: Fault, facts: ProcessFacts) -> str:
    """A path the command names that does not exist, or that the sandbox does not show."""
    if fault.ply > 0 or fault.kind is FaultKind.ILLEGAL_MOVE:
        return ""
    where = str(facts.cwd)
    for arg in facts.argv[1:]:
        if arg.startswith("-"):
            continue
        looks_like_path = "/" in arg or arg.endswith(_SCRIPT_ENDINGS)
        if looks_like_path and not os.path.exists(os.path.join(where, arg)):
            return (
                f"the command names {arg!r}, which does not exist"
                + ("" if os.path.isabs(arg) else f" in the bot's folder {where!r} (relative paths start there)")
            )
    if facts.policy is not None:
        refused = named_folders(facts.argv[1:], where, (*facts.policy.hidden, *facts.policy.never_shown))[1]
        if refused:
            return refused[0]
    return ""


def _limit_kill(fault: Fault, facts: ProcessFacts) -> str:
    """A signal that one of the bot's limits sends."""
    limits, status = facts.limits, facts.exit or ""
    if facts.out_of_memory:
        return f"killed by its cgroup's memory limit (memory_mb {limits.memory_mb}): it used more than that"
    if status.startswith("signal SIGXCPU") or (status.startswith("signal SIGKILL") and _cpu_spent(fault)):
        return f"killed by its CPU-time limit (cpu_seconds {limits.cpu_seconds} per process)"
    if status.startswith("signal SIGXFSZ"):
        return f"killed by its file-size limit (file_size_mb {limits.file_size_mb}): it wrote a larger file"
    if status.startswith("signal SIGSYS") and facts.policy is not None:
        return (
            "killed by the sandbox's system-call filter (SIGSYS): it made a system call of another ABI "
            "than this machine's 64-bit one (a 32-bit program?); build it as a 64-bit program"
        )
    return ""


def _cpu_spent(fault: Fault) -> bool:
    return "cpu" in fault.detail.lower()


def _runtime_memory(fault: Fault, facts: ProcessFacts) -> str:
    """A runtime (JVM, Go, .NET, V8) that could not get its memory at its start."""
    text = "\n".join([facts.stderr, fault.detail, *facts.stdout_head])
    if fault.ply > 0 or not any(word in text for word in _MEMORY_WORDS):
        return ""
    mb = facts.limits.memory_mb
    if facts.limits_text.startswith("cgroup"):
        held = f"the bot's cgroup memory limit (memory_mb {mb})"
    else:
        held = f"a per-process data limit of {mb} MB (memory_mb; RLIMIT_DATA, no cgroup here)"
    return (
        f"its runtime could not get the memory it asked for under {held}; "
        "ask for less (Java: -Xmx256m -XX:+UseSerialGC) or raise memory_mb"
    )


def _no_main_class(fault: Fault, facts: ProcessFacts) -> str:
    """A JVM that found no class of the name it was given on its class path."""
    if fault.ply > 0 or "Could not find or load main class" not in facts.stderr:
        return ""
    return (
        f"the JVM found no such class on its class path (it starts in {str(facts.cwd)!r}): "
        "give -cp the folder that holds the .class files, e.g. 'java -cp /path/to/classes Bot'"
    )


def _silent(fault: Fault, facts: ProcessFacts) -> str:
    """A bot that wrote nothing at all on stdout before it was given up on."""
    if facts.stdout_bytes or fault.kind not in (FaultKind.STARTUP_FAILURE, FaultKind.TIMEOUT):
        return ""
    return "the bot wrote nothing on stdout; does it flush its output after each line? (" + FLUSH_IDIOMS + ")"

