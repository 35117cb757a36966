"""A league's format as a scheduler: what a run plays after the stored games, and what it says.

A run plays the stored schedule's unfinished games first, then asks its scheduler for
``next_games(n)`` as workers come free, and tells it each result (fastchess's model: a
tournament format is a scheduler with ``next()``).  A round robin (or a gauntlet) is planned
whole when its folder is opened, so it has nothing more to give; a continuous league plans
as it goes, until its pairs are settled or its budget is spent.  Either way the driver
(``arena run``) has one path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.league.config import Format, TournamentConfig
from arena.league.continuous import ContinuousLeague, playing_rows, standings_pairs
from arena.league.neighbours import PairTests
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore
from arena.league.tally import Row
from arena.stats.game_table import Seats


class LeagueScheduler(Protocol):
    """The games of one run of a league beyond those it found stored, and its progress."""

    @property
    def open_ended(self) -> bool:
        """Whether :meth:`next_games` may plan games beyond the stored schedule."""
        ...

    def total(self, stored: int) -> int:
        """The games the run counts toward, with ``stored`` games in the store's schedule."""
        ...

    def describe(self, total: int, todo: int) -> str:
        """What the run will play, for its first line (``todo`` of the stored games unplayed)."""
        ...

    def next_games(self, wanted: int) -> list[ScheduledGame]:
        """About ``wanted`` more games to play (fewer, or none, once there are no more)."""
        ...

    def add(self, index: int, seats: Seats) -> None:
        """The game of schedule index ``index`` finished with ``seats`` (names with ranks)."""
        ...

    def note(self) -> str:
        """What progress lines add after each game ("" for nothing)."""
        ...

    def stopped(self) -> str | None:
        """Why it stopped planning games (None: it did not)."""
        ...

    def pair_tests(self, rows: Sequence[Row]) -> PairTests | None:
        """How the standings' neighbours stand by their pair tests (None: the format has none)."""
        ...


class RoundRobin:
    """A round robin or a gauntlet: every game is in the stored schedule from the start."""

    open_ended = False

    def total(self, stored: int) -> int:
        return stored

    def describe(self, total: int, todo: int) -> str:
        return f"{total} games, {todo} to play"

    def next_games(self, wanted: int) -> list[ScheduledGame]:
        return []

    def add(self, index: int, seats: Seats) -> None:
        pass

    def note(self) -> str:
        return ""

    def stopped(self) -> str | None:
        return None

    def pair_tests(self, rows: Sequence[Row]) -> PairTests | None:
        return None


class ContinuousScheduler:
    """A continuous league (:class:`~arena.league.continuous.ContinuousLeague`): it chooses
    its next games from the results so far, until its pairs are settled or ``max_games``."""

    open_ended = True

    def __init__(self, league: ContinuousLeague) -> None:
        self.league = league

    def total(self, stored: int) -> int:
        # A lowered budget still plays the games already planned.
        return max(self.league.settings.max_games, stored)

    def describe(self, total: int, todo: int) -> str:
        settings = self.league.settings
        return (
            f"continuous league: until every adjacent pair is settled at "
            f"{settings.confidence:.0%} (ordered, or tied within "
            f"{settings.indifference:g} Elo), at most {total:,} games"
        )

    def next_games(self, wanted: int) -> list[ScheduledGame]:
        return self.league.next_games(wanted)

    def add(self, index: int, seats: Seats) -> None:
        self.league.add(index, seats)

    def note(self) -> str:
        return self.league.note()

    def stopped(self) -> str | None:
        return self.league.stop.describe() if self.league.stop else None

    def pair_tests(self, rows: Sequence[Row]) -> PairTests | None:
        return standings_pairs(self.league, playing_rows(rows))


def league_scheduler(config: TournamentConfig, store: ResultStore) -> LeagueScheduler:
    """The scheduler of ``config``'s format over ``store``'s schedule and finished games."""
    if config.format != Format.CONTINUOUS:
        return RoundRobin()
    return ContinuousScheduler(
        ContinuousLeague(
            [b.name for b in config.bots if not b.retired],
            config.players,
            config.seed,
            config.seat_orders,
            config.continuous,
            config.rating,
            store.schedule(),
            ((index, seats) for index, _board, seats in store.fit_games()),
        )
    )
