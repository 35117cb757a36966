#!/usr/bin/env python3
"""Attack: reach kernel interfaces the sandbox's walls do not cover.

At startup it tries ``io_uring_setup`` (io_uring works past a system-call filter
that names only the classic calls), sockets of families beside IP (``AF_VSOCK``
reaches a virtual machine's host whatever the network namespace; ``AF_PACKET``,
``AF_BLUETOOTH``, netlink audit), ``bpf``, ``perf_event_open`` and ``userfaultfd``,
and the sockets every program needs (Unix, IPv4, IPv6, netlink route).  It reports
``ok`` or the errno of each, then plays randomly.
"""

import ctypes
import errno
import platform
import socket

from _common import play, report

NR = {
    "x86_64": {"io_uring_setup": 425, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323},
    "aarch64": {"io_uring_setup": 425, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282},
}.get(platform.machine(), {})
libc = ctypes.CDLL(None, use_errno=True)


def syscall(name: str, *args: object) -> str:
    if name not in NR:
        return "unknown"
    rc = libc.syscall(NR[name], *args)
    if rc >= 0:
        return "ok"
    return errno.errorcode.get(ctypes.get_errno(), "?")


def try_socket(family: int, kind: int, proto: int = 0) -> str:
    try:
        socket.socket(family, kind, proto).close()
    except OSError as e:
        return errno.errorcode.get(e.errno or 0, "?")
    return "ok"


def attack() -> None:
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    found = {
        "io_uring_setup": syscall("io_uring_setup", 8, params),
        "bpf": syscall("bpf", 0, None, 0),  # BPF_MAP_CREATE with no attributes
        "perf_event_open": syscall("perf_event_open", None, 0, -1, -1, 0),
        "userfaultfd": syscall("userfaultfd", 0),
        "vsock": try_socket(40, socket.SOCK_STREAM),
        "packet": try_socket(17, socket.SOCK_DGRAM),
        "bluetooth": try_socket(31, socket.SOCK_STREAM),
        "netlink_audit": try_socket(16, socket.SOCK_RAW, 9),
        "unix": try_socket(socket.AF_UNIX, socket.SOCK_STREAM),
        "inet": try_socket(socket.AF_INET, socket.SOCK_STREAM),
        "inet6": try_socket(socket.AF_INET6, socket.SOCK_DGRAM),
        "netlink_route": try_socket(16, socket.SOCK_RAW, 0),
    }
    report(attack="syscalls", results=found)


play("probes-syscalls", attack)
