"""A league's rating history: each bot's mu and sigma after each of its games, and the ratings
as they stood at a moment in the past.

The point after a game is what the standings would have said then: the league's own rater
(:mod:`arena.league.rating`: the batch fit, or the sequential model's replay) given every
game up to that one in schedule order, the order the store keeps.  A batch fit per point
would cost a fit per game, so a :class:`RatingHistory` keeps, for each place in that order it
fitted, the ratings of that game's bots; a place stays good while no game that finished late
lands before it (its prefix is then another one, fitted again).  Past :data:`MAX_POINTS` a
bot's points are thinned evenly, by a stride that doubles, so that the places kept as the
league grows are those kept before (and their fits reused).

:meth:`RatingHistory.refresh` reads only the games stored since it last looked.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.league.rating import RatingLedger, ranking
from arena.league.store import ResultStore
from arena.league.tally import Z95
from arena.stats.game_table import GameTable
from arena.stats.settings import RatingConfig, RatingModel

MAX_POINTS = 500  # a bot's points drawn and sent at most (each version: its first and last too)

Seats = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class HistoryPoint:
    """One bot's rating after one of its games (or, ``now``, after the league's last game)."""

    name: str  # the bot's name in the league
    position: int  # the league's games up to and including this one, in schedule order
    games: int  # the bot's own games so far
    mu: float
    sigma: float
    finished: str  # when that game finished (UTC, ``2026-01-31T12:00:00Z``; "" unknown)
    now: bool = False  # the standings as they are: after the league's last game

    @property
    def mu_low(self) -> float:
        """The low end of mu's 95% interval, as the standings show it."""
        return self.mu - Z95 * self.sigma

    @property
    def mu_high(self) -> float:
        return self.mu + Z95 * self.sigma

    def to_json(self) -> dict[str, object]:
        return {
            "bot": self.name,
            "position": self.position,
            "games": self.games,
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "mu_low": round(self.mu_low, 3),
            "mu_high": round(self.mu_high, 3),
            "finished": self.finished or None,
            "now": self.now,
        }


@dataclass(frozen=True)
class _Game:
    key: tuple[int, str]  # (schedule place, game id): the store's order
    finished: str
    seats: Seats


def thinned(count: int, limit: int) -> list[int]:
    """Which of ``count`` points (0-based) to keep, at most ``limit`` (at least 2): every
    ``stride``-th, the stride the least power of two that fits, and the first and the last.
    The stride only doubles as ``count`` grows, so the points kept are a subset of before."""
    limit = max(2, limit)
    stride = 1
    while count // stride + 2 > limit and stride < count:
        stride *= 2
    if stride == 1:
        return list(range(count))
    kept = {0, count - 1, *range(stride - 1, count, stride)}
    return sorted(k for k in kept if 0 <= k < count)


