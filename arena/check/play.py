"""How a check's games are played: a few at a time in worker processes, stopping early if asked.

Also the guard every check needs before it reads a record: an opponent that could not
even start would forfeit every game, and make any bot look good.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any

from arena.check.plan import CheckOptions, PlannedGame
from arena.errors import ArenaError
from arena.game.proctree import adopt_orphans
from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, play_game

Progress = Callable[[int, int], None]  # (games done, games planned)


def _play(setup: GameSetup, specs: tuple[BotSpec, ...]) -> dict[str, Any]:
    # In a worker: a record crosses back to the parent as its dict.
    return play_game(setup, specs).to_dict()


def run_plan(
    plan: Sequence[PlannedGame],
    opts: CheckOptions,
    progress: Progress | None = None,
    stop_at_fault: bool = False,
) -> list[GameRecord | None]:
    """Play the planned games, ``concurrency`` at a time, in worker processes.

    With ``stop_at_fault``, games not yet started when the candidate commits
    its first fault are not played (their record is None).
    """
    if not plan:
        return []
    setups = [g.setup(opts.time_control, opts.end_grace_s) for g in plan]
    out: list[GameRecord | None] = [None] * len(plan)

    def faulted(i: int) -> bool:
        rec = out[i]
        return stop_at_fault and rec is not None and rec.seats[plan[i].seat].fault is not None

    if opts.concurrency <= 1:
        for i, (s, g) in enumerate(zip(setups, plan, strict=True)):
            out[i] = play_game(s, g.specs)
            if progress:
                progress(i + 1, len(plan))
            if faulted(i):
                break
        return out
    # Workers whose only children are bots: subreapers, so a bot's leftovers are found in
    # the worker's own process tree rather than by scanning all of /proc after each game.
    with ProcessPoolExecutor(
        max_workers=opts.concurrency, mp_context=get_context("spawn"), initializer=adopt_orphans
    ) as pool:
        futures = {
            pool.submit(_play, s, g.specs): i for i, (s, g) in enumerate(zip(setups, plan, strict=True))
        }
        for done, future in enumerate(as_completed(futures), start=1):
            i = futures[future]
            out[i] = GameRecord.from_dict(future.result())
            if progress:
                progress(done, len(plan))
            if faulted(i):
                for f in futures:
                    f.cancel()
                break
    return out


def opponents_started(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> None:
    """Raise if an opponent could not even start: its forfeits would make any bot look good."""
    for g, r in zip(plan, records, strict=True):
        if r is None:
            continue
        for seat, s in enumerate(r.seats):
            if seat != g.seat and not s.ready:
                why = f"{s.fault.kind.value}: {s.fault.detail}" if s.fault else "no handshake"
                raise ArenaError(f"opponent {shlex.join(s.command)!r} could not be started ({why})")
