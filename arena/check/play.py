"""How a check's games are played: on the league's pool of worker processes, stopping early if asked.

The pool (:class:`arena.league.executor.GamePool`) is the one that plays a league: a
watchdog per game, a game whose worker died played again, workers that die with the
arena.  The check hands it its planned games as scheduled games, with
:class:`CheckSettings` giving each its own setup (a check mixes 2, 3 and 4 players,
given and built boards, short games for passing).

Two rules end the games early (:class:`EarlyStop`): with fail-fast, the candidate's
first fault; and always, a candidate whose handshake failed in
:data:`HANDSHAKE_FAILURES` games without ever succeeding (a bot that never flushes its
``hello`` would fail every game the same way, each after the whole startup allowance).

Also the guard every check needs before it reads a record: an opponent that could not
even start would forfeit every game, and make any bot look good.
"""

from __future__ import annotations

import contextlib
import enum
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from arena.check.plan import CheckOptions, PlannedGame
from arena.errors import ArenaError
from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup
from arena.league.executor import GamePool, GameSettings
from arena.league.schedule import ScheduledGame

Progress = Callable[[int, int], None]  # (games done, games planned)

# Games whose handshake failed, none having succeeded, after which a check plays no more.
HANDSHAKE_FAILURES = 3


@dataclass(frozen=True)
class CheckSettings(GameSettings):
    """A league pool's settings for a check's games: each planned game by its index.

    ``params`` and ``board`` describe the longest game of the plan, which bounds the
    watchdog of every game.  The planned games travel to the workers without their bots
    (the settings' ``bots``, by name) or boards (each made from its seed by the worker
    that plays it): an SPRT's plan may hold a thousand games.
    """

    planned: tuple[PlannedGame, ...] = ()  # by the scheduled game's index

    def setup(self, game: ScheduledGame) -> GameSetup:
        """The planned setup of ``game``: its board, rules, clock and seed secret."""
        return self.planned[game.index].setup(self.time_control, self.end_grace_s)


class StopReason(enum.StrEnum):
    """Why a check played no more of its games."""

    FAULT = "fault"  # the candidate's first fault, with fail-fast
    HANDSHAKE = "handshake"  # its handshake failed in the first games and never succeeded


@dataclass
class EarlyStop:
    """What the games have shown so far, to stop early."""

    stop_at_fault: bool
    handshakes_failed: int = 0
    handshake_seen: bool = False
    reason: StopReason | None = None  # set: the check plays no more

    def note(self, game: PlannedGame, record: GameRecord) -> None:
        """Take ``record``'s news; ``reason`` says why no game should follow it."""
        seat = record.seats[game.seat]
        if seat.ready:
            self.handshake_seen = True
        else:
            self.handshakes_failed += 1
        if self.stop_at_fault and seat.fault is not None:
            self.reason = StopReason.FAULT
        elif not self.handshake_seen and self.handshakes_failed >= HANDSHAKE_FAILURES:
            self.reason = StopReason.HANDSHAKE


class _Stop(Exception):
    """Raised from the pool's result handler: no more games (those under way are stopped)."""


def _give_up(game: ScheduledGame, reason: str, retry: bool) -> None:
    """A failure of the arena's own (never the bot's): played again, or the check cannot go on."""
    if not retry:
        raise ArenaError(f"the check could not play a game: {reason.splitlines()[0]}")


