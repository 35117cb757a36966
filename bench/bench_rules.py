"""Speed of the pure rules engine (arena.rules), single process, one core.

Measures random full playouts per second (2 and 4 players, via random_playout
and via the public legal_moves() + apply() API a bot-kit bot uses), the
operations a search uses (legal_moves(), apply() + undo(), copy()), slides(),
has_legal_move() and why_illegal() per second, and random_board() generation
per second, then compares the figures with the targets: playouts per second,
and the public API's playout within 2x of the special random_playout.

The figures interleave: every round times every operation for --seconds /
--rounds of CPU time, so a noisy machine hits all of them alike; each figure
is the median over the rounds with its spread (min-max), and the API ratio is
the median of the per-round ratios.  Run from the repository root:

    python bench/bench_rules.py [--seconds 2] [--rounds 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from itertools import count, cycle, starmap

from arena.rules import GameState, Move, Params, Phase, random_board, random_playout

TARGET_2P = 1000.0
TARGET_4P = 400.0
API_RATIO = 2.0  # the public API's playout within this factor of random_playout
STARTS = 100


def measure(
    step: Callable[[], tuple[int, int]], seconds: float, clock: Callable[[], float] = time.process_time
) -> tuple[float, int, int]:
    """Call ``step`` until ``seconds`` pass on ``clock``; return (elapsed, operations, plies).

    The default clock is this process's CPU time: on a shared machine the
    time other jobs take the core from us does not count against us.
    """
    ops = plies = 0
    t0 = clock()
    while (elapsed := clock() - t0) < seconds:
        n, k = step()
        ops += n
        plies += k
    return elapsed, ops, plies


def spread(rates: Sequence[float]) -> str:
    """The median and the range of a figure measured once per round."""
    return f"{statistics.median(rates):>11,.0f} ({min(rates):,.0f}-{max(rates):,.0f})"


def interleaved(
    steps: dict[str, Callable[[], tuple[int, int]]], rounds: int, seconds: float
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Every step for ``seconds`` each round, after a short warm-up: rates per round, plies per op."""
    for step in steps.values():
        measure(step, min(0.05, seconds))
    rates: dict[str, list[float]] = {label: [] for label in steps}
    plies: dict[str, list[int]] = {label: [0, 0] for label in steps}
    for _ in range(rounds):
        for label, step in steps.items():
            elapsed, ops, k = measure(step, seconds)
            rates[label].append(ops / elapsed)
            plies[label][0] += ops
            plies[label][1] += k
    return rates, {label: k / n if n else 0.0 for label, (n, k) in plies.items()}


def start_positions(seed: int, players: int, tiles: int) -> list[GameState]:
    """Random boards with herds placed by random legal HerdPlacement moves."""
    out = []
    for i in range(STARTS):
        rng = random.Random(seed * 1_000_003 + i)
        state = GameState(Params(players=players), random_board(seed * 1000 + i, tiles))
        while state.phase is Phase.HERDS:
            state.apply(rng.choice(state.legal_moves()))
        if state.phase is Phase.MOVES:
            out.append(state)
    return out


def api_playout(state: GameState, rng: random.Random) -> int:
    """Play to the end through legal_moves() + apply(), as a bot-kit bot would."""
    plies = 0
    while not state.is_over:
        moves = state.legal_moves()
        state.apply(moves[rng.randrange(len(moves))])
        plies += 1
    return plies


def playouts(
    starts: list[GameState], seed: int, play: Callable[[GameState, random.Random], int]
) -> Callable[[], tuple[int, int]]:
    rng = random.Random(seed)
    it = cycle(starts)
    return lambda: (1, play(next(it).copy(), rng))


def each(fn: Callable[..., object], arglist: Sequence[tuple[object, ...]]) -> Callable[[], tuple[int, int]]:
    """One step: ``fn(*args)`` for every args in ``arglist`` (starmap: no per-call Python frame)."""

    def step() -> tuple[int, int]:
        for _ in starmap(fn, arglist):
            pass
        return len(arglist), 0

    return step


