"""TrueSkill ratings over finished games, in schedule order.

Every game is a free-for-all with the game's ranking: ties are kept, and a
forfeited player is already ranked below every other.  Games are rated in
schedule order, never completion order, so the same seed with deterministic
bots gives the same ratings at any concurrency.  The environment is explicit
(never the trueskill package's global one).

A :class:`RatingLedger` keeps that order while games arrive out of it (several
at once finish in any order): a game is rated once no game before it is still
to come, and a :class:`RatingCheckpoint` lets a later run or reader start from
where the ledger got to instead of re-rating every stored game.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import trueskill

from .config import RatingConfig
from .record import GameRecord

# One game as the rating sees it: its schedule index and (bot, rank) per seat.
Seats = Sequence[tuple[str, int]]


def environment(cfg: RatingConfig) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=cfg.mu, sigma=cfg.sigma, beta=cfg.beta, tau=cfg.tau, draw_probability=cfg.draw_probability
    )


def _rate_one(env: trueskill.TrueSkill, ratings: dict[str, trueskill.Rating], seats: Seats) -> None:
    """Update ``ratings`` in place with one game."""
    names = [n for n, _ in seats]
    for n in names:
        ratings.setdefault(n, env.create_rating())
    if len(set(names)) != len(names):
        return  # a bot against itself teaches nothing about its rating
    rated = env.rate([(ratings[n],) for n in names], ranks=[r - 1 for _, r in seats])
    for n, (r,) in zip(names, rated, strict=True):
        ratings[n] = r


@dataclass(frozen=True)
class RatingCheckpoint:
    """The ratings after every finished game before schedule index ``through`` (``games`` of them).

    Ratings are kept as TrueSkill's own (pi, tau): rebuilding them from mu and sigma
    would round, and the ratings must not depend on where a run was resumed.
    """

    through: int
    games: int
    config: RatingConfig
    ratings: dict[str, tuple[float, float]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "through": self.through,
            "games": self.games,
            "config": asdict(self.config),
            "ratings": {n: list(v) for n, v in self.ratings.items()},
        }

    @classmethod
    def from_dict(cls, d: Any) -> RatingCheckpoint | None:
        """The checkpoint ``d`` describes, or None when it is not one (it is then recomputed)."""
        try:
            ratings = {str(n): (float(pi), float(tau)) for n, (pi, tau) in d["ratings"].items()}
            return cls(int(d["through"]), int(d["games"]), RatingConfig(**d["config"]), ratings)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


class RatingLedger:
    """Ratings advanced game by game, equal to :func:`rate_games` over the same games.

    ``expected`` are the schedule indexes of games still to come (a run's games to
    play): a game that arrives after one of them waits, unrated, until every game
    before it has arrived or been dropped.  :meth:`ratings` rates the waiting ones
    on a copy, so it is always what :func:`rate_games` would say of the games so far.
    """

    def __init__(
        self,
        bots: Sequence[str],
        cfg: RatingConfig | None = None,
        expected: Iterable[int] = (),
        start: RatingCheckpoint | None = None,
    ) -> None:
        self.cfg = cfg or RatingConfig()
        self.env = environment(self.cfg)
        self._settled = {b: self.env.create_rating() for b in bots}
        self.through = 0  # one past the last game in _settled: every game before it that came is in
        self.games = 0  # how many games are in _settled
        if start is not None:
            for name, (pi, tau) in start.ratings.items():
                rating = self.env.create_rating()
                rating.pi, rating.tau = pi, tau
                self._settled[name] = rating
            self.through, self.games = start.through, start.games
        self._expected = sorted(set(expected))
        self._next = 0  # _expected[_next] is the first game still to come
        self._gone: set[int] = set()  # expected games that arrived or were dropped, not yet passed
        self._waiting: list[tuple[int, tuple[tuple[str, int], ...]]] = []  # a heap by index
        if self._expected and self._expected[0] < self.through:
            raise ValueError(f"game {self._expected[0]} is expected before the checkpoint {self.through}")

    def add(self, index: int, seats: Seats) -> None:
        """A finished game arrived."""
        if index < self.through:
            raise ValueError(f"game {index} arrived after the ratings passed it (at {self.through})")
        heapq.heappush(self._waiting, (index, tuple(seats)))
        self._gone.add(index)
        self._advance()

    def drop(self, index: int) -> None:
        """An expected game will not come in this run (given up on)."""
        self._gone.add(index)
        self._advance()

    def _advance(self) -> None:
        while self._next < len(self._expected) and self._expected[self._next] in self._gone:
            self._gone.discard(self._expected[self._next])
            self._next += 1
        first_missing = self._expected[self._next] if self._next < len(self._expected) else None
        while self._waiting and (first_missing is None or self._waiting[0][0] < first_missing):
            index, seats = heapq.heappop(self._waiting)
            _rate_one(self.env, self._settled, seats)
            self.games += 1
            self.through = index + 1

    def ratings(self) -> dict[str, trueskill.Rating]:
        """Each bot's rating after every game arrived so far, in schedule order."""
        ratings = dict(self._settled)
        for _index, seats in sorted(self._waiting):
            _rate_one(self.env, ratings, seats)
        return ratings

    def checkpoint(self) -> RatingCheckpoint:
        ratings = {n: (float(r.pi), float(r.tau)) for n, r in self._settled.items()}
        return RatingCheckpoint(self.through, self.games, self.cfg, ratings)


def rate_games(
    records: Iterable[GameRecord], bots: Sequence[str], cfg: RatingConfig | None = None
) -> dict[str, trueskill.Rating]:
    """Each bot's rating after ``records`` (which must be in schedule order)."""
    env = environment(cfg or RatingConfig())
    ratings = {b: env.create_rating() for b in bots}
    for rec in records:
        rate_game(env, ratings, rec)
    return ratings


def rate_game(env: trueskill.TrueSkill, ratings: dict[str, trueskill.Rating], rec: GameRecord) -> None:
    """Update ``ratings`` (by bot name) in place with one game's ranking."""
    _rate_one(env, ratings, [(s.name, st.rank) for s, st in zip(rec.seats, rec.standings, strict=True)])


def conservative(r: trueskill.Rating) -> float:
    """mu - 3 sigma: the rating the bot is 99% likely to exceed."""
    return float(r.mu - 3 * r.sigma)
