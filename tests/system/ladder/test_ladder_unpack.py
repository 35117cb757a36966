"""Hostile archives sent to the ladder: each refused by the rule it breaks, naming the entry,
leaving nothing behind; a good archive unpacks with its programs still executable.

The cases that start processes; the others are in tests/unit/ladder/test_ladder_unpack.py.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.errors import ArchiveRefused
from arena.ladder.settings import ArchiveLimits
from arena.ladder.unpack import Rule, unpack

LIMITS = ArchiveLimits()


def _refused(data: bytes, target: Path, limits: ArchiveLimits = LIMITS) -> ArchiveRefused:
    with pytest.raises(ArchiveRefused) as e:
        unpack(data, target, limits)
    assert not target.exists(), "a refused archive leaves nothing behind"
    return e.value


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs GNU tar to write a sparse archive")
def test_a_2gb_sparse_file_is_refused_on_its_size_without_writing_it(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    with (folder / "sparse.bin").open("wb") as f:
        f.truncate(2 * 1024**3)
    archive = tmp_path / "sparse.tar.gz"
    subprocess.run(["tar", "-cSzf", str(archive), "-C", str(folder), "sparse.bin"], check=True, timeout=120)
    assert archive.stat().st_size < 1024 * 1024  # it is sparse in the archive too
    e = _refused(archive.read_bytes(), tmp_path / "bot")
    assert (e.rule, e.member) == (Rule.UNPACKED_SIZE, "sparse.bin")
    assert str(2 * 1024**3) in str(e)