def boards(seed: int, tiles: int) -> Callable[[], tuple[int, int]]:
    seeds = count(seed * 1_000_000)

    def step() -> tuple[int, int]:
        random_board(next(seeds), tiles)
        return 1, 0

    return step


def mid_game(starts: list[GameState], seed: int) -> list[GameState]:
    """Positions a random number of plies into the moving phase, game not over."""
    rng = random.Random(seed)
    out = []
    for start in starts:
        state = start.copy()
        for _ in range(rng.randrange(2, 24)):
            nxt = state.copy()
            nxt.apply(rng.choice(nxt.legal_moves()))
            if nxt.is_over:
                break
            state = nxt
        out.append(state)
    return out


def apply_undo(state: GameState, move: Move) -> None:
    state.apply(move)
    state.undo()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time per figure, all rounds (default 2)")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    args = ap.parse_args()
    sec, seed = args.seconds / args.rounds, args.seed

    starts2 = start_positions(seed, 2, 8)
    starts4 = start_positions(seed, 4, 16)
    mids = mid_game(starts2 + starts4, seed)
    rng = random.Random(seed)
    picks: list[tuple[GameState, Move]] = [(s, rng.choice(s.legal_moves())) for s in mids]
    avg = sum(len(s.legal_moves()) for s in mids) / len(mids)
    print(
        f"{len(starts2)} two-player and {len(starts4)} four-player start positions, {len(mids)} mid-game "
        f"positions (avg {avg:.1f} legal moves); {args.rounds} rounds of {sec:g} s per figure\n"
    )
    steps = {
        "random_playout, 2 players": playouts(starts2, seed, random_playout),
        "legal_moves()+apply() playout, 2 players": playouts(starts2, seed, api_playout),
        "random_playout, 4 players": playouts(starts4, seed, random_playout),
        "legal_moves()+apply() playout, 4 players": playouts(starts4, seed, api_playout),
        "legal_moves() generations": each(GameState.legal_moves, [(s,) for s in mids]),
        "apply(move) + undo()": each(apply_undo, picks),
        "copy()": each(GameState.copy, [(s,) for s in mids]),
        "slides(player)": each(GameState.slides, [(s, s.to_move) for s in mids]),
        "has_legal_move(player)": each(GameState.has_legal_move, [(s, s.to_move) for s in mids]),
        "why_illegal(move) checks": each(GameState.why_illegal, picks),
        "random_board(seed, 8)": boards(seed, 8),
        "random_board(seed, 16)": boards(seed, 16),
    }
    rates, plies = interleaved(steps, args.rounds, sec)
    print(f"{'operation':<46} {'per second: median (min-max)':>30}")
    for label, figures in rates.items():
        extra = f"  (avg {plies[label]:.1f} plies/playout)" if plies[label] else ""
        print(f"{label:<46} {spread(figures):>30}{extra}")

    print("\nTargets (one core):")
    for label, key, target in (
        ("2-player", "random_playout, 2 players", TARGET_2P),
        ("4-player", "random_playout, 4 players", TARGET_4P),
    ):
        rate = statistics.median(rates[key])
        verdict = "PASS" if rate >= target else "FAIL"
        print(f"  {label} full random playouts/s: {rate:>9,.0f}  target >= {target:,.0f}  {verdict}")
    for players in (2, 4):
        special = rates[f"random_playout, {players} players"]
        api = rates[f"legal_moves()+apply() playout, {players} players"]
        ratios = [s / a for s, a in zip(special, api, strict=True)]
        ratio = statistics.median(ratios)
        verdict = "PASS" if ratio <= API_RATIO else "FAIL"
        print(
            f"  {players}-player random_playout / API playout: {ratio:.2f}x "
            f"({min(ratios):.2f}-{max(ratios):.2f})  target <= {API_RATIO:g}x  {verdict}"
        )


if __name__ == "__main__":
    main()
