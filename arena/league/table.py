"""A league's standings kept current game by game, and read back from the store.

A run adds each finished game to a :class:`LeagueTable` (sums in a
:class:`~arena.league.tally.Tally`, ratings in a ledger of :mod:`arena.league.rating`), so
that the standings cost about the same per game at the 100,000th game as at the
first: the batch fit is redone only when the games have grown by a share (or
when exact standings are asked for, as at the end of a run).  Opening one on a
store starts from the last run's checkpoint (its sums, and its ratings: a fit of
exactly the stored games, or sequential ratings to which only the games after it
are added); without one, SQLite adds up the stored summaries and every game is
rated again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.league.game_summary import GameSummary
from arena.league.rating import BatchLedger, Ledger, make_ledger
from arena.league.store import ResultStore
from arena.league.tally import Standings, Tally
from arena.stats.settings import RatingConfig


class LeagueTable:
    """Standings that grow one game at a time; ``expected`` are the games still to come."""

    def __init__(
        self,
        bots: Sequence[str],
        rating: RatingConfig | None = None,
        expected: Iterable[int] = (),
        tally: Tally | None = None,
        ledger: Ledger | None = None,
        retired: Sequence[str] = (),
    ) -> None:
        self.bots = list(bots)
        self.retired = list(retired)  # bots marked retired in the standings
        self.tally = tally or Tally()
        self.ledger = ledger or make_ledger(bots, rating, expected)

    @classmethod
    def load(
        cls,
        store: ResultStore,
        bots: Sequence[str],
        rating: RatingConfig | None = None,
        expected: Iterable[int] = (),
        retired: Sequence[str] = (),
    ) -> LeagueTable:
        """The table of every game in ``store``, ready for the ``expected`` ones to be added."""
        rating = rating or RatingConfig()
        expected = sorted(expected)
        tally, start = None, None
        saved = store.standings_checkpoint()
        if saved is not None:
            tally = saved.tally
            for game in saved.since:
                tally.add(game)
            ratings = saved.ratings
            if ratings is not None and ratings.config == rating:
                if rating.model == "batch":
                    # A fit holds for exactly the games it was fitted to.
                    if not saved.since and ratings.games == tally.count:
                        start = ratings
                else:
                    # Sequential ratings hold if no game before their end came since or is
                    # still to come (else every game is rated again).
                    first = min([*(g.index for g in saved.since), *expected[:1]], default=None)
                    if first is None or first >= ratings.through:
                        start = ratings
        if rating.model == "batch":
            batch = BatchLedger(bots, rating, store.fit_games, start)
            if start is None or expected:
                # Read now: a run stores each game before adding it, and must not count it twice.
                batch.load_games()
            ledger: Ledger = batch
        else:
            ledger = make_ledger(bots, rating, expected, start)
            for index, seats in store.rating_games(start.through if start else 0):
                ledger.add(index, seats)
        return cls(bots, tally=tally or store.tally(), ledger=ledger, retired=retired)

    def save(self, store: ResultStore) -> None:
        """Keep where the standings got to in ``store`` (which holds every game added)."""
        store.set_standings_checkpoint(self.tally, self.ledger.checkpoint())

    def add(self, game: GameSummary) -> None:
        """A finished game, stored already."""
        self.tally.add(game)
        self.ledger.add(game.index, [(s.name, s.rank) for s in game.seats], game.seed)

    def drop(self, index: int) -> None:
        """An expected game will not come in this run."""
        self.ledger.drop(index)

    def standings(self, exact: bool = True) -> Standings:
        """The standings; not ``exact``: the batch fit may be one of a few fewer games (cheaper)."""
        ratings = self.ledger.ratings(exact)
        fitted = self.ledger.checkpoint() if isinstance(self.ledger, BatchLedger) else None
        return self.tally.standings(self.bots, ratings, self.ledger.cfg, fitted, self.retired)


def stored_standings(
    store: ResultStore, bots: Sequence[str], rating: RatingConfig | None = None, retired: Sequence[str] = ()
) -> Standings:
    """The standings of every game in ``store`` (no record is read); ``retired`` bots marked."""
    return LeagueTable.load(store, bots, rating, retired=retired).standings()

