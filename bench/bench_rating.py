"""The order-free rating fit's cost: a whole league fitted at once, on one core.

Synthetic leagues (bots of random strength, 10% shared places) of the sizes in
issue 10: 10,000 2-player games and 5,000 4-player games, each with few bots
(many games per bot: the slowest case for the fit) and with 20.  Each figure is
the median of ``--repeat`` fits (min-max), with the sweeps the fit needed, and
the time of the Elo figures with their board bootstrap (once).
Target: a few seconds each.  For reference, ``--oracle N`` also times
trueskillthroughtime (the tests' oracle) on the first N games of each league.
Measured on a shared 2-core machine (median of 3, the fit before and after
interleaved in one session): the 5-bot 4-player league took 1.64 s and 137
sweeps before identical games were grouped, each component's level set each
sweep and swings damped, 0.063 s and 18 sweeps after; the others (in the order
above) 0.092 -> 0.029 s, 0.062 -> 0.028 s and 0.225 -> 0.173 s.  Run from the
repository root:

    python bench/bench_rating.py [--repeat 3] [--oracle 0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arena.stats.elo import fit_elo
from arena.stats.game_table import GameTable
from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import fit

LEAGUES = [(2, 10_000, 4), (2, 10_000, 20), (4, 5_000, 5), (4, 5_000, 20)]


def league(seed: int, players: int, games: int, bots: int) -> list[list[tuple[str, int]]]:
    rng = random.Random(seed)
    names = [f"bot{i}" for i in range(bots)]
    strength = {b: rng.gauss(0, 1.5) for b in names}
    out = []
    for _ in range(games):
        seated = rng.sample(names, players)
        order = sorted(seated, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
        rank = {b: i + 1 for i, b in enumerate(order)}
        if rng.random() < 0.1:
            rank[order[1]] = rank[order[0]]
        out.append([(b, rank[b]) for b in seated])
    return out


def time_oracle(games: list[list[tuple[str, int]]], cfg: RatingConfig) -> float:
    import trueskillthroughtime as ttt

    ordered = [sorted(g, key=lambda s: s[1]) for g in games]
    began = time.perf_counter()
    history = ttt.History(
        [[[b] for b, _ in g] for g in ordered],
        [[-r for _, r in g] for g in ordered],
        times=[0] * len(ordered),
        mu=cfg.mu,
        sigma=cfg.sigma,
        beta=cfg.beta,
        gamma=0.0,
        p_draw=cfg.draw_probability,
    )
    history.convergence(verbose=False)
    return time.perf_counter() - began


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="fits of each league (default 3)")
    ap.add_argument("--oracle", type=int, default=0, help="also time trueskillthroughtime on N games")
    args = ap.parse_args()
    cfg = RatingConfig()
    for players, size, bots in LEAGUES:
        games = league(players * 100 + bots, players, size, bots)
        names = [f"bot{i}" for i in range(bots)]
        times, sweeps = [], 0
        for _ in range(args.repeat):
            began = time.perf_counter()
            result = fit(games, names, cfg)
            times.append(time.perf_counter() - began)
            sweeps = result.sweeps
        line = (
            f"{size:>6} {players}-player games, {bots:>2} bots: {statistics.median(times):.2f} s"
            f" ({min(times):.2f}-{max(times):.2f}), {sweeps} sweeps, converged {result.converged}"
        )
        table = GameTable(names)
        for i, g in enumerate(games):
            table.add(g, board=i // 2)
        began = time.perf_counter()
        fit_elo(table)
        line += f"; Elo with its interval: {time.perf_counter() - began:.2f} s"
        if args.oracle:
            line += f"; trueskillthroughtime on {args.oracle} games: {time_oracle(games[: args.oracle], cfg):.2f} s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