class RatingHistory:
    """The rating history of one league's store (read by :meth:`refresh`), with its fits kept."""

    def __init__(self, cfg: RatingConfig | None = None) -> None:
        self.cfg = cfg or RatingConfig()
        self._lock = threading.Lock()  # one refresh or computation at a time
        self._games: list[_Game] = []
        self._keys: list[tuple[int, str]] = []  # the games' keys, for bisect
        self._row = 0  # the last store row read
        self._of: dict[str, list[int]] | None = None  # bot -> its games' positions (0-based)
        self._fits: dict[int, dict[str, tuple[float, float]]] = {}  # prefix length -> (mu, sigma) by bot
        self._stamps: list[str] = []  # when each game finished, sorted (a moment's games by bisect)
        # The ratings of the games before a moment, by how many there were: games are only
        # added, so the same count is the same games.
        self._before: tuple[int, dict[str, tuple[float, float]]] | None = None
        self.fitted = 0  # fits (or replays) made: how much the cache saved

    @property
    def count(self) -> int:
        return len(self._games)

    def refresh(self, store: ResultStore) -> int:
        """Read the games stored since the last refresh; how many games there are now.  A store
        that holds fewer games than read (made again) is read from its start."""
        with self._lock:
            if store.count() < len(self._games):
                self._games, self._keys, self._row, self._fits, self._before = [], [], 0, {}, None
                self._stamps = []
            for row, place, game_id, finished, seats in store.timed_games(self._row):
                self._row = max(self._row, row)
                game = _Game((place, game_id), finished, tuple(seats))
                at = bisect.bisect(self._keys, game.key)
                self._keys.insert(at, game.key)
                self._games.insert(at, game)
                if finished:
                    bisect.insort(self._stamps, finished)
                # Every prefix from this place on now holds one more game: fitted again.
                self._fits = {n: f for n, f in self._fits.items() if n <= at}
                self._of = None
            return len(self._games)

    def names(self) -> set[str]:
        """Every bot that played a game."""
        with self._lock:
            return set(self._positions())

    def _positions(self) -> dict[str, list[int]]:
        if self._of is None:
            of: dict[str, list[int]] = {}
            for i, g in enumerate(self._games):
                for name in dict.fromkeys(n for n, _ in g.seats):
                    of.setdefault(name, []).append(i)
            self._of = of
        return self._of

    def series(self, names: Sequence[str], limit: int = MAX_POINTS) -> dict[str, list[HistoryPoint]]:
        """Each of ``names``' points: after each of its games (thinned: ``limit`` points shared
        among the names by their games, each name its first and last), and then ``now``, after
        the league's last game, when that was not its own."""
        with self._lock:
            of = self._positions()
            total = sum(len(of.get(n, ())) for n in names) or 1
            picked: dict[str, list[tuple[int, int]]] = {}  # name -> (its game number, position)
            for name in names:
                mine = of.get(name, [])
                share = max(2, limit * len(mine) // total)
                picked[name] = [(k + 1, mine[k]) for k in thinned(len(mine), share)]
            last = len(self._games)
            needed = {p + 1 for points in picked.values() for _, p in points}
            if any(picked.values()):
                needed.add(last)
            self._fit(needed)
            out: dict[str, list[HistoryPoint]] = {}
            for name, points in picked.items():
                series = []
                for games, p in points:
                    mu, sigma = self._fits[p + 1][name]
                    series.append(HistoryPoint(name, p + 1, games, mu, sigma, self._games[p].finished))
                if points and points[-1][1] + 1 != last:
                    mu, sigma = self._fits[last][name]
                    series.append(
                        HistoryPoint(name, last, len(of[name]), mu, sigma, self._games[-1].finished, now=True)
                    )
                out[name] = series
            return out

    def _fit(self, lengths: set[int]) -> None:
        """The ratings after each prefix of ``lengths`` games not yet fitted (kept: the bots of
        its last game, every bot for the whole league)."""
        whole = len(self._games)
        # A whole league's fit kept every bot; once the league grew it needs only its game's.
        for n, kept in list(self._fits.items()):
            if n != whole and len(kept) > len(self._games[n - 1].seats):
                self._fits[n] = {b: kept[b] for b, _ in self._games[n - 1].seats if b in kept}
        missing = sorted(n for n in lengths if n not in self._fits and n > 0)
        if not missing:
            return
        batch = self.cfg.model == RatingModel.BATCH
        table = GameTable()
        ledger = None if batch else RatingLedger([], self.cfg)
        todo = iter(missing)
        want = next(todo)
        for i, g in enumerate(self._games[: missing[-1]]):
            if batch:
                table.add(g.seats)
            else:
                assert ledger is not None
                ledger.add(i, g.seats)
            if i + 1 != want:
                continue
            ratings = self._ratings(table, ledger)
            keep = ratings if want == whole else {n: ratings[n] for n, _ in g.seats}
            self._fits[want] = keep
            want = next(todo, 0)

    def _ratings(self, table: GameTable, ledger: RatingLedger | None) -> dict[str, tuple[float, float]]:
        self.fitted += 1
        if ledger is not None:
            return {n: (float(r.mu), float(r.sigma)) for n, r in ledger.ratings().items()}
        from arena.stats.trueskill_fit import fit  # numpy: only once a fit is due

        result = fit(table, table.names, self.cfg, joint=False)
        return {n: (float(r.mu), float(r.sigma)) for n, r in result.ratings.items()}

    def games_by(self, moment: str, before: bool = False) -> int:
        """How many games had finished at ``moment`` (UTC, as the store writes it); ``before``:
        strictly before it (the games :meth:`before` fits)."""
        with self._lock:
            return (bisect.bisect_left if before else bisect.bisect_right)(self._stamps, moment)

    def before(self, moment: str) -> dict[str, tuple[float, float]]:
        """The ratings of the bots that had played by ``moment`` (UTC, as the store writes it),
        from the games finished before it (by any rater: fitted once per set of games)."""
        with self._lock:
            key = bisect.bisect_left(self._stamps, moment)
            if self._before is not None and self._before[0] == key:
                return self._before[1]
            early = [g for g in self._games if g.finished and g.finished < moment]
            ratings: dict[str, tuple[float, float]] = {}
            if early:
                batch = self.cfg.model == RatingModel.BATCH
                table = GameTable()
                ledger = None if batch else RatingLedger([], self.cfg)
                for i, g in enumerate(early):
                    if batch:
                        table.add(g.seats)
                    else:
                        assert ledger is not None
                        ledger.add(i, g.seats)
                ratings = self._ratings(table, ledger)
            self._before = (key, ratings)
            return ratings


def ranks_of(ratings: Mapping[str, tuple[float, float]]) -> dict[str, int]:
    """Each bot's rank among ``ratings`` in the standings' order (mu, then the rating, then name)."""
    import trueskill

    order = ranking({n: trueskill.Rating(mu, sigma) for n, (mu, sigma) in ratings.items()})
    return {name: i for i, name in enumerate(order, 1)}
