"""The bot sandbox: bubblewrap (``bwrap``), the sandbox Flatpak uses.

Each sandboxed bot runs as an unprivileged user (one of its own when the
arena runs as root), with no capabilities, in namespaces of its own:

- **PID**: it sees only its own processes; ``kill(-1)`` reaches only them; and
  when its main process ends, the namespace's init dies and takes every
  process of the bot with it (no escape by ``setsid``, a cleared environment
  or changing pids);
- **network**: loopback only, unless the tournament gives it the network: then a
  namespace of its own with a user-mode stack to the outside (:mod:`.network`),
  never the host's loopback or addresses but the ``allow``-ed ones;
- **mount**: the system's runtime folders read-only, the bot's own folder
  read-only (or writable if the tournament says so), a private HOME and TMPDIR
  on a size-capped tmpfs, its own ``/proc`` and a minimal ``/dev``; never the
  results folder, another bot's folder, or anything of the arena's processes;
- **IPC, UTS**: its own; and a system-call filter (:mod:`arena.game.sandbox.seccomp`) keeps
  it from making user namespaces or using the kernel keyring.

This module only builds command lines and facts; starting the process is
:mod:`arena.game.sandbox.spawn`'s job, and stopping it :mod:`arena.game.botproc`'s.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import glob
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena import package_parent
from arena.errors import ConfigError
from arena.game.sandbox import network, seccomp


class SandboxMode(enum.StrEnum):
    """How a bot's process is isolated: asked for in a policy, and recorded for each seat.

    The values are what tournament files, the command line and game records spell.
    """

    AUTO = "auto"  # bubblewrap when it works here, else a plain process (with a warning)
    BWRAP = "bwrap"  # bubblewrap or no game
    NONE = "none"  # a plain process


MODES = tuple(mode.value for mode in SandboxMode)  # as a tournament file may spell them
SANDBOX_GID = 65534  # "nogroup": the group of every bot when the arena runs as root
# When the arena runs as root each bot (and each build) gets a user of its own from here, so
# that nothing the kernel counts or keeps per user (the task limit without cgroups, inotify
# instances and watches, files, signals) is shared between bots.  A uid is drawn at random
# from the span and taken only if no process of it lives and this process never gave it out.
BOT_UID_BASE = 1_500_000_000
BOT_UID_SPAN = 600_000_000  # up to 2.1e9: below 2**31, which some tools read as negative
SANDBOX_TMP = "/tmp"
SANDBOX_HOME = "/tmp/home"
DEFAULT_TMP_MB = 64
MAX_FOLDER_MB = 65536

# Read-only system folders a program needs to run (interpreters, libraries).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
# What of /etc programs read to start; the rest of /etc (keys, credentials) stays out.
ETC_ENTRIES = (
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "host.conf",
    "gai.conf",
    "mime.types",
    "os-release",
    "debian_version",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "python3",
    "python3.11",
    "java-*",
    # Mono's library map: without it a C# program cannot call its own native half (File.Exists fails).
    "mono",
    "nodejs",
    "npmrc",
)


@dataclass(frozen=True)
class SandboxPolicy:
    """How one bot is isolated (from the tournament file or the command line).

    ``mode``: ``auto`` uses bubblewrap when it works on this machine and runs the
    bot unsandboxed otherwise (with a warning); ``bwrap`` requires it; ``none``
    runs the bot as a plain process.  ``hidden`` lists folders the arena masks
    with an empty tmpfs wherever they lie inside a folder the sandbox shows (its
    own, a ``readable`` one): the results folder and other bots' folders.  A ``mode`` given as a string is turned into its
    :class:`SandboxMode`.
    """

    mode: SandboxMode | str = SandboxMode.AUTO
    network: bool = False
    writable: bool = False
    tmp_mb: int = DEFAULT_TMP_MB
    paths: tuple[str, ...] = ()  # extra read-only paths the bot needs (a toolchain in $HOME, say)
    hidden: tuple[str, ...] = ()
    # Folders never shown for a path the bot's command names (:func:`named_folders`): the
    # results folder, the other bots' folders (the league's, and the game's other seats').
    never_shown: tuple[str, ...] = ()
    # The bot's private copy of its folder (:mod:`arena.game.workspace`), shown at the
    # folder's own path; None: the folder itself.
    source: str | None = None
    allow: tuple[str, ...] = ()  # with network: this machine's host:port pairs it may reach
    # A build's bound (:mod:`.capfolder`): the folder it sees is a tmpfs of this many MiB,
    # filled with the folder's files before it runs, instead of the folder itself.
    folder_mb: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"sandbox must be one of {', '.join(MODES)}, got {self.mode!r}")
        object.__setattr__(self, "mode", SandboxMode(self.mode))  # frozen: set once, here
        if not 1 <= self.tmp_mb <= 65536:
            raise ConfigError(f"tmp_mb must be from 1 to 65536, got {self.tmp_mb!r}")
        if self.folder_mb is not None and not 1 <= self.folder_mb <= MAX_FOLDER_MB:
            raise ConfigError(f"build_mb must be from 1 to {MAX_FOLDER_MB}, got {self.folder_mb!r}")


@dataclass(frozen=True)
class Isolation:
    """What actually applied to a bot, for its seat record and the standings."""

    sandbox: SandboxMode  # BWRAP or NONE
    limits: str  # "cgroup v1 (cpu, memory, pids)", "rlimits", ...
    network: bool
    warning: str | None = None

    def to_dict(self) -> dict[str, object]:
        """The seat record's ``isolation`` entry (plain strings, as records store them)."""
        d: dict[str, object] = {"sandbox": str(self.sandbox), "limits": self.limits, "network": self.network}
        if self.warning:
            d["warning"] = self.warning
        return d


