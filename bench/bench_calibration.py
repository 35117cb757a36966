"""Do the arena's numbers mean what they say?  Coverage and error rates by simulation.

Each table draws results from bots of known Elo and runs the arena's own code on them:

- **continuous**: the continuous league's chooser and stopping rule
  (:class:`arena.league.continuous.ContinuousLeague` via ``play_out``), games drawn
  from the bots' true Elo (logistic, 10% draws).  Per case: the share of leagues that
  stopped settled, the share whose settled stop has an adjacent pair in the wrong order
  (two equal bots put in any order count as wrong: only "tied" is right for them),
  the share that tied a pair, and that tied one ``--indifference`` or more apart, the
  games played, and the games a round robin needs to give every meeting what the
  busiest pair got.
- **sprt**: ``arena check --sprt``'s test (its LLR and bounds, checked after every board
  pair) on board pairs drawn at a true Elo (10% draws): the share of passes, fails and
  runs out of games, how often the 95% Elo interval printed after the stop covers the
  true Elo (the fixed-sample one and the stopping-aware one the check prints), and each
  estimate's median error.

- **pbetter**: the batch fit's P(better) under its fixed prior (the joint posterior of
  the pair, ``better_at_prior``; the standings now average it over the field's spread,
  see **field**) against the exact posterior of the model (a grid for 2 bots; for 5, importance
  sampling of the exact posterior, seeded), beside the two-lone-Gaussians figure it
  replaced; and, over simulated round robins, how often an adjacent pair's P(better)
  is below 0.5 when rows are ranked by mu (now) and by mu - 3 sigma (before).

- **field**: the standings' P(better) (the field's spread fitted to the games,
  :mod:`arena.stats.field`) beside the fixed prior's, in fields of 2-4 bots whose Elo is
  drawn close (N(0, 40^2)) or spread (N(0, 200^2)), 20-200 games: how often a pair shown
  without ? is wrong, how often a shown 0.9 is right, and of the pairs shown 0.7 or more, the
  mean figure beside the share right (more pairs than the 0.9 bin, so less noise).

- **ladder**: a ladder of 8 bots over 20 versions, each new version meeting the 7 others:
  the chance that it ever shows a wrong order (pairs of equal bots, tests looked at after
  every set), each roster's errors split afresh (before) and spent by arrival
  (:mod:`arena.stats.spending`, now); and the games a new version needs to be ordered
  against neighbours 50 or 100 Elo away, either way.

- **two**: two equal bots in a continuous league reduced to their one pair test (many
  leagues at once): P(settled and wrong) and P(wrong | settled) at ``--max-games``.

- **elo**: the standings' Elo interval (:func:`arena.stats.elo.fit_elo`) and the board
  bootstrap's, in round robins of 5 bots at spreads of 0-400 Elo and 40-10,000 games:
  the share of intervals that hold the true (centred) Elo.

    PYTHONPATH=. python bench/bench_calibration.py [--runs 100] [--only continuous,sprt,pbetter,elo,field,ladder,two] [--seed 1]
        [--indifference 20] [--cases "2 bots,5 bots"] [--elo-cells 400:400,0:40]

Each table prints as it is done; ``--runs`` sets the runs per case (the error rates'
own noise is about sqrt(p (1 - p) / runs)).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Mapping

import numpy as np

from arena.league.config import ContinuousConfig
from arena.league.continuous import ContinuousLeague, StopReason, play_out
from arena.league.schedule import ScheduledGame
from arena.stats import sprt
from arena.stats.game_table import Seats
from arena.stats.pair_test import PairVerdict
from arena.stats.settings import RatingConfig
from arena.stats.sprt import elo_to_score
from arena.stats.stopped import stopped_elo
from arena.stats.trueskill_fit import fit
from tests.support.posterior_reference import exact_better, exact_two

DRAW = 0.1


def elo_play(elo: Mapping[str, float], rng: random.Random) -> Callable[[ScheduledGame], Seats]:
    """A 2-player game's result drawn from the two bots' true Elo (logistic, DRAW draws)."""

    def play(game: ScheduledGame) -> Seats:
        a, b = game.seats
        win = elo_to_score(elo[a] - elo[b]) - DRAW / 2
        u = rng.random()
        if u < win:
            return [(a, 1), (b, 2)]
        if u < win + DRAW:
            return [(a, 1), (b, 1)]
        return [(a, 2), (b, 1)]

    return play


CONTINUOUS_CASES: dict[str, dict[str, float]] = {
    "2 equal bots": {"x": 0.0, "y": 0.0},
    "2 bots 10 Elo apart": {"x": 10.0, "y": 0.0},
    "2 bots 20 Elo apart": {"x": 20.0, "y": 0.0},
    "2 bots 50 Elo apart": {"x": 50.0, "y": 0.0},
    "2 bots 100 Elo apart": {"x": 100.0, "y": 0.0},
    "5 bots, an equal pair": {"a": 200.0, "b": 100.0, "c": 0.0, "d": 0.0, "e": -100.0},
    "5 bots, a 10-Elo pair": {"a": 200.0, "b": 100.0, "c": 10.0, "d": 0.0, "e": -100.0},
    "5 bots, a 20-Elo pair": {"a": 200.0, "b": 100.0, "c": 20.0, "d": 0.0, "e": -100.0},
    "5 bots 50 Elo apart": {"a": 100.0, "b": 50.0, "c": 0.0, "d": -50.0, "e": -100.0},
    "5 bots 100 Elo apart": {"a": 200.0, "b": 100.0, "c": 0.0, "d": -100.0, "e": -200.0},
}


def continuous_table(
    runs: int, seed: int, confidence: float, budget: int, indifference: float, cases: str
) -> None:
    print(
        f"\ncontinuous league: {runs} leagues a case, confidence {confidence:g}, "
        f"indifference {indifference:g} Elo, max_games {budget}"
    )
    print(
        f"{'case':24} {'settled':>7} {'wrong':>6} {'w|settled':>9} {'tied':>6} {'false tie':>9} {'games mean':>10} "
        f"{'median':>7} {'round robin':>11} {'ratio':>6} {'s/league':>8}"
    )
    for name, elo in CONTINUOUS_CASES.items():
        if cases and not any(c in name for c in cases.split(",")):
            continue
        began = time.monotonic()
        sure = wrong = tied = false_tie = 0
        games: list[int] = []
        robin: list[int] = []
        for run in range(runs):
            rng = random.Random(f"{seed}:{name}:{run}")
            cfg = ContinuousConfig(confidence, budget, 1, indifference)
            # As `arena run` makes it: the error spent by arrival, every bot in the first roster.
            league = ContinuousLeague(
                list(elo), 2, seed * 100_003 + run, "all", cfg, RatingConfig(), arrivals=list(elo), first_roster=len(elo)
            )
            played = play_out(league, elo_play(elo, rng))
            games.append(len(played))
            busiest = max(league.sets.values())
            meetings = len(list(itertools.combinations(elo, 2)))
            robin.append(meetings * busiest * league.set_size())
            stop = league.stop
            if stop is None or stop.reason is not StopReason.CONFIDENT:
                continue
            sure += 1
            pairs = league.pairs()
            ties = [p for p in pairs if p.verdict is PairVerdict.TIED]
            tied += bool(ties)
            false_tie += any(abs(elo[p.above] - elo[p.below]) >= indifference for p in ties)
            if any(elo[p.above] <= elo[p.below] for p in pairs if p.verdict is PairVerdict.A_STRONGER):
                wrong += 1
        seconds = (time.monotonic() - began) / runs
        print(
            f"{name:24} {sure / runs:7.1%} {wrong / runs:6.1%} {wrong / max(1, sure):9.1%} {tied / runs:6.1%} "
            f"{false_tie / runs:9.1%} "
            f"{statistics.mean(games):10.0f} {statistics.median(games):7.0f} "
            f"{statistics.mean(robin):11.0f} {statistics.mean(robin) / statistics.mean(games):6.2f} "
            f"{seconds:8.2f}",
            flush=True,
        )
    print(
        "settled: stopped with every adjacent pair ordered or tied; wrong: a settled stop with a pair\n"
        "ordered the wrong way round, or an equal pair ordered, as a share of all leagues: P(settled and\n"
        "wrong), what the tests bound by 1 - confidence; w|settled: the same of the settled leagues only\n"
        "(no bound holds for it: with a budget too small for a tie, a lucky order is what settles);\n"
        "tied: a settled stop with a pair tied; false tie: one tied though `indifference` or more\n"
        "apart (also at most 1 - confidence); round robin: games for every meeting to get the\n"
        "busiest pair's sets; ratio: round robin / games."
    )


SPRT_TRUE = (-20.0, 0.0, 10.0, 25.0, 40.0, 50.0, 70.0)


def sprt_table(runs: int, seed: int, elo0: float, elo1: float, max_games: int) -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    print(
        f"\nsprt [{elo0:g}, {elo1:g}], alpha = beta = 0.05, at most {max_games} games: {runs} runs a true Elo"
    )
    print(
        f"{'true':>5} {'pass':>6} {'fail':>6} {'undec':>6} {'cover fixed':>11} {'cover aware':>11} "
        f"{'bias fixed':>10} {'bias aware':>10}"
    )
    for true in SPRT_TRUE:
        rng = random.Random(f"{seed}:sprt:{true}")
        probs = sprt.pair_probabilities(true, DRAW)
        h1 = h0 = fixed_in = aware_in = 0
        fixed_err: list[float] = []
        aware_err: list[float] = []
        for _ in range(runs):
            counts = [0] * 5
            value = 0.0
            for _pair in range(max_games // 2):
                counts[rng.choices(range(5), probs)[0]] += 1
                value = sprt.llr(counts, elo0, elo1)
                if not lower < value < upper:
                    break
            h1 += value >= upper
            h0 += value <= lower
            est = sprt.elo_estimate(counts)
            fixed_in += est.low <= true <= est.high
            fixed_err.append(est.elo - true)
            aware = stopped_elo(counts, elo0, elo1, (lower, upper), value)
            if aware is not None:
                aware_in += aware.low <= true <= aware.high
                aware_err.append(aware.elo - true)
        print(
            f"{true:5.0f} {h1 / runs:6.1%} {h0 / runs:6.1%} {(runs - h1 - h0) / runs:6.1%} "
            f"{fixed_in / runs:11.1%} {aware_in / runs:11.1%} "
            f"{statistics.median(fixed_err):+10.1f} {statistics.median(aware_err):+10.1f}",
            flush=True,
        )
    print(
        "cover: the share of runs whose printed 95% interval holds the true Elo; bias: median estimate - true."
    )


TWO_BOT_RECORDS = ((36, 0, 20), (4, 0, 0), (6, 0, 0), (1, 0, 0), (3, 0, 1), (10, 2, 4), (5, 5, 3), (100, 10, 80))
FIVE_BOT_CASES: dict[str, tuple[dict[str, float], int]] = {
    "graded 100 Elo, 4 a pair": ({"a": 200.0, "b": 100.0, "c": 0.0, "d": -100.0, "e": -200.0}, 4),
    "graded 10 Elo, 30 a pair": ({"a": 20.0, "b": 10.0, "c": 0.0, "d": -10.0, "e": -20.0}, 30),
    "lopsided, 2 a pair": ({"a": 300.0, "b": 0.0, "c": 0.0, "d": -10.0, "e": -300.0}, 2),
    "an equal pair, 10 a pair": ({"a": 200.0, "b": 100.0, "c": 0.0, "d": 0.0, "e": -100.0}, 10),
}


def round_robin(elo: Mapping[str, float], per_pair: int, rng: random.Random) -> list[Seats]:
    """Every two bots ``per_pair`` times, results from their true Elo (logistic, DRAW draws)."""
    play = elo_play(elo, rng)
    games: list[Seats] = []
    for a, b in itertools.combinations(elo, 2):
        for _ in range(per_pair):
            games.append(play(ScheduledGame(0, "g", 0, (a, b), 0)))
    return games


def pbetter_table(runs: int, seed: int) -> None:
    from arena.league.tally import better_than

    print("\nP(better) against the exact posterior (2 bots: a grid)")
    print(f"{'a-b W-D-L':>10} {'exact':>7} {'joint':>7} {'indep':>7}")
    for w, d, lost in TWO_BOT_RECORDS:
        two: list[Seats] = [[("a", 1), ("b", 2)]] * w + [[("a", 1), ("b", 1)]] * d + [[("b", 1), ("a", 2)]] * lost
        result = fit(two, ["a", "b"])
        assert result.joint is not None
        joint = result.joint.better_at_prior([("a", "b")])[0]
        indep = better_than(result.ratings["a"], result.ratings["b"])
        print(f"{f'{w}-{d}-{lost}':>10} {exact_two(w, d, lost):7.4f} {joint:7.4f} {indep:7.4f}", flush=True)
    leagues = max(1, runs // 10)
    print(f"\n5 bots, every adjacent pair: {leagues} round robins a case, exact by importance sampling")
    print(f"{'case':26} {'pairs':>5} {'joint max|err|':>14} {'mean':>6} {'indep max|err|':>14} {'mean':>6} {'ess min':>8}")
    for name, (elo, per_pair) in FIVE_BOT_CASES.items():
        joint_err: list[float] = []
        indep_err: list[float] = []
        ess_min = math.inf
        for run in range(leagues):
            rng = random.Random(f"{seed}:pbetter:{name}:{run}")
            games = round_robin(elo, per_pair, rng)
            bots = list(elo)
            result = fit(games, bots)
            assert result.joint is not None
            r = result.ratings
            order = sorted(bots, key=lambda b: -r[b].mu)
            pairs = list(itertools.pairwise(order))
            where = [result.joint.names.index(b) for b in bots]
            cov = np.linalg.inv(result.joint.precision)[np.ix_(where, where)]
            exact, ess = exact_better(games, bots, pairs, np.array([r[b].mu for b in bots]), cov, seed=run)
            ess_min = min(ess_min, ess)
            for (a, b), p, e in zip(pairs, result.joint.better_at_prior(pairs), exact, strict=True):
                joint_err.append(abs(p - e))
                indep_err.append(abs(better_than(r[a], r[b]) - e))
        print(
            f"{name:26} {len(joint_err):5} {max(joint_err):14.4f} {statistics.mean(joint_err):6.4f} "
            f"{max(indep_err):14.4f} {statistics.mean(indep_err):6.4f} {ess_min:8.0f}",
            flush=True,
        )
    print("joint: the standings' P(better); indep: two lone Gaussians; ess: the sampling's effective sample size")
    contradictions(runs, seed)


def contradictions(runs: int, seed: int) -> None:
    """How often an adjacent pair shows P(better) < 0.5, ranked by mu (now) and by mu - 3 sigma (before)."""
    from arena.league.rating import BatchLedger
    from arena.league.tally import better_than

    now = before = pairs = 0
    lowest = 1.0
    for run in range(runs):
        rng = random.Random(f"{seed}:order:{run}")
        elo = {f"b{i}": rng.gauss(0, 100) for i in range(6)}
        games = round_robin(elo, rng.choice([1, 2, 4]), rng)
        # A newcomer: a few games against two of them.
        new = rng.gauss(0, 100)
        for _ in range(rng.choice([2, 3, 6])):
            games.append(elo_play({**elo, "new": new}, rng)(ScheduledGame(0, "g", 0, ("new", rng.choice(list(elo))), 0)))
        ledger = BatchLedger([*elo, "new"])
        for i, seats in enumerate(games):
            ledger.add(i, seats, i)
        ratings = ledger.ratings()
        joint = ledger.checkpoint().better or {}
        for _below, p in joint.values():
            pairs += 1
            now += p < 0.5
            lowest = min(lowest, p)
        old = sorted(ratings, key=lambda b: (-(ratings[b].mu - 3 * ratings[b].sigma), -ratings[b].mu, b))
        before += sum(better_than(ratings[a], ratings[b]) < 0.5 for a, b in itertools.pairwise(old))
    print(
        f"\nadjacent pairs with P(better) < 0.5 over {runs} round robins of 6 bots and a newcomer: "
        f"ranked by mu, joint P {now / pairs:.2%} (lowest {lowest:.3f}); ranked by mu - 3 sigma, "
        f"independent P {before / pairs:.2%}"
    )


FIELD_CASES = (("2 bots, close", 2, 40.0), ("4 bots, close", 4, 40.0), ("4 bots, spread", 4, 200.0))
FIELD_GAMES = (20, 56, 200)


def field_league(bots: int, sd: float, games: int, rng: random.Random) -> tuple[dict[str, float], list[Seats]]:
    """Bots of Elo drawn from N(0, sd^2); ``games`` 2-player games cycling over the pairs, seats alternating."""
    elo = {f"b{i}": rng.gauss(0, sd) for i in range(bots)}
    play = elo_play(elo, rng)
    pairs = list(itertools.combinations(elo, 2))
    out: list[Seats] = []
    for g in range(games):
        a, b = pairs[(g // 2) % len(pairs)]
        out.append(play(ScheduledGame(0, "g", 0, (b, a) if g % 2 else (a, b), 0)))
    return elo, out


def field_table(runs: int, seed: int, cases: str = "") -> None:
    """The standings' P(better) (the field's spread fitted) beside the fixed prior's, in fields of
    bots whose Elo is drawn from N(0, sd^2): how often a pair shown sure is wrong, and a shown 0.9 right."""
    print(f"\nP(better) shown sure (>= 0.95) and wrong, adjacent pairs ranked by mu: {runs} leagues a case")
    print(
        f"{'case':16} {'games':>5} {'pairs':>6} | {'sure':>5} {'wrong|sure':>10} {'0.9 right':>9} ({'n':>4}) "
        f"{'>=0.7 shown':>11} {'right':>6} ({'n':>4}) | "
        f"{'fixed prior: sure':>17} {'wrong|sure':>10} {'0.9 right':>9} ({'n':>4}) "
        f"{'>=0.7 shown':>11} {'right':>6} ({'n':>4}) {'s/league':>8}"
    )
    wanted = [c for c in cases.split(",") if c]
    for name, bots, sd in FIELD_CASES:
        if wanted and not any(c in name for c in wanted):
            continue
        for games in FIELD_GAMES:
            rng = random.Random(f"{seed}:field:{name}:{games}")
            began = time.monotonic()
            pairs = 0
            sure, wrong, bin9, right9 = [0, 0], [0, 0], [0, 0], [0, 0]
            likely, likely_sum, likely_right = [0, 0], [0.0, 0.0], [0, 0]
            for _ in range(runs):
                elo, played = field_league(bots, sd, games, rng)
                result = fit(played, list(elo))
                assert result.joint is not None
                order = sorted(elo, key=lambda b: -result.ratings[b].mu)
                adjacent = list(itertools.pairwise(order))
                pairs += len(adjacent)
                figures = (result.joint.better(adjacent), result.joint.better_at_prior(adjacent))
                for k, ps in enumerate(figures):
                    for (a, b), p in zip(adjacent, ps, strict=True):
                        right = elo[a] > elo[b]
                        if p >= 0.95:
                            sure[k] += 1
                            wrong[k] += not right
                        if p >= 0.7:
                            likely[k] += 1
                            likely_sum[k] += p
                            likely_right[k] += right
                        if 0.875 <= p < 0.925:
                            bin9[k] += 1
                            right9[k] += right
            cells = [
                f"{sure[k]:5} {wrong[k] / max(1, sure[k]):10.1%} {right9[k] / max(1, bin9[k]):9.1%} ({bin9[k]:4}) "
                f"{likely_sum[k] / max(1, likely[k]):11.3f} {likely_right[k] / max(1, likely[k]):6.1%} ({likely[k]:4})"
                for k in (0, 1)
            ]
            seconds = (time.monotonic() - began) / runs
            print(f"{name:16} {games:5} {pairs:6} | {cells[0]} | {'':>12}{cells[1]} {seconds:8.3f}", flush=True)
    print(
        "sure: pairs shown without ? (P(better) >= 0.95); wrong|sure: of those, the share in the wrong order\n"
        "(goal <= 5%); 0.9 right: of pairs shown 0.88-0.92, the share in the right order (goal 87-93%);\n"
        ">=0.7 shown, right: of pairs shown 0.7 or more, the mean figure shown and the share in the right order\n"
        "(calibrated: the two equal, within the noise of n pairs).\n"
        "close: Elo drawn from N(0, 40^2); spread: N(0, 200^2); games cycle over the pairs, seats alternating."
    )


SET_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a set of 2 games: the first bot's half points / 4


def set_shares(elo: float) -> list[float]:
    """The chances of each set score for a bot ``elo`` above the other (2 games, DRAW draws)."""
    return sprt.pair_probabilities(elo, DRAW)


def ever_ordered(rng: random.Random, elo: float, errors: list[float], sets: int) -> list[int | None]:
    """For pairs ``elo`` apart (one error each), the set at which each pair's test first orders
    it (None: not within ``sets``), its order tests looked at after every set; a negative set
    number: ordered the wrong way round (for equal bots, any order)."""
    from arena.stats.pair_test import order_log_wealth

    shares = set_shares(elo)
    draws = [[SET_SCORES[h] for h in rng.choices(range(5), shares, k=sets)] for _ in errors]
    up, down = order_log_wealth(draws)
    out: list[int | None] = []
    for u, d, e in zip(up, down, errors, strict=True):
        bar = math.log(2 / e)
        first_up = next((t + 1 for t, w in enumerate(u) if w >= bar), None)
        first_down = next((t + 1 for t, w in enumerate(d) if w >= bar), None)
        if first_down is not None and (first_up is None or first_down < first_up or elo <= 0):
            out.append(-first_down)
        elif first_up is not None and elo <= 0:
            out.append(-first_up)
        else:
            out.append(first_up)
    return out


def two_equal_table(runs: int, seed: int, confidence: float, max_games: int, indifference: float) -> None:
    """Two equal bots in a continuous league, reduced to its one pair test (the league of two
    plays nothing else): each run's sets until the test settles (ordered, or tied) or the
    budget is spent, looked at after every set, many runs at once; any order is wrong."""
    from arena.stats.pair_test import order_log_wealth, tie_log_wealth
    from arena.stats.spending import arrival_error

    sets = max_games // 2
    print(
        f"\ntwo equal bots, the continuous league's pair test alone: {runs} leagues, confidence {confidence:g}, "
        f"indifference {indifference:g} Elo, max_games {max_games}"
    )
    print(f"{'error':22} {'settled':>7} {'P(settled & wrong)':>18} {'P(wrong | settled)':>18} {'tied':>6}")
    for name, error in (("split over pairs", 1 - confidence), ("by arrival (arena run)", arrival_error(confidence, 2, 1))):
        rng = random.Random(f"{seed}:two:{name}")
        settled = wrong = tied = 0
        order_bar, tie_bar = math.log(2 / error), math.log(1 / error)
        for start in range(0, runs, 50):
            chunk = min(50, runs - start)
            draws = [[SET_SCORES[h] for h in rng.choices(range(5), set_shares(0.0), k=sets)] for _ in range(chunk)]
            up, down = order_log_wealth(draws)
            not_a, not_b = tie_log_wealth(draws, indifference)
            for r in range(chunk):
                for t in range(sets):
                    a_up, b_up = up[r][t] >= order_bar, down[r][t] >= order_bar
                    if a_up != b_up:
                        settled += 1
                        wrong += 1
                        break
                    if not a_up and not_a[r][t] >= tie_bar and not_b[r][t] >= tie_bar:
                        settled += 1
                        tied += 1
                        break
        print(
            f"{name:22} {settled / runs:7.1%} {wrong / runs:18.1%} {wrong / max(1, settled):18.1%} {tied / runs:6.1%}",
            flush=True,
        )
    print(
        "settled: ordered or tied within the budget; P(settled & wrong): what the tests bound by the pair's error;\n"
        "P(wrong | settled): no bound holds for it (a budget short of a tie leaves mostly lucky orders to settle)."
    )


def ladder_table(runs: int, seed: int, confidence: float, bots: int = 8, versions: int = 20, sets: int = 1000) -> None:
    """A ladder's error over its life: ``bots`` active, ``versions`` new ones each replacing one and
    meeting the other ``bots - 1``; each pair's test looked at after every set (up to ``sets``).
    Before: every roster split 1 - confidence over its bots' pairs afresh; after: spent by arrival."""
    from arena.stats.spending import arrival_error

    fresh = (1 - confidence) / (bots * (bots - 1) // 2)
    before = [fresh] * (bots * (bots - 1) // 2 + versions * (bots - 1))
    after = [arrival_error(confidence, bots, j) for j in range(1, bots) for _ in range(j)]
    after += [arrival_error(confidence, bots, bots + v) for v in range(versions) for _ in range(bots - 1)]
    print(
        f"\nladder: {bots} bots, {versions} versions, each version's {bots - 1} pairs tested (up to {sets} sets of "
        f"2 games a pair), confidence {confidence:g}: {runs} ladders of equal bots"
    )
    print(f"{'errors':14} {'sum of errors':>13} {'P(ever a wrong order)':>21} {'s/ladder':>8}")
    for name, errors in (("fresh a roster", before), ("by arrival", after)):
        rng = random.Random(f"{seed}:ladder:{name}")
        began = time.monotonic()
        wrong = sum(any(t is not None and t < 0 for t in ever_ordered(rng, 0.0, errors, sets)) for _ in range(runs))
        seconds = (time.monotonic() - began) / runs
        print(f"{name:14} {sum(errors):13.4f} {wrong / runs:21.1%} {seconds:8.2f}", flush=True)
    print("\ngames a new version needs to a sure place: ordered against both neighbours, each GAP Elo away")
    print(f"{'gap':>4} {'version':>7} {'fresh: games':>12} {'by arrival: games':>17} {'ratio':>6}")
    for gap in (50.0, 100.0):
        for version in (1, 5, 10, 20):
            medians = []
            for errors in ([fresh, fresh], [arrival_error(confidence, bots, bots + version - 1)] * 2):
                rng = random.Random(f"{seed}:version:{gap}:{version}")
                games = []
                for _ in range(max(20, runs // 4)):
                    firsts = ever_ordered(rng, gap, errors, 4000)
                    games.append(sum(2 * abs(t) if t is not None else 8000 for t in firsts))
                medians.append(statistics.median(games))
            print(f"{gap:4.0f} {version:7} {medians[0]:12.0f} {medians[1]:17.0f} {medians[1] / medians[0]:6.2f}", flush=True)
    print(
        "fresh a roster: every pair at (1 - confidence) / pairs of the bots present, as before; by arrival:\n"
        "arena.stats.spending; P(ever a wrong order): the share of ladders in which some pair of equal bots\n"
        "was ever ordered (what the ladder's page bounds by 1 - confidence); games: median, both neighbours'\n"
        "pairs together (8,000 counted for a pair not ordered in 4,000 sets)."
    )


ELO_SPREADS = (0.0, 100.0, 200.0, 400.0)
ELO_GAMES = (20, 40, 400, 4000, 10_000)


def elo_cells(text: str) -> set[tuple[float, int]] | None:
    """``--elo-cells 400:400,0:40``: the (spread, games) cells of the Elo table to run; None: all."""
    if not text:
        return None
    cells = set()
    for part in text.split(","):
        spread, _, games = part.partition(":")
        try:
            cell = (float(spread), int(games))
        except ValueError:
            raise SystemExit(f"--elo-cells: {part!r} is not SPREAD:GAMES (e.g. 400:400)") from None
        if cell[0] not in ELO_SPREADS or cell[1] not in ELO_GAMES:
            raise SystemExit(f"--elo-cells: {part!r} is not a cell of the table (spreads {ELO_SPREADS}, games {ELO_GAMES})")
        cells.add(cell)
    return cells


def elo_table(runs: int, seed: int, cells: set[tuple[float, int]] | None = None) -> None:
    from arena.stats.elo import board_bootstrap, fit_elo
    from arena.stats.game_table import GameTable

    leagues = max(1, runs // 2)
    print(f"\nstandings Elo intervals, 5 bots evenly spread: {leagues} leagues a case (5 intervals each)")
    print(f"{'spread':>6} {'games':>6} {'cover':>7} {'bootstrap':>9} {'s/league':>8}")
    for spread in ELO_SPREADS:
        for games in ELO_GAMES:
            if cells is not None and (spread, games) not in cells:
                continue
            true = {f"b{i}": spread * (i / 4 - 0.5) for i in range(5)}
            pairs = list(itertools.combinations(true, 2))
            held = boot_held = total = 0
            began = time.monotonic()
            for run in range(leagues):
                rng = random.Random(f"{seed}:elo:{spread}:{games}:{run}")
                play = elo_play(true, rng)
                table = GameTable(list(true))
                for board in range(games // 2):
                    a, b = pairs[board % len(pairs)]
                    for seats in ((a, b), (b, a)):
                        table.add(play(ScheduledGame(0, "g", 0, seats, 0)), board)
                boot = board_bootstrap(table) if games <= 4000 else None
                for name, e in fit_elo(table).elo.items():
                    total += 1
                    held += e.low <= true[name] <= e.high
                    if boot is not None:
                        boot_held += boot[name].low <= true[name] <= boot[name].high
            boot_text = f"{boot_held / total:9.1%}" if games <= 4000 else f"{'-':>9}"
            seconds = (time.monotonic() - began) / leagues
            print(f"{spread:6.0f} {games:6} {held / total:7.1%} {boot_text} {seconds:8.2f}", flush=True)
    print("cover: the standings' interval; bootstrap: the board bootstrap of the virtual-draw fit (to 4,000 games)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="runs per case (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="continuous,sprt,pbetter,elo,field", help="tables to print, comma-separated")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--max-games", type=int, default=40_000, help="the continuous league's budget")
    parser.add_argument("--indifference", type=float, default=20.0, help="the continuous league's, in Elo")
    parser.add_argument("--cases", default="", help="continuous or field cases whose name holds one of these, comma-separated")
    parser.add_argument(
        "--elo-cells", default="", help="Elo table cells to run, SPREAD:GAMES comma-separated (e.g. 400:400,0:40)"
    )
    args = parser.parse_args()
    cells = elo_cells(args.elo_cells)
    only = set(args.only.split(","))
    if "sprt" in only:
        sprt_table(args.runs, args.seed, 0.0, 50.0, 1200)
        sprt_table(args.runs, args.seed, 0.0, 50.0, 400)
    if "continuous" in only:
        continuous_table(args.runs, args.seed, args.confidence, args.max_games, args.indifference, args.cases)
    if "pbetter" in only:
        pbetter_table(args.runs, args.seed)
    if "elo" in only:
        elo_table(args.runs, args.seed, cells)
    if "field" in only:
        field_table(args.runs, args.seed, args.cases)
    if "two" in only:
        two_equal_table(args.runs, args.seed, args.confidence, args.max_games, args.indifference)
    if "ladder" in only:
        ladder_table(args.runs, args.seed, args.confidence)


if __name__ == "__main__":
    main()
