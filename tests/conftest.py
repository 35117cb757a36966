"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support.ladder_helpers import servers  # noqa: F401 (the ladder tests' fixture)
from tests.support.process_helpers import kill_leftovers, wait_no_leftovers

# The suite starts some thousands of Python processes (the arena's commands, the ladder's
# jobs, Python bots outside the sandbox), each importing the arena. Where the environment
# says PYTHONDONTWRITEBYTECODE (this machine's image does), every one of them compiled the
# arena's modules again: a fresh clone's suite took 335 s, and 291 s with the cache allowed
# (pytest -n 3, docs/PERFORMANCE.md). Set before xdist starts its workers, so they and every
# process they start inherit it. Sandboxed bots still get PYTHONDONTWRITEBYTECODE=1 from the
# sandbox: their folders are read-only.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Tests marked `exclusive` get the machine to themselves under pytest -n N; those marked
# `slow` start first.
pytest_plugins = ["tests.support.exclusive", "tests.support.order"]

# Property tests: in CI (the CI variable set, as GitHub Actions and most services do) every
# run draws the same examples and keeps no example database, so a red build is the code's
# doing and reproduces; locally each run draws new examples and remembers failing ones.
settings.register_profile("ci", derandomize=True, max_examples=100, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def marker() -> Iterator[str]:
    """A mark for the bots' command lines: no process carrying it may outlive the test.

    Whatever is left is killed (even when the test failed), then the test fails.
    """
    m = f"arena-test-{uuid.uuid4().hex[:10]}"
    yield m
    left = wait_no_leftovers(m)
    if left:
        kill_leftovers(m)
    assert not left, f"processes left behind: {left}"


@pytest.fixture(autouse=True)
def _no_adopting_in_the_test_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena play`` makes its process adopt the bots' orphans (a child subreaper, for
    good).  Run in-process (CliRunner) that would change the test process itself: its
    later tests would find bots another way, and it could reap a zombie child that a
    test's Popen waits for.  In-process commands do not adopt; a test that runs
    ``arena play`` as its own process checks the adopting."""
    monkeypatch.setattr("arena.cli.play_cmds.adopt_orphans", lambda: False)
