"""Under ``pytest -n 2`` a test marked ``exclusive`` runs with no other test beside it
(tests/support/exclusive.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# Each ordinary test leaves a file while it runs; the exclusive test looks for one when it
# starts and again after a while.  The exclusive tests come first, so that worksteal gives them
# and the first ordinary ones to one worker and the other ordinary ones to the other: without
# the lock those would run beside them and be seen.
SUITE = '''
import os, pathlib, time
import pytest

RUNNING = pathlib.Path(os.environ["RUNNING_DIR"])


def hold(name):
    mark = RUNNING / f"{name}-{os.getpid()}"
    mark.touch()
    try:
        time.sleep(0.3)
    finally:
        mark.unlink()


@pytest.mark.exclusive
@pytest.mark.parametrize("n", range(2))
def test_alone(n):
    for _ in range(3):
        beside = [p.name for p in RUNNING.iterdir()]
        assert beside == [], beside
        time.sleep(0.3)


@pytest.mark.parametrize("n", range(8))
def test_ordinary(n):
    hold(f"ordinary{n}")
'''


@pytest.mark.slow
def test_an_exclusive_test_runs_with_no_other_test_beside_it(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    exclusive: runs alone\naddopts = -p tests.support.exclusive\n"
    )
    (tmp_path / "test_pair.py").write_text(textwrap.dedent(SUITE))
    running = tmp_path / "running"
    running.mkdir()
    env = {**os.environ, "RUNNING_DIR": str(running), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "worksteal", "-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "10 passed" in done.stdout, done.stdout
