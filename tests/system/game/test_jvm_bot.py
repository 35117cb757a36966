"""A Java bot passes ``arena check``, and plays as root and as a plain user, with and without bubblewrap.

A JVM reserves gigabytes of address space at its start; under an address-space limit (what a
memory limit became without a cgroup) no JVM started.  The arena runs here as root (with a
cgroup, or a per-process data limit) and, in a child process, as ``nobody`` (no cgroup the
arena may use, so the data limit): the same bot starts and plays a whole game in each of the
four, and passes every check of ``arena check`` once (24 games of JVM starts: the limits are
what differs between the four, and one game shows that a JVM starts and plays under them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SOURCE = REPO / "tests" / "bots" / "jvm" / "Bot.java"
NOBODY = 65534
# A JVM's start takes a second or more on a loaded machine: generous allowances, since timing
# is not what these tests are about.
TIMES = ["--startup", "30s", "--move-time", "5s", "--margin", "1s"]

pytestmark = [
    pytest.mark.skipif(shutil.which("java") is None or shutil.which("javac") is None, reason="needs java and javac"),
]


@pytest.fixture(scope="module")
def bot_dir() -> Iterator[Path]:
    """The compiled bot in a folder of /tmp that every user may read (and the arena may write)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-jvm-", dir="/tmp"))
    try:
        folder.chmod(0o777)  # the plain user writes its report and HOME here
        classes = folder / "classes"
        classes.mkdir(mode=0o755)
        subprocess.run(["javac", "-d", str(classes), str(SOURCE)], check=True, timeout=300)
        for p in classes.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _arena_python_for(uid: int) -> list[str] | None:
    """An interpreter ``uid`` can run with the arena's dependencies importable, as a command
    prefix (env and python), or None.  The arena's own Python may live where only root reads
    (/root/.pyenv): then a system Python of the same minor version, with the same site-packages."""
    site = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    pythonpath = os.pathsep.join([str(REPO), *site])
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for exe in (sys.executable, shutil.which(f"python{version}"), "/usr/bin/python3"):
        if not exe or not os.path.exists(exe):
            continue
        prefix = [*_as_user(uid), "env", f"PYTHONPATH={pythonpath}", exe]
        probe = "import sys, click, tabulate, yaml, trueskill, arena.cli; print(sys.version_info[:2])"
        try:
            done = subprocess.run([*prefix, "-c", probe], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            continue
        if done.returncode == 0 and done.stdout.strip() == str(sys.version_info[:2]):
            return prefix
    return None


def _as_user(uid: int) -> list[str]:
    if uid == os.geteuid():
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def _arena(prefix: list[str], folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(folder)}
    return subprocess.run([*prefix, "-m", "arena", *args], capture_output=True, text=True, timeout=1200, cwd="/", env=env)


def _bot(folder: Path) -> str:
    return f"java -cp {folder / 'classes'} Bot"  # an absolute class path, from another folder


def test_a_java_bot_passes_the_check(bot_dir: Path) -> None:
    prefix = _arena_python_for(os.geteuid())
    assert prefix is not None
    report = bot_dir / "report.json"
    done = _arena(prefix, bot_dir, "check", _bot(bot_dir), "--conformance-games", "24", "-j", "1", "--json",
                  str(report), *TIMES)
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads(report.read_text())
    assert verdict["passed"] and all(c["status"] == "pass" for c in verdict["checks"]), verdict


@pytest.mark.parametrize("mode", ["--sandbox", "--no-sandbox"])
@pytest.mark.parametrize("user", ["root", "plain"])
def test_a_java_bot_starts_and_plays_a_whole_game_under_each_users_limits(bot_dir: Path, user: str, mode: str) -> None:
    if user == "root" and os.geteuid() != 0:
        pytest.skip("the arena does not run as root here")
    uid = NOBODY if user == "plain" and os.geteuid() == 0 else os.geteuid()
    prefix = _arena_python_for(uid)
    if prefix is None:
        pytest.skip(f"no Python with the arena's dependencies that uid {uid} can run")
    record = bot_dir / f"game-{user}{mode}.json"
    done = _arena(prefix, bot_dir, "play", _bot(bot_dir), "arena:random", mode, "-q", "--seed", "3",
                  "--save", str(record), *TIMES)
    if mode == "--sandbox" and done.returncode == 2 and "bubblewrap" in done.stderr:
        pytest.skip(f"bubblewrap does not work for uid {uid} here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stdout + done.stderr
    java = json.loads(record.read_text())["seats"][0]
    assert java.get("fault") is None and java["exit"] == "exit 0", java
    if uid != 0:  # a plain user has no cgroup: the start says which limit holds instead
        assert "RLIMIT_DATA" in done.stdout, done.stdout
