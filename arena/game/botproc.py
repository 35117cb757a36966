"""Bot processes: start, talk to with deadlines, and tear down without a trace.

Each bot runs in its own session (so its process group holds it and every
child it starts), with a scrubbed environment and resource limits.  All bots
of a game share one poller: whenever the referee waits for one bot's
answer, it also drains every bot's stdout and stderr, so no bot ever blocks
on a full pipe and memory stays bounded whatever a bot writes.

Reading is done on raw file descriptors with our own buffers (``poll`` with
``os.read``); asyncio costs several times more per round trip.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import select
import shutil
import signal
import subprocess
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena import package_parent
from arena.errors import ArenaError, ConfigError
from arena.game.limits import ResourceLimits, applied_limits_text
from arena.game.proctree import (
    BOT_ID_VARIABLE,
    Held,
    forget_spawned,
    kill_marked,
    note_spawned,
    reap_adopted,
    scan_processes,
    start_ticks,
    tree_cpu_seconds,
    unreaped_exit_code,
    wait_unreaped,
)
from arena.game.record import BotFault, FaultKind
from arena.game.sandbox import bwrap as sandbox
from arena.game.sandbox import cgroups
from arena.game.sandbox.bwrap import Isolation, SandboxMode, SandboxPolicy
from arena.game.sandbox.network import BotNetwork
from arena.game.sandbox.spawn import spawn_sandboxed
from arena.game.signal_guard import signals_deferred
from arena.game.turnlog import LogBounds, TurnLog
from arena.protocol import MAX_LINE_BYTES

READ_CHUNK = 65536
STDERR_KEEP = 16 * 1024  # bytes of stderr kept per bot (its tail)
INFO_KEEP = 200  # info lines kept per bot per game
INFO_LINE_KEEP = 300  # characters kept of each info line
STDOUT_HEAD_BYTES = 1024  # bytes of the first stdout a bot writes kept for its record
STDOUT_HEAD_LINES = 5  # ... as at most this many lines
STDOUT_HEAD_LINE_KEEP = 200  # characters kept of each
EXIT_CHECK_S = 0.05  # while waiting, how often to look whether the bot has exited
MAX_QUEUED_LINES = 16  # unasked lines kept before a bot counts as flooding stdout
REAP_STEP_S = 0.5  # after a SIGKILL, how long to wait for the bot before thawing and killing again
REAP_S = 60.0  # ... and in all, before giving up on it as an arena failure
# A complete line that is not an info line (``info`` alone or followed by a space or tab).
_NOT_INFO = re.compile(rb"^(?!info(?:[ \t]|\r?\n))[^\n]*\n", re.MULTILINE)


def limits_note(limits: ResourceLimits, policy: SandboxPolicy) -> str | None:
    """A sentence for the start of a game or a check when the bots' limits cannot be held
    for each bot as a whole (no cgroup here, or no sandbox): which limits apply instead.
    None when the cgroup holds them."""
    sandboxed, _warning = sandbox.resolve_mode(policy)
    group = cgroups.support() if sandboxed else None
    if group is not None:
        return None
    why = "no sandbox" if not sandboxed else "no cgroup the arena may use here"
    return f"limits: {applied_limits_text(limits, None)}, as there is {why}"


class BotProcess:
    """One running bot: its pipes, buffers and the facts kept for the record."""

    def __init__(
        self,
        name: str,
        proc: subprocess.Popen[bytes],
        token: str = "",
        isolation: Isolation | None = None,
        cgroup: cgroups.BotCgroup | None = None,
        init: Held | None = None,
        network: BotNetwork | None = None,
    ) -> None:
        self.name = name
        self.init = init  # its sandbox's init, held since its start (signalled through its pidfd)
        sandbox_init = init.pid if init is not None else None
        self.network = network  # its sandbox's own network, ended with it
        self.proc = proc
        self.token = token
        self.isolation = isolation or Isolation(SandboxMode.NONE, "rlimits", True)
        self.cgroup = cgroup
        self.sandbox_init = sandbox_init  # pid 1 of the bot's PID namespace: its death ends them all
        self.started = 0 if sandbox_init else start_ticks(proc.pid)  # its descendants started no earlier
        self.pgid = proc.pid  # start_new_session: the bot leads its own group
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.stdin_fd = proc.stdin.fileno()
        self.stdout_fd = proc.stdout.fileno()
        self.stderr_fd = proc.stderr.fileno()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self.outbuf = bytearray()
        self.lines: deque[tuple[bytes, float]] = deque()  # complete non-info lines, arrival time
        self.infos: list[str] = []
        self.info_plies: list[int] = []  # the ply each kept info line was sent at
        self.info_count = 0
        self.log_bounds = LogBounds()  # how much of its stderr and info lines a turn and a game keep
        self.turn_log = TurnLog()  # its stderr turn by turn, and its info lines kept this turn
        self.ply = -1  # the ``ply`` of the last turn request sent to it (-1: none yet)
        self.overflow = False  # a line longer than MAX_LINE_BYTES was started
        self.flooded = False  # more than MAX_QUEUED_LINES lines sent without being asked
        self.stdout_open = True
        self.stderr_open = True
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        self.stdout_bytes = 0  # everything it wrote on stdout, info lines too
        self.stdout_first = bytearray()  # the first STDOUT_HEAD_BYTES of it
        self.exit_note: str | None = None
        # How it was started (set by BotPool.start), for the hint under a fault.
        self.argv: tuple[str, ...] = ()
        self.cwd = Path(".")
        self.limits = ResourceLimits()
        self.policy: SandboxPolicy | None = None
        # Processes still running after the bot itself exited; None in a sandbox, whose
        # PID namespace ends with the bot, so none can be left.
        self.leftovers: int | None = None if sandbox_init else 0
        self.out_of_memory = False  # its cgroup saw the kernel kill a process for memory
        self.own_poll = select.poll()  # its own output pipes: what waiting for its answer reads
        self.frozen: str | None = None  # a kept bot between games: "cgroup" or "signal" stopped
        # For a bot that plays several games in one process (``multigame``): its hello, and
        # how many games it has begun.
        self.hello: tuple[str, tuple[str, ...]] | None = None
        self.games = 0

    def begin_game(self) -> None:
        """Start a game's record afresh: infos, stderr and exit facts belong to one game."""
        self.games += 1
        self.infos = []
        self.info_plies = []
        self.info_count = 0
        self.turn_log = TurnLog(self.log_bounds)
        self.ply = -1
        self.stderr_tail = bytearray()
        self.stderr_bytes = 0
        self.stdout_bytes = 0
        self.stdout_first = bytearray()
        self.exit_note = None

    def stdout_head(self) -> tuple[str, ...]:
        """The first lines it wrote on stdout (this game), as text, each cut short."""
        text = self.stdout_first.decode("utf-8", "replace")
        return tuple(line[:STDOUT_HEAD_LINE_KEEP] for line in text.splitlines()[:STDOUT_HEAD_LINES])

    def reusable(self) -> bool:
        """Whether this process can play another game: alive, listening, and silent since
        its last game ended (a line sent between games is never carried into the next)."""
        return (
            not self.exited()
            and self.stdout_open
            and self.proc.stdin is not None
            and not self.proc.stdin.closed
            and not (self.lines or self.outbuf or self.overflow or self.flooded)
        )

    def cpu_seconds(self) -> float:
        """The most CPU time any one process of the bot has used so far, in seconds.

        A process's CPU limit (``cpu_seconds``) holds over its whole life, which for a
        bot that plays many games spans them all: the host restarts it before it
        gets near.  Walks the bot's process tree (a few ``/proc`` files), no scan.
        """
        return tree_cpu_seconds(self.sandbox_init or self.proc.pid)

    # -- buffers ------------------------------------------------------------

    def take_stdout(self, data: bytes, now: float) -> None:
        """Take in what the bot wrote to stdout (read at ``now``): keep its info lines apart,
        queue its other complete lines, and note an overlong line or a flood."""
        self.stdout_bytes += len(data)
        if len(self.stdout_first) < STDOUT_HEAD_BYTES:
            self.stdout_first += data[: STDOUT_HEAD_BYTES - len(self.stdout_first)]
        if self.overflow or self.flooded:
            return  # this bot is already at fault; stop keeping what it says
        if (
            not self.outbuf
            and data[-1:] == b"\n"
            and data.find(b"\n") == len(data) - 1
            and len(data) <= MAX_LINE_BYTES + 1
            and not data.startswith(b"info")
            and len(self.lines) < MAX_QUEUED_LINES
        ):
            # What nearly every read brings: one whole answer line, nothing left over.
            # The general loop below gives the same result, with more steps.
            raw = data[:-1]
            self.lines.append((raw[:-1] if raw.endswith(b"\r") else raw, now))
            return
        self.outbuf += data
        if len(self.infos) >= INFO_KEEP or self.turn_log.infos_full(self.ply):
            self._skim(now)
            if self.overflow or self.flooded:
                return
        while True:
            nl = self.outbuf.find(b"\n")
            if nl < 0:
                break
            raw = bytes(self.outbuf[:nl])
            del self.outbuf[: nl + 1]
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            if len(raw) > MAX_LINE_BYTES:
                self.overflow = True
                self.outbuf.clear()
                return
            if raw == b"info" or raw.startswith((b"info ", b"info\t")):
                self.info_count += 1
                if len(self.infos) < INFO_KEEP and self.turn_log.keep_info(self.ply):
                    text = raw[5:].decode("utf-8", "replace")
                    self.infos.append(text[:INFO_LINE_KEEP])
                    self.info_plies.append(self.ply)
                continue
            if len(self.lines) >= MAX_QUEUED_LINES:
                # Only one answer is ever due: a bot this far ahead floods us.
                self.flooded = True
                self.lines.clear()
                self.outbuf.clear()
                return
            self.lines.append((raw, now))
        if len(self.outbuf) > MAX_LINE_BYTES + self.outbuf.endswith(b"\r"):  # (its CR may come early)
            self.overflow = True
            self.outbuf.clear()

    def _skim(self, now: float) -> None:
        """Once no more infos are kept: count the info lines among the buffer's complete
        lines and queue the others, with a few scans at C speed instead of a step a line
        (a flood of info lines would otherwise cost the referee, and every bot waiting on
        it, a Python loop per line).  Info lines met here are counted, never parsed."""
        end = self.outbuf.rfind(b"\n")
        if end < 0:
            return
        block = bytes(self.outbuf[: end + 1])
        del self.outbuf[: end + 1]
        others = _NOT_INFO.findall(block)
        self.info_count += block.count(b"\n") - len(others)
        for line in others:
            raw = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            if len(raw) > MAX_LINE_BYTES:
                self.overflow = True
            elif len(self.lines) >= MAX_QUEUED_LINES:
                self.flooded = True
                self.lines.clear()
            else:
                self.lines.append((raw, now))
                continue
            self.outbuf.clear()
            return

    def take_stderr(self, data: bytes) -> None:
        """Take in what the bot wrote to stderr: count it, and keep its tail and its turns for the record."""
        self.turn_log.take(data, self.ply)
        self.stderr_bytes += len(data)
        self.stderr_tail += data
        if len(self.stderr_tail) > STDERR_KEEP:
            del self.stderr_tail[: len(self.stderr_tail) - STDERR_KEEP]

    def stderr_text(self) -> str:
        """The kept tail of the bot's stderr, as text (undecodable bytes replaced)."""
        return self.stderr_tail.decode("utf-8", "replace")

    def exit_code(self) -> int | None:
        """Its exit code as :class:`subprocess.Popen` gives it once it has ended, else None;
        not reaped until :meth:`BotPool.stop` has killed its group (see
        :func:`~arena.game.proctree.unreaped_exit_code`)."""
        return unreaped_exit_code(self.proc)

    def exited(self) -> bool:
        """Whether the process has ended (not reaped: see :meth:`exit_code`)."""
        return self.exit_code() is not None

    def exit_status(self, wait: float = 0.0) -> str | None:
        """ "exit N" or "signal NAME" once the process has ended, else None."""
        code = wait_unreaped(self.proc, wait) if wait > 0 else self.exit_code()
        if code is None:
            return None
        if self.sandbox_init and 128 < code < 128 + 65:
            code = 128 - code  # bubblewrap reports a bot killed by signal N as exit 128 + N
        if code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
        return f"exit {code}"


