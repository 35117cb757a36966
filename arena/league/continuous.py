"""The continuous league (``format: continuous``): play where the standings are least settled.

A round robin gives every meeting the same number of games, even those whose
result is plain after a few (the best bot against the worst).  A continuous
league plays each meeting ``min_meetings`` times, then keeps choosing the
meeting whose order in the standings is least settled: among the windows of
``players`` bots next to each other in the ranking, the one whose adjacent
pairs not yet settled are furthest from being ordered (the sum of 1 - P(better),
at least OPEN_DOUBT a pair), divided by the square root of the sets that meeting
has had (played or on their way: so several workers spread over the open pairs).

It stops when every one of the n - 1 adjacent pairs of the ranking is *settled*
by its pair test (:mod:`arena.stats.pair_test`, on the two bots' scores against
each other in the sets both played): ordered as ranked, or tied within
``indifference`` Elo.  The league looks after every set, which a fixed-sample
P(better) does not allow (two equal bots cross 95% in a large share of leagues);
the pair test does.  Its error, 1 - ``confidence`` split over every two bots
(:func:`pair_error`: any two may end up next to each other), bounds the chance
that a settled league has a pair in the wrong order, or tied when they are
``indifference`` apart or more.  Or it stops when ``max_games`` are scheduled.

Games come in *sets*: one meeting on one board in its seat orders (both orders
for 2 players, the balanced orders for 3-4), so the first seat's advantage
cancels as in a round robin.  Set ``n`` of meeting ``group`` has ids ``cN-g001``...,
round ``n`` and the seed ``derive_seed(seed, "c", n, *group)``.  A set counts for
the pair tests once all its games finished.

Choices are a function of the games finished when they are made: the ratings
are the batch fit of the first ``refit_point(F)`` of the ``F`` finished games
(in the order they finished, those of earlier runs first in schedule order;
refits at fixed counts keep the cost per game flat), or of
all ``F`` when that one already says "settled" (the league only stops on a fit
of every game); the pair tests depend only on how many sets scored what, not on
their order.  With one worker a set is chosen when the last one finished,
so a league, and one interrupted and resumed, makes the same choices from the
same seed (unless a game was given up after its retries: a resumed run plays
it again first); with several workers a choice depends on which games had finished
when a worker came free, which is timing (what was played is stored, and a
resumed league goes on from it).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

import trueskill

from arena.league.config import ContinuousConfig
from arena.league.neighbours import Neighbours, PairTests, Standing, describe
from arena.league.rating import conservative
from arena.league.schedule import ScheduledGame, derive_seed, groups, seat_orders
from arena.league.store import ResultStore
from arena.league.stored import StoredLeague
from arena.league.tally import Row, better_than
from arena.stats.game_table import GameTable, Seats
from arena.stats.pair_test import PairEvidence, PairVerdict, verdict
from arena.stats.settings import RatingConfig

# The chooser's fit is redone after this share of new games (at least REFIT_MIN_STEP): the
# fit of a few thousand games costs some 20 ms (bench/bench_rating.py has larger leagues).
REFIT_SHARE = 0.05
REFIT_MIN_STEP = 2
# The least doubt an open pair counts for: one whose P(better) is near 1 still needs the
# sets its test asks for, and is played, not left until the closer pairs are done.
OPEN_DOUBT = 0.1
CONTINUOUS_ID = re.compile(r"c(\d+)-g(\d+)")  # a continuous league's game ids, unlike r2-g017


@dataclass(frozen=True)
class Pair:
    """Two bots next to each other in the ranking, P(the upper one's skill is higher), and
    what their pair test says (``above`` as its first bot; None: no test, P is judged alone)."""

    above: str
    below: str
    p: float
    verdict: PairVerdict | None = None

    def settled(self, confidence: float = 1.0) -> bool:
        """Ordered as ranked or tied by its test (without one: P at ``confidence``)."""
        if self.verdict is None:
            return self.p >= confidence
        return self.verdict in (PairVerdict.A_STRONGER, PairVerdict.TIED)

    def standing(self) -> Standing:
        """Ordered (settled, not tied), tied, or open."""
        if self.verdict is PairVerdict.TIED:
            return Standing.TIED
        return Standing.ORDERED if self.settled() else Standing.OPEN


class StopReason(Enum):
    """Why a continuous league stopped scheduling games."""
    CONFIDENT = "confident"  # every adjacent pair settled: ordered, or tied within the indifference
    BUDGET = "budget"  # max_games scheduled


@dataclass(frozen=True)
class Stop:
    """Why a continuous league stopped choosing games, and what its adjacent pairs are."""

    reason: StopReason
    games: int  # finished when it stopped
    confidence: float  # asked of the whole order
    budget: int
    pairs: tuple[Pair, ...]  # the adjacent pairs of the ranking of every finished game
    indifference: float  # Elo within which a pair may be called tied

    @property
    def least(self) -> Pair | None:
        """The least certain adjacent pair not settled (when every one is: of all)."""
        return least_certain(self.pairs)

    def describe(self) -> str:
        """``the standings are settled at 95% after 340 games: ordered a > b, b > c`` (``; tied
        within 20 Elo: c ~ d``) or ``budget of 2,000 games spent; ...; not settled: a vs b P=0.81``."""
        text = describe_pairs(self.pairs, self.indifference)
        if self.reason is StopReason.CONFIDENT:
            return f"the standings are settled at {self.confidence:.0%} after {self.games:,} games: {text}"
        return f"budget of {self.budget:,} games spent" + (f"; {text}" if text else "")


def describe_pairs(pairs: Sequence[Pair], indifference: float) -> str:
    """``ordered a > b; tied within 20 Elo: b ~ c; not settled: c vs d P=0.81`` (parts with
    no pair left out; the open pair named is the least certain one)."""
    return describe([Neighbours(p.above, p.below, p.p, p.standing()) for p in pairs], indifference)


def ranking(ratings: Mapping[str, trueskill.Rating], bots: Iterable[str]) -> list[str]:
    """``bots`` in the standings' order (:func:`arena.league.rating.ranking`): mu, then the
    conservative rating, then name; so the pairs it settles are the table's neighbours."""
    return sorted(bots, key=lambda b: (-ratings[b].mu, -conservative(ratings[b]), b))


def adjacent_pairs(ratings: Mapping[str, trueskill.Rating], order: Sequence[str]) -> list[Pair]:
    """Each two bots next to each other in ``order``, with how sure the fit is of their order."""
    return [Pair(a, b, better_than(ratings[a], ratings[b])) for a, b in itertools.pairwise(order)]


def pair_error(confidence: float, bots: int) -> float:
    """The error each pair test may make for a league of ``bots`` to be settled at ``confidence``:
    1 - ``confidence`` split over every two bots (Bonferroni over the pairs that may end up next
    to each other in the ranking; which pairs do depends on the games)."""
    return (1 - confidence) / max(1, bots * (bots - 1) // 2)


def least_certain(pairs: Sequence[Pair]) -> Pair | None:
    """The adjacent pair not settled with the lowest P(better) (the highest one of equals);
    when every pair is settled, the lowest of all."""
    open_pairs = [p for p in pairs if not p.settled()] or list(pairs)
    return min(open_pairs, key=lambda p: p.p, default=None)


def choose_group(
    order: Sequence[str],
    pairs: Sequence[Pair],
    players: int,
    confidence: float = 1.0,
    sets: Mapping[frozenset[str], int] | None = None,
) -> tuple[str, ...] | None:
    """The ``players`` bots next to each other in ``order`` whose meeting would settle the most:
    the window with the most doubt (1 - P, at least OPEN_DOUBT, summed over its pairs not
    settled, see :meth:`Pair.settled`), over the square root of its ``sets`` so far; the
    highest window of equals; None when every pair is settled."""
    best: tuple[float, int] | None = None
    for start in range(len(order) - players + 1):
        window = pairs[start : start + players - 1]
        doubt = sum(max(1 - p.p, OPEN_DOUBT) for p in window if not p.settled(confidence))
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
        self.scores = SetScores()
        self.scores.plan(schedule)
        self.done: list[tuple[int, Seats]] = sorted(results, key=lambda r: r[0])
        for index, seats in self.done:
            self.scores.add(index, seats)
        self._fits: dict[int, dict[str, trueskill.Rating]] = {}
        self.stop: Stop | None = None

    # -- results ----------------------------------------------------------------------

    def add(self, index: int, seats: Seats) -> None:
        """A planned game finished."""
        self.done.append((index, seats))
        self.scores.add(index, seats)

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

    def error(self) -> float:
        """What each pair test may get wrong (see :func:`pair_error`)."""
        return pair_error(self.settings.confidence, len(self.bots))

    def verdict(self, above: str, below: str) -> PairVerdict:
        """What the pair test of these two says, ``above`` as its first bot."""
        evidence = self.scores.evidence(above, below)
        if evidence is None:
            return PairVerdict.OPEN
        return verdict(evidence, self.settings.indifference, self.error())

    def ranked_pairs(self, ratings: Mapping[str, trueskill.Rating]) -> tuple[list[str], list[Pair]]:
        """The ranking of ``ratings`` and its adjacent pairs with their tests' verdicts."""
        order = ranking(ratings, self.bots)
        pairs = [replace(p, verdict=self.verdict(p.above, p.below)) for p in adjacent_pairs(ratings, order)]
        return order, pairs

    def pairs(self) -> list[Pair]:
        """The adjacent pairs of the ranking of every finished game, with their verdicts."""
        return self.ranked_pairs(self.ratings(len(self.done)))[1]

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
        self.scores.plan(games)
        self.next_number += 1
        self.next_index += len(games)
        self.planned += len(games)
        self.sets[meeting] += 1
        return games

    def _next_group(self) -> tuple[str, ...] | None:
        self.stop = None
        cfg = self.settings
        finished = len(self.done)
        if self.planned + self.set_size() > cfg.max_games:
            self.stop = self._stop(StopReason.BUDGET, self.pairs() if finished else [])
            return None
        short = [g for g in groups(self.bots, self.players) if self.sets[frozenset(g)] < cfg.min_meetings]
        if short:
            return min(short, key=lambda g: self.sets[frozenset(g)])
        order, pairs = self.ranked_pairs(self.ratings(refit_point(finished)))
        if all(p.settled() for p in pairs):
            # Stop only on the ranking of every finished game; choose from it if it disagrees.
            order, pairs = self.ranked_pairs(self.ratings(finished))
            if all(p.settled() for p in pairs):
                self.stop = self._stop(StopReason.CONFIDENT, pairs)
                return None
        return choose_group(order, pairs, self.players, sets=self.sets)

    def _stop(self, reason: StopReason, pairs: Sequence[Pair]) -> Stop:
        cfg = self.settings
        return Stop(reason, len(self.done), cfg.confidence, cfg.max_games, tuple(pairs), cfg.indifference)

    def note(self) -> str:
        """For progress lines: the least certain open pair of the chooser's last fit, and how
        many adjacent pairs are settled."""
        fits = sorted(self._fits)
        if not fits or not fits[-1]:
            return ""
        pairs = self.ranked_pairs(self._fits[fits[-1]])[1]
        least = least_certain(pairs)
        if least is None:
            return ""
        settled = sum(p.settled() for p in pairs)
        text = f"{settled}/{len(pairs)} pairs settled"
        if not least.settled():
            text = f"open: {least.above} vs {least.below} P={least.p:.2f}; {text}"
        return text


class SetScores:
    """Each two bots' scores against each other in the sets they finished, for their pair test.

    A set counts once every game planned in it finished; then each two bots in it get
    the first one's half points against the other over its games (ranked above 2, level 1).
    Only how many sets scored what is kept: the tests do not depend on the order.
    """

    def __init__(self) -> None:
        self._set_of: dict[int, int] = {}  # schedule index -> its set (round)
        self._size: Counter[int] = Counter()  # set -> games planned in it
        self._waiting: defaultdict[int, list[Seats]] = defaultdict(list)  # set -> its finished games
        # (a, b), a < b -> the games per set they shared -> a's half points -> sets
        self._scores: dict[tuple[str, str], dict[int, Counter[int]]] = {}

    def plan(self, games: Iterable[ScheduledGame]) -> None:
        """Games planned (whose results will come to :meth:`add`)."""
        for game in games:
            if game.index not in self._set_of:
                self._set_of[game.index] = game.round
                self._size[game.round] += 1

    def add(self, index: int, seats: Seats) -> None:
        """A planned game finished (one not planned, as by an older league, counts for nothing)."""
        number = self._set_of.get(index)
        if number is None:
            return
        waiting = self._waiting[number]
        waiting.append(seats)
        if len(waiting) < self._size[number]:
            return
        del self._waiting[number]
        ranks = [dict(s) for s in waiting]
        for a, b in itertools.combinations(sorted(ranks[0]), 2):
            if not all(a in r and b in r for r in ranks):
                continue
            half = sum(2 if r[a] < r[b] else 1 if r[a] == r[b] else 0 for r in ranks)
            by_size = self._scores.setdefault((a, b), {})
            by_size.setdefault(len(ranks), Counter())[half] += 1

    def evidence(self, above: str, below: str) -> PairEvidence | None:
        """The sets of ``above`` and ``below`` with ``above`` first (those of the size they
        played most, should a league hold sets of several sizes); None before any."""
        a, b = sorted((above, below))
        by_size = self._scores.get((a, b))
        if not by_size:
            return None
        games, counts = max(by_size.items(), key=lambda kv: (sum(kv[1].values()), kv[0]))
        halves = [h if a == above else 2 * games - h for h, n in counts.items() for _ in range(n)]
        return PairEvidence.of(games, halves)


def standings_pairs(league: ContinuousLeague, rows: Sequence[tuple[str, float | None]]) -> PairTests:
    """How each two neighbours of the standings' ``rows`` (the bots still in ``league``, in
    the standings' order, each with P(better than the next)) stand by their pair test."""
    pairs = []
    for (a, p), (b, _q) in itertools.pairwise(rows):
        tested = Pair(a, b, p or 0.0, league.verdict(a, b))
        pairs.append(Neighbours(tested.above, tested.below, tested.p, tested.standing()))
    return PairTests(league.settings.confidence, league.settings.indifference, tuple(pairs))


def playing_rows(rows: Sequence[Row]) -> list[tuple[str, float | None]]:
    """The standings' rows a continuous league still plays (retired ones left out), as
    :func:`standings_pairs` takes them."""
    return [(r.bot, r.better_than_next) for r in rows if not r.retired]


def stored_pair_tests(store: ResultStore, rows: Sequence[tuple[str, float | None]]) -> PairTests | None:
    """:func:`standings_pairs` of a stored continuous league's ``rows`` (as there); None for
    another league, or a stored file whose settings cannot be read."""
    settings = StoredLeague.read(store).continuous()
    if settings is None:
        return None
    league = ContinuousLeague(
        [bot for bot, _p in rows], 2, 0, "all", settings, RatingConfig(), store.schedule(),
        ((index, seats) for index, _board, seats in store.fit_games()),
    )  # fmt: skip
    return standings_pairs(league, rows)


def stored_pairs(store: ResultStore, rows: Sequence[tuple[str, float | None]]) -> str:
    """The text of :func:`stored_pair_tests`: ``at 95%: ordered a > b; ...``, "" for another
    league (what the ladder's standings page shows)."""
    tests = stored_pair_tests(store, rows)
    return "" if tests is None else tests.summary()


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
