"""The pair test of a continuous league: ordered, tied within the indifference, or open;
valid though it is looked at after every set."""

from __future__ import annotations

import random

import pytest

from arena.stats.pair_test import PairEvidence, PairVerdict, even_set_scores, tie_sets, verdict
from arena.stats.sprt import elo_to_score


def sets_of(elo: float, rng: random.Random, n: int, draw: float = 0.1) -> list[int]:
    """``n`` two-game sets of a bot ``elo`` stronger than the other: its half points in each."""
    win = elo_to_score(elo) - draw / 2
    out = []
    for _ in range(n):
        half = 0
        for _game in range(2):
            u = rng.random()
            half += 2 if u < win else 1 if u < win + draw else 0
        out.append(half)
    return out


def test_a_pair_that_wins_every_set_is_ordered_after_a_few() -> None:
    verdicts = [verdict(PairEvidence.of(2, [4] * n), 20, 0.05) for n in range(1, 12)]
    first = verdicts.index(PairVerdict.A_STRONGER)
    assert 3 <= first <= 10  # a few sets: 4-0 is no proof, eight straight set wins are
    assert verdicts[:first] == [PairVerdict.OPEN] * first
    assert set(verdicts[first:]) == {PairVerdict.A_STRONGER}
    # The other way round, and with the bots swapped.
    assert verdict(PairEvidence.of(2, [0] * (first + 1)), 20, 0.05) is PairVerdict.B_STRONGER
    assert PairVerdict.A_STRONGER.flipped() is PairVerdict.B_STRONGER
    assert PairVerdict.TIED.flipped() is PairVerdict.TIED


def test_a_stricter_error_asks_for_more_sets() -> None:
    def sets_to_order(error: float) -> int:
        return next(n for n in range(1, 100) if verdict(PairEvidence.of(2, [4] * n), 20, error) != "open")

    assert sets_to_order(0.05) < sets_to_order(0.005) < sets_to_order(0.0005)


def test_even_sets_tie_only_after_many_and_a_wider_indifference_ties_sooner() -> None:
    even = [1, 3] * 10 + [2] * 20  # level on points: no order
    assert verdict(PairEvidence.of(2, even), 20, 0.05) is PairVerdict.OPEN  # 40 sets prove nothing yet
    assert verdict(PairEvidence.of(2, even * 50), 20, 0.05) is PairVerdict.TIED
    wide = next(k for k in range(1, 60) if verdict(PairEvidence.of(2, even * k), 150, 0.05) == "tied")
    narrow = next(k for k in range(1, 60) if verdict(PairEvidence.of(2, even * k), 20, 0.05) == "tied")
    assert wide < narrow


def test_a_clear_gap_is_never_called_tied() -> None:
    rng = random.Random(3)
    sets = sets_of(300, rng, 400)
    seen = {verdict(PairEvidence.of(2, sets[:n]), 20, 0.05) for n in range(1, 400, 7)}
    assert PairVerdict.TIED not in seen and PairVerdict.B_STRONGER not in seen
    assert PairVerdict.A_STRONGER in seen


def test_equal_bots_looked_at_after_every_set_are_ordered_at_most_error_of_the_time() -> None:
    # Looked at after every set (what a continuous league does), the error still holds.
    error, runs, most_sets = 0.2, 40, 80
    ordered = 0
    for run in range(runs):
        sets = sets_of(0, random.Random(run), most_sets)
        for n in range(1, most_sets + 1):
            found = verdict(PairEvidence.of(2, sets[:n]), 20, error)
            if found in (PairVerdict.A_STRONGER, PairVerdict.B_STRONGER):
                ordered += 1
                break
    assert ordered / runs <= error


@pytest.mark.parametrize(
    "games, halves, wanted",
    [
        (0, [], "a set holds at least one game, not 0"),
        (2, [5], "a set of 2 games scores 0 to 4 half points, not 5"),
        (1, [-1], "a set of 1 games scores 0 to 2 half points, not -1"),
    ],
)
def test_bad_evidence_is_refused_with_what_was_wrong(games: int, halves: list[int], wanted: str) -> None:
    with pytest.raises(ValueError, match=wanted):
        PairEvidence.of(games, halves)


@pytest.mark.parametrize("indifference, error", [(0, 0.05), (-5, 0.05), (20, 0), (20, 1)])
def test_bad_settings_are_refused(indifference: float, error: float) -> None:
    with pytest.raises(ValueError, match="indifference > 0 and 0 < error < 1"):
        verdict(PairEvidence.of(2, [4]), indifference, error)


def test_no_sets_say_nothing() -> None:
    assert verdict(PairEvidence.of(2, []), 20, 0.05) is PairVerdict.OPEN


def test_the_sets_a_tie_needs_are_the_median_a_seeded_simulation_measures() -> None:
    share = even_set_scores(2)
    assert sum(share) == pytest.approx(1.0)
    rng = random.Random(33)
    taken = []
    for _ in range(40):
        counts = [0] * 5
        sets = 0
        while verdict(PairEvidence(2, tuple(counts)), 50.0, 0.05) is PairVerdict.OPEN:
            counts[rng.choices(range(5), share)[0]] += 1
            sets += 1
        taken.append(sets)
    median = sorted(taken)[len(taken) // 2]
    assert tie_sets(50.0, 0.05) == pytest.approx(median, rel=0.15)
    # The default league's pair: 2 bots, 95%, 20 Elo needs some 2,600 games (sets of 2), more
    # than the default max_games of 2,000: the run warns of it.
    assert 2 * tie_sets(20.0, 0.05) > 2000
