"""Runs a tournament's games in parallel worker processes.

Each worker plays one game at a time through :func:`arena.game.referee.play_game`
and sends the record back over its own pipe.  The parent waits on every
pipe and every worker's death at once, so a worker that dies (a failure of
the arena, never charged to a bot) is noticed, replaced, and its game run
again.  Workers ignore Ctrl-C; the parent stops them with SIGTERM, which
unwinds ``play_game`` so it kills its bots; a worker whose parent dies gets
SIGTERM from the kernel (Linux), so even a SIGKILLed arena leaves no bots.

A watchdog bounds every game: one that runs past the longest its time control
allows (:meth:`GameSettings.max_game_seconds`, with slack) has a stuck or
stopped worker, which is stopped, replaced, and its game counted as a failure
of the arena like any other.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import multiprocessing as mp
import os
import signal
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from arena.game import seeds
from arena.game.clock import TimeControl
from arena.game.proctree import Held, adopt_orphans, child_group_leaders
from arena.game.record import GameRecord
from arena.game.referee import BotHost, BotSpec, GameSetup, play_game
from arena.game.sandbox import cgroups
from arena.league.pool import Pool, PoolRun, arena_error, bots_text
from arena.league.schedule import ScheduledGame
from arena.rules import Board, Params, random_board

# The watchdog's limit is the longest a game can legitimately take, times this, plus that:
# on a loaded machine (more games than cores, a busy disk, swapping) the referee's own work
# and process start-up stretch well past what the time control charges to the bots, and a
# game stopped by mistake costs a rerun, so the watchdog only catches what is surely stuck.
WATCHDOG_FACTOR = 1.5
WATCHDOG_EXTRA_S = 30.0
WORKER_STOP_GRACE_S = 5.0  # after SIGTERM, time a worker gets to kill its bots and exit


@dataclass(frozen=True)
class GameSettings:
    """Everything a worker needs to play any game of the schedule (picklable)."""

    bots: dict[str, BotSpec]
    params: Params
    time_control: TimeControl
    board: str  # "random", "build", or "file" (then board_value)
    board_value: Board | None = None
    end_grace_s: float = 1.0
    # Kept bot processes (``multigame``) are started afresh after this many games (0: never).
    restart_every: int = 0
    multigame: bool = True  # False: every bot starts afresh for every game
    # The run's secret, from which each game's seat seeds are derived (drawn per run).
    seed_secret: str = field(default_factory=seeds.new_secret)

    def host(self) -> BotHost:
        """The keeper of a worker's bot processes for all the games it plays."""
        return BotHost(keep=self.multigame, restart_every=self.restart_every)

    def setup(self, game: ScheduledGame) -> GameSetup:
        """The setup of one scheduled game: its board (random, the bots', or the file's), seed and clock."""
        if self.board == "random":
            board: Board | None = _meeting_board(
                game.seed, self.params.tiles * self.params.players, self.params.contact
            )
        elif self.board == "build":
            board = None
        else:
            board = self.board_value
        return GameSetup(
            game_id=game.game_id,
            seed=game.seed,
            params=self.params,
            time_control=self.time_control,
            board=board,
            end_grace_s=self.end_grace_s,
            seed_secret=seeds.game_secret(self.seed_secret, game.game_id),
        )

    def max_game_seconds(self) -> float:
        """The longest a game can legitimately take under the time control, in seconds.

        Every player gets at most ``tiles`` tile plies (when the bots build the
        pasture), one herd ply and ``sheep - 1`` moves (each move makes one more
        stack).  A per-move limit allows ``move + margin`` a ply; a clock allows a
        player ``base + (increment + margin)`` per ply of its own in all; with
        both, the smaller.  Add the start-up allowance (and its margin) and the
        grace the bots get to exit after the end.
        """
        p, tc = self.params, self.time_control
        plies = (p.tiles if self.board == "build" else 0) + 1 + (p.sheep - 1)  # each player's
        bounds = []
        if tc.move_ms is not None:
            bounds.append(plies * (tc.move_ms + tc.margin_ms))
        if tc.base_ms is not None:
            bounds.append(tc.base_ms + plies * (tc.increment_ms + tc.margin_ms))
        play_ms = p.players * min(bounds)
        return (tc.startup_ms + tc.margin_ms + play_ms) / 1000 + self.end_grace_s

    def watchdog_seconds(self) -> float:
        """How long a game may run before the watchdog stops its worker."""
        return self.max_game_seconds() * WATCHDOG_FACTOR + WATCHDOG_EXTRA_S


