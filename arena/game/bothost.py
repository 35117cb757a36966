"""Bot processes for the referee: started per game, or kept across games.

A bot that declares ``multigame`` in its hello keeps its process (and its
sandbox) across the games a worker plays, as cutechess keeps an engine with
``restart=off``: after ``end`` it waits for the next ``game``.  The
:class:`BotHost` owns every bot process of a worker: it hands the referee a
channel per seat (a kept process when one fits, else a new one) and takes
them back after the game.  A process is started afresh after a fault or a
crash (the referee stops a faulty bot), when it wrote anything between games,
every ``restart_every`` games, and before it gets near its CPU-time limit.

Nothing of one game reaches another's record: a kept process's infos, stderr
and exit facts are reset when its next game begins, and a process that spoke
out of turn between games is replaced rather than reused.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena import builtin_bots
from arena.errors import ConfigError
from arena.game.botproc import BotPool, BotProcess
from arena.game.diagnose import ProcessFacts, fault_hint
from arena.game.inprocess import InProcessChannel
from arena.game.limits import ResourceLimits, bot_environment
from arena.game.proctree import signal_descendants
from arena.game.record import BotFault, Fault, FaultKind
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.turnlog import LogBounds

TRANSCRIPT_KEEP = 60  # lines of each bot's conversation kept for reports
MAX_IDLE = 16  # kept processes a worker holds between games (the least recently used go first)
CPU_RESTART_SHARE = 0.5  # a process past this share of its CPU-time limit is not reused
FREEZE_AFTER_S = 0.5  # a kept bot runs this long after its game's end, then is frozen
QUIT_GRACE_S = 1.0  # time kept processes get to exit after their input closes
KEPT = "kept for its next game"  # the exit a seat's record shows for a process kept after its game


@dataclass(frozen=True)
class BotSpec:
    """How to run one bot: a name, a command (argv), where and with what."""

    name: str
    command: tuple[str, ...]
    cwd: Path = field(default_factory=Path.cwd)
    env: Mapping[str, str] = field(default_factory=dict)
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    # Keep its process for the next game when it declares ``multigame`` (False: start it
    # afresh for every game even then).
    multigame: bool = True
    # How much of its stderr and info lines each turn and game of its record keep.
    logs: LogBounds = field(default_factory=LogBounds)
    # Its own startup allowance in ms, in place of the game's time control's (None: that
    # one): a bot the arena brings keeps its allowance whatever the bot under test gets.
    startup_ms: int | None = None
    # A built-in bot (``command`` runs ``arena:NAME``) played inside the referee's own
    # process rather than started as one (:mod:`arena.game.inprocess`): ``arena check``'s
    # opponents, which would otherwise cost an interpreter and a sandbox each.
    in_process: bool = False

    def __post_init__(self) -> None:
        if self.in_process and builtin_bots.name_of(self.command) is None:
            raise ConfigError(
                f"bot {self.name!r}: only a built-in bot plays in the referee's process, "
                f"not {' '.join(self.command)!r}"
            )


class ProcessChannel:
    """A :class:`BotChannel` over a real process in a :class:`BotPool`."""

    def __init__(
        self,
        pool: BotPool,
        bot: BotProcess,
        keep_transcript: bool,
        can_stay: bool = False,
        start: Callable[[], BotProcess] | None = None,
        freezer: Freezer | None = None,
    ) -> None:
        self.pool = pool
        self.bot = bot
        self.freezer = freezer or Freezer()
        self.start = start  # starts a fresh process of the same bot (for renew)
        self.exited_cleanly = False
        self.finished = False  # told "end", input closed
        self.stopped = False
        self.stayed = False  # told "end" and kept running for another game
        self.stdout_bytes_when_stopped: int | None = None
        self.stdout_head_when_stopped: tuple[str, ...] | None = None
        self.previous_hello = bot.hello if bot.games > 0 else None
        self.can_stay = can_stay
        bot.begin_game()
        self.sent_at = self.seated_at = time.monotonic()
        self.transcript: deque[str] | None = deque(maxlen=TRANSCRIPT_KEEP) if keep_transcript else None

    def _note(self, line: str) -> None:
        if self.transcript is not None:
            self.transcript.append(line)

    def renew(self) -> bool:
        """Start a kept bot afresh (its kept process had ended); whether a new process started."""
        if self.previous_hello is None or self.start is None:
            return False
        self.pool.stop(self.bot, None, 0.0)
        try:
            self.bot = self.start()
        except BotFault:
            return False
        self.bot.begin_game()
        self.previous_hello = None
        self._note("---- its kept process had ended: started afresh")
        return True

    def send(self, line: str, ply: int | None = None) -> None:
        """Write one line to the bot (``ply`` names the request in a fault)."""
        bot = self.bot
        if bot.lines or bot.flooded:  # only then can stray_line() find one (looked at here: every move)
            stray = self.pool.stray_line(bot)
            if stray is not None:
                self._note(f"bot> {stray}")
                raise BotFault(FaultKind.PROTOCOL_ERROR, f"sent {stray[:200]!r} without being asked")
        if self.transcript is not None:
            self.transcript.append(f"ref> {line}")
        self.sent_at = self.pool.send(bot, line, ply)

    def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
        """The bot's next line and when it arrived, within ``timeout_s`` (or by ``deadline``)."""
        answer, arrived = self.pool.read_line(self.bot, deadline or self.sent_at + timeout_s)
        if self.transcript is not None:
            self.transcript.append(f"bot> {answer}")
        return answer, arrived - self.sent_at

    def wait(self, until: float) -> None:
        """Let the bot's output be read until ``until`` (a monotonic time), answering nothing."""
        self.pool.wait(until)

    def pause(self) -> None:
        """Another bot is on move: stop every process of this one (no CPU) until :meth:`resume`."""
        if not (self.stopped or self.finished):
            self.freezer.now(self.bot)

    def resume(self) -> None:
        """Let the bot run again (it is on move, or its game ends)."""
        self.freezer.thaw(self.bot)

    def finish(self, goodbye: str) -> None:
        """End the game for this bot: send ``goodbye`` and stop its process."""
        self.resume()
        if not self.stopped and not self.finished:
            self.finished = True
            self._note(f"ref> {goodbye}")
            self.pool.say_goodbye(self.bot, goodbye)

    def stay(self, goodbye: str, hello: tuple[str, tuple[str, ...]]) -> None:
        """End the game but keep the process for the next one (``multigame``), if it may stay."""
        if self.stopped or self.finished:
            return
        self.resume()
        self._note(f"ref> {goodbye}")
        try:
            self.pool.send(self.bot, goodbye)
        except BotFault:  # gone already: the game is over, so no fault; just not kept
            self.finished = True
            self.stop(None, 0.0)
            return
        self.finished = self.stayed = self.exited_cleanly = True
        self.bot.hello = hello
        self.bot.exit_note = KEPT

    def stop(self, goodbye: str | None, grace_s: float, why: str | None = None) -> None:
        """Stop the bot's process (after ``goodbye``, within ``grace_s``); ``why`` says why in its tail."""
        if self.stopped or self.stayed:
            return
        self.resume()  # a frozen process would take its kill only once thawed
        if goodbye is not None:
            self.finish(goodbye)
        self.stopped = True
        # What it had written when it was given up on: a bot whose input closes may still flush
        # its buffer on the way out, which must not hide that nothing arrived in time.
        self.stdout_bytes_when_stopped = self.bot.stdout_bytes
        self.stdout_head_when_stopped = self.bot.stdout_head()
        if why is not None:
            self._note(f"---- forfeited: {why}")
        exited = self.pool.stop(self.bot, None, grace_s)
        self.exited_cleanly = exited and self.finished  # by itself, after "end": not a crash

    def fault_hint(self, fault: Fault) -> str:
        """What the arena can tell of a fault's cause from the stopped process (empty if nothing)."""
        b = self.bot
        facts = ProcessFacts(
            argv=b.argv,
            cwd=b.cwd,
            limits=b.limits,
            policy=b.policy,
            limits_text=b.isolation.limits,
            exit=b.exit_note,
            out_of_memory=b.out_of_memory,
            stdout_bytes=b.stdout_bytes if self.stdout_bytes_when_stopped is None else self.stdout_bytes_when_stopped,
            stderr=b.stderr_text(),
            stdout_head=b.stdout_head() if self.stdout_head_when_stopped is None else self.stdout_head_when_stopped,
        )
        return fault_hint(fault, facts)

    def seat_facts(self) -> dict[str, object]:
        """What the record keeps of how this seat ran: its sandbox, limits, network, process reuse."""
        b = self.bot
        facts: dict[str, object] = {
            "exit": b.exit_note,
            "exited_cleanly": self.exited_cleanly,
            "leftover_processes": b.leftovers,
            "isolation": b.isolation.to_dict(),
            "stderr_tail": b.stderr_text(),
            "stderr_bytes": b.stderr_bytes,
            "stderr_turns": b.turn_log.record(),
            "stdout_head": b.stdout_head() if self.stdout_head_when_stopped is None else self.stdout_head_when_stopped,
            "infos": tuple(b.infos),
            "info_plies": tuple(b.info_plies),
            "info_count": b.info_count,
        }
        if self.transcript is not None:
            facts["transcript"] = tuple(self.transcript)
        return facts


