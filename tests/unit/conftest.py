"""The unit tier: every test here starts no process, opens no network socket and never
sleeps (tests/support/no_io.py fails one that tries), so the tier runs in seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.no_io import forbid_io


@pytest.fixture(scope="package", autouse=True)
def _no_io_in_fixtures() -> Iterator[None]:
    """Package-scoped, so the tier's shared fixtures are held to it too; pytest tears it
    down before it runs a test of another folder (``tests/system``) in the same process."""
    with pytest.MonkeyPatch.context() as patch:
        forbid_io(patch)
        yield

