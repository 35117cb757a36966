"""A continuous league against a round robin: games until the true order is known.

Five bots of known, graded strength play through the real arena
(:func:`arena.tournament.run_tournament`, worker processes, sandbox, store):
``sample_bots/c/greedy --greedy P`` answers greedily with probability P and
at random otherwise, for P = 1, 0.75, 0.5, 0.25, 0 (their true order; in 100
games per pair each beats the next down 60-75% of the time).  For each seed:

- the **continuous** league (``format: continuous``, ``confidence``) plays
  until every adjacent pair of its standings is settled (ordered, or tied
  within 20 Elo, by the pair test of :mod:`arena.stats.pair_test`); its
  figure is the games it played, and whether its order is the true one;
- the **round robin** (2 players, both seat orders per board, 20 games a round)
  is played ``--step`` rounds at a time; after each round the standings of
  the games so far (the same batch TrueSkill fit and pair tests, a round's
  two games of a board being a set) are checked, and its figure is the games
  of the first round after which its standings are settled by the same test,
  and whether that order is the true one.

Both stop on the same test, so the figure compares how fast each gets there.
Reported: per seed, then the median and range of each and the ratio of the
medians.  Run from the repository root (builds sample_bots/c first):

    python bench/bench_continuous.py [--seeds 5] [--confidence 0.95] [-j 2] [--max-rounds 150]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.league.config import DEFAULT_INDIFFERENCE, load_config
from arena.league.continuous import adjacent_pairs, pair_error, ranking
from arena.league.store import ResultStore
from arena.stats.game_table import GameTable, Seats
from arena.stats.pair_test import PairEvidence, PairVerdict, verdict
from arena.stats.settings import RatingConfig
from arena.stats.trueskill_fit import fit
from arena.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent
GRADES = {"p100": "1", "p075": "0.75", "p050": "0.5", "p025": "0.25", "p000": "0"}
TRUE_ORDER = list(GRADES)  # strongest first
GAMES_PER_ROUND = 20  # 10 pairs, both seat orders


def tournament_yaml(
    folder: Path, seed: int, jobs: int, league: str, grades: Mapping[str, str] = GRADES, move: str = "2s"
) -> Path:
    """A 2-player tournament of the graded bots ``grades`` (name: P) in ``folder``, its
    results in ``folder/out``; ``league`` holds its format's lines."""
    bots = "".join(
        f"  - {{name: {name}, command: [sample_bots/c/greedy, --greedy, '{p}']}}\n"
        for name, p in grades.items()
    )
    text = (
        f"name: bench\nseed: {seed}\nplayers: 2\n{league}\ncwd: {ROOT}\nconcurrency: {jobs}\n"
        f"time_control: {{move: {move}, startup: 10s}}\nend_grace: 200ms\noutput: {folder / 'out'}\n"
        f"bots:\n{bots}"
    )
    path = folder / "t.yaml"
    path.write_text(text)
    return path


def quiet(_text: str) -> None:
    pass


def open_pairs(
    rounds: list[list[Seats]], confidence: float, bots: Sequence[str] = TRUE_ORDER
) -> tuple[list[str], list[str]]:
    """The adjacent pairs of these rounds' standings that a continuous league would not call
    settled (ordered as ranked, or tied, by the pair test on the two games of their board in
    each round), as ``a vs b``; and the order."""
    table = GameTable(list(bots))
    halves: dict[tuple[str, str], list[int]] = {}
    for games in rounds:
        boards: dict[frozenset[str], list[dict[str, int]]] = {}
        for seats in games:
            table.add(seats)
            boards.setdefault(frozenset(n for n, _ in seats), []).append(dict(seats))
        for meeting, ranks in boards.items():
            a, b = sorted(meeting)
            score = sum(2 if r[a] < r[b] else 1 if r[a] == r[b] else 0 for r in ranks)
            halves.setdefault((a, b), []).append(score)
    ratings = fit(table, list(bots), RatingConfig()).ratings
    order = ranking(ratings, bots)
    error = pair_error(confidence, len(bots))
    still = []
    for pair in adjacent_pairs(ratings, order):
        a, b = sorted((pair.above, pair.below))
        found = verdict(PairEvidence.of(2, halves.get((a, b), [])), DEFAULT_INDIFFERENCE, error)
        if a != pair.above:
            found = found.flipped()
        if found not in (PairVerdict.A_STRONGER, PairVerdict.TIED):
            still.append(f"{pair.above} vs {pair.below}")
    return still, order


def settled_at(rounds: list[list[Seats]], confidence: float) -> tuple[bool, list[str]]:
    """Whether the standings of these rounds' games are settled as a continuous league judges
    them (:func:`open_pairs`); the order."""
    still, order = open_pairs(rounds, confidence)
    return not still, order


