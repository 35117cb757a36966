"""TrueSkill ratings over finished games, in schedule order.

Every game is a free-for-all with the game's ranking: ties are kept, and a
forfeited player is already ranked below every other.  Games are rated in
schedule order, never completion order, so the same seed with deterministic
bots gives the same ratings at any concurrency.  The environment is explicit
(never the trueskill package's global one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import trueskill

from .config import RatingConfig
from .record import GameRecord


def environment(cfg: RatingConfig) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=cfg.mu, sigma=cfg.sigma, beta=cfg.beta, tau=cfg.tau, draw_probability=cfg.draw_probability
    )


def rate_games(
    records: Iterable[GameRecord], bots: Sequence[str], cfg: RatingConfig | None = None
) -> dict[str, trueskill.Rating]:
    """Each bot's rating after ``records`` (which must be in schedule order)."""
    env = environment(cfg or RatingConfig())
    ratings = {b: env.create_rating() for b in bots}
    for rec in records:
        rate_game(env, ratings, rec)
    return ratings


def rate_game(env: trueskill.TrueSkill, ratings: dict[str, trueskill.Rating], rec: GameRecord) -> None:
    """Update ``ratings`` (by bot name) in place with one game's ranking."""
    names = [s.name for s in rec.seats]
    for n in names:
        ratings.setdefault(n, env.create_rating())
    if len(set(names)) != len(names):
        return  # a bot against itself teaches nothing about its rating
    groups = [(ratings[n],) for n in names]
    rated = env.rate(groups, ranks=[r - 1 for r in rec.ranking])
    for n, (r,) in zip(names, rated, strict=True):
        ratings[n] = r


def conservative(r: trueskill.Rating) -> float:
    """mu - 3 sigma: the rating the bot is 99% likely to exceed."""
    return float(r.mu - 3 * r.sigma)
