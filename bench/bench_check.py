"""``arena check``'s time: wall and CPU of whole checks, this tree beside another, interleaved.

Each run is the command a bot author types, ``arena check -q BOT`` (24 conformance games,
the default ``-j``, the sandbox as this machine allows), started as a process of its own:
its wall time, and its CPU time with every process below it (workers, bots, sandboxes),
read from the kernel's accounting of waited-for children.  Bots:

- **c**: ``sample_bots/c/greedy`` (built with ``make -s -C sample_bots/c`` if missing)
- **python**: ``python sample_bots/random_bot.py``
- **kit-LANG**: the starter bot ``arena new LANG`` writes (``kit-c``, ``kit-go``, ...), checked
  by its folder alone: its build (``bot.toml``) runs first, in every check

``--before REF`` (default ``main``) checks out REF into a temporary git worktree and runs
the same checks with that tree's arena, the runs of both trees interleaved, so that a
load that comes and goes weighs on both alike.  The bots are this tree's in both.
``--busy`` keeps both cores busy meanwhile (``stress-ng --cpu N``, stopped at the end).
Each tree first runs one check that is not counted (its bytecode is then cached, as on an
author's machine).  Figures are medians of ``--repeat`` runs, with min-max.  The goal (issue 31): the C
bot's check under 3 s on a quiet 2-core machine.  Run from the repository root:

    python bench/bench_check.py [--repeat 5] [--bots c,python,kit-c] [--before main|none] [--busy]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
C_BOT = ROOT / "sample_bots" / "c" / "greedy"
BOTS = {
    "c": str(C_BOT),
    "python": f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}",
}
RUN_TIMEOUT_S = 600
# The command an author types, the ``arena`` script beside this interpreter (it imports the
# arena found first on PYTHONPATH, so each tree runs its own); else ``python -m arena``.
_SCRIPT = Path(sys.executable).parent / "arena"
ARENA = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "arena"]


@dataclass
class Runs:
    """The runs of one bot with one tree."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    failed: int = 0


def timed_check(tree: Path, bot: str) -> tuple[float, float, bool]:
    """One ``arena check -q BOT`` with ``tree``'s arena: wall seconds, CPU seconds (children
    included), passed."""
    # As on an author's machine: the arena's bytecode cached (a shell that forbids writing it
    # would compile every module again in the check and in each of its workers).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    before = os.times()
    started = time.monotonic()
    done = subprocess.run(
        [*ARENA, "check", "-q", bot],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    wall = time.monotonic() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if done.returncode != 0:
        print(done.stdout.decode(errors="replace")[-2000:], file=sys.stderr)
    return wall, cpu, done.returncode == 0


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """A temporary checkout of ``ref`` (a git worktree), removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="bench-check-"))
    path = folder / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), ref], check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def busy(cores: int) -> Iterator[None]:
    """``stress-ng --cpu cores`` running meanwhile (nothing when cores is 0)."""
    if cores <= 0:
        yield
        return
    if shutil.which("stress-ng") is None:
        sys.exit("--busy needs stress-ng (Debian: apt-get install stress-ng)")
    stress = subprocess.Popen(
        ["stress-ng", "--cpu", str(cores), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        time.sleep(1.0)  # let it take the cores
        yield
    finally:
        stress.terminate()
        try:
            stress.wait(10)
        except subprocess.TimeoutExpired:
            stress.kill()
            stress.wait()


def new_kit(language: str, folder: Path) -> str:
    """The folder of a new starter bot in ``language`` (``arena new``), to check by its folder."""
    bot = folder / language
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([*ARENA, "new", language, str(bot)], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return str(bot)


def spread(values: list[float]) -> str:
    """``median (min-max)``."""
    if not values:
        return "-"
    return f"{statistics.median(values):5.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each bot with each tree")
    ap.add_argument("--bots", default="c,python", help=f"comma-separated, of {','.join(BOTS)}")
    ap.add_argument("--before", default="main", help="the git ref to compare with ('none': this tree alone)")
    ap.add_argument("--busy", action="store_true", help="keep every core busy (stress-ng) meanwhile")
    args = ap.parse_args()
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in BOTS and not b.startswith("kit-")]
    if unknown:
        sys.exit(f"unknown bot(s) {unknown}; there are {list(BOTS)} and kit-LANG")
    if "c" in bots and not C_BOT.exists():
        subprocess.run(["make", "-s", "-C", str(C_BOT.parent)], check=True)
    cores = os.cpu_count() or 1
    kits = Path(tempfile.mkdtemp(prefix="bench-check-kits-"))
    commands = {b: BOTS[b] if b in BOTS else new_kit(b.removeprefix("kit-"), kits) for b in bots}
    old_tree: AbstractContextManager[Path | None] = nullcontext() if args.before == "none" else worktree(args.before)
    with old_tree as old:
        trees = {"this tree": ROOT} if old is None else {args.before: old, "this tree": ROOT}
        runs = {(t, b): Runs() for t in trees for b in bots}
        load = os.getloadavg()[0]
        for path in trees.values():  # not counted: writes the bytecode, builds the kits
            for b in bots:
                timed_check(path, commands[b])
        with busy(cores if args.busy else 0):
            for _ in range(args.repeat):
                for b in bots:
                    for t, path in trees.items():
                        wall, cpu, ok = timed_check(path, commands[b])
                        r = runs[(t, b)]
                        r.wall.append(wall)
                        r.cpu.append(cpu)
                        r.failed += not ok
    print(
        f"arena check -q BOT, {args.repeat} runs each, {cores} cores, "
        f"{'both cores busy (stress-ng --cpu ' + str(cores) + ')' if args.busy else 'no added load'}, "
        f"load average before: {load:.2f}"
    )
    print(f"{'bot':14} {'tree':12} {'wall s, median (min-max)':>26} {'CPU s, median (min-max)':>26} failed")
    for b in bots:
        for t in trees:
            r = runs[(t, b)]
            print(f"{b:14} {t[:12]:12} {spread(r.wall):>26} {spread(r.cpu):>26} {r.failed}")
    shutil.rmtree(kits, ignore_errors=True)


if __name__ == "__main__":
    main()