class _Poller:
    """``select.poll`` over the bots' output pipes, with each fd's owner.

    Used directly rather than through :mod:`selectors`: this wait is on the
    path of every move, and the wrapper's bookkeeping costs more than the call.
    """

    def __init__(self) -> None:
        self.poll = select.poll()
        self.owners: dict[int, tuple[BotProcess, bool]] = {}

    def register(self, fd: int, bot: BotProcess, is_stdout: bool) -> None:
        self.poll.register(fd, select.POLLIN)
        bot.own_poll.register(fd, select.POLLIN)
        self.owners[fd] = (bot, is_stdout)

    def unregister(self, fd: int) -> None:
        owner = self.owners.pop(fd, None)
        if owner is not None:
            self.poll.unregister(fd)
            with contextlib.suppress(KeyError):
                owner[0].own_poll.unregister(fd)


class BotPool:
    """The bots of one game and the poller that serves them all."""

    def __init__(self) -> None:
        self.poller = _Poller()
        self.bots: list[BotProcess] = []

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_all()

    def start(
        self,
        name: str,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        limits: ResourceLimits,
        policy: SandboxPolicy | None = None,
    ) -> BotProcess:
        """Start a bot; raise BotFault(STARTUP_FAILURE) if it cannot be started.

        With a ``policy`` whose mode resolves to bubblewrap the bot starts in its
        sandbox (raises ConfigError when ``bwrap`` was required and cannot run).
        """
        if not argv:
            raise BotFault(FaultKind.STARTUP_FAILURE, "empty command")
        policy = policy or SandboxPolicy(mode=SandboxMode.NONE)
        sandboxed, warning = sandbox.resolve_mode(policy)
        if sandboxed:
            bot = self._start_sandboxed(name, argv, cwd, env, limits, policy)
        else:
            if policy.source is not None:  # no sandbox to show its private copy at the folder's path
                cwd = Path(policy.source)
            bot = self._start_plain(name, argv, cwd, env, limits)
            bot.isolation = Isolation(SandboxMode.NONE, applied_limits_text(limits, None), True, warning)
        bot.argv, bot.cwd, bot.limits, bot.policy = tuple(argv), cwd, limits, policy if sandboxed else None
        self.bots.append(bot)
        self.poller.register(bot.stdout_fd, bot, True)
        self.poller.register(bot.stderr_fd, bot, False)
        return bot

    def _start_plain(
        self, name: str, argv: Sequence[str], cwd: Path, env: Mapping[str, str], limits: ResourceLimits
    ) -> BotProcess:
        # Outside a sandbox the bot shares its user with the arena and everything else it
        # runs: a per-user task limit would count those too, so it is left out.
        token = uuid.uuid4().hex
        # The bot kit importable as in the sandbox (``import arena.botkit``), before the bot's own.
        kit = os.pathsep.join([package_parent(), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
        env = {**env, BOT_ID_VARIABLE: token, "PYTHONPATH": kit}
        try:
            wrapper = limits.prlimit_command(whole_bot=False, per_user_tasks=False)
            program = shutil.which(argv[0], path=env.get("PATH")) if "/" not in argv[0] else argv[0]
            if program is None:
                raise FileNotFoundError(f"no program {argv[0]!r} on the bot's PATH")
            program = str(cwd / program) if "/" in argv[0] and not os.path.isabs(program) else program
            if not os.access(program, os.X_OK) or os.path.isdir(program):
                raise PermissionError(f"{program!r} is not an executable file")
            started: list[subprocess.Popen[bytes]] = []
            try:
                with signals_deferred():
                    started.append(
                        subprocess.Popen(
                            [*wrapper, program, *argv[1:]],
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,
                            cwd=cwd,
                            env=dict(env),
                            start_new_session=True,
                            close_fds=True,
                            bufsize=0,
                        )
                    )
            except BaseException:  # a SIGTERM held back during the start: kill what started
                for proc in started:
                    with contextlib.suppress(OSError):
                        os.killpg(proc.pid, signal.SIGKILL)  # its leader unreaped until the wait
                    proc.wait()
                raise
            proc = started[0]
            note_spawned(proc.pid)
            bot = BotProcess(name, proc, token)
        except (OSError, subprocess.SubprocessError, ValueError, ConfigError) as e:
            raise BotFault(
                FaultKind.STARTUP_FAILURE, f"cannot start {' '.join(argv)!r} in {str(cwd)!r}: {e}"
            ) from None
        return bot

    def _start_sandboxed(
        self,
        name: str,
        argv: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        limits: ResourceLimits,
        policy: SandboxPolicy,
    ) -> BotProcess:
        """Start a bot under bubblewrap, in a cgroup of its own when the machine allows."""
        try:
            proc, init, group, net = spawn_sandboxed(argv, cwd, env, limits, policy)
        except OSError as e:
            raise BotFault(
                FaultKind.STARTUP_FAILURE,
                f"cannot start {' '.join(argv)!r} in its sandbox in {str(cwd)!r}: {e}",
            ) from None
        limits_text = applied_limits_text(limits, group.support.description if group is not None else None)
        isolation = Isolation(SandboxMode.BWRAP, limits_text, policy.network)
        return BotProcess(name, proc, "", isolation, group, init, net)

    # -- I/O ------------------------------------------------------------------

    def _pump(self, timeout: float, only: BotProcess | None = None) -> None:
        """Wait up to ``timeout`` seconds for output from any bot (or from ``only``) and
        take it in.  Waiting for one bot's answer reads that bot alone: what the others
        write meanwhile waits in their pipes (a flooder then blocks on its own writes),
        so no bot's output costs the referee time while it waits on another."""
        poller = self.poller
        if not poller.owners:
            time.sleep(max(0.0, min(timeout, 0.05)))
            return
        # The fds with something to read (or closed), waiting up to ``timeout`` seconds
        # (poll takes whole milliseconds: rounded up).
        poll = poller.poll if only is None else only.own_poll
        ready = poll.poll(max(0, math.ceil(timeout * 1000)))
        # Everything ready arrived by now: one stamp for all, so the time spent taking in
        # one bot's output (a flood, say) is never charged to another whose answer waits.
        now = time.monotonic()
        for fd, _ in ready:
            owner = poller.owners.get(fd)
            if owner is None:
                continue
            bot, is_stdout = owner
            try:
                data = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                poller.unregister(fd)
                if is_stdout:
                    bot.stdout_open = False
                else:
                    bot.stderr_open = False
                continue
            if is_stdout:
                bot.take_stdout(data, now)
            else:
                bot.take_stderr(data)

    def send(self, bot: BotProcess, line: str, ply: int | None = None) -> float:
        """Write one line to a bot; return the time just before the write began: the bot's
        clock starts then, as a bot woken on another core may think before ``write`` returns.

        A bot that has died or closed its input is at fault (crash).  Lines
        are small and a bot has at most one request pending, so a full pipe
        means the bot is not reading: that is a protocol fault.
        """
        data = (line + "\n").encode("ascii")
        if ply is not None:
            bot.ply = ply  # stamps the info lines it sends while it thinks
        sent = 0
        started = time.monotonic()
        while sent < len(data):
            try:
                sent += os.write(bot.stdin_fd, data[sent:] if sent else data)
            except BrokenPipeError:
                raise BotFault(FaultKind.CRASH, self._gone(bot, "stopped reading its input")) from None
            except BlockingIOError:
                raise BotFault(
                    FaultKind.PROTOCOL_ERROR, "does not read its input (the pipe to it is full)"
                ) from None
        return started

    def read_line(self, bot: BotProcess, deadline: float) -> tuple[str, float]:
        """The bot's next line (not an ``info`` line) and when it arrived.

        Raises BotFault: TIMEOUT past ``deadline`` (monotonic seconds),
        CRASH when its output ends first, PROTOCOL_ERROR for an overlong line
        or bytes that are not ASCII.
        """
        waited = False
        while True:
            if bot.lines:
                raw, arrived = bot.lines.popleft()
                try:
                    return raw.decode("ascii"), arrived
                except UnicodeDecodeError:
                    raise BotFault(
                        FaultKind.PROTOCOL_ERROR, f"sent bytes that are not ASCII: {raw[:200]!r}"
                    ) from None
            if bot.flooded:
                raise BotFault(
                    FaultKind.PROTOCOL_ERROR,
                    f"sent more than {MAX_QUEUED_LINES} lines without being asked",
                )
            if bot.overflow:
                raise BotFault(
                    FaultKind.PROTOCOL_ERROR,
                    f"sent a line longer than {MAX_LINE_BYTES} bytes",
                )
            if not bot.stdout_open:
                raise BotFault(FaultKind.CRASH, self._gone(bot, "closed its output"))
            if waited and bot.exited():
                # Exited, though a child of it may still hold its output open.
                self._pump(0, bot)
                if not bot.lines and not bot.overflow and not bot.flooded:
                    raise BotFault(FaultKind.CRASH, self._gone(bot, "exited before answering"))
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                self._pump(0, bot)  # take what has already arrived before calling it late
                if bot.lines or bot.overflow or bot.flooded or not bot.stdout_open:
                    continue
                raise BotFault(FaultKind.TIMEOUT, "no answer in time")
            self._pump(min(left, EXIT_CHECK_S), bot)
            waited = True  # from now on, look at the process too (not on a prompt answer)

    def wait(self, until: float) -> None:
        """Take in output from any bot, waiting at most until ``until`` (monotonic)."""
        self._pump(max(0.0, until - time.monotonic()))

    def stray_line(self, bot: BotProcess) -> str | None:
        """A line the bot sent without being asked, if any (checked before each request).

        Only what has already been read counts: every wait reads every bot's
        output, so no extra system call is spent on this per move.
        """
        if bot.flooded:
            return f"more than {MAX_QUEUED_LINES} lines"
        if bot.lines:
            raw, _ = bot.lines.popleft()
            return raw.decode("ascii", "backslashreplace")
        return None

    def _gone(self, bot: BotProcess, what: str) -> str:
        status = bot.exit_status(wait=0.2)
        bot.exit_note = status
        return f"{what} ({status})" if status else f"{what} (still running)"

    # -- teardown ---------------------------------------------------------------

    def say_goodbye(self, bot: BotProcess, goodbye: str | None) -> None:
        """Send ``goodbye`` (if the bot still runs) and close its input."""
        if goodbye is not None and not bot.exited():
            with contextlib.suppress(BotFault):
                self.send(bot, goodbye)
        if bot.proc.stdin is not None:
            with contextlib.suppress(OSError):
                bot.proc.stdin.close()  # closes stdin_fd exactly once

    def stop(self, bot: BotProcess, goodbye: str | None, grace: float) -> bool:
        """End a bot: say ``goodbye``, close its input, give it ``grace`` seconds
        to exit on its own, then kill its whole process group.

        Returns whether the bot exited by itself within the grace; if it did,
        ``bot.leftovers`` counts the processes it left running.
        """
        if bot.cgroup is not None:
            # Whatever froze it, or was freezing it when an exception (a worker's SIGTERM)
            # cut in: a process frozen by its cgroup (v1) takes no signal, its SIGKILL
            # included, until thawed, and the wait for it below would never end.
            bot.cgroup.thaw()
        self.say_goodbye(bot, goodbye)
        deadline = time.monotonic() + grace
        exited = bot.exited()
        while not exited and time.monotonic() < deadline:
            step = min(0.02, max(0.0, deadline - time.monotonic()))
            if bot.stdout_open or bot.stderr_open:
                self._pump(step)  # its output closing is the first sign of its exit
            else:
                time.sleep(step)  # closed its pipes: wait for the exit itself
                self._pump(0)
            exited = bot.exited()
        status_before_kill = bot.exit_status()
        if bot.sandbox_init:
            self._end_sandbox(bot)
            if status_before_kill and bot.out_of_memory:
                status_before_kill += " (out of memory)"
        else:
            marked, group = scan_processes(bot.token, bot.pgid if exited else None, bot.started)
            if exited:  # what it left running is the bot's doing; the arena cleans up anyway
                bot.leftovers = len(set(marked) | set(group) - {bot.proc.pid})
            # Kill the whole group even when the bot itself exited: its children go too.
            # By its group's id: the bot, its leader, is our child, unreaped until just after.
            self._kill_group_and_reap(bot)
            if marked:
                kill_marked(bot.token, bot.started)
        self._pump(0)
        for fd in (bot.stdout_fd, bot.stderr_fd):
            self.poller.unregister(fd)
        for stream in (bot.proc.stdout, bot.proc.stderr):
            if stream is not None:
                stream.close()
        bot.exit_note = status_before_kill or bot.exit_note or "killed"
        with contextlib.suppress(ValueError):  # a pool that lives for many games keeps no dead bots
            self.bots.remove(bot)
        forget_spawned(bot.proc.pid)
        reap_adopted()
        return exited

    @staticmethod
    def _kill_group_and_reap(bot: BotProcess) -> None:
        """SIGKILL the bot's process group and reap its leader (our child: its group's id is
        not given out again before that).  A frozen cgroup holds a SIGKILL until thawed, and
        a freeze asked for just before (a timer's, or one an exception cut short) may still
        land after a thaw: so thaw, kill and wait a while, again, until the leader is gone."""
        deadline = time.monotonic() + REAP_S
        while True:
            if bot.cgroup is not None:
                bot.cgroup.thaw()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(bot.pgid, signal.SIGKILL)
            try:
                bot.proc.wait(timeout=REAP_STEP_S)
                return
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise ArenaError(
                        f"bot {bot.name!r} (pid {bot.proc.pid}) did not end {REAP_S:.0f} s after its SIGKILL"
                    ) from None

    @staticmethod
    def _end_sandbox(bot: BotProcess) -> None:
        """Kill a sandboxed bot: its namespace's init, which ends every process in it, and bwrap.

        No scan of ``/proc``: a PID namespace holds whatever the bot started.
        The init is not our child (bwrap's): its pid could go to a stranger once
        bwrap has reaped it, so it is signalled through the pidfd held since its
        start.  bwrap's group is killed by its id while bwrap, its leader, is our
        unreaped child (reaped just after).  The cgroup (if any) is emptied too,
        and removed.
        """
        if bot.init is not None:
            bot.init.signal(signal.SIGKILL)
            bot.init.close()
        BotPool._kill_group_and_reap(bot)
        if bot.cgroup is not None:
            bot.out_of_memory = bot.cgroup.out_of_memory()
            bot.cgroup.kill_all()
            bot.cgroup.remove()
        if bot.network is not None:  # its helper ends with the sandbox: reaped before the game returns
            bot.network.ended()
            bot.network = None

    def close_all(self) -> None:
        """Kill every bot still running (used on errors and interrupts)."""
        for bot in list(self.bots):
            if bot.proc.returncode is None or (bot.proc.stdout and not bot.proc.stdout.closed):
                self.stop(bot, None, 0.0)
