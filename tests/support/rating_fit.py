"""The reference the TrueSkill fit is held to: trueskillthroughtime, run on the same games."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.stats.settings import RatingConfig

ttt = pytest.importorskip("trueskillthroughtime")


Game = list[tuple[str, int]]


def oracle(games: Sequence[Game], cfg: RatingConfig) -> dict[str, tuple[float, float]]:
    """trueskillthroughtime's fit with every game in one time slice and no drift (gamma 0).

    Each game goes in best first: trueskillthroughtime 1.1.0 gives the messages of a
    game of 3 or more teams to the wrong players when its results are not in that
    order (it indexes them by the sorting permutation instead of its inverse).
    """
    ordered = [sorted(g, key=lambda s: s[1]) for g in games]
    history = ttt.History(
        [[[b] for b, _ in g] for g in ordered],
        [[-rank for _, rank in g] for g in ordered],
        times=[0] * len(ordered),
        mu=cfg.mu,
        sigma=cfg.sigma,
        beta=cfg.beta,
        gamma=0.0,
        p_draw=cfg.draw_probability,
    )
    history.convergence(verbose=False)
    return {b: (curve[-1][1].mu, curve[-1][1].sigma) for b, curve in history.learning_curves().items()}