class BotHost:
    """Every bot process of one worker, and which of them wait for another game.

    ``keep=False`` starts every bot afresh for each game (as ``arena play``
    does); ``restart_every`` > 0 starts a kept bot afresh after that many games.
    """

    def __init__(self, keep: bool = True, restart_every: int = 0, max_idle: int = MAX_IDLE) -> None:
        self.pool = BotPool()
        self.keep = keep
        self.restart_every = restart_every
        self.max_idle = max_idle
        self.idle: deque[tuple[BotSpec, BotProcess]] = deque()  # least recently used first
        self.seated: list[tuple[BotSpec, ProcessChannel]] = []
        self.started = 0  # processes started, for tests and benchmarks
        self.freezer = Freezer()

    def __enter__(self) -> BotHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def seat(
        self, specs: Sequence[BotSpec], keep_transcript: bool = False
    ) -> list[ProcessChannel | InProcessChannel | BotFault]:
        """A channel per seat: a kept process of the same bot if one is fit, else a new one
        (or the BotFault of a bot that cannot be started); a bot played in this process
        gets a channel of its own for the game."""
        channels: list[ProcessChannel | InProcessChannel | BotFault] = []
        for spec in specs:
            name = builtin_bots.name_of(spec.command) if spec.in_process else None
            if name is not None:
                channels.append(InProcessChannel(name, keep_transcript))
                continue
            bot = self._take_idle(spec)
            start = functools.partial(self._start, spec)
            if bot is None:
                try:
                    bot = start()
                except BotFault as f:
                    channels.append(f)
                    continue
            may_stay = (
                self.keep
                and spec.multigame
                and (self.restart_every <= 0 or bot.games + 1 < self.restart_every)
            )
            channel = ProcessChannel(self.pool, bot, keep_transcript, may_stay, start, self.freezer)
            self.seated.append((spec, channel))
            channels.append(channel)
        return channels

    def _start(self, spec: BotSpec) -> BotProcess:
        env = bot_environment(spec.cwd, spec.env)
        bot = self.pool.start(spec.name, spec.command, spec.cwd, env, spec.limits, spec.sandbox)
        bot.log_bounds = spec.logs  # (its game's log starts with begin_game, which reads them)
        self.started += 1
        return bot

    def _take_idle(self, spec: BotSpec) -> BotProcess | None:
        for i, (idle_spec, bot) in enumerate(self.idle):
            if idle_spec != spec:
                continue
            del self.idle[i]
            self.freezer.thaw(bot)
            self.pool.wait(time.monotonic())  # take in what it wrote since its last game
            cpu_cap = spec.limits.cpu_seconds
            if bot.reusable() and (cpu_cap is None or bot.cpu_seconds() < cpu_cap * CPU_RESTART_SHARE):
                return bot
            self.pool.stop(bot, None, 0.0)
            return None
        return None

    def release(self) -> None:
        """After a game: keep the processes the referee kept, stop the rest."""
        for spec, channel in self.seated:
            if channel.stayed:
                self.freezer.later(channel.bot)  # in no game, it gets no CPU until its next one
                self.idle.append((spec, channel.bot))
            else:
                channel.stop(None, 0.0)
        self.seated.clear()
        while len(self.idle) > self.max_idle:
            _spec, bot = self.idle.popleft()
            self.freezer.thaw(bot)
            self.pool.stop(bot, None, 0.0)

    def close(self) -> None:
        """Stop every process: kept ones get their input closed and a moment to exit."""
        self.release()
        kept = [bot for _spec, bot in self.idle]
        self.idle.clear()
        for bot in kept:
            self.freezer.thaw(bot)
            self.pool.say_goodbye(bot, None)
        deadline = time.monotonic() + QUIT_GRACE_S
        for bot in kept:
            self.pool.stop(bot, None, max(0.0, deadline - time.monotonic()))
        self.pool.close_all()