@dataclass(frozen=True)
class SandboxFds:
    """Descriptors handed to bwrap: its report, its go-ahead, the system-call filter, and
    (when the bot has a user of its own) the ``/etc/passwd`` that names that user."""

    info: int
    block: int
    seccomp: int
    passwd: int | None = None

    def all(self) -> tuple[int, ...]:
        """Every descriptor bwrap must inherit (``pass_fds``)."""
        return tuple(fd for fd in (self.info, self.block, self.seccomp, self.passwd) if fd is not None)


_given_uids: set[int] = set()


def live_uids() -> set[int]:
    """The uids of every live process (``/proc`` shows them all: the arena is root)."""
    found = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                found.add(entry.stat().st_uid)
    return found


def bot_user() -> tuple[int, int] | None:
    """(uid, gid) for the next bot when the arena runs as root (a user of its own), else None.

    The uid is one no live process has and this process never gave out, so a kept bot's
    user is never a fresh bot's too, in this arena process or another.
    """
    if not _privileged():
        return None
    taken = live_uids()
    while True:
        uid = BOT_UID_BASE + secrets.randbelow(BOT_UID_SPAN)
        if uid not in taken and uid not in _given_uids:
            _given_uids.add(uid)
            return uid, SANDBOX_GID


@functools.cache
def _host_passwd() -> str:
    try:
        with open("/etc/passwd", encoding="utf-8", errors="replace") as f:
            return f.read(1 << 20)
    except OSError:
        return ""


def passwd_fd(uid: int, gid: int) -> int | None:
    """A pipe holding ``/etc/passwd`` with a line for ``uid`` (None when the host has one),
    so that programs asking who they are (Node's os.userInfo(), ``whoami``) get an answer."""
    text = _host_passwd()
    if any(line.split(":")[2:3] == [str(uid)] for line in text.splitlines()):
        return None
    data = (
        text.rstrip("\n") + f"\nbot:x:{uid}:{gid}:Battle Sheep bot:{SANDBOX_HOME}:/usr/sbin/nologin\n"
    ).encode()
    r, w = os.pipe()
    try:
        if len(data) > 65536:  # a pipe holds 64 KiB without a reader: leave the host's file
            os.close(r)
            return None
        os.write(w, data)
    finally:
        os.close(w)
    return r


def bwrap_path() -> str | None:
    """Where the ``bwrap`` program is, or None when it is not installed."""
    return shutil.which("bwrap")


