"""A league's error spent over its whole life, bots arriving one after another (alpha-spending).

A continuous league settles each pair of bots by an anytime-valid test with its own error
(:mod:`arena.stats.pair_test`); the chance that any test of the league ever orders a pair
wrongly (or ties two bots far apart) is at most the sum of their errors.  Split 1 - confidence
over the pairs of the bots present, as a league that never grows may, and every bot that
arrives later (a ladder's new version) brings new pairs with errors of their own: with 8
bots the sum grows by about 2 (1 - confidence) / 8 a version, to some 30% after 20.

Here the error is spent by arrival.  Bots are numbered in the order they joined (0, 1, ...;
retired ones keep their number), and the league's *first roster* is the bots it began with.
The pairs among the first roster share :data:`FIRST_SHARE` of 1 - confidence equally
(Bonferroni over them); the k-th bot to arrive after them (k = 1, 2, ...), numbered j, gets
(1 - FIRST_SHARE) (1 - confidence) / (k (k + 1)) for its j pairs with the bots before it,
equally.  The shares add up to at most 1 - confidence however many bots ever arrive, and each
pair's error is fixed when its later bot arrives, before any of its games: so the chance that
the league *ever* shows a pair in the wrong order, over its whole life, is at most
1 - confidence.
"""

from __future__ import annotations

# The share of the error the first roster's pairs split.  A league that never grows pays for
# the arrivals it might have had: its tests ask log(1 / 0.8) = 0.22 more of their ~7-10 nats
# of evidence (a few % more games); arrivals get the rest, 1/2, 1/6, 1/12 ... of it.
FIRST_SHARE = 0.8


def arrival_error(confidence: float, first_roster: int, later: int) -> float:
    """The error of the test of a pair whose later bot is number ``later`` (0-based, in the order
    bots joined), in a league whose first ``first_roster`` bots were there from the start."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if later < 1 or first_roster < 0:
        raise ValueError(f"a pair's later bot is number 1 or more, not {later} (first roster {first_roster})")
    total = 1 - confidence
    if later < first_roster:
        return total * FIRST_SHARE / (first_roster * (first_roster - 1) // 2)
    k = later - max(first_roster, 1) + 1  # the k-th arrival after the first roster
    rest = 1 - FIRST_SHARE if first_roster >= 2 else 1.0  # a first roster of one has no pair
    return total * rest / (k * (k + 1)) / later


def spent(confidence: float, first_roster: int, bots: int) -> float:
    """The error spent on every pair of a league whose ``bots`` arrived in turn (for tests and docs)."""
    return sum(arrival_error(confidence, first_roster, j) * j for j in range(1, bots))
