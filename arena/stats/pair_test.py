"""A sequential test that settles one pair of bots: ordered, or within ``indifference`` Elo.

A continuous league looks at its standings after every set of games and stops once
they are sure.  A fixed-sample probability (P(better) at 95%) checked again and
again is not sure at 95%: two equal bots cross it, sooner or later, in a large share
of leagues.  A sequential probability ratio test may be looked at after every
observation: Wald's bounds hold whatever the stopping time.  So each pair gets two
of them on the pair's score per set of games (the generalized SPRT of
:mod:`arena.stats.sprt`; its normal approximation picks the sets worth the exact
ratio, which alone decides):

- *up*: Elo difference 0 against +``indifference`` (the first bot is the stronger),
- *down*: 0 against -``indifference`` (the second is).

The pair is **ordered** when one of them accepts its alternative, and **tied**
("within ``indifference`` Elo of each other") when both accept 0.  Whatever the true
difference, the chance of the wrong order is at most ``wrong_order`` (each
direction gets half; a direction's error is largest at a true difference of 0, and
smaller on the side it does not claim); the chance of "tied" when the two are
``indifference`` or more apart is at most ``false_tie``.  A test that has decided
stays decided: later games do not reopen it (that is what keeps the error rates).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.stats.sprt import bounds, elo_to_score, llr

# How far inside the bounds the normal approximation may stand in for the exact ratio.
NEAR = 1.0


class PairVerdict(enum.StrEnum):
    """What a pair's test says about its first bot (``a``) and its second (``b``)."""

    OPEN = "open"  # not settled yet
    A_STRONGER = "a stronger"
    B_STRONGER = "b stronger"
    TIED = "tied"  # within the indifference of each other


class Direction(enum.StrEnum):
    """One of the two SPRTs' state."""

    RUNNING = "running"
    ZERO = "zero"  # accepted 0: not the alternative's side
    ALTERNATIVE = "alternative"  # accepted +indifference (up) or -indifference (down)


def set_values(games: int) -> tuple[float, ...]:
    """The scores a set of ``games`` games can give one bot against the other: its points
    (win 1, draw 1/2) over the games, in half points: 0, 1/(2 games), ..., 1."""
    return tuple(j / (2 * games) for j in range(2 * games + 1))


@dataclass
class PairTest:
    """The two sequential tests of one pair, fed one set's score at a time.

    ``games`` is the games per set the pair shares (2 for a 2-player league: the
    board pair, whose counts are the pentanomial); a set's score is ``a``'s half
    points against ``b`` in it (0 to 2 ``games``).
    """

    games: int
    indifference: float  # Elo
    wrong_order: float  # the most the test may order the pair the wrong way round
    false_tie: float  # the most it may call two bots ``indifference`` apart tied
    counts: list[int] = field(init=False)
    up: Direction = field(init=False, default=Direction.RUNNING)
    down: Direction = field(init=False, default=Direction.RUNNING)
    sets: int = field(init=False, default=0)
    decided_at: int | None = field(init=False, default=None)  # sets when it was settled

    def __post_init__(self) -> None:
        if self.games < 1 or self.indifference <= 0:
            raise ValueError(
                f"a pair test needs games >= 1 and indifference > 0, not {self.games}, {self.indifference}"
            )
        self.counts = [0] * (2 * self.games + 1)
        self._values = set_values(self.games)
        self._bounds = bounds(self.wrong_order / 2, self.false_tie)  # (accept 0, accept alternative)

    @property
    def verdict(self) -> PairVerdict:
        if self.up is Direction.ALTERNATIVE:
            return PairVerdict.A_STRONGER
        if self.down is Direction.ALTERNATIVE:
            return PairVerdict.B_STRONGER
        if self.up is Direction.ZERO and self.down is Direction.ZERO:
            return PairVerdict.TIED
        return PairVerdict.OPEN

    def add(self, half_points: int) -> PairVerdict:
        """One more set in which ``a`` scored ``half_points`` against ``b``; the verdict after it."""
        if not 0 <= half_points <= 2 * self.games:
            raise ValueError(
                f"a set of {self.games} games scores 0 to {2 * self.games} half points, not {half_points}"
            )
        self.counts[half_points] += 1
        self.sets += 1
        if self.verdict is not PairVerdict.OPEN:
            return self.verdict
        lower, upper = self._bounds
        if self.up is Direction.RUNNING:
            self.up = _step(self._llr(self.indifference), lower, upper)
        if self.down is Direction.RUNNING and self.up is not Direction.ALTERNATIVE:
            self.down = _step(self._llr(-self.indifference), lower, upper)
        if self.verdict is not PairVerdict.OPEN:
            self.decided_at = self.sets
        return self.verdict

    def _llr(self, elo1: float) -> float:
        """The GSPRT's log-likelihood ratio of ``elo1`` against 0 where it could decide.

        The exact ratio costs a root-finding per call; its normal approximation is a few
        sums.  Far inside the bounds (by NEAR) the approximation is returned, since no
        decision follows from either; else the exact ratio, which alone decides.  (The
        approximation alone misleads with few sets: three sets alike have no variance.)
        """
        lower, upper = self._bounds
        approx = normal_llr(self.counts, self._values, 0.0, elo1)
        if approx is not None and lower + NEAR < approx < upper - NEAR:
            return approx
        return llr(self.counts, 0.0, elo1, self._values)


def normal_llr(counts: Sequence[int], values: Sequence[float], elo0: float, elo1: float) -> float | None:
    """The log-likelihood ratio of elo1 against elo0 for these outcome counts, the scores
    taken as normal with the observed variance: n (s1 - s0) (2 mean - s0 - s1) / (2 var).

    None until the outcomes vary (every set alike: the approximation has no scale).
    """
    n = sum(counts)
    if n < 2:
        return None
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    if var <= 0 or not math.isfinite(var):
        return None
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def _step(value: float, lower: float, upper: float) -> Direction:
    if value >= upper:
        return Direction.ALTERNATIVE
    if value <= lower:
        return Direction.ZERO
    return Direction.RUNNING


def run_pair_test(
    scores: Sequence[int], games: int, indifference: float, wrong_order: float, false_tie: float
) -> PairTest:
    """A pair test fed ``scores`` (half points per set) in order, stopping at its decision."""
    test = PairTest(games, indifference, wrong_order, false_tie)
    for s in scores:
        if test.add(s) is not PairVerdict.OPEN:
            break
    return test
