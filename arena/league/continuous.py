"""The continuous league (``format: continuous``): play where the standings are least sure.

A round robin gives every meeting the same number of games, even those whose
result is plain after a few (the best bot against the worst).  A continuous
league plays each meeting ``min_meetings`` times, then keeps choosing the
meeting whose order in the standings is least certain: among the windows of
``players`` bots next to each other in the ranking, the one whose adjacent
pairs are furthest from being ordered (the sum of 1 - P(better) over its pairs
not yet ordered), divided by the square root of the sets that meeting has had
(played or on their way: so a pair of equals, which no number of games orders,
does not take every game, and several workers spread over the close pairs).
It stops when the whole order is sure at ``confidence`` (every one of the n - 1
adjacent pairs at 1 - (1 - confidence) / (n - 1), :func:`pair_confidence`) or
``max_games`` are scheduled.

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
from arena.stats.settings import RatingConfig

# The chooser's fit is redone after this share of new games (at least REFIT_MIN_STEP): the
# fit of a few thousand games costs some 20 ms (bench/bench_rating.py has larger leagues).
REFIT_SHARE = 0.05
REFIT_MIN_STEP = 2
CONTINUOUS_ID = re.compile(r"c(\d+)-g(\d+)")  # a continuous league's game ids, unlike r2-g017


@dataclass(frozen=True)
class Pair:
    """Two bots next to each other in the ranking, and P(the upper one's skill is higher)."""

    above: str
    below: str
    p: float


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
    least: Pair | None  # the least certain adjacent pair
    per_pair: float = 0.0  # what each adjacent pair had to reach (see pair_confidence)

    def describe(self) -> str:
        """``the order is sure at 95% (every adjacent pair at 98.8%) after 340 games`` or
        ``budget of 2,000 games spent; uncertain: a vs b P=0.81``."""
        if self.reason is StopReason.CONFIDENT:
            return (
                f"the order is sure at {self.confidence:.0%} (every adjacent pair at "
                f"{self.per_pair:.1%}) after {self.games:,} games"
            )
        text = f"budget of {self.budget:,} games spent"
        if self.least is not None and self.least.p < self.per_pair:
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


def least_certain(pairs: Sequence[Pair]) -> Pair | None:
    """The adjacent pair with the lowest P(better) (the highest one of equals)."""
    return min(pairs, key=lambda p: p.p, default=None)


def choose_group(
    order: Sequence[str],
    pairs: Sequence[Pair],
    players: int,
    confidence: float,
    sets: Mapping[frozenset[str], int] | None = None,
) -> tuple[str, ...] | None:
    """The ``players`` bots next to each other in ``order`` whose meeting would settle the most:
    the window with the most doubt (1 - P summed over its pairs below ``confidence``), over the
    square root of its ``sets`` so far; the highest window of equals; None when every pair is
    ordered."""
    best: tuple[float, int] | None = None
    for start in range(len(order) - players + 1):
        doubt = sum(1 - p.p for p in pairs[start : start + players - 1] if p.p < confidence)
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
        self.done: list[tuple[int, Seats]] = sorted(results, key=lambda r: r[0])
        self._fits: dict[int, dict[str, trueskill.Rating]] = {}
        self.stop: Stop | None = None

    # -- results ----------------------------------------------------------------------

    def add(self, index: int, seats: Seats) -> None:
        """A planned game finished."""
        self.done.append((index, seats))

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

    def pairs(self) -> list[Pair]:
        """The adjacent pairs of the ranking of every finished game."""
        ratings = self.ratings(len(self.done))
        return adjacent_pairs(ratings, ranking(ratings, self.bots))

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
            least = least_certain(self.pairs()) if finished else None
            self.stop = Stop(StopReason.BUDGET, finished, cfg.confidence, cfg.max_games, least, level)
            return None
        short = [g for g in groups(self.bots, self.players) if self.sets[frozenset(g)] < cfg.min_meetings]
        if short:
            return min(short, key=lambda g: self.sets[frozenset(g)])
        ratings = self.ratings(refit_point(finished))
        order = ranking(ratings, self.bots)
        pairs = adjacent_pairs(ratings, order)
        if all(p.p >= level for p in pairs):
            # Stop only on a fit of every finished game; choose from it if it disagrees.
            ratings = self.ratings(finished)
            order = ranking(ratings, self.bots)
            pairs = adjacent_pairs(ratings, order)
            if all(p.p >= level for p in pairs):
                self.stop = Stop(
                    StopReason.CONFIDENT, finished, cfg.confidence, cfg.max_games, least_certain(pairs), level
                )
                return None
        return choose_group(order, pairs, self.players, level, self.sets)

    def note(self) -> str:
        """For progress lines: the least certain adjacent pair of the chooser's last fit."""
        fits = sorted(self._fits)
        if not fits or not fits[-1]:
            return ""
        ratings = self._fits[fits[-1]]
        least = least_certain(adjacent_pairs(ratings, ranking(ratings, self.bots)))
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
