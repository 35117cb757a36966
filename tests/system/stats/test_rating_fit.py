"""The order-free TrueSkill fit: against trueskillthroughtime, and blind to the order of games.

The cases that start processes; the others are in tests/unit/stats/test_rating_fit.py.
"""

from __future__ import annotations

import pytest

from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import fit
from tests.support.rating_fit import Game, oracle


def pair_games(*counts: tuple[str, str, int]) -> list[Game]:
    """``count`` games won by the first bot of each (winner, loser, count)."""
    return [[(w, 1), (lo, 2)] for w, lo, n in counts for _ in range(n)]


@pytest.mark.parametrize(
    "played",
    [
        # Many games between the same two bots with mixed results: undamped parallel sweeps
        # overshoot more every sweep (a continuous league plays such pairs).
        pair_games(("b", "a", 36), ("a", "b", 20)),
        pair_games(
            ("b", "a", 36),
            ("a", "b", 20),
            ("d", "c", 33),
            ("c", "d", 23),
            ("a", "c", 1),
            ("c", "a", 1),
            ("c", "b", 2),
            ("d", "a", 2),
            ("d", "b", 2),
            ("a", "e", 2),
            ("b", "e", 2),
            ("c", "e", 2),
        ),
    ],
    ids=["one-pair", "two-clusters"],
)
def test_lopsided_leagues_converge_to_trueskill_through_time(played: list[Game]) -> None:
    cfg = RatingConfig()
    got = fit(played, sorted({b for g in played for b, _ in g}), cfg)
    assert got.converged
    for bot, (mu, sigma) in oracle(played, cfg).items():
        assert got.ratings[bot].mu == pytest.approx(mu, abs=0.05), bot
        assert got.ratings[bot].sigma == pytest.approx(sigma, abs=0.05), bot


