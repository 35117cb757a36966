"""What the unit and the system tests of the ladder's league share."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder.store import LadderStore


@pytest.fixture
def store(tmp_path: Path) -> LadderStore:
    s = LadderStore.open(tmp_path / "results")
    for name in ("alice", "bob"):
        s.add_author(name)
    return s
