"""A league's error spent over its whole life (issue 33, item 3): however many bots arrive, the
errors of all its pair tests add up to at most 1 - confidence, so a ladder that takes version
after version never shows a wrong order with more than that chance."""

from __future__ import annotations

import math
import random

import pytest

from arena.stats.pair_test import (
    TIE_REACH,
    PairEvidence,
    PairVerdict,
    log_wealth,
    order_log_wealth,
    tie_log_wealth,
    verdict,
)
from arena.stats.spending import FIRST_SHARE, arrival_error, spent
from arena.stats.sprt import elo_to_score

SET_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a set of 2 games: a's half points / 4
EVEN_SET = (0.2025, 0.09, 0.415, 0.09, 0.2025)  # two equal bots, 10% draws


@pytest.mark.parametrize("first", [1, 2, 8])
def test_the_errors_of_every_pair_ever_add_up_to_at_most_one_minus_confidence(first: int) -> None:
    assert spent(0.95, first, 10_000) <= 0.05
    assert spent(0.95, first, 10_000) > 0.05 * 0.99  # and nearly all of it is spent


def test_the_first_rosters_pairs_split_their_share_equally_and_arrivals_get_less_and_less() -> None:
    assert arrival_error(0.95, 8, 7) == pytest.approx(0.05 * FIRST_SHARE / 28)
    assert arrival_error(0.95, 8, 3) == arrival_error(0.95, 8, 7)
    first, tenth = arrival_error(0.95, 8, 8), arrival_error(0.95, 8, 17)
    assert first == pytest.approx(0.05 * (1 - FIRST_SHARE) / 2 / 8)
    assert tenth < first


@pytest.mark.parametrize(("confidence", "first", "later"), [(1.0, 8, 9), (0.95, 8, 0)])
def test_bad_arguments_are_refused(confidence: float, first: int, later: int) -> None:
    with pytest.raises(ValueError, match=r"confidence|later bot"):
        arrival_error(confidence, first, later)


def test_the_running_wealth_is_the_pair_tests_own() -> None:
    rng = random.Random(5)
    scores = [rng.choices(range(5), EVEN_SET, k=40) for _ in range(3)]
    up, down = order_log_wealth([[SET_SCORES[h] for h in row] for row in scores])
    for r, row in enumerate(scores):
        for t in (0, 9, 39):
            counts = tuple(row[: t + 1].count(h) for h in range(5))
            got = verdict(PairEvidence(2, counts), 20.0, 0.5)
            bar = math.log(2 / 0.5)
            a_up, b_up = up[r][t] >= bar, down[r][t] >= bar
            if a_up != b_up:
                assert got is (PairVerdict.A_STRONGER if a_up else PairVerdict.B_STRONGER)
            else:
                assert got in (PairVerdict.OPEN, PairVerdict.TIED)
    high, low = elo_to_score(20.0), elo_to_score(-20.0)
    not_a, not_b = tie_log_wealth([[SET_SCORES[h] for h in row] for row in scores], 20.0)
    for r, row in enumerate(scores):
        counts = [row.count(h) for h in range(5)]
        assert not_a[r][-1] == pytest.approx(
            log_wealth(counts, SET_SCORES, high, False, TIE_REACH * (high - 0.5) * (1 - high))
        )
        assert not_b[r][-1] == pytest.approx(log_wealth(counts, SET_SCORES, low, True, TIE_REACH * (0.5 - low) * low))


def ladder_ever_wrong(rng: random.Random, errors: list[float], sets: int) -> bool:
    """Whether any of a ladder's pairs of equal bots (one error each) is ever ordered within
    ``sets`` sets, its tests looked at after every set: any order of equal bots is wrong."""
    draws = [[SET_SCORES[h] for h in rng.choices(range(5), EVEN_SET, k=sets)] for _ in errors]
    up, down = order_log_wealth(draws)
    return any(
        max(max(u), max(d)) >= math.log(2 / e) for u, d, e in zip(up, down, errors, strict=True)
    )


def test_a_ladder_of_twenty_versions_keeps_its_error_where_fresh_tests_per_roster_did_not() -> None:
    # 8 equal bots, then 20 versions each playing the 7 others: 168 pairs over the ladder's life.
    # At confidence 0.7 (so that errors show in few ladders), 40 sets a pair, 60 ladders.
    confidence, bots, versions = 0.7, 8, 20
    fresh = [(1 - confidence) / 28] * (28 + versions * (bots - 1))
    by_arrival = [arrival_error(confidence, bots, j) for j in range(1, bots) for _ in range(j)]
    by_arrival += [arrival_error(confidence, bots, bots + v) for v in range(versions) for _ in range(bots - 1)]
    assert sum(by_arrival) <= 1 - confidence < sum(fresh)
    rng = random.Random(33)
    before = sum(ladder_ever_wrong(rng, fresh, 40) for _ in range(60))
    after = sum(ladder_ever_wrong(rng, by_arrival, 40) for _ in range(60))
    assert after / 60 <= 1 - confidence
    assert before > 3 * after  # seeded: 20 of 60 ladders before, 3 after
