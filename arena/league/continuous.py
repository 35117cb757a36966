"""The continuous league (``format: continuous``): play where the standings are least sure.

A round robin gives every meeting the same number of games, even those whose
result is plain after a few (the best bot against the worst).  A continuous
league plays each meeting ``min_meetings`` times, then keeps choosing the
meeting whose order in the standings is least certain: among the windows of
``players`` bots next to each other in the ranking, the one whose adjacent
pairs are furthest from being settled (the sum of 1 - P(better) over its pairs
not yet settled), divided by the square root of the sets that meeting has had
(played or on their way: so several workers spread over the close pairs).

It stops when every one of the n - 1 adjacent pairs of the ranking is *settled*
by its sequential test (:mod:`arena.stats.pair_test`, on the pair's own results
in every set both played): ordered as ranked, or tied within ``indifference``
Elo.  The league looks again after every set, which a fixed-sample P(better)
does not allow (two equal bots cross 95% in a large share of leagues); the
sequential test does, and its errors, at most (1 - confidence) / (n - 1) a pair
(:func:`pair_confidence`), add up to at most 1 - ``confidence`` for the order.
Or it stops when ``max_games`` are scheduled.

Games come in *sets*: one meeting on one board in its seat orders (both orders
for 2 players, the balanced orders for 3-4), so the first seat's advantage
cancels as in a round robin.  Set ``n`` of meeting ``group`` has ids ``cN-g001``...,
round ``n`` and the seed ``derive_seed(seed, "c", n, *group)``.

Choices are a function of the games finished when they are made: the ratings
are the batch fit of the first ``refit_point(F)`` of the ``F`` finished games
(in the order they finished, those of earlier runs first in schedule order;
refits at fixed counts keep the cost per game flat), or of
all ``F`` when that one already says "ordered" (the league only stops on a fit
of every game).  With one worker a set is chosen when the last one finished,
so a league, and one interrupted and resumed, makes the same choices from the
same seed (unless a game was given up after its retries: a resumed run plays
it again first); with several workers a choice depends on which games had finished
when a worker came free, which is timing (what was played is stored, and a
resumed league goes on from it).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import trueskill

from arena.league.config import ContinuousConfig
from arena.league.rating import conservative
from arena.league.schedule import ScheduledGame, derive_seed, groups, seat_orders
from arena.league.tally import better_than
from arena.stats.game_table import GameTable, Seats
from arena.stats.pair_test import PairTest, PairVerdict
from arena.stats.settings import RatingConfig

# The chooser's fit is redone after this share of new games (at least REFIT_MIN_STEP): the
# fit of a few thousand games costs some 20 ms (bench/bench_rating.py has larger leagues).
REFIT_SHARE = 0.05
REFIT_MIN_STEP = 2
MIN_DOUBT = 1e-3  # a pair not settled whose P(better) is near 1 still needs games (its test)
CONTINUOUS_ID = re.compile(r"c(\d+)-g(\d+)")  # a continuous league's game ids, unlike r2-g017


@dataclass(frozen=True)
class Pair:
    """Two bots next to each other in the ranking, P(the upper one's skill is higher), and
    what their sequential test says (``a`` is ``above``; None: no test, P is judged alone)."""

    above: str
    below: str
    p: float
    verdict: PairVerdict | None = None

    def settled(self, confidence: float) -> bool:
        """Ordered as ranked or tied by its test (without one: P at ``confidence``)."""
        if self.verdict is None:
            return self.p >= confidence
        return self.verdict in (PairVerdict.A_STRONGER, PairVerdict.TIED)


class StopReason(Enum):
    """Why a continuous league stopped scheduling games."""
    CONFIDENT = "confident"  # every adjacent pair ordered with the asked confidence
    BUDGET = "budget"  # max_games scheduled


@dataclass(frozen=True)
class Stop:
    """Why a continuous league stopped choosing games."""

    reason: StopReason
    games: int  # finished when it stopped
    confidence: float  # asked of the whole order
    budget: int
    least: Pair | None  # the least certain adjacent pair not settled (CONFIDENT: of all)
    per_pair: float = 0.0  # what each adjacent pair had to reach (see pair_confidence)
    indifference: float = 0.0  # Elo within which a pair may be called tied
    tied: tuple[Pair, ...] = ()  # adjacent pairs settled as tied

    def describe(self) -> str:
        """``the order is sure at 95% after 340 games`` (``; tied within 20 Elo: b ~ c``) or
        ``budget of 2,000 games spent; uncertain: a vs b P=0.81``."""
        if self.reason is StopReason.CONFIDENT:
            text = f"the order is sure at {self.confidence:.0%} after {self.games:,} games"
            if self.tied:
                ties = ", ".join(f"{p.above} ~ {p.below}" for p in self.tied)
                text += f"; tied within {self.indifference:g} Elo: {ties}"
            return text
        text = f"budget of {self.budget:,} games spent"
        if self.least is not None and not self.least.settled(self.per_pair):
            text += f"; uncertain: {self.least.above} vs {self.least.below} P={self.least.p:.2f}"
        return text


def ranking(ratings: Mapping[str, trueskill.Rating], bots: Iterable[str]) -> list[str]:
    """``bots`` in the standings' order: conservative rating, then mu, then name."""
    return sorted(bots, key=lambda b: (-conservative(ratings[b]), -ratings[b].mu, b))


def adjacent_pairs(ratings: Mapping[str, trueskill.Rating], order: Sequence[str]) -> list[Pair]:
    """Each two bots next to each other in ``order``, with how sure the fit is of their order."""
    return [Pair(a, b, better_than(ratings[a], ratings[b])) for a, b in itertools.pairwise(order)]


def pair_confidence(confidence: float, pairs: int) -> float:
    """What each of ``pairs`` adjacent pairs must reach for the whole order to hold at
    ``confidence`` (Bonferroni: the chances that some pair is the wrong way round add up).

    Asked of each pair alone, 95% left the whole order of five graded bots wrong on one
    seed in nine in ``bench/bench_continuous.py``: four pairs, each with its own chance.
    """
    return 1 - (1 - confidence) / max(1, pairs)


def least_certain(pairs: Sequence[Pair], confidence: float = 1.0) -> Pair | None:
    """The adjacent pair not settled with the lowest P(better) (the highest one of equals);
    when every pair is settled, the lowest of all."""
    open_pairs = [p for p in pairs if not p.settled(confidence)] or list(pairs)
    return min(open_pairs, key=lambda p: p.p, default=None)


def choose_group(
    order: Sequence[str],
    pairs: Sequence[Pair],
    players: int,
    confidence: float,
    sets: Mapping[frozenset[str], int] | None = None,
) -> tuple[str, ...] | None:
    """The ``players`` bots next to each other in ``order`` whose meeting would settle the most:
    the window with the most doubt (1 - P summed over its pairs not settled, see
    :meth:`Pair.settled`; at least a little for a pair of equals), over the square root of its
    ``sets`` so far; the highest window of equals; None when every pair is settled."""
    best: tuple[float, int] | None = None
    for start in range(len(order) - players + 1):
        window = pairs[start : start + players - 1]
        doubt = sum(max(1 - p.p, MIN_DOUBT) for p in window if not p.settled(confidence))
        if doubt <= 0:
            continue
        score = doubt / math.sqrt(max(1, (sets or {}).get(frozenset(order[start : start + players]), 0)))
        if best is None or score > best[0]:
            best = (score, start)
    return None if best is None else tuple(order[best[1] : best[1] + players])


def refit_point(finished: int) -> int:
    """The largest count of games at which the chooser refits that is at most ``finished``."""
    point = 0
    while True:
        step = max(REFIT_MIN_STEP, math.ceil(REFIT_SHARE * point))
        if point + step > finished:
            return point
        point += step


def set_games(
    number: int, group: Sequence[str], seed: int, mode: str, turn: int, start: int
) -> list[ScheduledGame]:
    """Set ``number``: ``group`` on one board in its seat orders (the ``turn``-th of its sets)."""
    board_seed = derive_seed(seed, "c", number, *group)
    return [
        ScheduledGame(start + k, f"c{number}-g{k + 1:03d}", number, seats, board_seed)
        for k, seats in enumerate(seat_orders(group, mode, turn))
    ]


class ContinuousLeague:
    """The games a continuous league has planned and finished, and the next ones it chooses.

    ``bots`` are those still scheduled (the file's order: a meeting's seats follow it);
    ``schedule`` the games planned so far (finished or not), ``results`` the finished
    ones as (schedule index, seats with ranks).  No I/O: the run stores what it plans.
    Each pair's sequential test is fed a set once all its games finished, in the order
    sets complete (a resumed league: in schedule order).
    """

    def __init__(
        self,
        bots: Sequence[str],
        players: int,
        seed: int,
        seat_mode: str,
        settings: ContinuousConfig,
        rating: RatingConfig,
        schedule: Sequence[ScheduledGame] = (),
        results: Iterable[tuple[int, Seats]] = (),
    ) -> None:
        self.bots = list(bots)
        self.players = players
        self.seed = seed
        self.seat_mode = seat_mode
        self.settings = settings
        self.rating = rating
        self.planned = len(schedule)
        self.next_index = max((g.index for g in schedule), default=-1) + 1
        self.next_number = max((g.round for g in schedule), default=0) + 1
        self.sets: Counter[frozenset[str]] = Counter()  # sets planned per meeting
        for meeting in {g.round: frozenset(g.seats) for g in schedule}.values():
            self.sets[meeting] += 1
        self._set_of: dict[int, int] = {}  # schedule index -> its set's number
        self._set_games: Counter[int] = Counter()  # set number -> its games
        self._waiting: dict[int, list[Seats]] = {}  # results of sets not yet complete
        self.tests: dict[tuple[str, str], PairTest] = {}  # (a, b) by name -> their test
        self._track(schedule)
        self.done: list[tuple[int, Seats]] = sorted(results, key=lambda r: r[0])
        for index, seats in self.done:
            self._feed(index, seats)
        self._fits: dict[int, dict[str, trueskill.Rating]] = {}
        self.stop: Stop | None = None

    # -- results ----------------------------------------------------------------------

    def add(self, index: int, seats: Seats) -> None:
        """A planned game finished."""
        self.done.append((index, seats))
        self._feed(index, seats)

    def _track(self, games: Iterable[ScheduledGame]) -> None:
        for g in games:
            self._set_of[g.index] = g.round
            self._set_games[g.round] += 1

    def _feed(self, index: int, seats: Seats) -> None:
        """Keep a finished game; once its set is complete, give each pair in it its score."""
        number = self._set_of.get(index)
        if number is None:
            return
        results = self._waiting.setdefault(number, [])
        results.append(seats)
        if len(results) < self._set_games[number]:
            return
        del self._waiting[number]
        rank = [dict(r) for r in results]
        names = sorted({n for r in results for n, _ in r})
        for a, b in itertools.combinations(names, 2):
            shared = [r for r in rank if a in r and b in r]
            if len(shared) != len(results):
                continue  # not every game of the set had both (cannot happen in a set)
            half = sum(2 if r[a] < r[b] else 1 if r[a] == r[b] else 0 for r in shared)
            self._test(a, b, len(shared)).add(half)

    def _test(self, a: str, b: str, games: int) -> PairTest:
        test = self.tests.get((a, b))
        if test is None or test.games != games:
            error = 1 - pair_confidence(self.settings.confidence, len(self.bots) - 1)
            test = self.tests[a, b] = PairTest(games, self.settings.indifference, error, error)
        return test

    def verdict(self, above: str, below: str) -> PairVerdict:
        """What the test of these two says, ``above`` as its first bot."""
        if above < below:
            test = self.tests.get((above, below))
            return PairVerdict.OPEN if test is None else test.verdict
        flipped = self.verdict(below, above)
        swap = {
            PairVerdict.A_STRONGER: PairVerdict.B_STRONGER,
            PairVerdict.B_STRONGER: PairVerdict.A_STRONGER,
        }
        return swap.get(flipped, flipped)

    # -- ratings ----------------------------------------------------------------------

    def ratings(self, games: int) -> dict[str, trueskill.Rating]:
        """The batch fit of the first ``games`` finished games (kept: fits are redone at fixed counts)."""
        if games not in self._fits:
            from arena.stats.trueskill_fit import fit  # numpy: only once a fit is due

            table = GameTable(self.bots)
            for _index, seats in self.done[:games]:
                table.add(seats)
            self._fits = {k: v for k, v in self._fits.items() if k >= refit_point(games)}
            self._fits[games] = fit(table, self.bots, self.rating).ratings
        return self._fits[games]

    def _pairs(self, ratings: Mapping[str, trueskill.Rating]) -> tuple[list[str], list[Pair]]:
        """The ranking of ``ratings`` and its adjacent pairs with their tests' verdicts."""
        order = ranking(ratings, self.bots)
        pairs = [
            dataclasses.replace(p, verdict=self.verdict(p.above, p.below))
            for p in adjacent_pairs(ratings, order)
        ]
        return order, pairs

    def pairs(self) -> list[Pair]:
        """The adjacent pairs of the ranking of every finished game."""
        return self._pairs(self.ratings(len(self.done)))[1]

    # -- choosing ---------------------------------------------------------------------

    def set_size(self) -> int:
        """How many games a set of one meeting holds (one per seat order)."""
        return len(seat_orders(self.bots[: self.players], self.seat_mode))

    def next_games(self, wanted: int) -> list[ScheduledGame]:
        """At least ``wanted`` more games (whole sets), or fewer, or none once it stops."""
        out: list[ScheduledGame] = []
        while len(out) < max(1, wanted):
            group = self._next_group()
            if group is None:
                break
            out += self._plan(group)
        return out

    def _plan(self, group: Sequence[str]) -> list[ScheduledGame]:
        meeting = frozenset(group)
        games = set_games(
            self.next_number, group, self.seed, self.seat_mode, self.sets[meeting], self.next_index
        )
        self._track(games)
        self.next_number += 1
        self.next_index += len(games)
        self.planned += len(games)
        self.sets[meeting] += 1
        return games

    def _next_group(self) -> tuple[str, ...] | None:
        self.stop = None
        cfg = self.settings
        finished = len(self.done)
        level = pair_confidence(cfg.confidence, len(self.bots) - 1)
        if self.planned + self.set_size() > cfg.max_games:
            least = least_certain(self.pairs(), level) if finished else None
            self.stop = self._stop(StopReason.BUDGET, least, ())
            return None
        short = [g for g in groups(self.bots, self.players) if self.sets[frozenset(g)] < cfg.min_meetings]
        if short:
            return min(short, key=lambda g: self.sets[frozenset(g)])
        order, pairs = self._pairs(self.ratings(refit_point(finished)))
        if all(p.settled(level) for p in pairs):
            # Stop only on the ranking of every finished game; choose from it if it disagrees.
            order, pairs = self._pairs(self.ratings(finished))
            if all(p.settled(level) for p in pairs):
                tied = tuple(p for p in pairs if p.verdict is PairVerdict.TIED)
                self.stop = self._stop(StopReason.CONFIDENT, least_certain(pairs), tied)
                return None
        return choose_group(order, pairs, self.players, level, self.sets)

    def _stop(self, reason: StopReason, least: Pair | None, tied: tuple[Pair, ...]) -> Stop:
        cfg = self.settings
        level = pair_confidence(cfg.confidence, len(self.bots) - 1)
        return Stop(
            reason, len(self.done), cfg.confidence, cfg.max_games, least, level, cfg.indifference, tied
        )

    def note(self) -> str:
        """For progress lines: the least certain adjacent pair of the chooser's last fit."""
        fits = sorted(self._fits)
        if not fits or not fits[-1]:
            return ""
        level = pair_confidence(self.settings.confidence, len(self.bots) - 1)
        least = least_certain(self._pairs(self._fits[fits[-1]])[1], level)
        return "" if least is None else f"least sure: {least.above} vs {least.below} P={least.p:.2f}"


def play_out(
    league: ContinuousLeague,
    play: Callable[[ScheduledGame], Seats],
    planned: Iterable[ScheduledGame] = (),
    limit: int | None = None,
) -> list[ScheduledGame]:
    """Run ``league`` as one worker does, with ``play`` giving each game's result (a stand-in
    for real games, for tests and benches): ``planned`` games first, then what it chooses,
    until it stops or ``limit`` games were played (an interruption).  The games played."""
    played: list[ScheduledGame] = []
    queue = list(planned)
    while limit is None or len(played) < limit:
        if not queue:
            queue = league.next_games(1)
            if not queue:
                break
        game = queue.pop(0)
        league.add(game.index, play(game))
        played.append(game)
    return played
