"""The standings' numbers: P(better) against the exact posterior, one order for rank and P(better),
and an Elo fit that converges or says it did not."""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import dataclass

import numpy as np
import pytest

from arena.league.game_summary import GameSummary, SeatSummary
from arena.league.rating import BatchLedger, RatingCheckpoint
from arena.league.standings import render
from arena.league.tally import Standings, Tally, better_than
from arena.stats import elo as elo_fit
from arena.stats.game_table import GameTable
from arena.stats.settings import RatingConfig
from arena.stats.sprt import elo_to_score
from arena.stats.trueskill_fit import draw_margin, fit
from arena.stats.truncated import log_cdf
from tests.support.posterior_reference import exact_better, exact_two, gibbs_better

Game = list[tuple[str, int]]


def record(wins: int, draws: int, losses: int) -> list[Game]:
    """a's wins, draws and losses against b, as 2-player games."""
    return [[("a", 1), ("b", 2)]] * wins + [[("a", 1), ("b", 1)]] * draws + [[("b", 1), ("a", 2)]] * losses


def round_robin(elo: dict[str, float], per_pair: int, seed: int) -> list[Game]:
    """Every two bots ``per_pair`` times, results drawn from their Elo (logistic, 10% draws)."""
    rng = random.Random(seed)
    games: list[Game] = []
    bots = list(elo)
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            for _ in range(per_pair):
                u, win = rng.random(), elo_to_score(elo[a] - elo[b]) - 0.05
                games.append([(a, 1), (b, 2)] if u < win else [(a, 1), (b, 1)] if u < win + 0.1 else [(a, 2), (b, 1)])
    return games