@functools.cache
def unavailable_reason() -> str | None:
    """Why bubblewrap cannot sandbox bots here, or None when it can (tried once per process)."""
    exe = bwrap_path()
    if exe is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        filter_fd = seccomp.program_fd()
    except seccomp.SeccompError as e:
        return str(e)
    try:
        argv = [exe, *_namespace_args(own_network=False), "--seccomp", str(filter_fd), *_system_binds()]
        argv += ["--", *_drop_privileges(SANDBOX_GID, SANDBOX_GID), "/bin/sh", "-c", "exit 0"]
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=20,
            check=False,
            stdin=subprocess.DEVNULL,
            pass_fds=(filter_fd,),
        )
    except ConfigError as e:
        return str(e)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap cannot start here: {e}"
    finally:
        os.close(filter_fd)
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap does not work here: {err[-1] if err else f'exit {done.returncode}'}"
    return None


def resolve_mode(policy: SandboxPolicy) -> tuple[bool, str | None]:
    """(sandboxed?, warning) for a policy; ConfigError when bwrap is required and cannot run."""
    if policy.mode == SandboxMode.NONE:
        return False, None
    reason = unavailable_reason()
    if reason is None:
        return True, None
    if policy.mode == SandboxMode.BWRAP:
        raise ConfigError(f"a sandbox was asked for and cannot be had: {reason}")
    return False, f"running bots WITHOUT a sandbox: {reason}"


@functools.cache
def _system_binds() -> tuple[str, ...]:
    """The system folders' binds: the host's layout, looked at once per process."""
    args: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--perms", "0755", "--dir", "/etc"]  # else made like the host's root-only mount point
    for pattern in ETC_ENTRIES:
        for p in sorted(glob.glob(os.path.join("/etc", pattern))):
            args += ["--ro-bind", p, p]
    args += ["--proc", "/proc", "--dev", "/dev"]
    # No terminals: every devpts instance draws on one machine-wide pool (kernel.pty.max,
    # less the host's reserve), and bwrap's own instance has no cap of its own, so one bot
    # could take every pty there is.  /dev/ptmx points into /dev/pts: both are gone.
    args += ["--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts"]
    return tuple(args)


