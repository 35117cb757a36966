"""An arena run by a plain user: every bot is that user, so what the kernel counts per
user is one pool for all of them; each bot's sandbox bounds its own share.

Run as root, the test plays the plain user with ``setpriv``, as a uid no process has (so
no other program shares its pools; ``nobody``'s may be in use); it is skipped where that
user cannot run this Python with the arena, or where bubblewrap cannot make a sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from arena.game.sandbox import ucounts
from arena.game.sandbox.bwrap import unavailable_reason

REPO = Path(__file__).resolve().parents[3]
# Above the uids the arena gives bots (BOT_UID_BASE..): a user no process of this machine is.
PLAIN_UIDS = range(2_100_000_000, 2_140_000_000)
# Run by the plain user: two sandboxes of that user, one after the other, each taking
# every inotify instance it can; the first holds its own until the second has taken its.
CHILD = r"""
import json, sys, tempfile
from pathlib import Path
from arena.game.limits import ResourceLimits
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.sandbox.spawn import spawn_sandboxed

TAKE = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "n = 0\n"
    "while n < 1000 and libc.inotify_init1(0) >= 0:\n"
    "    n += 1\n"
    "print(n, os.strerror(ctypes.get_errno()), flush=True)\n"
    "sys.stdin.read()\n"
)
folder = Path(tempfile.mkdtemp())
started, found = [], []
try:
    for _ in range(2):
        proc, init, group, _ = spawn_sandboxed(
            ["python3", "-c", TAKE], folder, {"PATH": "/usr/bin:/bin"}, ResourceLimits(), SandboxPolicy(mode="bwrap")
        )
        started.append(proc)
        found.append(proc.stdout.readline().decode().strip())
finally:
    for proc in started:
        proc.stdin.close()
        proc.wait(30)
        proc.stdout.close()
        proc.stderr.close()
print(json.dumps(found))
"""

# Prefixed to CHILD: the arena sets each bound only once the sandbox's init has moved on
# from the user namespace bubblewrap made into the nested one of ``--disable-userns`` (as a
# loaded machine may make it, the arena being slower than the sandbox's set-up).
LATE = r"""
import os, time
from arena.game.sandbox import ucounts
_bound = ucounts._bound
def late(pid):
    made = os.readlink(f"/proc/{pid}/ns/user")
    deadline = time.monotonic() + 10
    while os.readlink(f"/proc/{pid}/ns/user") == made:
        assert time.monotonic() < deadline, "the sandbox's init did not enter a nested user namespace in 10 s"
        time.sleep(0.005)
    _bound(pid)
ucounts._bound = late
"""


def plain_user_command() -> list[str] | None:
    """The prefix that runs a Python with the arena as a plain user, or None when there is none."""
    if os.geteuid() != 0:
        return [sys.executable]
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    uid = next(u for u in (secrets.choice(PLAIN_UIDS) for _ in range(100)) if u not in live_uids())
    as_plain = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    # This Python if that user may run it, else the system's with this one's packages.
    for python in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run(
            [*as_plain, "env", f"PYTHONPATH={pythonpath()}", python, "-c", "import arena.game.sandbox.spawn"],
            capture_output=True,
            timeout=60,
            cwd="/",
            check=False,
        )
        if probe.returncode == 0:
            return [*as_plain, "env", f"PYTHONPATH={pythonpath()}", python]
    return None


def live_uids() -> set[int]:
    uids = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                uids.add(os.stat(f"/proc/{pid}").st_uid)
    return uids


def pythonpath() -> str:
    return os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])


@pytest.mark.skipif(unavailable_reason() is not None, reason="no bubblewrap sandbox here")
@pytest.mark.parametrize("when", ["at-once", "after-the-nested-namespace"])
def test_a_plain_users_bots_each_get_their_own_share_of_the_users_inotify_instances(when: str) -> None:
    if not ucounts.bounds():
        pytest.skip("this kernel has no per-namespace inotify counts")
    prefix = plain_user_command()
    if prefix is None:
        pytest.skip("no plain user here can run this Python with the arena")
    proc = subprocess.Popen(
        [*prefix, "-c", (LATE if when == "after-the-nested-namespace" else "") + CHILD],
        cwd="/",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    first, second = json.loads(out.strip().splitlines()[-1])
    bound = ucounts.BOT_INOTIFY_INSTANCES
    # The first bot took all it may (its bound, far below the user's pool of 128) ...
    assert first == f"{bound} Too many open files", (first, second)
    # ... and the second, while the first still holds them, got its own share.
    assert second == f"{bound} Too many open files", (first, second)


def test_bounds_that_cannot_be_set_let_the_bot_start_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # The arena's own failure (nsenter refused, a slow namespace) is not the bot's: no
    # startup failure is charged, and the log says the bound is missing.
    from arena.game.sandbox import ucounts

    def refuse(pid: int) -> None:
        raise OSError("cannot bound the bot's inotify use in its user namespace: Permission denied")

    monkeypatch.setattr(ucounts, "_bound", refuse)
    with caplog.at_level("WARNING", logger=ucounts.__name__):
        ucounts.bound_namespace(1)
    assert "the bot's inotify use is not bounded: cannot bound" in caplog.text