def run_plan(
    plan: Sequence[PlannedGame],
    opts: CheckOptions,
    progress: Progress | None = None,
    early: EarlyStop | None = None,
) -> list[GameRecord | None]:
    """Play the planned games, ``concurrency`` at a time, on the league's worker pool.

    A game not played has no record (None): the games after the candidate's first fault
    when ``early.stop_at_fault``, or after its handshake failed :data:`HANDSHAKE_FAILURES`
    times and never succeeded (``early.reason`` then says which); the games under way
    then are stopped with their workers.
    """
    if not plan:
        return []
    early = early or EarlyStop(stop_at_fault=False)
    out: list[GameRecord | None] = [None] * len(plan)
    settings, games = pool_games(plan, opts)
    done = 0

    def on_result(game: ScheduledGame, record: GameRecord) -> None:
        nonlocal done
        out[game.index] = record
        done += 1
        if progress:
            progress(done, len(plan))
        early.note(plan[game.index], record)
        if early.reason is not None:
            raise _Stop

    with contextlib.suppress(_Stop):
        GamePool(settings, opts.concurrency).run(games, on_result, _give_up)
    return out


AfterBatch = Callable[[Sequence[PlannedGame], Sequence[GameRecord | None]], bool]


def run_batches(plan: Sequence[PlannedGame], opts: CheckOptions, batch: int, after_batch: AfterBatch) -> None:
    """Play ``plan`` ``batch`` games at a time on one pool, until ``after_batch(games,
    records)``, told of each batch once all of it is played, says to stop (False).

    The workers, and the candidate's kept processes, last from the first batch to the last.
    """
    if not plan:
        return
    settings, games = pool_games(plan, opts)
    out: list[GameRecord | None] = [None] * len(plan)
    start = end = waiting = 0  # the batch under way: plan[start:end], ``waiting`` games not back

    def on_result(game: ScheduledGame, record: GameRecord) -> None:
        nonlocal waiting
        out[game.index] = record
        waiting -= 1

    more = True  # what after_batch said of the last batch

    def refill(_idle: int) -> Sequence[ScheduledGame]:
        # Asked whenever a worker would be idle (again after the end: then it says nothing).
        nonlocal start, end, waiting, more
        if waiting or not more:
            return []
        if end > start:
            more = after_batch(plan[start:end], out[start:end])
            if not more:
                return []
        start, end = end, min(end + batch, len(plan))
        waiting = end - start
        return games[start:end]

    GamePool(settings, opts.concurrency).run([], on_result, _give_up, refill=refill)


def pool_games(plan: Sequence[PlannedGame], opts: CheckOptions) -> tuple[CheckSettings, list[ScheduledGame]]:
    """The plan as the pool's settings and scheduled games.

    A scheduled game's index is its place in the plan, its id that place and the game's
    own id (a strength gate's two seat orders of a board share theirs), its seats the
    names of its bots in the settings."""
    bots: dict[str, BotSpec] = {}
    games = []
    for i, g in enumerate(plan):
        seats = tuple(_key(bots, spec) for spec in g.specs)
        games.append(ScheduledGame(i, f"{i + 1}:{g.game_id}", 0, seats, g.seed))
    longest = max(plan, key=lambda g: (g.params.players, g.params.tiles, g.params.sheep, g.build))
    settings = CheckSettings(
        bots=bots,
        params=longest.params,
        time_control=opts.time_control,
        board="build" if any(g.build for g in plan) else "random",
        end_grace_s=opts.end_grace_s,
        planned=tuple(replace(g, specs=()) for g in plan),
    )
    return settings, games


def _key(bots: dict[str, BotSpec], spec: BotSpec) -> str:
    """The name ``spec`` goes by in ``bots`` (added if new): its own, numbered if taken by another."""
    key, n = spec.name, 1
    while key in bots and bots[key] != spec:
        n += 1
        key = f"{spec.name}-{n}"
    bots[key] = spec
    return key


def opponents_started(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> None:
    """Raise if an opponent could not even start: its forfeits would make any bot look good."""
    for g, r in zip(plan, records, strict=True):
        if r is None:
            continue
        for seat, s in enumerate(r.seats):
            if seat != g.seat and not s.ready:
                why = f"{s.fault.kind.value}: {s.fault.detail}" if s.fault else "no handshake"
                raise ArenaError(f"opponent {shlex.join(s.command)!r} could not be started ({why})")