def _signal_bot(bot: BotProcess, sig: int) -> None:
    """Send ``sig`` to every process of a bot that has no cgroup: its sandbox's (or its own) tree.

    The sandbox's init through the pidfd held since its start; a bot without one by its
    pid, which no one else can be given: it is our child, unreaped until it is stopped
    (not ``Popen.send_signal``, whose look at the exit would reap it).  What is below,
    found in ``/proc``, each held and found again under its parent first.
    """
    if bot.init is not None:
        bot.init.signal(sig)
        root = bot.init.pid
    else:
        root = bot.proc.pid
        with contextlib.suppress(OSError):
            os.kill(root, sig)
    signal_descendants(root, sig)


class Freezer:
    """Stops bots that are not on move, and kept bots between games; wakes them.

    During a game every bot but the one on move is frozen at once (:meth:`now`), so that
    none takes CPU from the bot that thinks (a flood, a busy loop, thinking ahead).

    A bot is frozen :data:`FREEZE_AFTER_S` after its game ends (what it writes in answer to
    ``end`` still arrives, and is judged, before its next game), by its cgroup's freezer,
    or else by SIGSTOP to each of its processes (the bwrap init of a sandbox and everything
    under it).  A timer thread does the freezing, so it happens however long the worker
    waits for its next game; the lock keeps it from crossing a thaw.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.timers: dict[int, threading.Timer] = {}

    def later(self, bot: BotProcess) -> None:
        """Freeze ``bot`` soon, unless it is thawed first."""
        timer = threading.Timer(FREEZE_AFTER_S, self._freeze, (bot,))
        timer.daemon = True
        with self.lock:
            self.timers[id(bot)] = timer
        timer.start()

    def now(self, bot: BotProcess) -> None:
        """Freeze ``bot`` at once (another bot is on move), until :meth:`thaw`.  The cgroup's
        freeze is asked for, not waited for: the kernel stops each task on its own."""
        with self.lock:
            if bot.frozen is not None:
                return
            if bot.cgroup is not None and bot.cgroup.freeze(wait=False):
                bot.frozen = "cgroup"
                return
            _signal_bot(bot, signal.SIGSTOP)
            bot.frozen = "signal"

    def _freeze(self, bot: BotProcess) -> None:
        with self.lock:
            if self.timers.pop(id(bot), None) is None or bot.exited():
                return  # thawed (taken) meanwhile, or gone
            if bot.cgroup is not None and bot.cgroup.freeze():
                bot.frozen = "cgroup"
                return
            _signal_bot(bot, signal.SIGSTOP)
            bot.frozen = "signal"

    def thaw(self, bot: BotProcess) -> None:
        """Let ``bot`` run again (its next game starts, or it is to be stopped)."""
        with self.lock:
            timer = self.timers.pop(id(bot), None)
            if timer is not None:
                timer.cancel()
            if bot.frozen == "cgroup" and bot.cgroup is not None:
                bot.cgroup.thaw()
            elif bot.frozen == "signal":
                _signal_bot(bot, signal.SIGCONT)
            bot.frozen = None
