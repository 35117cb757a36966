"""TrueSkill ratings over finished games: fitted all at once, or in schedule order.

The published rating is the batch fit (:mod:`arena.stats.trueskill_fit`, kept by a
:class:`BatchLedger`): every game at once, so no order of games changes it.  The
rest of this module is the classic sequential TrueSkill (``rating: {model:
sequential}``), for a league that never ends, and it is what follows.

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
import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import trueskill

from arena.game.record import GameRecord
from arena.stats.game_table import GameTable
from arena.stats.settings import RatingConfig

# One game as the rating sees it: its schedule index and (bot, rank) per seat.
Seats = Sequence[tuple[str, int]]


def environment(cfg: RatingConfig) -> trueskill.TrueSkill:
    """The TrueSkill environment of ``cfg`` (never the trueskill package's global one)."""
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


# Of a run's time, at most, spent refitting the batch rating for its interim standings.
FIT_TIME_SHARE = 0.05
# Whatever that budget says, an interim fit is redone once the games have grown by this
# factor since the last one: interim standings (and the progress line's leaders) are never
# a fit of fewer than 1/1.25 of the games played, and the fits of a run, growing
# geometrically, cost at most 5 times its last one.
REFIT_GROWTH = 1.25


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
    # The batch model's Elo figures: bot -> (elo, 95% low, 95% high), bots that played only.
    elo: dict[str, tuple[float, float, float]] | None = None
    # And each seat's 95% interval of mean points over boards: players -> (boards, intervals).
    seats: dict[int, tuple[int, list[tuple[float, float]]]] | None = None
    # The batch fit's sweeps, and whether it converged (False: stopped at its sweep limit).
    sweeps: int | None = None
    converged: bool | None = None
    # P(better) from the joint posterior: bot -> (the next bot down in ranking(), P(its skill above)).
    better: dict[str, tuple[str, float]] | None = None
    # The Elo fit's Newton / MM iterations (the most of its fits), and whether every fit converged.
    elo_iterations: int | None = None
    elo_converged: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The checkpoint as JSON data (see :meth:`from_dict`)."""
        d: dict[str, Any] = {
            "through": self.through,
            "games": self.games,
            "config": asdict(self.config),
            "ratings": {n: list(v) for n, v in self.ratings.items()},
        }
        if self.elo is not None:
            d["elo"] = {n: list(v) for n, v in self.elo.items()}
        if self.seats is not None:
            d["seats"] = {str(k): [b, [list(i) for i in v]] for k, (b, v) in self.seats.items()}
        if self.converged is not None:
            d["fit"] = {"sweeps": self.sweeps, "converged": self.converged}
        if self.better is not None:
            d["better"] = {n: list(v) for n, v in self.better.items()}
        if self.elo_converged is not None:
            d["elo_fit"] = {"iterations": self.elo_iterations, "converged": self.elo_converged}
        return d

    @classmethod
    def from_dict(cls, d: Any) -> RatingCheckpoint | None:
        """The checkpoint ``d`` describes, or None when it is not one (it is then recomputed)."""
        try:
            ratings = {str(n): (float(pi), float(tau)) for n, (pi, tau) in d["ratings"].items()}
            # Checkpoints written before the batch fit existed are sequential ones.
            config = RatingConfig(**{"model": "sequential", **d["config"]})
            elo = None
            if d.get("elo") is not None:
                elo = {str(n): (float(e), float(lo), float(hi)) for n, (e, lo, hi) in d["elo"].items()}
            seats = None
            if d.get("seats") is not None:
                seats = {
                    int(k): (int(b), [(float(lo), float(hi)) for lo, hi in v]) for k, (b, v) in d["seats"].items()
                }
            sweeps, converged, better = None, None, None
            elo_fit: tuple[int | None, bool | None] = (None, None)
            if config.model == "batch":
                # A fit saved before its convergence, its joint P(better) or its Elo fit's
                # convergence were kept cannot say them: fitted again.
                sweeps, converged = int(d["fit"]["sweeps"]), bool(d["fit"]["converged"])
                better = {str(n): (str(b), float(p)) for n, (b, p) in d["better"].items()}
                elo_fit = (int(d["elo_fit"]["iterations"]), bool(d["elo_fit"]["converged"]))
            return cls(
                int(d["through"]), int(d["games"]), config, ratings, elo, seats, sweeps, converged, better, *elo_fit
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


class RatingLedger:
    """Ratings advanced game by game, equal to rating the same games one by one in schedule order.

    ``expected`` are the schedule indexes of games still to come (a run's games to
    play): a game that arrives after one of them waits, unrated, until every game
    before it has arrived or been dropped.  :meth:`ratings` rates the waiting ones
    on a copy, so it is always what rating the games so far in schedule order would say.
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

    def add(self, index: int, seats: Seats, board: int = 0) -> None:
        """A finished game arrived (its ``board`` is not used here)."""
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

    def ratings(self, exact: bool = True) -> dict[str, trueskill.Rating]:
        """Each bot's rating after every game arrived so far, in schedule order (always exact)."""
        ratings = dict(self._settled)
        for _index, seats in sorted(self._waiting):
            _rate_one(self.env, ratings, seats)
        return ratings

    def checkpoint(self) -> RatingCheckpoint:
        """The ratings of every game rated so far, for a later run or reader to start from."""
        ratings = {n: (float(r.pi), float(r.tau)) for n, r in self._settled.items()}
        return RatingCheckpoint(self.through, self.games, self.cfg, ratings)


class BatchLedger:
    """Ratings fitted to every game added so far at once (the ``batch`` model).

    The fit is redone when asked after games were added; ``games`` loads the games
    before this ledger lazily, so that a reader whose checkpoint (``start``) covers
    every stored game never reads them.  ``stale_share`` lets a run's frequent
    refreshes reuse the last fit until the games have grown by that share and the time
    budget allows, or until they have grown by REFIT_GROWTH, which keeps the cost per
    game flat; asked for ``exact`` ratings it always refits.
    """

    def __init__(
        self,
        bots: Sequence[str],
        cfg: RatingConfig | None = None,
        games: Callable[[], Iterable[tuple[int, int, Seats]]] = lambda: (),
        start: RatingCheckpoint | None = None,
        stale_share: float = 0.05,
    ) -> None:
        self.cfg = cfg or RatingConfig()
        self.bots = list(bots)
        self._load: Callable[[], Iterable[tuple[int, int, Seats]]] | None = games
        self._games = GameTable(bots)
        self._through = 0  # one past the last schedule index seen
        self._fit: RatingCheckpoint | None = start
        self.stale_share = stale_share
        self._fitted_at = -math.inf  # monotonic time of the last fit, and what it cost
        self._fit_cost = 0.0

    def load_games(self) -> None:
        """Read the games before this ledger now (else when first needed)."""
        if self._load is not None:
            load, self._load = self._load, None
            for index, board, seats in load():
                self.add(index, seats, board)

    def add(self, index: int, seats: Seats, board: int = 0) -> None:
        """A finished game, on ``board`` (its seed: the Elo resamples boards)."""
        self.load_games()
        self._games.add(seats, board)
        self._through = max(self._through, index + 1)

    def drop(self, index: int) -> None:
        """Nothing to do: the fit has no order to keep."""

    def ratings(self, exact: bool = True) -> dict[str, trueskill.Rating]:
        """Each bot's fitted rating; not ``exact``: possibly from a fit of a few fewer games."""
        fit = self._fit
        if fit is not None and self._load is not None:
            return _from_checkpoint(fit, self.bots)  # nothing added since the checkpoint
        self.load_games()
        count = self._games.count
        # Besides the share of games, a time budget: a fit's cost grows with the league, so
        # refreshes refit at most FIT_TIME_SHARE of the time (the cost per game stays flat).
        stale = fit is not None and (
            count >= fit.games * REFIT_GROWTH
            or (
                count > fit.games * (1 + self.stale_share)
                and time.monotonic() - self._fitted_at >= self._fit_cost / FIT_TIME_SHARE
            )
        )
        if fit is None or (fit.games != count and (exact or stale)):
            # numpy: only once a fit is due; imported before the clock starts, since the
            # first import's cost is no fit's and would hold back the next refits.
            from arena.stats.elo import fit_elo
            from arena.stats.seats import seat_intervals
            from arena.stats.trueskill_fit import fit as fit_games

            began = time.monotonic()
            result = fit_games(self._games, self.bots, self.cfg)
            ratings = {n: (float(r.pi), float(r.tau)) for n, r in result.ratings.items()}
            boot = fit_elo(self._games)
            elo = {n: (e.elo, e.low, e.high) for n, e in boot.elo.items() if math.isfinite(e.low)}
            seats = seat_intervals(self._games)
            # The pairs of the standings' order, as the standings will see the ratings.
            order = ranking(_from_ratings(ratings))
            pairs = list(itertools.pairwise(order))
            better = {}
            if result.joint is not None:
                better = {a: (b, p) for (a, b), p in zip(pairs, result.joint.better(pairs), strict=True)}
            self._fit = fit = RatingCheckpoint(
                self._through,
                count,
                self.cfg,
                ratings,
                elo,
                seats,
                result.sweeps,
                result.converged,
                better,
                boot.iterations,
                boot.converged,
            )
            self._fitted_at = time.monotonic()
            self._fit_cost = self._fitted_at - began
        return _from_checkpoint(fit, self.bots)

    def checkpoint(self) -> RatingCheckpoint:
        """The last fit (its ``games`` say how many games it covers)."""
        if self._fit is None:
            self.ratings()
        assert self._fit is not None
        return self._fit


def _from_checkpoint(cp: RatingCheckpoint, bots: Sequence[str]) -> dict[str, trueskill.Rating]:
    env = environment(cp.config)
    return {b: env.create_rating() for b in bots} | _from_ratings(cp.ratings)


def _from_ratings(ratings: dict[str, tuple[float, float]]) -> dict[str, trueskill.Rating]:
    """Ratings from their (pi, tau), as every reader of a checkpoint gets them."""
    return {name: trueskill.Rating(tau / pi, pi**-0.5) for name, (pi, tau) in ratings.items()}


def ranking(ratings: Mapping[str, trueskill.Rating]) -> list[str]:
    """The bots in the standings' order: mu (the skill's posterior mean, which P(better) compares),
    then the conservative rating (the surer first), then name."""
    return sorted(ratings, key=lambda b: (-ratings[b].mu, -conservative(ratings[b]), b))


Ledger = RatingLedger | BatchLedger


def make_ledger(
    bots: Sequence[str],
    cfg: RatingConfig | None = None,
    expected: Iterable[int] = (),
    start: RatingCheckpoint | None = None,
) -> Ledger:
    """The ledger of ``cfg``'s model, from ``start`` (sequential: the games after it are added)."""
    cfg = cfg or RatingConfig()
    if cfg.model == "sequential":
        return RatingLedger(bots, cfg, expected, start)
    return BatchLedger(bots, cfg)


def rate_game(env: trueskill.TrueSkill, ratings: dict[str, trueskill.Rating], rec: GameRecord) -> None:
    """Update ``ratings`` (by bot name) in place with one game's ranking."""
    _rate_one(env, ratings, [(s.name, st.rank) for s, st in zip(rec.seats, rec.standings, strict=True)])


def conservative(r: trueskill.Rating) -> float:
    """mu - 3 sigma, the published rating: the bot's skill is above it with 99.9% probability under the model."""
    return float(r.mu - 3 * r.sigma)