def test_log_cdf_is_the_normal_one_far_into_both_tails() -> None:
    x = np.array([-60.0, -38.0, -10.0, -1.0, 0.0, 0.5, 3.0, 9.0])
    want = []
    for v in x.tolist():
        p = 0.5 * math.erfc(-v / math.sqrt(2))
        want.append(math.log(p) if p > 1e-300 else -0.5 * v * v - math.log(-v) - 0.5 * math.log(2 * math.pi))
    assert log_cdf(x) == pytest.approx(want, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize(
    "wdl", [(36, 0, 20), (4, 0, 0), (6, 0, 0), (1, 0, 0), (3, 0, 1), (10, 2, 4), (5, 5, 3), (100, 10, 80), (0, 3, 0)]
)
def test_two_bots_p_better_is_the_exact_posterior(wdl: tuple[int, int, int]) -> None:
    result = fit(record(*wdl), ["a", "b"])
    assert result.joint is not None
    (p,) = result.joint.better_at_prior([("a", "b")])
    assert p == pytest.approx(exact_two(*wdl), abs=0.005)
    (reverse,) = result.joint.better_at_prior([("b", "a")])
    assert reverse == pytest.approx(1 - p, abs=1e-9)


def test_the_independent_gaussians_were_too_unsure_at_36_0_20() -> None:
    result = fit(record(36, 0, 20), ["a", "b"])
    assert result.joint is not None
    exact = exact_two(36, 0, 20)
    assert exact == pytest.approx(0.990, abs=0.001)
    assert better_than(result.ratings["a"], result.ratings["b"]) < exact - 0.03  # 0.948: what it showed
    assert result.joint.better_at_prior([("a", "b")])[0] == pytest.approx(exact, abs=0.005)


@pytest.mark.parametrize(
    ("elo", "per_pair", "seed"),
    [
        ({"a": 200.0, "b": 100.0, "c": 0.0, "d": 0.0, "e": -100.0}, 4, 1),
        ({"a": 20.0, "b": 10.0, "c": 0.0, "d": -10.0, "e": -20.0}, 30, 2),
        ({"a": 300.0, "b": 0.0, "c": 0.0, "d": -10.0, "e": -300.0}, 2, 3),
    ],
    ids=["graded-4-a-pair", "close-30-a-pair", "lopsided-2-a-pair"],
)
def test_five_bots_p_better_is_within_0_02_of_the_exact_posterior(
    elo: dict[str, float], per_pair: int, seed: int
) -> None:
    games = round_robin(elo, per_pair, seed)
    bots = list(elo)
    result = fit(games, bots)
    joint = result.joint
    assert joint is not None
    order = sorted(bots, key=lambda b: -result.ratings[b].mu)
    pairs = [*itertools.pairwise(order), (order[0], order[-1]), (order[1], order[3])]
    got = joint.better_at_prior(pairs)
    where = [joint.names.index(b) for b in bots]
    cov = np.linalg.inv(joint.precision)[np.ix_(where, where)]
    centre = np.array([result.ratings[b].mu for b in bots])
    exact, ess = exact_better(games, bots, pairs, centre, cov, samples=60_000, seed=seed)
    assert ess > 5_000  # the reference's own noise: below 0.007 at 2 sd
    assert got == pytest.approx(exact, abs=0.02)


# -- 3 and 4 players -----------------------------------------------------------------------


def model_league(skill: dict[str, float], players: int, per_meeting: int, seed: int) -> list[Game]:
    """Every ``players`` of the bots ``per_meeting`` times, drawn from the fit's own model:
    performances skill + N(0, beta^2), a place tied with the one above when within the draw
    margin of it (as the chain of places the fit rates)."""
    cfg, rng = RatingConfig(), random.Random(seed)
    eps = draw_margin(cfg)
    games: list[Game] = []
    for meeting in itertools.combinations(skill, players):
        for _ in range(per_meeting):
            perf = sorted(((skill[b] + rng.gauss(0, cfg.beta), b) for b in meeting), reverse=True)
            seats = [(perf[0][1], 1)]
            for (above, _), (here, bot) in itertools.pairwise(perf):
                seats.append((bot, seats[-1][1] if above - here <= eps else len(seats) + 1))
            rng.shuffle(seats)
            games.append(seats)
    return games


def fitted_pairs(games: list[Game], bots: list[str]) -> tuple[list[tuple[str, str]], list[float], np.ndarray, np.ndarray]:
    """The adjacent pairs by mu and the top against the bottom, the fit's P(better) of each,
    and the fit's mean and covariance (for the importance sampling's proposal)."""
    result = fit(games, bots)
    joint = result.joint
    assert joint is not None
    order = sorted(bots, key=lambda b: -result.ratings[b].mu)
    pairs = [*itertools.pairwise(order), (order[0], order[-1])]
    where = [joint.names.index(b) for b in bots]
    cov = np.linalg.inv(joint.precision)[np.ix_(where, where)]
    return pairs, joint.better_at_prior(pairs), np.array([result.ratings[b].mu for b in bots]), cov


# 4 bots, each three of them 8 times: 32 games, 14 of them with a tie.
THREE_PLAYER = ({"a": 29.0, "b": 27.0, "c": 25.0, "d": 23.0}, 3, 8, 1)
# 5 bots, each four of them 6 times: 30 games.
FOUR_PLAYER = ({"a": 29.0, "b": 27.0, "c": 25.0, "d": 23.0, "e": 21.0}, 4, 6, 1)
# The Gibbs sampler's effort: enough for a standard error below 0.0025 (asserted), no more.
CHAINS, SWEEPS, BURN = 200, 600, 300


@dataclass(frozen=True)
class League:
    games: list[Game]
    bots: list[str]
    pairs: list[tuple[str, str]]
    got: list[float]  # the standings' P(better) of each pair
    exact: list[float]  # the exact posterior's (3 players: importance sampling)
    ess: float


@pytest.fixture(scope="module")
def three_player() -> League:
    skill, players, per, seed = THREE_PLAYER
    games = model_league(skill, players, per, seed)
    assert sum(len({r for _, r in g}) < players for g in games) >= 5  # ties in the chain, too
    pairs, got, centre, cov = fitted_pairs(games, list(skill))
    exact, ess = exact_better(games, list(skill), pairs, centre, cov, samples=100_000, seed=seed)
    return League(games, list(skill), pairs, got, exact, ess)


def test_three_player_p_better_is_within_0_02_of_the_exact_posterior(three_player: League) -> None:
    assert three_player.ess > 10_000  # the reference's own noise: at most 0.005 (one sd)
    assert three_player.got == pytest.approx(three_player.exact, abs=0.02)


def test_four_player_p_better_is_within_0_02_of_the_sampled_posterior() -> None:
    """Against the Monte-Carlo reference, not an exact one: a 4-player game's likelihood is a
    trivariate normal box probability, a two-dimensional integral for each game and each
    importance sample (some 10^9 normal cdfs for 30 games at the samples a 0.005 precision
    needs, minutes of numpy); the Gibbs sampler draws the performances instead (seconds),
    and is checked against the exact references in the next test."""
    skill, players, per, seed = FOUR_PLAYER
    games = model_league(skill, players, per, seed)
    pairs, got, _centre, _cov = fitted_pairs(games, list(skill))
    sampled, se = gibbs_better(games, list(skill), pairs, chains=CHAINS, sweeps=SWEEPS, burn=BURN, seed=seed)
    assert max(se) < 0.0025  # the reference's own noise: 0.005 at 2 sd
    assert got == pytest.approx(sampled, abs=0.02)


def test_the_sampled_posterior_is_the_exact_one(three_player: League) -> None:
    # 2 players (draws are ties of the chain): the grid.
    for wdl in [(10, 2, 4), (5, 5, 3)]:
        (p,), (se,) = gibbs_better(
            record(*wdl), ["a", "b"], [("a", "b")], chains=CHAINS, sweeps=SWEEPS, burn=BURN, seed=2
        )
        assert se < 0.0025 and p == pytest.approx(exact_two(*wdl), abs=0.006), wdl
    # 3 players, with ties: the one-dimensional integral.  (Without moving a tied block as
    # one, the sampler came out 0.03 off here: ties held it back.)
    league = three_player
    sampled, _se = gibbs_better(
        league.games, league.bots, league.pairs, chains=CHAINS, sweeps=SWEEPS, burn=BURN, seed=3
    )
    assert sampled == pytest.approx(league.exact, abs=0.01)


def summary(index: int, seats: Game) -> GameSummary:
    return GameSummary(
        f"g{index}", index, index, len(seats), 10, 1.0, tuple(SeatSummary(n, r, 8, None, True, False) for n, r in seats)
    )


def standings(games: list[Game], bots: list[str], cfg: RatingConfig | None = None) -> Standings:
    tally, ledger = Tally(), BatchLedger(bots, cfg)
    for i, seats in enumerate(games):
        tally.add(summary(i, seats))
        ledger.add(i, seats, i)
    ratings = ledger.ratings()
    return tally.standings(bots, ratings, cfg, ledger.checkpoint())


def test_a_newcomer_with_few_games_and_a_higher_mu_ranks_above_and_p_better_agrees() -> None:
    # "old" has played 200 games and wins 60%; "new" won 5 of 6 against the same opponent.
    rng = random.Random(5)
    games = [[("old", 1), ("base", 2)] if rng.random() < 0.6 else [("base", 1), ("old", 2)] for _ in range(200)]
    games += [[("new", 1), ("base", 2)]] * 5 + [[("base", 1), ("new", 2)]]
    st = standings(games, ["old", "new", "base"])
    rows = {r.bot: r for r in st.rows}
    assert rows["new"].mu > rows["old"].mu and rows["new"].rating < rows["old"].rating
    assert [r.bot for r in st.rows] == ["new", "old", "base"]  # by mu, not by mu - 3 sigma
    top = st.rows[0]
    assert top.better_than_next is not None and 0.5 <= top.better_than_next < 0.95 and top.close
    data = json.loads(render(st, "json"))
    assert data["format"] == 5 and data["sort"].startswith("mu") and data["model"]["better"] == "joint"


@pytest.mark.parametrize("seed", range(6))
def test_rank_and_p_better_never_contradict_in_simulated_round_robins(seed: int) -> None:
    rng = random.Random(seed)
    elo = {f"b{i}": rng.gauss(0, 60) for i in range(6)}
    st = standings(round_robin(elo, rng.choice([1, 2, 6]), seed), list(elo))
    for above, below in zip(st.rows, st.rows[1:], strict=False):
        assert above.mu >= below.mu
        assert above.better_than_next is not None
        # A P(better) below 0.5 (the row below likelier the stronger) only at a dead heat, marked ?.
        assert above.better_than_next >= 0.49 and (above.close or above.better_than_next >= 0.95)


def test_a_checkpoint_without_joint_p_better_or_elo_convergence_is_refitted() -> None:
    st_games = record(6, 1, 3)
    ledger = BatchLedger(["a", "b"])
    for i, seats in enumerate(st_games):
        ledger.add(i, seats, i)
    ledger.ratings()
    saved = ledger.checkpoint().to_dict()
    back = RatingCheckpoint.from_dict(json.loads(json.dumps(saved)))
    assert back is not None and back.better == ledger.checkpoint().better and back.elo_converged is True
    for key in ("better", "elo_fit"):
        old = dict(saved)
        del old[key]
        assert RatingCheckpoint.from_dict(old) is None, key  # written before it was kept: fitted again


# -- the Elo fit --------------------------------------------------------------------------------


def elo_table(elo: dict[str, float], boards: int, seed: int) -> GameTable:
    rng = random.Random(seed)
    table = GameTable()
    names = list(elo)
    for board in range(boards):
        a, b = rng.sample(names, 2)
        for x, y in ((a, b), (b, a)):
            u, win = rng.random(), elo_to_score(elo[x] - elo[y]) - 0.05
            table.add([(x, 1), (y, 2)] if u < win else [(x, 1), (y, 1)] if u < win + 0.1 else [(x, 2), (y, 1)], board)
    return table


LOPSIDED = {"a": 0.0, "b": 250.0, "c": 500.0, "d": 750.0, "e": 1000.0}


def test_the_elo_fit_converges_in_a_few_newton_steps_to_the_likelihoods_maximum() -> None:
    table = elo_table(LOPSIDED, 400, 7)
    got = elo_fit.fit_elo(table)
    assert got.converged and got.iterations <= 20
    # MM (the many-bots path) run to a far tighter tolerance finds the same maximum.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(elo_fit, "NEWTON_BOTS", 0)
        mp.setattr(elo_fit, "ELO_TOLERANCE", 1e-9)
        mp.setattr(elo_fit, "MM_SWEEPS", 100_000)
        slow = elo_fit.fit_elo(table)
    assert slow.converged
    for name, e in got.elo.items():
        assert e.elo == pytest.approx(slow.elo[name].elo, abs=1e-3)


def test_an_elo_fit_stopped_at_its_limit_says_so_in_the_standings(monkeypatch: pytest.MonkeyPatch) -> None:
    games = round_robin({"a": 400.0, "b": 0.0, "c": -400.0}, 8, 3)
    fine = standings(games, ["a", "b", "c"])
    assert fine.elo_converged is True and "Elo fit stopped" not in render(fine, "plain")
    monkeypatch.setattr(elo_fit, "NEWTON_STEPS", 1)
    stopped = standings(games, ["a", "b", "c"])
    assert (stopped.elo_converged, stopped.elo_iterations) == (False, 1)
    for fmt in ("plain", "github", "html"):
        assert "WARNING: the Elo fit stopped at its limit of 1 steps without converging" in render(stopped, fmt)
    assert json.loads(render(stopped, "json"))["model"]["elo"] == {"converged": False, "iterations": 1}
    monkeypatch.setattr(elo_fit, "NEWTON_BOTS", 0)  # the MM path (many bots) reports alike
    monkeypatch.setattr(elo_fit, "MM_SWEEPS", 3)
    assert standings(games, ["a", "b", "c"]).elo_converged is False


def test_bots_that_never_all_met_still_get_an_elo() -> None:
    # Two groups that never met each other, and a bot that played nobody.
    table = GameTable(["idle"])
    for board in range(30):
        table.add([("a", 1), ("b", 2)] if board % 3 else [("b", 1), ("a", 2)], board)
        table.add([("c", 1), ("d", 2)] if board % 4 else [("d", 1), ("c", 2)], 100 + board)
    got = elo_fit.fit_elo(table)
    assert got.converged
    assert got.elo["a"].elo > got.elo["b"].elo and got.elo["c"].elo > got.elo["d"].elo
    assert all(math.isfinite(got.elo[n].low) for n in "abcd") and math.isinf(got.elo["idle"].low)


def test_standings_ratings_are_unchanged_by_the_joint_posterior() -> None:
    # mu and sigma are the fit's own: the joint posterior only changes P(better).
    games = round_robin({"a": 100.0, "b": 0.0, "c": -100.0}, 5, 9)
    st = standings(games, ["a", "b", "c"])
    fitted = fit(games, ["a", "b", "c"]).ratings
    for row in st.rows:
        assert (row.mu, row.sigma) == pytest.approx((fitted[row.bot].mu, fitted[row.bot].sigma), abs=1e-9)
