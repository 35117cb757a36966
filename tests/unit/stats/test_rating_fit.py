"""The order-free TrueSkill fit: against trueskillthroughtime, and blind to the order of games."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.rating import RatingCheckpoint, make_ledger
from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import fit
from tests.support.rating_fit import Game, oracle


def league(seed: int, players: int, games: int, bots: int = 5, ties: float = 0.1) -> list[Game]:
    """Games between bots of random strength; some places shared."""
    rng = random.Random(seed)
    names = [f"b{i}" for i in range(bots)]
    strength = {b: rng.gauss(0, 1.5) for b in names}
    out = []
    for _ in range(games):
        seated = rng.sample(names, players)
        order = sorted(seated, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
        rank = {b: i + 1 for i, b in enumerate(order)}
        if rng.random() < ties:
            tied = rng.randrange(players - 1)
            rank[order[tied + 1]] = rank[order[tied]]
        out.append([(b, rank[b]) for b in seated])
    return out


@pytest.mark.parametrize(
    ("players", "games", "seed"), [(2, 60, 1), (2, 30, 2), (3, 40, 3), (4, 40, 4), (4, 25, 5)]
)
def test_the_fit_agrees_with_trueskill_through_time(players: int, games: int, seed: int) -> None:
    cfg = RatingConfig(mu=25.0 + seed)
    played = league(seed, players, games)
    got = fit(played, [f"b{i}" for i in range(5)], cfg)
    want = oracle(played, cfg)
    assert got.converged
    for bot, (mu, sigma) in want.items():
        assert got.ratings[bot].mu == pytest.approx(mu, abs=0.05), bot
        assert got.ratings[bot].sigma == pytest.approx(sigma, abs=0.05), bot
    assert sorted(want, key=lambda b: -want[b][0]) == sorted(want, key=lambda b: -got.ratings[b].mu)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shuffling_the_games_changes_no_rating(players: int) -> None:
    played = league(players, players, 200, bots=6)
    bots = [f"b{i}" for i in range(6)]
    first = fit(played, bots)
    rng = random.Random(9)
    for _ in range(3):
        # Shuffled games, and shuffled seats in each game: identical to the last bit.
        shuffled = [rng.sample(g, len(g)) for g in rng.sample(played, len(played))]
        assert fit(shuffled, bots).ratings == first.ratings


def test_the_fit_is_not_the_sequential_rating_and_the_sequential_one_depends_on_order() -> None:
    played = league(7, 4, 60)
    bots = [f"b{i}" for i in range(5)]
    sequential = RatingConfig(model="sequential")

    def rate(games: Sequence[Game], cfg: RatingConfig) -> dict[str, float]:
        ledger = make_ledger(bots, cfg)
        for i, g in enumerate(games):
            ledger.add(i, g)
        return {b: r.mu for b, r in ledger.ratings().items()}

    reversed_games = played[::-1]
    assert rate(played, sequential) != rate(reversed_games, sequential)
    assert rate(played, RatingConfig()) == rate(reversed_games, RatingConfig())


def test_a_bot_without_games_keeps_the_prior_and_self_play_teaches_nothing() -> None:
    cfg = RatingConfig()
    got = fit([[("a", 1), ("a", 2)], [("a", 1), ("b", 2)]], ["a", "b", "idle"], cfg)
    alone = fit([[("a", 1), ("b", 2)]], ["a", "b", "idle"], cfg)
    assert got.ratings == alone.ratings
    assert (got.ratings["idle"].mu, got.ratings["idle"].sigma) == (cfg.mu, cfg.sigma)
    assert got.ratings["a"].mu > cfg.mu > got.ratings["b"].mu


def test_a_fit_is_fast_enough_for_a_league() -> None:
    """Not a time: the number of sweeps stays small on a large, lopsided league."""
    result = fit(league(11, 2, 3000, bots=4, ties=0.0), [f"b{i}" for i in range(4)])
    assert result.converged and result.sweeps < 150


def test_a_four_player_league_of_few_bots_converges_in_few_sweeps() -> None:
    """Its overall level used to creep towards the prior's for 137 sweeps (5,000 games, 5 bots)."""
    bots = [f"b{i}" for i in range(5)]
    result = fit(league(405, 4, 2000), bots)
    assert result.converged and result.sweeps < 60
    # Where it ends is the fixed point: one more sweep from there moves nothing.
    assert fit(league(405, 4, 2000), bots, max_sweeps=result.sweeps + 20).ratings == result.ratings


def test_repeated_games_weigh_as_many_games_as_trueskill_through_time_counts() -> None:
    """Identical games are iterated once and counted as many: the oracle iterates every copy."""
    distinct = league(12, 4, 4)
    played = [g for g in distinct for _ in range(10)] + league(13, 4, 3)
    cfg = RatingConfig()
    got = fit(played, [f"b{i}" for i in range(5)], cfg)
    for bot, (mu, sigma) in oracle(played, cfg).items():
        assert got.ratings[bot].mu == pytest.approx(mu, abs=0.05), bot
        assert got.ratings[bot].sigma == pytest.approx(sigma, abs=0.05), bot


@pytest.mark.parametrize(("games", "share"), [(10, 0.9), (60, 0.9), (60, 0.6), (20, 1.0)])
def test_two_bots_with_many_games_between_them_converge_to_the_oracle(games: int, share: float) -> None:
    """Parallel updates of many games between two bots used to swing further each sweep
    (a league of two bots ended at mu -8.6 for the one that won 9 games in 10, instead of 29.3)."""
    rng = random.Random(1)
    played = [[("a", 1), ("b", 2)] if rng.random() < share else [("a", 2), ("b", 1)] for _ in range(games)]
    cfg = RatingConfig()
    got = fit(played, ["a", "b"], cfg)
    assert got.converged
    for bot, (mu, sigma) in oracle(played, cfg).items():
        assert got.ratings[bot].mu == pytest.approx(mu, abs=0.05), bot
        assert got.ratings[bot].sigma == pytest.approx(sigma, abs=0.05), bot


