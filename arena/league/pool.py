"""The interface of a pool that plays a league's games, and what every pool shares.

:class:`Pool` is that interface: :class:`arena.league.executor.GamePool` (local worker
processes) and :class:`arena.cluster.pool.DaskGamePool` (a Dask cluster) both satisfy it,
and ``run_tournament`` uses either through it.  A pool implements :meth:`Pool.play`
alone; the one :meth:`Pool.run` makes the :class:`GameQueue` and the :class:`Retries`
both apply, so a game whose worker died, or that failed in the arena's own code, is
played again and given up on by the same rule whatever plays it.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.game.record import GameRecord
from arena.league.schedule import ScheduledGame

ResultHandler = Callable[[ScheduledGame, GameRecord], None]
FailureHandler = Callable[[ScheduledGame, str, bool], None]  # game, reason, will retry
Refill = Callable[[int], Sequence[ScheduledGame]]  # workers idle -> more games (none: no more)
GivenUp = list[tuple[ScheduledGame, str]]  # the games given up on, each with the reason of its last failure


class GameQueue:
    """The games a run hands out: a given sequence, read only as far as needed (a league's
    unfinished games come from the store a chunk at a time), the games to retry put in
    front, and those ``refill`` adds after the whole sequence."""

    def __init__(self, games: Iterable[ScheduledGame]) -> None:
        self.waiting: deque[ScheduledGame] = deque()  # read (or put back), in order
        self.rest: Iterator[ScheduledGame] | None = iter(games)
        self.after: deque[ScheduledGame] = deque()

    def ready(self, n: int = 1) -> int:
        """How many games wait now, having read up to ``n`` of them."""
        while len(self.waiting) < n:
            if self.rest is not None:
                game = next(self.rest, None)
                if game is not None:
                    self.waiting.append(game)
                    continue
                self.rest = None
            if not self.after:
                break
            self.waiting.append(self.after.popleft())
        return len(self.waiting)

    def __bool__(self) -> bool:
        return self.ready() > 0

    def popleft(self) -> ScheduledGame:
        """The next game to hand out (one must wait: see :meth:`ready`)."""
        self.ready()
        return self.waiting.popleft()

    def appendleft(self, game: ScheduledGame) -> None:
        """Put ``game`` in front: it is handed out next (a retry, or a game to submit again)."""
        self.waiting.appendleft(game)

    def extend(self, games: Iterable[ScheduledGame]) -> None:
        """Add ``games`` after every other (what ``refill`` planned)."""
        self.after.extend(games)


class Retries:
    """How many times each game of a run failed, and the games given up on.

    A game is played again after each of its first ``limit`` failures, and given up on
    at the next; ``on_failure`` is told of every failure, and whether it will be retried.
    """

    def __init__(self, limit: int, on_failure: FailureHandler) -> None:
        self.limit = limit
        self.on_failure = on_failure
        self.attempts: Counter[str] = Counter()  # game id -> failures so far
        self.given_up: GivenUp = []

    def failed(self, game: ScheduledGame, reason: str) -> bool:
        """Count a failure of ``game`` (``reason``: a first line naming it); whether to play it again."""
        self.attempts[game.game_id] += 1
        retry = self.attempts[game.game_id] <= self.limit
        self.on_failure(game, reason, retry)
        if not retry:
            self.given_up.append((game, reason))
        return retry


@dataclass
class PoolRun:
    """One call of :meth:`Pool.run`: the games to hand out, where records go, the failures so far."""

    queue: GameQueue
    on_result: ResultHandler
    retries: Retries
    refill: Refill | None = None

    def failed(self, game: ScheduledGame, reason: str) -> None:
        """``game`` failed (not by its bots' doing): put it in front of the queue, or give it up."""
        if self.retries.failed(game, reason):
            self.queue.appendleft(game)


class Pool(Protocol):
    """What plays a league's games and hands back their records: local workers or a cluster.

    Both pools subclass it to share :meth:`run` (a protocol's methods are inherited that
    way); each implements :meth:`play`.
    """

    def run(
        self,
        games: Iterable[ScheduledGame],
        on_result: ResultHandler,
        on_failure: FailureHandler,
        retries: int = 2,
        refill: Refill | None = None,
    ) -> GivenUp:
        """Play ``games``; return those that failed more than ``retries`` times (with why).

        A failure's reason starts with one line naming the game and its bots (an arena
        error's traceback follows it).  ``refill(n)``, when given, is asked for more games
        whenever ``n`` workers would be left idle (after the results before it were
        handled); the run ends when it has none and no game is in flight.
        """
        run = PoolRun(GameQueue(games), on_result, Retries(retries, on_failure), refill)
        self.play(run)
        return run.retries.given_up

    def play(self, run: PoolRun) -> None:
        """Play ``run``'s games, each record to ``run.on_result``, each failure to ``run.failed``."""
        ...


def bots_text(game: ScheduledGame) -> str:
    """The bots of ``game``, for a failure's first line."""
    return ", ".join(game.seats)


def arena_error(game: ScheduledGame, traceback: str, where: str = "") -> str:
    """The reason for a failure of the arena's own code in ``game`` (``where``: on which worker):
    a line naming the game, its bots and the error's last line, then ``traceback``."""
    text = traceback.strip()
    last = text.splitlines()[-1] if text else "?"
    return f"arena error in game {game.game_id} (bots: {bots_text(game)}){where}: {last}\n{traceback}"
