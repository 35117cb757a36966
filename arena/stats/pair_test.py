"""An anytime-valid test that settles one pair of bots: ordered, or within ``indifference`` Elo.

A continuous league looks at its standings after every set of games and stops once
they are settled.  A fixed-sample probability (P(better) at 95%) looked at again and
again is not a 95% statement: two equal bots cross it, sooner or later, in a large
share of leagues.  The tests here may be looked at after every set, and stopped
whenever the looker likes: each is a *test martingale* (a bettor's wealth, see
Waudby-Smith and Ramdas, "Estimating means of bounded random variables by
betting", 2023), and by Ville's inequality the chance that its wealth ever reaches
1 / alpha while its null hypothesis holds is at most alpha.

The evidence is the pair's score per set they both played: ``a``'s points against
``b`` in it (a win 1, a draw 1/2: in a 3-4 player game, ranked above, level or
below), over the set's games, in [0, 1].  Its mean ``m`` is the logistic score of
the Elo difference, m = 1 / (1 + 10^(-elo / 400)).  Four tests, each a bettor who
stakes a share lambda of their wealth on each set, averaged over a fixed grid of
shares (a mixture of martingales is one; fixed in advance, it depends only on the
counts of each set score, not their order):

- ``a`` stronger: reject m <= 1/2, betting on x - 1/2 (at wealth 2 / error);
- ``b`` stronger: reject m >= 1/2, betting on 1/2 - x (at wealth 2 / error);
- not ``a`` ahead by ``indifference``: reject m >= s(+indifference) (at 1 / error);
- not ``b`` ahead by it: reject m <= s(-indifference) (at 1 / error).

The pair is **ordered** when one of the first two rejects, and **tied** ("within
``indifference`` Elo of each other") when the last two both do.  Whatever the true
difference: the chance of ever ordering the pair the wrong way round (or ordering
two equal bots) is at most ``error``, and the chance of ever calling two bots
``indifference`` or more apart tied is at most ``error``.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.stats.sprt import elo_to_score

GRID = 48  # bets in the mixture: more is finer, and costs log(GRID) more evidence
# The tie tests bet at most TIE_REACH times the gap they test: a pair near its null moves
# the score by little, so large bets only lose; capping them leaves more weight where the
# evidence is (some 20% fewer games for two equal bots than betting up to everything).
TIE_REACH = 12.0
MEDIAN_OFFSET = 0.45  # standard errors: fitted to simulated medians (see tie_sets)


class PairVerdict(enum.StrEnum):
    """What a pair's tests say about its first bot (``a``) and its second (``b``)."""

    OPEN = "open"  # not settled yet
    A_STRONGER = "a stronger"
    B_STRONGER = "b stronger"
    TIED = "tied"  # within the indifference of each other

    def flipped(self) -> PairVerdict:
        """The same verdict with ``a`` and ``b`` swapped."""
        swap = {
            PairVerdict.A_STRONGER: PairVerdict.B_STRONGER,
            PairVerdict.B_STRONGER: PairVerdict.A_STRONGER,
        }
        return swap.get(self, self)


def log_wealth(counts: Sequence[float], values: Sequence[float], null: float, up: bool, reach: float) -> float:
    """The log of the mixture bettor's wealth against mean ``null`` (``up``: betting that the
    mean is above it), after ``counts[j]`` sets scoring ``values[j]``; bets up to ``reach``
    times the most the null allows (1 / null up, 1 / (1 - null) down)."""
    most = (1 / null if up else 1 / (1 - null)) * min(1.0, reach)
    sign = 1.0 if up else -1.0
    logs = []
    for k in range(1, GRID + 1):
        share = most * k / GRID
        total = 0.0
        for count, value in zip(counts, values, strict=True):
            if count:
                factor = 1 + share * sign * (value - null)
                if factor <= 0:  # staked everything and lost it: this bettor is out
                    total = -math.inf
                    break
                total += count * math.log(factor)
        logs.append(total)
    top = max(logs)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(x - top) for x in logs) / GRID)


@dataclass(frozen=True)
class PairEvidence:
    """The sets a pair played: ``counts[h]`` sets in which ``a`` scored ``h`` half points
    out of ``2 * games`` (``games`` the games of a set both sat in)."""

    games: int
    counts: tuple[int, ...]

    @classmethod
    def of(cls, games: int, half_points: Sequence[int]) -> PairEvidence:
        """The evidence of sets scored ``half_points`` (each 0 to ``2 * games``) by ``a``."""
        if games < 1:
            raise ValueError(f"a set holds at least one game, not {games}")
        counts = [0] * (2 * games + 1)
        for h in half_points:
            if not 0 <= h <= 2 * games:
                raise ValueError(f"a set of {games} games scores 0 to {2 * games} half points, not {h}")
            counts[h] += 1
        return cls(games, tuple(counts))

    @property
    def sets(self) -> int:
        return sum(self.counts)

    def values(self) -> list[float]:
        """Each count's score in [0, 1]."""
        return [h / (2 * self.games) for h in range(2 * self.games + 1)]