def test_leagues_that_never_meet_each_keep_their_own_level() -> None:
    """Bots in separate groups (no game links them): each group's level is fitted apart."""
    rng = random.Random(1)
    played = []
    for _ in range(60):
        played.append([("a", 1), ("b", 2)] if rng.random() < 0.9 else [("a", 2), ("b", 1)])
        played.append([("c", 1), ("d", 2)] if rng.random() < 0.6 else [("c", 2), ("d", 1)])
        played.append([("e", 1), ("f", 2), ("g", 3)] if rng.random() < 0.8 else [("e", 2), ("f", 1), ("g", 1)])
    cfg = RatingConfig()
    got = fit(played, [*"abcdefg", "idle"], cfg)
    assert got.converged and got.ratings["idle"].mu == cfg.mu
    for bot, (mu, sigma) in oracle(played, cfg).items():
        assert got.ratings[bot].mu == pytest.approx(mu, abs=0.05), bot
        assert got.ratings[bot].sigma == pytest.approx(sigma, abs=0.05), bot


def test_a_fit_stopped_at_its_sweep_limit_says_it_did_not_converge() -> None:
    played = league(405, 4, 500)
    bots = [f"b{i}" for i in range(5)]
    stopped = fit(played, bots, max_sweeps=2)
    assert (stopped.sweeps, stopped.converged) == (2, False)
    assert fit(played, bots).converged


def test_a_checkpoint_from_before_the_batch_fit_is_a_sequential_one() -> None:
    cp = RatingCheckpoint(3, 3, RatingConfig(model="sequential"), {"a": (0.1, 2.5)})
    old = cp.to_dict()
    del old["config"]["model"]
    assert RatingCheckpoint.from_dict(old) == cp


@pytest.mark.parametrize(("model", "ok"), [("sequential", True), ("batch", True), ("elo", False)])
def test_the_rating_model_is_read_from_the_tournament_file(tmp_path: Path, model: str, ok: bool) -> None:
    from arena.league.config import load_config

    path = tmp_path / "t.yaml"
    path.write_text(
        "name: t\nbots:\n  - {name: a, command: [x]}\n  - {name: b, command: [y]}\n"
        f"rating: {{model: {model}}}\n"
    )
    if ok:
        assert load_config(path).rating.model == model
    else:
        with pytest.raises(ConfigError, match=r"'rating\.model' must be one of batch, sequential"):
            load_config(path)


def test_interim_refits_keep_to_their_time_budget_and_exact_ratings_always_refit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A run's frequent refreshes ask for interim ratings: a refit is due when the games grew
    # by 5% AND enough time passed since the last fit (it may take FIT_TIME_SHARE of the time).
    import arena.league.rating as rating

    played = league(3, 2, 200)
    bots = [f"b{i}" for i in range(5)]
    ledger = make_ledger(bots, RatingConfig())
    for i, g in enumerate(played[:100]):
        ledger.add(i, g)
    first = ledger.ratings(exact=True)
    for i, g in enumerate(played[100:120], start=100):
        ledger.add(i, g)
    clock = [ledger._fitted_at]  # type: ignore[attr-defined]
    monkeypatch.setattr(rating.time, "monotonic", lambda: clock[0])
    ledger._fit_cost = 1.0  # type: ignore[attr-defined]  # as if the last fit took a second
    clock[0] += 1.0 / rating.FIT_TIME_SHARE - 0.5  # not yet 20 times its cost
    assert ledger.ratings(exact=False) == first  # the last fit, though the games grew by 20%
    clock[0] += 1.0
    later = ledger.ratings(exact=False)
    assert later != first
    ledger._fit_cost = 1.0  # type: ignore[attr-defined]  # (the frozen clock measured it as 0)
    for i, g in enumerate(played[120:138], start=120):
        ledger.add(i, g)
    assert ledger.ratings(exact=False) == later  # 15% more games, but no time has passed
    assert ledger.ratings(exact=True) != later  # exact: always the fit of every game


def test_interim_ratings_are_never_a_fit_of_far_fewer_games_than_were_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # However costly the last fit (a slow machine, a first import), once the games have grown
    # by REFIT_GROWTH the interim ratings are refitted: no run shows its first games' fit.
    import arena.league.rating as rating

    played = league(3, 2, 200)
    ledger = make_ledger([f"b{i}" for i in range(5)], RatingConfig())
    for i, g in enumerate(played[:40]):
        ledger.add(i, g)
    ledger.ratings(exact=True)
    clock = [ledger._fitted_at]  # type: ignore[attr-defined]
    monkeypatch.setattr(rating.time, "monotonic", lambda: clock[0])  # no time passes
    fitted = [40]
    for i, g in enumerate(played[40:], start=40):
        ledger.add(i, g)
        ledger._fit_cost = 1000.0  # type: ignore[attr-defined]  # the budget alone would wait for ever
        ledger.ratings(exact=False)
        fitted.append(ledger.checkpoint().games)
        assert fitted[-1] * rating.REFIT_GROWTH > i + 1, (i, fitted[-1])
    assert len(set(fitted)) >= 5  # refitted along the way, not once


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
