#!/usr/bin/env python3
"""Attack: pass data to another sandbox (or a later game) through the kernel keyring.

Arguments: ``write TOKEN`` or ``read TOKEN``.  Every sandboxed bot runs as the
same user, and the kernel's keyrings are not namespaced: ``write`` adds a key
``bsa:TOKEN`` to the user's keyring at startup (it expires after ten minutes,
longer than both games take on a loaded machine);
``read`` looks for it at its first turn, reports what it found and revokes it.
Both then play randomly.  x86-64 and aarch64 only (the system call numbers).
"""

import ctypes
import errno
import os
import platform
import sys

from _common import play, report

MODE, TOKEN = sys.argv[1], sys.argv[2]
# add_key, keyctl
SYSCALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}
KEYCTL_REVOKE, KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_SET_TIMEOUT = 3, 10, 11, 15
USER_KEYRING = ctypes.c_int(-4)
libc = ctypes.CDLL(None, use_errno=True)


def errname() -> str:
    return errno.errorcode.get(ctypes.get_errno(), "?")


def attack() -> None:
    add_key, keyctl = SYSCALLS[platform.machine()]
    name = f"bsa:{TOKEN}".encode()
    if MODE == "write":
        payload = f"left by pid {os.getpid()}: {TOKEN}".encode()
        key = libc.syscall(add_key, b"user", name, payload, len(payload), USER_KEYRING)
        if key > 0:
            libc.syscall(keyctl, KEYCTL_SET_TIMEOUT, key, 600)
        report(attack="keyring", mode=MODE, added=key > 0, error=None if key > 0 else errname())
        return
    key = libc.syscall(keyctl, KEYCTL_SEARCH, USER_KEYRING, b"user", name, 0)
    if key <= 0:
        report(attack="keyring", mode=MODE, found=None, error=errname())
        return
    buf = ctypes.create_string_buffer(512)
    n = libc.syscall(keyctl, KEYCTL_READ, key, buf, len(buf))
    libc.syscall(keyctl, KEYCTL_REVOKE, key)
    report(attack="keyring", mode=MODE, found=buf.raw[: max(n, 0)].decode(errors="replace"), error=None)


if __name__ == "__main__":
    play(f"keyring-{MODE}", attack, at="start" if MODE == "write" else "turn")
