"""Runs a tournament's games in parallel worker processes.

Each worker plays one game at a time through :func:`arena.referee.play_game`
and sends the record back over its own pipe.  The parent waits on every
pipe and every worker's death at once, so a worker that dies (a failure of
the arena, never charged to a bot) is noticed, replaced, and its game run
again.  Workers ignore Ctrl-C; the parent stops them with SIGTERM, which
unwinds ``play_game`` so it kills its bots; a worker whose parent dies gets
SIGTERM from the kernel (Linux), so even a SIGKILLed arena leaves no bots.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from .clock import TimeControl
from .record import GameRecord
from .referee import BotSpec, GameSetup, play_game
from .rules import Board, Params, random_board
from .schedule import ScheduledGame


@dataclass(frozen=True)
class GameSettings:
    """Everything a worker needs to play any game of the schedule (picklable)."""

    bots: dict[str, BotSpec]
    params: Params
    time_control: TimeControl
    board: str  # "random", "build", or "file" (then board_value)
    board_value: Board | None = None
    end_grace_s: float = 1.0

    def setup(self, game: ScheduledGame) -> GameSetup:
        if self.board == "random":
            board: Board | None = random_board(
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
        )


def play_scheduled(settings: GameSettings, game: ScheduledGame) -> GameRecord:
    return play_game(settings.setup(game), [settings.bots[name] for name in game.seats])


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
    while True:
        try:
            game = conn.recv()
        except (EOFError, OSError):
            return
        if game is None:
            return
        try:
            record = play_scheduled(settings, game)
            conn.send(("done", record.to_dict()))
        except Exception:  # an arena failure: report it, the parent decides
            conn.send(("error", traceback.format_exc(limit=8)))


@dataclass
class _Slot:
    proc: BaseProcess
    conn: Connection
    game: ScheduledGame | None = None


ResultHandler = Callable[[ScheduledGame, GameRecord], None]
FailureHandler = Callable[[ScheduledGame, str, bool], None]  # game, reason, will retry


class GamePool:
    """``concurrency`` worker processes playing games from a queue."""

    def __init__(self, settings: GameSettings, concurrency: int) -> None:
        self.settings = settings
        self.concurrency = max(1, concurrency)
        self.ctx = mp.get_context("spawn")  # no inherited state, parent is us
        self.slots: list[_Slot] = []

    def _spawn(self) -> _Slot:
        parent_conn, child_conn = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child_conn, self.settings, os.getpid()), daemon=True)
        proc.start()
        child_conn.close()
        return _Slot(proc, parent_conn)

    def run(
        self,
        games: Sequence[ScheduledGame],
        on_result: ResultHandler,
        on_failure: FailureHandler,
        retries: int = 2,
    ) -> list[tuple[ScheduledGame, str]]:
        """Play ``games``; return those that failed more than ``retries`` times."""
        queue = deque(games)
        attempts: Counter[str] = Counter()
        failed: list[tuple[ScheduledGame, str]] = []
        try:
            self.slots = [self._spawn() for _ in range(min(self.concurrency, len(queue)))]
            while queue or any(s.game for s in self.slots):
                for slot in self.slots:
                    if slot.game is None and queue:
                        slot.game = queue.popleft()
                        slot.conn.send(slot.game)
                busy = [s for s in self.slots if s.game is not None]
                ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=1.0)
                for i, slot in enumerate(self.slots):
                    game = slot.game
                    if game is None or (slot.conn not in ready and slot.proc.sentinel not in ready):
                        continue
                    reason = None
                    try:
                        kind, payload = slot.conn.recv()
                        if kind == "done":
                            slot.game = None
                            on_result(game, GameRecord.from_dict(payload))
                            continue
                        reason = f"arena error in game {game.game_id}:\n{payload}"
                    except (EOFError, OSError):
                        slot.proc.join(1)
                        reason = f"worker died during game {game.game_id} (exit code {slot.proc.exitcode})"
                    slot.game = None
                    attempts[game.game_id] += 1
                    retry = attempts[game.game_id] <= retries
                    on_failure(game, reason, retry)
                    if retry:
                        queue.appendleft(game)
                    else:
                        failed.append((game, reason))
                    if not slot.proc.is_alive():
                        self.slots[i] = self._spawn()
        finally:
            self.shutdown()
        return failed

    def shutdown(self) -> None:
        """Stop every worker: politely when idle, with SIGTERM (bots killed) when busy."""
        for slot in self.slots:
            with contextlib.suppress(OSError, ValueError):
                if slot.game is None:
                    slot.conn.send(None)
                else:
                    slot.proc.terminate()
        deadline = time.monotonic() + 5
        for slot in self.slots:
            slot.proc.join(max(0.0, deadline - time.monotonic()))
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join()
            slot.conn.close()
        self.slots = []
