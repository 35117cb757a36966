"""Fixtures shared by the test modules."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Iterator

import pytest

from .process_helpers import wait_no_leftovers


@pytest.fixture
def marker() -> Iterator[str]:
    """A mark for the bots' command lines: no process carrying it may outlive the test.

    Whatever is left is killed (even when the test failed), then the test fails.
    """
    m = f"arena-test-{uuid.uuid4().hex[:10]}"
    yield m
    left = wait_no_leftovers(m)
    for line in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
    assert not left, f"processes left behind: {left}"
