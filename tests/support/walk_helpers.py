"""The walks' helpers: a doc's commands read from its own fenced blocks, run with this
checkout's arena on a copy of the files the repository ships (tests/system/walks)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena"]


# -- the docs' commands ------------------------------------------------------------------------


def section(doc: Path, heading: str) -> str:
    """The text of ``doc``'s section ``heading`` (a ``##`` or ``###`` heading), to the next one
    of its level or above (a ``#`` line inside a fenced block is a shell comment, not a heading)."""
    lines = doc.read_text().splitlines(keepends=True)
    start = level = None
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"(#+) (.*)\n?$", line)
        if m is None:
            continue
        if start is None and m.group(2) == heading:
            start, level = i + 1, len(m.group(1))
        elif start is not None and level is not None and len(m.group(1)) <= level:
            return "".join(lines[start:i])
    assert start is not None, f"{doc.name} has no section {heading!r}"
    return "".join(lines[start:])


def sh_lines(doc: Path, heading: str) -> list[str]:
    """Every line of the ```` ```sh ```` blocks of ``doc``'s section ``heading``."""
    blocks = re.findall(r"^```sh\n(.*?)^```", section(doc, heading), re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def doc_command(doc: Path, heading: str, pattern: str) -> list[str]:
    """The words of the one shell line of ``doc``'s section ``heading`` that matches the regular
    expression ``pattern`` (comments dropped, quotes undone)."""
    found = [line for line in sh_lines(doc, heading) if re.search(pattern, line)]
    assert len(found) == 1, f"{doc.name}, section {heading!r}: {len(found)} lines match {pattern!r}: {found}"
    return shlex.split(found[0], comments=True)


def arena_argv(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """The leading ``NAME=value`` words of a doc's command, and the command with its ``arena``
    run by this Python (so that this checkout's arena runs)."""
    assignments = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        assignments[name] = value
    assert words[0] == "arena", words
    return assignments, [*ARENA, *words[1:]]


def env() -> dict[str, str]:
    """The environment of the arena's processes: this checkout first on the Python path, and
    ``arena`` (beside this Python) first on PATH, as an activated environment has it."""
    bindir = str(Path(sys.executable).parent)
    return {**os.environ, "PYTHONPATH": str(REPO), "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}


def run(
    argv: list[str], cwd: Path, seconds: float, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``argv`` run in ``cwd`` to its end (killed after ``seconds``), its output captured."""
    return subprocess.run(
        argv, cwd=cwd, env={**env(), **(extra_env or {})}, capture_output=True, text=True, timeout=seconds
    )


def shipped_tree(root: Path, *files: str) -> Path:
    """``root`` laid out as the repository is for the walks: the shipped ``files`` (paths in the
    repository) and ``sample_bots/`` with the C bot built; returns ``root``."""
    if not (REPO / "sample_bots" / "c" / "greedy").exists():
        subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True, timeout=300)
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "sample_bots", root / "sample_bots", ignore=shutil.ignore_patterns("__pycache__"))
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / f, root / f)
    return root


def wait_until(what: str, get: Callable[[], Any], done: Callable[[Any], bool], seconds: float) -> Any:
    """``get()`` once ``done`` holds for it; fails naming ``what`` and the last value after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = get()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}; last seen: {value!r}"
        time.sleep(0.5)
