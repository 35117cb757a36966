"""How games are rated: the TrueSkill environment and the rating model (a value the fits take)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class RatingModel(enum.StrEnum):
    """How games are rated (a StrEnum: stored and printed as its value)."""

    BATCH = "batch"  # every game fitted at once: the order of games changes nothing
    SEQUENTIAL = "sequential"  # classic TrueSkill, game after game in schedule order


RATING_MODELS = tuple(m.value for m in RatingModel)


@dataclass(frozen=True)
class RatingConfig:
    """The TrueSkill environment (the trueskill package's defaults) and how games are rated.

    ``model`` is ``batch`` (every game fitted at once: the order of games changes
    nothing; tau is unused) or ``sequential`` (classic TrueSkill, game after game in
    schedule order, with tau added between games: for a league that never ends).
    """

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10
    model: RatingModel = RatingModel.BATCH
