"""Speed of the pure rules engine (arena.rules), single process, one core.

Measures random full playouts per second (2 and 4 players, via random_playout
and, for 2 players, via the public legal_moves() + apply() API), legal-move
generation, slides(), has_legal_move() and why_illegal() per second, and
random_board() generation per second, then compares the playout figures with
the issue's targets.  Run from the repository root:

    python bench/bench_rules.py [--seconds 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from itertools import count, cycle, starmap

from arena.rules import GameState, Move, Params, Phase, random_board, random_playout

TARGET_2P = 1000.0
TARGET_4P = 400.0
STARTS = 100


def measure(step: Callable[[], tuple[int, int]], seconds: float) -> tuple[float, int, int]:
    """Call ``step`` until ``seconds`` pass; return (elapsed, operations, plies)."""
    ops = plies = 0
    t0 = time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        n, k = step()
        ops += n
        plies += k
    return elapsed, ops, plies


def report(label: str, elapsed: float, ops: int, plies: int | None = None) -> float:
    rate = ops / elapsed
    extra = f"  (avg {plies / ops:.1f} plies/playout)" if plies is not None and ops else ""
    print(f"{label:<46} {rate:>12,.0f} /s{extra}")
    return rate


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
    """Play to the end through legal_moves() + apply(), as a referee would."""
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time per measurement (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    args = ap.parse_args()
    sec, seed = args.seconds, args.seed

    starts2 = start_positions(seed, 2, 8)
    starts4 = start_positions(seed, 4, 16)
    print(f"{len(starts2)} two-player and {len(starts4)} four-player start positions, {sec:g} s each\n")

    rate2 = report("random_playout, 2 players", *measure(playouts(starts2, seed, random_playout), sec))
    rate4 = report("random_playout, 4 players", *measure(playouts(starts4, seed, random_playout), sec))
    report("legal_moves()+apply() playout, 2 players", *measure(playouts(starts2, seed, api_playout), sec))

    mids = mid_game(starts2 + starts4, seed)
    rng = random.Random(seed)
    picks: list[tuple[GameState, Move]] = [(s, rng.choice(s.legal_moves())) for s in mids]
    avg = sum(len(s.legal_moves()) for s in mids) / len(mids)
    print(f"\n{len(mids)} mid-game positions, avg {avg:.1f} legal moves")

    calls: list[tuple[str, Callable[..., object], Sequence[tuple[object, ...]]]] = [
        ("legal_moves() generations", GameState.legal_moves, [(s,) for s in mids]),
        ("slides(player)", GameState.slides, [(s, s.to_move) for s in mids]),
        ("has_legal_move(player)", GameState.has_legal_move, [(s, s.to_move) for s in mids]),
        ("why_illegal(move) checks", GameState.why_illegal, picks),
    ]
    for label, fn, arglist in calls:
        report(label, *measure(each(fn, arglist), sec)[:2])

    print()
    for tiles in (8, 16):
        report(f"random_board(seed, {tiles})", *measure(boards(seed, tiles), sec)[:2])

    print("\nTargets (one core):")
    for label, rate, target in (("2-player", rate2, TARGET_2P), ("4-player", rate4, TARGET_4P)):
        verdict = "PASS" if rate >= target else "FAIL"
        print(f"  {label} full random playouts/s: {rate:>9,.0f}  target >= {target:,.0f}  {verdict}")


if __name__ == "__main__":
    main()