def continuous(seed: int, confidence: float, jobs: int, budget: int) -> tuple[int, bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        league = f"format: continuous\nconfidence: {confidence}\nmax_games: {budget}"
        state = run_tournament(load_config(tournament_yaml(Path(tmp), seed, jobs, league)), echo=quiet)
        assert state.standings is not None and not state.failures
        order = [r.bot for r in state.standings.rows]
        return state.done, order == TRUE_ORDER, state.stopped or "?"


@dataclass(frozen=True)
class RoundRobin:
    """How a round robin played by rounds went: ``games`` to its first settled round (or all
    it played, ``max_rounds`` of them, when none was), and the order and open pairs then."""

    games: int
    rounds: int
    settled: bool
    order: list[str]
    still_open: list[str]
    # After each run: (rounds played so far, wall s, CPU s of this process and its children),
    # counting the runs only, not the checks between them.
    cost: list[tuple[int, float, float]]


def play_round_robin(
    seed: int,
    confidence: float,
    jobs: int,
    step: int,
    max_rounds: int,
    grades: Mapping[str, str] = GRADES,
    move: str = "2s",
) -> RoundRobin:
    """Play the graded bots' round robin ``step`` rounds at a time (each run resumes the last,
    through :func:`run_tournament`), until the standings of its first R rounds are settled by
    :func:`open_pairs`, or ``max_rounds`` are played."""
    bots = list(grades)
    with tempfile.TemporaryDirectory() as tmp:
        checked, still, order = 0, bots, bots
        by_round: dict[int, list[Seats]] = {}
        cost: list[tuple[int, float, float]] = []
        wall = cpu = 0.0
        for rounds in [*range(step, max_rounds, step), max_rounds]:
            path = tournament_yaml(Path(tmp), seed, jobs, f"rounds: {rounds}", grades, move)
            began, cpu_began = time.monotonic(), cpu_seconds()
            run_tournament(load_config(path), echo=quiet)
            wall, cpu = wall + time.monotonic() - began, cpu + cpu_seconds() - cpu_began
            cost.append((rounds, wall, cpu))
            with ResultStore.open(Path(tmp) / "out") as store:
                round_of = {g.index: g.round for g in store.schedule()}
                by_round = {}
                for index, _board, seats in store.fit_games():
                    by_round.setdefault(round_of[index], []).append(list(seats))
            for r in range(checked + 1, rounds + 1):
                still, order = open_pairs([by_round[k] for k in range(1, r + 1)], confidence, bots)
                if not still:
                    return RoundRobin(
                        sum(len(by_round[k]) for k in range(1, r + 1)), r, True, order, [], cost
                    )
            checked = rounds
    return RoundRobin(sum(len(g) for g in by_round.values()), max_rounds, False, order, still, cost)


def cpu_seconds() -> float:
    """User and system CPU time of this process and of its children waited for (the workers,
    and with theirs the bots)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def round_robin(seed: int, confidence: float, jobs: int, step: int, max_rounds: int) -> tuple[int, bool]:
    """The games of the first round after which the standings are ordered (0: not by max_rounds)."""
    rr = play_round_robin(seed, confidence, jobs, step, max_rounds)
    return (rr.games, rr.order == TRUE_ORDER) if rr.settled else (0, False)


def spread(values: list[int]) -> str:
    return f"median {statistics.median(values):g} (min {min(values)}, max {max(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--step", type=int, default=2, help="round robin rounds played between checks")
    parser.add_argument("--max-rounds", type=int, default=150)
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots" / "c")], check=True)
    budget = args.max_rounds * GAMES_PER_ROUND
    print(
        f"5 graded bots (greedy with probability {', '.join(GRADES.values())}), 2 players, "
        f"confidence {args.confidence}, -j {args.jobs}"
    )
    cont, rr = [], []
    began = time.monotonic()
    for seed in range(1, args.seeds + 1):
        c_games, c_true, why = continuous(seed, args.confidence, args.jobs, budget)
        r_games, r_true = round_robin(seed, args.confidence, args.jobs, args.step, args.max_rounds)
        cont.append(c_games)
        rr.append(r_games or budget)
        print(
            f"seed {seed}: continuous {c_games} games (true order: {'yes' if c_true else 'NO'}; {why}); "
            f"round robin {r_games // GAMES_PER_ROUND if r_games else f'>{args.max_rounds}'} rounds = "
            f"{r_games or budget} games (true order: {'yes' if r_true else 'NO'})"
        )
    print(f"continuous:  {spread(cont)} games")
    print(f"round robin: {spread(rr)} games")
    print(
        f"ratio of medians (round robin / continuous): {statistics.median(rr) / statistics.median(cont):.2f}; "
        f"per seed {', '.join(f'{r / c:.2f}' for c, r in zip(cont, rr, strict=True))}"
    )
    print(f"({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
