"""A league's standings kept current game by game, and read back from the store.

A run adds each finished game to a :class:`LeagueTable` (sums in a
:class:`~arena.tally.Tally`, ratings in a :class:`~arena.rating.RatingLedger`),
so that the standings cost the same at the 100,000th game as at the first.
Opening one on a store adds up the stored summaries in SQLite and takes the
ratings from the last run's checkpoint, re-rating only the games after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .config import RatingConfig
from .rating import RatingLedger
from .store import ResultStore
from .summary import GameSummary
from .tally import Standings, Tally


class LeagueTable:
    """Standings that grow one game at a time; ``expected`` are the games still to come."""

    def __init__(
        self,
        bots: Sequence[str],
        rating: RatingConfig | None = None,
        expected: Iterable[int] = (),
        tally: Tally | None = None,
        ledger: RatingLedger | None = None,
    ) -> None:
        self.bots = list(bots)
        self.tally = tally or Tally()
        self.ledger = ledger or RatingLedger(bots, rating, expected)

    @classmethod
    def load(
        cls,
        store: ResultStore,
        bots: Sequence[str],
        rating: RatingConfig | None = None,
        expected: Iterable[int] = (),
    ) -> LeagueTable:
        """The table of every game in ``store``, ready for the ``expected`` ones to be added."""
        rating = rating or RatingConfig()
        expected = sorted(expected)
        start = store.rating_checkpoint()
        # The checkpoint holds if it was taken with this rating, no game before it is still
        # to come, and the games before it are still the ones it rated (a game given up on
        # then, and played since, lands before it: everything is then rated again).
        if start is not None and not (
            start.config == rating
            and (not expected or expected[0] >= start.through)
            and store.games_before(start.through) == start.games
        ):
            start = None
        ledger = RatingLedger(bots, rating, expected, start)
        for index, seats in store.rating_games(start.through if start else 0):
            ledger.add(index, seats)
        return cls(bots, tally=store.tally(), ledger=ledger)

    def add(self, game: GameSummary) -> None:
        self.tally.add(game)
        self.ledger.add(game.index, [(s.name, s.rank) for s in game.seats])

    def drop(self, index: int) -> None:
        """An expected game will not come in this run."""
        self.ledger.drop(index)

    def standings(self) -> Standings:
        return self.tally.standings(self.bots, self.ledger.ratings())


def stored_standings(
    store: ResultStore, bots: Sequence[str], rating: RatingConfig | None = None
) -> Standings:
    """The standings of every game in ``store`` (no record is read)."""
    return LeagueTable.load(store, bots, rating).standings()
