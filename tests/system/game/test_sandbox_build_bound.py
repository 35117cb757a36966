"""A sandboxed build cannot fill the disk: ``build_mb`` bounds what it leaves in its folder.

Issue 30, item 6: a 1-byte archive whose build ``fallocate``d 3 x 1000 MiB left 2.93 GiB on the
server's disk.  A build writes a tmpfs of ``build_mb`` holding a copy of its folder; it fails,
naming ``build_mb``, when it fills it or leaves more than that, and the host's folder then keeps
only what it held before.  Whatever it tries (fallocate, sparse files, hard links, many files),
the folder's disk use stays under the bound.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.game.build import run_build
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from tests.system.game.test_sandbox_plain_user import plain_user_command

needs_bwrap = pytest.mark.skipif(unavailable_reason() is not None, reason=f"no sandbox: {unavailable_reason()}")
pytestmark = needs_bwrap

BOUND_MB = 8
MB = 1024 * 1024
FALLOCATE = "for i in 1 2 3; do fallocate -l 10M big$i || exit 1; done"
FULL = f"exited with 1; its folder was full: a build may leave at most build_mb ({BOUND_MB} MiB) there"
# Run by a plain user: the build of argv[1] with the script argv[2]; prints [ok, why].
PLAIN_CHILD = r"""
import json, sys
from pathlib import Path
from arena.game.build import run_build
from arena.game.sandbox.bwrap import SandboxPolicy
r = run_build(["/bin/sh", "-c", sys.argv[2]], Path(sys.argv[1]), SandboxPolicy(mode="bwrap"), 120.0, build_mb=int(sys.argv[3]))
print(json.dumps([r.ok, r.why]))
"""


def disk_use(folder: Path) -> int:
    """What the folder takes on the disk, as ``du`` counts it (blocks of every entry)."""
    total = os.lstat(folder).st_blocks * 512
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            total += os.lstat(os.path.join(top, name)).st_blocks * 512
    return total


def build(folder: Path, script: str, hidden: tuple[str, ...] = ()) -> tuple[bool, str, str]:
    policy = SandboxPolicy(mode="bwrap", hidden=hidden)
    result = run_build(["/bin/sh", "-c", script], folder, policy, 120.0, build_mb=BOUND_MB)
    return result.ok, result.why, result.output


def one_byte_bot(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "a").write_bytes(b"x")  # the 1-byte archive's content
    return folder


def test_a_build_that_fallocates_past_the_bound_fails_naming_it_and_leaves_nothing(tmp_path: Path) -> None:
    folder = one_byte_bot(tmp_path)
    ok, why, output = build(folder, FALLOCATE)
    assert not ok
    assert why == FULL
    assert "No space left on device" in output  # the build itself was refused the space
    assert sorted(p.name for p in folder.iterdir()) == ["a"]
    assert disk_use(folder) < BOUND_MB * MB


@pytest.mark.parametrize(
    "script",
    [
        # what the kernel lets a tmpfs hold but a disk would take in full
        "truncate -s 900M sparse",
        # one file of 6 MiB under three names: each name a copy once written out
        "head -c 6291456 /dev/zero > f && ln f g && ln f h",
        # many small files: each takes a block of the disk
        "mkdir d && cd d && i=0; while [ $i -lt 3000 ]; do : > f$i; i=$((i+1)); done",
    ],
    ids=["sparse-file", "hard-links", "many-files"],
)
def test_a_build_that_leaves_more_than_the_bound_fails_and_its_folder_stays_as_it_was(
    tmp_path: Path, script: str
) -> None:
    folder = one_byte_bot(tmp_path)
    ok, why, output = build(folder, script)
    assert not ok, output
    assert why == f"left more than build_mb ({BOUND_MB} MiB) in its folder (each file counted at its full length)"
    assert sorted(p.name for p in folder.iterdir()) == ["a"]
    assert disk_use(folder) < BOUND_MB * MB


def test_a_build_within_the_bound_leaves_what_it_made_in_its_folder(tmp_path: Path) -> None:
    folder = one_byte_bot(tmp_path)
    (folder / "src").mkdir()
    (folder / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (folder / "old").write_text("removed by the build\n")
    ok, why, output = build(
        folder,
        "set -e; head -c 1048576 /dev/zero > out.bin; mkdir -p obj/x; echo built > obj/x/o;"
        " ln -s obj/x/o link; chmod 4755 out.bin; echo changed > a; cat src/main.c > copy.c; rm old",
    )
    assert ok, f"{why}: {output}"
    assert (folder / "out.bin").stat().st_size == MB
    assert not (folder / "out.bin").stat().st_mode & 0o6000  # no set-id bit comes out
    assert (folder / "obj" / "x" / "o").read_text() == "built\n"
    assert os.readlink(folder / "link") == "obj/x/o"
    assert (folder / "a").read_text() == "changed\n"
    assert (folder / "copy.c").read_text() == (folder / "src" / "main.c").read_text()


def test_a_folder_larger_than_the_bound_is_refused_before_the_build_runs(tmp_path: Path) -> None:
    folder = one_byte_bot(tmp_path)
    (folder / "big").write_bytes(b"\0" * (BOUND_MB + 1) * MB)
    ok, why, _ = build(folder, "touch ran")
    assert not ok
    assert why == f"could not start: its folder does not fit in build_mb ({BOUND_MB} MiB)"
    assert not (folder / "ran").exists()


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A 1-byte bot's folder a plain user may write (outside pytest's root-only folders)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-build-bound-"))
    try:
        folder.chmod(0o777)
        (folder / "a").write_bytes(b"x")
        (folder / "a").chmod(0o666)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(("script", "expected"), [(FALLOCATE, [False, FULL]), ("echo hi > made", [True, "exited with 0"])])
def test_a_plain_users_build_is_bounded_alike(shared_folder: Path, script: str, expected: list[object]) -> None:
    prefix = plain_user_command()
    if prefix is None:
        pytest.skip("no plain user can run this Python with the arena here")
    done = subprocess.run(
        [*prefix, "-c", PLAIN_CHILD, str(shared_folder), script, str(BOUND_MB)],
        capture_output=True,
        timeout=180,
        cwd="/",
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert json.loads(done.stdout) == expected
    assert sorted(p.name for p in shared_folder.iterdir()) == ["a", *(["made"] if expected[0] else [])]
    assert disk_use(shared_folder) < BOUND_MB * MB


def test_hidden_folders_stay_out_of_a_builds_folder_and_one_inside_a_hidden_folder_is_written_out(
    tmp_path: Path,
) -> None:
    # The ladder's case: each version's folder lies in the versions' folder, hidden from bots.
    folder = one_byte_bot(tmp_path)
    (folder / "results").mkdir()
    (folder / "results" / "secret").write_text("the ladder's key\n")
    hidden = (str(tmp_path), str(folder / "results"))
    ok, why, output = build(folder, "set -e; test ! -e results/secret; echo built > made", hidden)
    assert ok, f"{why}: {output}"
    assert (folder / "made").read_text() == "built\n"
    assert (folder / "results" / "secret").read_text() == "the ladder's key\n"
