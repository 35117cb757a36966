"""The sandbox's system-call filter, compiled by libseccomp (the library Flatpak and Docker use).

Namespaces hide what a bot must not see; a few system calls would still let it
reach past them, so bubblewrap installs this filter (``--seccomp FD``) before
it starts the bot:

- ``unshare``/``clone`` with ``CLONE_NEWUSER`` fail with EPERM: a user namespace
  of its own would make the bot root there, free to mount a tmpfs past its
  ``/tmp`` cap and to reach kernel code meant for root;
- ``clone3`` fails with ENOSYS (its flags are out of a filter's reach), so C
  libraries fall back to ``clone``, which is filtered;
- ``add_key``, ``keyctl`` and ``request_key`` fail with EPERM: the kernel
  keyring is not namespaced, so it would be a channel between bots and a
  memory across games;
- ``io_uring_setup``, ``io_uring_enter`` and ``io_uring_register`` fail with
  ENOSYS (libraries fall back to plain system calls): io_uring works past this
  filter and has been the kernel's most exploited interface;
- ``socket()`` of any family but ``AF_UNIX``, ``AF_INET``, ``AF_INET6`` and
  ``AF_NETLINK`` with ``NETLINK_ROUTE`` (what programs use to list interfaces)
  fails with EAFNOSUPPORT: ``AF_VSOCK`` (the host of a virtual machine),
  packet, Bluetooth... sockets do not go through the network namespace's walls
  the way IP does;
- ``bpf``, ``perf_event_open`` and ``userfaultfd`` fail with EPERM, as in
  Docker's default profile (a bot needs none of them, and each is a large
  attack surface of the kernel);
- a system call of any ABI but the machine's own kills the process with SIGSYS:
  on x86_64 the 32-bit ``int 0x80`` calls (another table of numbers, and
  ``socketcall``, which hides ``socket()``'s family in memory) and the x32 ABI
  (numbers with bit ``0x40000000``); on aarch64 the 32-bit ARM calls.  No bot
  needs them (a 32-bit program does not run in the sandbox), and a filter
  written for one table of numbers means nothing for another.  The process is
  killed, not answered with an error: a foreign-ABI program would only crash
  later, at a call it cannot do without (its ``exit``, say).

Compared with Docker's default profile: Docker allows a list and refuses the
rest (it lets x86_64 containers make 32-bit and x32 calls; systemd's
``SystemCallArchitectures=native`` refuses them, as this filter does); the calls it refuses that are not refused here (``mount``, ``setns``,
``kexec_load``, ``init_module``, ``ptrace`` of other users, ``reboot``,
``swapon``...) need capabilities no bot has.  Everything else is allowed.  The filter is built once per process with
libseccomp through ctypes (``libseccomp2`` comes with every Debian system:
apt itself depends on it) and handed to bwrap as BPF bytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile

CLONE_NEWUSER = 0x10000000
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
NETLINK_ROUTE = 0
ALLOWED_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)
MAX_FAMILY = 64  # beyond every family Linux has (AF_MAX is 46): those fail by themselves
LOW32 = 0xFFFFFFFF  # the family is an int: its upper bits are whatever the caller left
SCMP_CMP_NE = 1
SCMP_CMP_GT = 6
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_KILL_THREAD = 0x00000000  # the only kill before libseccomp's API level 3 (Linux < 4.14)
SCMP_CMP_MASKED_EQ = 7
SCMP_FLTATR_ACT_BADARCH = 2


def _errno_action(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)  # SCMP_ACT_ERRNO(code)


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class SeccompError(OSError):
    """The filter cannot be built here (no libseccomp, or it refused a rule)."""


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as e:
        raise SeccompError(
            f"libseccomp is not installed (Debian: apt-get install libseccomp2): {e}"
        ) from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_api_get.restype = ctypes.c_uint
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


Rule = tuple[str, int, list[_ArgCmp]]


def _socket_rules() -> list[Rule]:
    """``socket()`` of a family not allowed: one rule a family (a rule's tests are ANDed,
    rules ORed), then any family past them, and netlink other than NETLINK_ROUTE."""
    denied = [f for f in range(MAX_FAMILY + 1) if f not in ALLOWED_FAMILIES]
    rules: list[Rule] = [
        ("socket", errno.EAFNOSUPPORT, [_ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, f)]) for f in denied
    ]
    rules.append(("socket", errno.EAFNOSUPPORT, [_ArgCmp(0, SCMP_CMP_GT, MAX_FAMILY, 0)]))
    netlink = _ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, AF_NETLINK)
    rules.append(("socket", errno.EAFNOSUPPORT, [netlink, _ArgCmp(2, SCMP_CMP_NE, NETLINK_ROUTE, 0)]))
    return rules


def _rules() -> list[Rule]:
    """Every rule of the filter: (system call, errno it fails with, argument tests)."""
    new_user = _ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)
    return [
        ("unshare", errno.EPERM, [new_user]),
        ("clone", errno.EPERM, [new_user]),
        ("clone3", errno.ENOSYS, []),
        ("add_key", errno.EPERM, []),
        ("keyctl", errno.EPERM, []),
        ("request_key", errno.EPERM, []),
        ("io_uring_setup", errno.ENOSYS, []),
        ("io_uring_enter", errno.ENOSYS, []),
        ("io_uring_register", errno.ENOSYS, []),
        ("bpf", errno.EPERM, []),
        ("perf_event_open", errno.EPERM, []),
        ("userfaultfd", errno.EPERM, []),
        *_socket_rules(),
    ]


@functools.cache
def filter_program() -> bytes:
    """The compiled filter (BPF), built once per process; raises SeccompError."""
    lib = _library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        # The context holds the native ABI only (no seccomp_arch_add): a call of any other,
        # and on x86_64 every x32 number, takes the bad-architecture action.
        kill = SCMP_ACT_KILL_PROCESS if lib.seccomp_api_get() >= 3 else SCMP_ACT_KILL_THREAD
        rc = lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, kill)
        if rc != 0:
            raise SeccompError(f"seccomp_attr_set(ACT_BADARCH) failed: {os.strerror(-rc)}")
        for name, code, args in _rules():
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:  # not a system call of this machine (clone3 on an old kernel's headers)
                continue
            array = (_ArgCmp * max(1, len(args)))(*args)
            rc = lib.seccomp_rule_add_array(ctx, _errno_action(code), nr, len(args), array)
            if rc != 0:
                raise SeccompError(f"seccomp_rule_add({name}) failed: {os.strerror(-rc)}")
        with tempfile.TemporaryFile() as f:
            rc = lib.seccomp_export_bpf(ctx, f.fileno())
            if rc != 0:
                raise SeccompError(f"seccomp_export_bpf failed: {os.strerror(-rc)}")
            f.seek(0)
            return f.read()
    finally:
        lib.seccomp_release(ctx)


def program_fd() -> int:
    """A pipe's read end holding the filter, for ``bwrap --seccomp FD`` (the caller closes it)."""
    program = filter_program()
    r, w = os.pipe()
    try:
        if len(program) > 65536:  # more than a pipe holds without a reader: never for these rules
            raise SeccompError(f"the seccomp filter is {len(program)} bytes")
        os.write(w, program)
    except BaseException:
        os.close(r)
        raise
    finally:
        os.close(w)
    return r