def _covered(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def arena_kit_dir() -> str:
    """The folder holding the ``arena`` package (bound read-only so Python bots can import the kit)."""
    return package_parent()


def _python_dirs() -> list[str]:
    """The arena's own Python installation (and virtual environment), for ``python3`` bots."""
    dirs = []
    for p in (sys.base_prefix, sys.prefix, sys.exec_prefix):
        r = os.path.realpath(p)
        if r not in dirs:
            dirs.append(r)
    if sys.prefix not in dirs:  # a venv reached through a symlink
        dirs.append(sys.prefix)
    return dirs


def sandbox_path(host_path: str, visible: Sequence[str]) -> str:
    """PATH inside the sandbox: the arena's own interpreter first, then the host's visible entries."""
    entries = [os.path.dirname(sys.executable)]
    for d in host_path.split(os.pathsep):
        if d and d not in entries and _covered(os.path.realpath(d), visible) and _covered(d, visible):
            entries.append(d)
    for d in ("/usr/local/bin", "/usr/bin", "/bin"):
        if d not in entries:
            entries.append(d)
    return os.pathsep.join(entries)


def _privileged() -> bool:
    """Whether bwrap runs as root: then setpriv drops to the bot's own user after the setup."""
    return os.geteuid() == 0


def runs_as_root() -> bool:
    """Whether sandboxes start as root (each bot then gets a user of its own); else every bot
    runs as the arena's user, in a user namespace of its own."""
    return _privileged()


def _namespace_args(own_network: bool) -> list[str]:
    """bwrap's namespaces: a new network one unless bwrap starts in one made for it."""
    args = [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",  # no TIOCSTI into the arena's terminal
        "--hostname",
        "sandbox",
    ]
    if not own_network:
        args.append("--unshare-net")
    if _privileged():
        # Root's bwrap mounts what the bot needs (also from folders only root can reach,
        # a Python under /root say), then setpriv drops to the bot's user: only these three
        # capabilities survive into the sandbox, and setpriv gives them up too.
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-user", "--disable-userns"]  # no nested user namespace: no capabilities
    return args


def _drop_privileges(uid: int, gid: int) -> list[str]:
    """The command that turns root into ``uid`` inside the sandbox, with no way back.

    Whatever the uid, no capability survives (bounding set emptied, no new privileges).
    """
    if not _privileged():
        return []
    exe = shutil.which("setpriv")
    if exe is None:
        raise ConfigError("the 'setpriv' command (util-linux) is needed to sandbox bots as root")
    return [
        exe,
        f"--reuid={uid}",
        f"--regid={gid}",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def _parents(path: str) -> list[str]:
    parts = Path(path).parts
    return [str(Path(*parts[:i])) for i in range(2, len(parts))]


def bwrap_command(
    policy: SandboxPolicy,
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    fds: SandboxFds,
    user: tuple[int, int] | None,
    own_network: bool = False,
) -> list[str]:
    """The bwrap command line that runs ``command`` in ``cwd`` inside the sandbox.

    ``own_network``: bwrap starts inside a network namespace made for this sandbox
    (:mod:`.network`); a policy with the network is refused without one, so that no
    sandbox ever shares the host's network.

    bwrap writes the sandbox's init pid to ``fds.info`` and waits for a byte on
    ``fds.block`` before it starts the bot, so the caller can put the bot in its
    cgroup before the bot runs a single instruction.  ``user`` (uid, gid) is who
    the command runs as when the arena is root (:func:`bot_user` for a bot, the
    folder's owner for a build); otherwise it runs as the arena's user.
    """
    exe = bwrap_path()
    if exe is None:
        raise ConfigError("bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    where = str(cwd)
    folders = _bot_folders(policy, where)
    inner_path = sandbox_path(env.get("PATH", ""), folders.visible)
    _show_program(command[0] if command else "", where, inner_path, folders, policy.source)
    for folder in named_folders(command[1:], where, (*policy.hidden, *policy.never_shown))[0]:
        if not folders.shows(folder):
            folders.add(folder)
    if policy.network and not own_network:
        raise ConfigError("a sandbox with the network needs a network namespace of its own")
    args = [exe, *_namespace_args(own_network), *_fd_args(fds), *_system_binds()]
    if own_network:  # names resolve through the network helper's DNS forwarder
        args += ["--ro-bind", network.resolv_conf(), "/etc/resolv.conf"]
    if fds.passwd is not None:
        args += ["--ro-bind-data", str(fds.passwd), "/etc/passwd"]
    args += _private_tmp_args(policy.tmp_mb)  # first: a bot's folder may well lie under the host's /tmp
    args += _folder_args(folders.in_mount_order(), policy.folder_mb)
    # A capped folder is filled without the hidden folders in it: nothing there to mask.
    capped = [where] if policy.folder_mb is not None else []
    args += _hidden_args([h for h in policy.hidden if not _covered(h, capped)], where, folders.visible)
    # The sandbox's own root (where bwrap made the mount points) is a tmpfs: read-only, so
    # nothing but /tmp (capped) and a writable folder takes a write.
    args += ["--remount-ro", "/", "--chdir", where, "--clearenv"]
    args += _environment_args(env, inner_path)
    drop = _drop_privileges(*user) if user is not None else []
    return [*args, "--", *drop, *command]


@dataclass
class _Folders:
    """The host folders bound into a sandbox (each read-only unless writable), and every
    folder the sandbox shows (the system's among them)."""

    visible: list[str]
    # host (None: the capped tmpfs of a build's folder), path inside, writable
    binds: list[tuple[str | None, str, bool]] = field(default_factory=list)

    def add(self, host: str | None, writable: bool = False, inside: str | None = None) -> None:
        """Bind ``host`` at ``inside`` (its own path by default) inside the sandbox."""
        path = inside or host
        assert path is not None
        self.binds.append((host, path, writable))
        self.visible.append(path)

    def shows(self, path: str) -> bool:
        """Whether ``path`` is inside a folder the sandbox already shows."""
        return _covered(path, self.visible)

    def in_mount_order(self) -> list[tuple[str | None, str, bool]]:
        """Outer folders first, so an inner bind is not hidden by an outer one laid over it."""
        return sorted(self.binds, key=lambda b: len(Path(b[1]).parts))


def _bot_folders(policy: SandboxPolicy, where: str) -> _Folders:
    """What a bot sees besides the system: the arena's Python and kit, the policy's extra
    paths, and its own folder (``where``)."""
    folders = _Folders([d for d in SYSTEM_DIRS if os.path.isdir(d)])
    for d in [*_python_dirs(), arena_kit_dir() + "/arena"]:
        if os.path.isdir(d) and not folders.shows(d):
            folders.add(d)
    for p in policy.paths:
        rp = os.path.realpath(p)
        if os.path.exists(rp) and not folders.shows(rp):
            folders.add(rp)
    folders.add(None if policy.folder_mb is not None else policy.source or where, policy.writable, inside=where)
    return folders


def _show_program(
    program: str, where: str, inner_path: str, folders: _Folders, source: str | None = None
) -> None:
    """Check that the bot's program can run in the sandbox; a program given by a path
    outside every visible folder is bound on its own.  With a private copy (``source``),
    a program in the bot's folder is looked for in the copy."""
    if "/" not in program:
        if shutil.which(program, path=inner_path) is None:
            raise FileNotFoundError(f"program {program!r}: No such file or directory on PATH {inner_path!r}")
        return
    written = os.path.normpath(program if os.path.isabs(program) else os.path.join(where, program))
    if source is not None and _covered(written, [where]):
        copied = os.path.realpath(os.path.join(source, os.path.relpath(written, where)))
        if not _covered(copied, [os.path.realpath(source)]):
            raise PermissionError(f"program {program!r} links outside the bot's folder")
        if not (os.path.isfile(copied) and os.access(copied, os.X_OK)):
            raise FileNotFoundError(f"program {program!r}: no such executable file (in {where!r})")
        return
    host = os.path.realpath(written)
    if not os.path.isfile(host):
        raise FileNotFoundError(f"program {program!r}: No such file or directory (in {where!r})")
    if not os.access(host, os.X_OK):
        raise PermissionError(f"program {program!r} is not executable")
    if folders.shows(host):
        return
    if _covered(written, [where]):
        # A link in the bot's own folder, which its author controls, to a file
        # elsewhere: binding what it points to would show the bot any file it names.
        raise PermissionError(f"program {program!r} links to {host!r}, outside the bot's folder")
    folders.add(host)


# Folders never bound for an argument: the root, and trees of the kernel, devices and the
# system's configuration (keys, credentials); /tmp and /home as a whole hold other users' files.
_NEVER_BOUND = ("/proc", "/sys", "/dev", "/etc", "/root", "/run", "/var")
_TOO_WIDE = ("/", "/tmp", "/home", "/mnt", "/media", "/srv")


_CLASS_PATH_OPTIONS = ("-cp", "-classpath", "--class-path")


def _named_paths(args: Sequence[str], where: str) -> list[str]:
    """The paths a command's arguments name for the sandbox to show: the first argument that is
    an existing file (the script an interpreter runs: ``python3 /abs/bot.py``, ``node x.js``)
    and each entry of a Java class path (``-cp A:B``, ``-cp=A``, ``--class-path A``)."""
    paths: list[str] = []
    script_seen = False
    for i, arg in enumerate(args):
        if arg in _CLASS_PATH_OPTIONS and i + 1 < len(args):
            paths += [w for w in args[i + 1].split(os.pathsep) if w]
        elif arg.startswith(tuple(f"{o}=" for o in _CLASS_PATH_OPTIONS)):
            paths += [w for w in arg.split("=", 1)[1].split(os.pathsep) if w]
        elif (
            not script_seen
            and not arg.startswith("-")
            and (i == 0 or args[i - 1] not in _CLASS_PATH_OPTIONS)
            and os.path.isfile(os.path.join(where, arg))
        ):
            script_seen = True
            paths.append(arg)
    return paths


def named_folders(args: Sequence[str], where: str, hidden: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """The folders a sandbox shows for the paths a command's arguments name, and why others stay
    hidden.

    The script the command runs (its first argument that is an existing file, absolute or
    relative to ``where``) and each entry of a Java class path have their folder bound
    read-only: a folder named as it is, a file's own folder.  Never the root, ``/tmp`` or
    ``/home`` as a whole, a system folder such as ``/etc`` or ``/proc``, or a folder that holds
    or lies in a hidden one (the results folder, other bots' folders).  Other arguments are
    not looked at: a bot reads its other files from its own folder or the tournament's
    ``readable`` paths.  Returns (folders to bind, one sentence per path left hidden).
    """
    binds: list[str] = []
    refused: list[str] = []
    for word in _named_paths(args, where):
        written = os.path.normpath(os.path.join(where, word))
        if _covered(written, [where]) or not os.path.exists(written):
            continue  # in the bot's folder (visible as it is), or no path at all
        real = os.path.realpath(written)
        folder = real if os.path.isdir(real) else os.path.dirname(real)
        why = _refusal(folder, hidden)
        if why is not None:
            refused.append(f"{word!r} is not visible in the sandbox: its folder {folder!r} {why}")
        elif folder not in binds:
            binds.append(folder)
    return binds, refused


def _refusal(folder: str, hidden: Sequence[str]) -> str | None:
    """Why ``folder`` is never bound for an argument, or None when it may be."""
    if folder in _TOO_WIDE:
        return "is too wide to show a bot; put the file in the bot's own folder"
    if _covered(folder, _NEVER_BOUND):
        return "is a system folder the sandbox never shows"
    for h in hidden:
        real = os.path.realpath(h)
        if _covered(folder, [real]) or _covered(real, [folder]):
            return f"holds or lies in {real!r}, which bots never see (results, other bots)"
    return None


def _fd_args(fds: SandboxFds) -> list[str]:
    """bwrap's report and go-ahead descriptors, and the system-call filter it loads."""
    return ["--info-fd", str(fds.info), "--block-fd", str(fds.block), "--seccomp", str(fds.seccomp)]


def _private_tmp_args(tmp_mb: int) -> list[str]:
    """A size-capped tmpfs for ``/tmp``, with the bot's HOME in it."""
    return [
        *("--size", str(tmp_mb * 1024 * 1024), "--perms", "1777", "--tmpfs", SANDBOX_TMP),
        *("--perms", "0777", "--dir", SANDBOX_HOME),
    ]


def _folder_args(binds: Sequence[tuple[str | None, str, bool]], folder_mb: int | None = None) -> list[str]:
    """The binds of ``binds`` (in that order), after the folders leading to them; a bind of
    no host folder is a tmpfs of ``folder_mb`` MiB (a build's capped folder)."""
    args: list[str] = []
    hosts = [inside for _, inside, _ in binds]
    # The folders leading to a bind are made readable, not copied from the host (/root is 0700).
    made: list[str] = []
    for path in hosts:
        for parent in _parents(path):
            if parent not in made and not _covered(parent, [*hosts, *SYSTEM_DIRS]):
                args += ["--perms", "0755", "--dir", parent]
                made.append(parent)
    for host, inside, writable in binds:
        if host is None:
            assert folder_mb is not None
            args += ["--size", str(folder_mb * 1024 * 1024), "--perms", "0755", "--tmpfs", inside]
        else:
            args += ["--bind" if writable else "--ro-bind", host, inside]
    return args


def _hidden_args(hidden: Sequence[str], where: str, shown: Sequence[str]) -> list[str]:
    """An empty read-only tmpfs over each hidden folder inside a folder the sandbox shows
    (the bot's own, a ``readable`` one, the arena's Python...), unless the bot's own folder
    lies inside it (hiding that would hide the bot from itself).

    A hidden folder inside another one that is masked is hidden with it, and left alone: its
    mount point would have to be made in the empty read-only tmpfs laid over the outer one,
    which bwrap cannot do (a league's bot folders inside its results folder, a ladder's
    versions of old inside its own)."""
    masked: list[str] = []
    for h in sorted(hidden, key=lambda h: len(Path(h).parts)):  # outer folders first
        if os.path.isdir(h) and _covered(h, shown) and not _covered(where, [h]) and not _covered(h, masked):
            masked.append(h)
    return [arg for h in masked for arg in ("--tmpfs", h, "--remount-ro", h)]


def _environment_args(env: Mapping[str, str], inner_path: str) -> list[str]:
    """``--setenv`` for ``env`` with the sandbox's own HOME, TMPDIR, PATH and PYTHONPATH."""
    inner_env = dict(env)
    inner_env.update(
        {
            "HOME": SANDBOX_HOME,
            "TMPDIR": SANDBOX_TMP,
            "PATH": inner_path,
            "PYTHONPATH": os.pathsep.join(
                [arena_kit_dir(), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]
            ),
            "PYTHONDONTWRITEBYTECODE": "1",  # the code folders are read-only
        }
    )
    args: list[str] = []
    for key, value in sorted(inner_env.items()):
        args += ["--setenv", key, value]
    return args