# A league asks again after every game about pairs whose sets have not changed: remembered.
@functools.lru_cache(maxsize=4096)
def verdict(evidence: PairEvidence, indifference: float, error: float) -> PairVerdict:
    """What the four tests of ``evidence`` say, each pair claim wrong with chance at most
    ``error`` (``indifference`` in Elo, above 0)."""
    if indifference <= 0 or not 0 < error < 1:
        raise ValueError(f"a pair test needs indifference > 0 and 0 < error < 1, not {indifference}, {error}")
    if not evidence.sets:
        return PairVerdict.OPEN
    counts, values = evidence.counts, evidence.values()
    order_bar = math.log(2 / error)
    a_up = log_wealth(counts, values, 0.5, True, 1.0) >= order_bar
    b_up = log_wealth(counts, values, 0.5, False, 1.0) >= order_bar
    if a_up != b_up:
        return PairVerdict.A_STRONGER if a_up else PairVerdict.B_STRONGER
    if a_up:  # both: contradictory evidence, which more games resolve
        return PairVerdict.OPEN
    high, low = elo_to_score(indifference), elo_to_score(-indifference)
    tie_bar = math.log(1 / error)
    reach_high = TIE_REACH * (high - 0.5) * (1 - high)  # a share of 1 / (1 - high)
    reach_low = TIE_REACH * (0.5 - low) * low
    if (
        log_wealth(counts, values, high, False, reach_high) >= tie_bar
        and log_wealth(counts, values, low, True, reach_low) >= tie_bar
    ):
        return PairVerdict.TIED
    return PairVerdict.OPEN


def even_set_scores(games: int, draw: float = 0.1) -> list[float]:
    """The chance of each half-point count (0 to ``2 * games``) of one bot in a set against an
    equal one: its games independent, each won, drawn (``draw``) or lost."""
    game = [(1 - draw) / 2, draw, (1 - draw) / 2]  # 0, 1, 2 half points
    out = [1.0]
    for _ in range(games):
        nxt = [0.0] * (len(out) + 2)
        for h, p in enumerate(out):
            for g, q in enumerate(game):
                nxt[h + g] += p * q
        out = nxt
    return out


def tie_sets(indifference: float, error: float, games: int = 2, draw: float = 0.1) -> int:
    """About how many sets two equal bots play before their test calls them tied (the median).

    A pair's scores wander: its mean score is off even by some standard errors, and the tie
    test on the side it leans to needs more sets.  So the sets counted are the fewest whose
    scores, at the expected shares tilted to a mean :data:`MEDIAN_OFFSET` standard errors
    above even, reach both tie bars; that offset was fitted to simulated medians (2 bots,
    sets of 2 games: 1,330 sets at 20 Elo and 95%, simulated 1,302; 215 at 50 Elo, 218;
    396 at 50 Elo and 99.82%, 408).  Sets of 3-4 player games are taken as their games'
    independent results.  A league whose budget lets its closest pair play fewer leaves
    that pair open, or settled by the luck of an order.
    """
    if indifference <= 0 or not 0 < error < 1:
        raise ValueError(f"a pair test needs indifference > 0 and 0 < error < 1, not {indifference}, {error}")
    share = even_set_scores(games, draw)
    values = [h / (2 * games) for h in range(2 * games + 1)]
    sd = math.sqrt(sum(p * (v - 0.5) ** 2 for p, v in zip(share, values, strict=True)))
    high, low = elo_to_score(indifference), elo_to_score(-indifference)
    bar = math.log(1 / error)
    reach_high = TIE_REACH * (high - 0.5) * (1 - high)
    reach_low = TIE_REACH * (0.5 - low) * low

    def tied(sets: int) -> bool:
        theta = MEDIAN_OFFSET / (sd * math.sqrt(sets))  # tilts the mean by ~0.674 standard errors
        tilted = [p * math.exp(theta * (v - 0.5)) for p, v in zip(share, values, strict=True)]
        counts = [sets * p / sum(tilted) for p in tilted]
        return (
            log_wealth(counts, values, high, False, reach_high) >= bar
            and log_wealth(counts, values, low, True, reach_low) >= bar
        )

    lo, hi = 1, 1
    while not tied(hi):
        lo, hi = hi, hi * 2
        if hi > 10_000_000:
            return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if tied(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def running_log_wealth(
    scores: Sequence[Sequence[float]], null: float, up: bool, reach: float
) -> list[list[float]]:
    """:func:`log_wealth` after each set, for many pairs at once (simulations): ``scores[r][t]``
    is ``a``'s score in [0, 1] in set t of pair r; the result is [pair][set], computed along
    the sets in one pass."""
    import numpy as np  # a simulation's tool: the league's own look needs no numpy

    x = np.asarray(scores, dtype=np.float64)
    most = (1 / null if up else 1 / (1 - null)) * min(1.0, reach)
    shares = most * np.arange(1, GRID + 1) / GRID
    sign = 1.0 if up else -1.0
    with np.errstate(divide="ignore"):
        steps = np.log(np.maximum(1.0 + shares[None, None, :] * sign * (x[:, :, None] - null), 0.0))
    paths = np.cumsum(steps, axis=1)  # (pairs, sets, shares)
    top = np.max(paths, axis=2, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    mixed = safe[..., 0] + np.log(np.mean(np.exp(paths - safe), axis=2))
    out: list[list[float]] = np.where(np.isfinite(top[..., 0]), mixed, -np.inf).tolist()
    return out


def order_log_wealth(scores: Sequence[Sequence[float]]) -> tuple[list[list[float]], list[list[float]]]:
    """The two order tests' log-wealth after each set, for many pairs at once: ("a stronger",
    "b stronger"), each as [pair][set] (see :func:`running_log_wealth`)."""
    return running_log_wealth(scores, 0.5, True, 1.0), running_log_wealth(scores, 0.5, False, 1.0)


def tie_log_wealth(scores: Sequence[Sequence[float]], indifference: float) -> tuple[list[list[float]], list[list[float]]]:
    """The two tie tests' log-wealth after each set, for many pairs at once: ("not a ahead by
    indifference", "not b ahead by it"), each as [pair][set]."""
    high, low = elo_to_score(indifference), elo_to_score(-indifference)
    return (
        running_log_wealth(scores, high, False, TIE_REACH * (high - 0.5) * (1 - high)),
        running_log_wealth(scores, low, True, TIE_REACH * (0.5 - low) * low),
    )