@functools.lru_cache(maxsize=64)
def _meeting_board(seed: int, tiles: int, contact: int) -> Board:
    """A random board, made once for all the seat orders of a meeting (they share its seed).

    Boards are immutable values, so sharing one between games is safe; a worker plays
    the seat orders of a meeting close together, so a small cache holds them.
    """
    return random_board(seed, tiles, contact)


def play_scheduled(settings: GameSettings, game: ScheduledGame, host: BotHost | None = None) -> GameRecord:
    """Play one scheduled game (in this process), with ``host``'s kept bots if given."""
    return play_game(settings.setup(game), [settings.bots[name] for name in game.seats], host=host)


def _die_with_parent() -> None:
    """Ask Linux to send SIGTERM to this process when its parent dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: Ctrl-C and SIGTERM still work
        pass


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds play_game, whose cleanup kills the bots


def _worker(conn: Connection, settings: GameSettings, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    _die_with_parent()
    if os.getppid() != parent:
        return
    adopt_orphans()  # a bot's orphans stay below us: no scan of /proc to find them
    with settings.host() as host:  # SIGTERM unwinds through here too: no bot outlives us
        while True:
            try:
                game = conn.recv()
            except (EOFError, OSError):
                return
            if game is None:
                return
            try:
                record = play_scheduled(settings, game, host)
                conn.send(("done", record.to_dict()))
            except Exception:  # an arena failure: report it, the parent decides
                conn.send(("error", traceback.format_exc(limit=8)))


def _terminate(slot: _Slot) -> None:
    """SIGCONT (a stopped worker could not act on SIGTERM), then SIGTERM, whose handler
    unwinds ``play_game``, which kills the bots.

    Through the pidfd held since its start: a worker that has ended may be reaped already
    (``is_alive`` reaps), and its pid given to a stranger.
    """
    slot.held.signal(signal.SIGCONT)
    slot.held.signal(signal.SIGTERM)


def _reap(slots: Sequence[_Slot], grace_s: float) -> None:
    """Wait up to ``grace_s`` for the workers to exit; SIGKILL the rest, and their bots."""
    deadline = time.monotonic() + grace_s
    killed = False
    for slot in slots:
        proc = slot.proc
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive() and proc.pid is not None:
            killed = True
            # Its bots each lead a group of their own, killed by the group's id, which is safe
            # only while the leader is unreaped: so the worker, which would reap them, is
            # stopped first, and its bots found and killed before it is (after, they are init's).
            slot.held.signal(signal.SIGSTOP)
            for group in child_group_leaders(proc.pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
            slot.held.signal(signal.SIGKILL)
            proc.join()
        slot.held.close()
    found = cgroups.support() if killed else None
    if found is not None:
        # A bot frozen between its turns takes no SIGKILL until thawed: the killed worker's
        # cgroups are orphans now, thawed and emptied here.
        cgroups.sweep_orphans(found)


def _seconds(s: float) -> str:
    return f"{s:.0f}" if s >= 10 else f"{s:.1f}"


@dataclass
class _Slot:
    proc: BaseProcess
    conn: Connection
    held: Held  # the worker, held since its start (signalled through its pidfd)
    game: ScheduledGame | None = None
    sent_at: float = 0.0  # when the game was sent (monotonic), for the watchdog


class GamePool(Pool):
    """``concurrency`` worker processes playing games from a queue.

    ``watchdog_s`` bounds each game (default: :meth:`GameSettings.watchdog_seconds`).
    """

    def __init__(self, settings: GameSettings, concurrency: int, watchdog_s: float | None = None) -> None:
        self.settings = settings
        self.concurrency = max(1, concurrency)
        self.watchdog_s = settings.watchdog_seconds() if watchdog_s is None else watchdog_s
        self.stop_grace_s = WORKER_STOP_GRACE_S
        self.ctx = mp.get_context("spawn")  # no inherited state, parent is us
        self.slots: list[_Slot] = []

    def _spawn(self) -> _Slot:
        parent_conn, child_conn = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child_conn, self.settings, os.getpid()), daemon=True)
        proc.start()
        child_conn.close()
        assert proc.pid is not None
        return _Slot(proc, parent_conn, Held(proc.pid))  # held at once: our child, not yet reaped

    def play(self, run: PoolRun) -> None:
        """Play ``run``'s games on the workers (see :meth:`Pool.run`); stop every worker at the end."""
        try:
            self._start(run)
            while True:
                self._feed(run)
                busy = [s for s in self.slots if s.game is not None]
                if not busy:
                    break  # _feed() leaves no worker idle while a game waits
                ready = self._wait(busy)
                now = time.monotonic()
                for i, slot in enumerate(self.slots):
                    self._tend(i, slot, ready, now, run)
        finally:
            self.shutdown()

    def _start(self, run: PoolRun) -> None:
        """Start the workers: as many as games wait, up to ``concurrency`` (all of them when
        ``refill`` may add more)."""
        queue = run.queue
        workers = self.concurrency if run.refill is not None else min(self.concurrency, queue.ready(self.concurrency))
        self.slots = [self._spawn() for _ in range(workers)]

    def _feed(self, run: PoolRun, more: bool = True) -> None:
        """Hand a game to every idle worker while games wait; ``more``: first ask ``refill``
        for the games they would lack."""
        queue = run.queue
        idle = sum(slot.game is None for slot in self.slots)
        if more and run.refill is not None and queue.ready(idle) < idle:
            queue.extend(run.refill(idle - queue.ready(idle)))
        for slot in self.slots:
            if slot.game is None and queue:
                slot.game = queue.popleft()
                slot.sent_at = time.monotonic()
                slot.conn.send(slot.game)

    def _wait(self, busy: Sequence[_Slot]) -> Sequence[object]:
        """Wait for a busy worker's message or death, at most until the first watchdog limit
        (and a second)."""
        first_limit = min(s.sent_at for s in busy) + self.watchdog_s
        return wait(
            [s.conn for s in busy] + [s.proc.sentinel for s in busy],
            timeout=min(1.0, max(0.0, first_limit - time.monotonic())),
        )

    def _tend(self, i: int, slot: _Slot, ready: Sequence[object], now: float, run: PoolRun) -> None:
        """Act on worker ``i``: its record or failure if it sent one or died, its watchdog if
        its game ran too long; a failed game goes to ``run.failed``, a dead worker is replaced."""
        game = slot.game
        if game is None:
            return
        if slot.conn in ready or slot.proc.sentinel in ready:
            reason = self._receive(slot, game, run)
            if reason is None:
                return
        elif now - slot.sent_at > self.watchdog_s:
            reason = self._stop_stuck(slot, game)
        else:
            return
        slot.game = None
        run.failed(game, reason)
        if not slot.proc.is_alive():
            slot.conn.close()
            slot.held.close()
            self.slots[i] = self._spawn()

    def _receive(self, slot: _Slot, game: ScheduledGame, run: PoolRun) -> str | None:
        """Take the worker's message about ``game``: a record (handled; None), else the
        reason it failed (an arena error, or the worker's death)."""
        try:
            kind, payload = slot.conn.recv()
            if kind == "done":
                slot.game = None
                # The worker's next game first (storing this one can wait), but new games are
                # chosen knowing its result.
                self._feed(run, more=False)
                run.on_result(game, GameRecord.from_dict(payload))
                self._feed(run)
                return None
            return arena_error(game, payload)
        except (EOFError, OSError):
            slot.proc.join(1)
            return (
                f"worker died during game {game.game_id} "
                f"(bots: {bots_text(game)}; exit code {slot.proc.exitcode})"
            )

    def _stop_stuck(self, slot: _Slot, game: ScheduledGame) -> str:
        """Stop the worker whose ``game`` ran past the watchdog; the reason."""
        _terminate(slot)
        _reap([slot], self.stop_grace_s)
        return (
            f"game {game.game_id} ran past its watchdog limit of {_seconds(self.watchdog_s)} s "
            f"(bots: {bots_text(game)}); worker stopped"
        )

    def shutdown(self) -> None:
        """Stop every worker: politely when idle, with SIGTERM (bots killed) when busy."""
        for slot in self.slots:
            if slot.game is None:
                with contextlib.suppress(OSError, ValueError):
                    slot.conn.send(None)
            else:
                _terminate(slot)
        _reap(self.slots, self.stop_grace_s)
        for slot in self.slots:
            slot.conn.close()
        self.slots = []
