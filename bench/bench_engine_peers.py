"""Our rules engine (arena.rules) side by side with two peer engines, on the same positions.

Peers, read at run time from their git snapshots (nothing of theirs is kept
in this repository; a peer that cannot be found is skipped, saying why):

- ``js``: gotankersley/battlesheep, JavaScript, run with ``node`` through a
  small driver this script writes into a temporary folder;
- ``py``: kuosmark/battle-sheep, Python (its board is laid out in pixels; the
  driver places its pastures on our hexes, so it plays our boards).

Every position is ours: 2 players, 16 sheep each, random 8-tile (32-hex)
boards with both herds placed at random, and mid-game positions a few random
plies in.  The operations, each timed the same way in every engine:

- ``movegen``: list the legal moves of a mid-game position.  Ours and the
  Python peer list every move (source, direction, count); the JS peer's
  ``getMoves()`` lists one entry per open slide with its largest count, so it
  is also timed expanding each slide into its counts (``js+counts``);
- ``apply``: replay recorded random games (the same moves in every engine)
  from their start, per move, restoring the start each time in each engine's
  own way: ours ``copy()`` then ``apply()``; JS ``clone()`` then, per move,
  ``isValidMove()``, ``makeMove()`` and the turn passing of its ``Game``;
  Python peer ``make_normal_turn()``, then ``undo_normal_turn()`` back (untimed);
- ``playout``: play a start position to the end at random, per playout.
  Ours twice: the special ``random_playout`` (a uniform open slide, then a
  uniform count, as the JS random player picks) and the public API a bot
  uses (``legal_moves()``, a uniform pick, ``apply()``);
- ``boardgen``: lay a random 8-tile board by the placement rules (ours:
  ``random_board(seed, 8)``, a ready board with its tables; JS: 8 x
  ``getTileMoves()`` + ``makeTile()``, then ``normalize()``).  The Python
  peer has a fixed rectangular board and no generator.

Time is each engine's CPU time by default (--clock cpu: our process, and
the node process with all its threads, so its compiler and collector threads
count against it), or elapsed time (--clock wall).  Measurements interleave
(every round runs every operation in every engine, turning who goes first)
and repeat; the table gives each figure's median
and its spread (min-max over the rounds), and the ratio ours / peer (how many
times faster we are, >1 is faster) as the median of the per-round ratios.
Run from the repository root:

    python bench/bench_engine_peers.py [--rounds 7] [--seconds 0.3] [--seed 1] [--clock cpu|wall]
        [--js-git DIR] [--py-git DIR]  (default: /work/.mirror/<owner>+<name>/repo,
                                        or $PEER_JS_GIT / $PEER_PY_GIT)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

from bench_rules import api_playout, measure, mid_game, spread, start_positions

from arena.rules import GameState, SheepMove, random_board, random_playout

MIRRORS = Path("/work/.mirror")
JS_REPO = "gotankersley/battlesheep"
PY_REPO = "kuosmark/battle-sheep"
Timed = Callable[[float], tuple[float, int]]  # seconds -> (elapsed, operations)

# The JS driver: loads our positions, then answers one timing request per line.
JS_DRIVER = r"""
globalThis.window = {};  // hex-lib.js sets drawing constants on window
const { Board } = await import('./src/core/board.js');
import * as readline from 'node:readline';

let data = null;
const pos = (q, r) => ({q: q, r: r});
const clocks = {  // seconds
  wall: () => performance.now() / 1000,
  cpu: () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; },  // every thread
};
function timed(seconds, step, clock) {  // run step() until seconds pass: [elapsed, operations]
  let ops = 0;
  const t0 = clock();
  let t = t0;
  while (t - t0 < seconds) { ops += step(); t = clock(); }
  return [t - t0, ops];
}
let i = 0;
const next = (list) => list[i++ % list.length];
const BATCH = %(batch)d;  // positions per clock reading: a reading costs about as much as a short step
function passTurn(b) {  // Game.onMoved: the other player moves next unless stuck
  const over = b.isGameOverForPlayers();
  if (over[0] && over[1]) return true;
  if (!over[+(!b.turn)]) b.changeTurn();
  return false;
}
const ops = {
  movegen: () => {
    for (let n = 0; n < BATCH; n++) next(data.mids).getMoves();
    return BATCH;
  },
  'movegen+counts': () => {
    for (let n = 0; n < BATCH; n++) {
      const moves = [];
      for (const m of next(data.mids).getMoves())
        for (let k = 1; k <= m.count; k++) moves.push({src: m.src, dst: m.dst, count: k});
    }
    return BATCH;
  },
  apply: () => {
    const game = next(data.games);
    const b = game.start.clone();
    for (const [sq, sr, dq, dr, k] of game.moves) {
      const src = pos(sq, sr), dst = pos(dq, dr);
      if (!b.isValidMove(src, dst, k).status) throw new Error('replay went wrong');
      b.makeMove(src, dst, k);
      passTurn(b);
    }
    return game.moves.length;
  },
  playout: () => {
    const b = next(data.starts).clone();
    for (;;) {
      const over = b.isGameOverForPlayers();
      if (over[0] && over[1]) break;
      if (over[b.turn]) { b.changeTurn(); continue; }
      const moves = b.getMoves();
      const m = moves[Math.floor(Math.random() * moves.length)];
      b.makeMove(m.src, m.dst, Math.floor(Math.random() * m.count) + 1);
      if (passTurn(b)) break;
    }
    return 1;
  },
  boardgen: () => {
    const b = new Board();
    for (let t = 0; t < 8; t++) {
      const tiles = b.getTileMoves();
      const tile = tiles[Math.floor(Math.random() * tiles.length)];
      b.makeTile(tile.pos, tile.rot);
    }
    b.normalize();
    return 1;
  },
};
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const req = JSON.parse(line);
  if (req.op === 'load') {
    data = {
      mids: req.mids.map(Board.fromString),
      starts: req.starts.map(Board.fromString),
      games: req.games.map(g => ({start: Board.fromString(g.start), moves: g.moves})),
    };
    for (const b of data.mids) b.getMoves();  // a parse error shows here, not mid-run
    console.log(JSON.stringify({ok: true}));
  } else {
    console.log(JSON.stringify(timed(req.seconds, ops[req.op], clocks[req.clock])));
  }
}
"""


def export_repo(git_dir: Path, into: Path) -> None:
    """The snapshot's files at HEAD, written under ``into`` (git archive, no work tree)."""
    tar = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "HEAD", "src"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=BytesIO(tar.stdout)) as archive:
        archive.extractall(into, filter="data")


def find_repo(given: str | None, option: str, env: str, repo: str) -> tuple[Path | None, str]:
    """The git dir of ``repo``'s snapshot (from ``option``, ``$env`` or the mirror), or None and why not."""
    path = Path(given or os.environ.get(env) or MIRRORS / repo.replace("/", "+") / "repo")
    if not (path / "HEAD").is_file():
        return None, f"no git snapshot of {repo} at {str(path)!r} (give {option} DIR or ${env})"
    return path, ""


# --- our positions, written for the peers --------------------------------------------


def js_position(state: GameState) -> str:
    """The JS peer's board string: 32 'q,r' tiles, then stacks 'q,r' + h|t + sheep, then the turn."""
    coords = state.board.coords
    tiles = [f"{q},{r}" for q, r in coords]
    stacks = [f"{q},{r}{'ht'[p]}{n}" for (q, r), (p, n) in state.stacks().items()]
    return "|".join([*tiles, *stacks, "ht"[state.to_move]])


def recorded_games(starts: list[GameState], seed: int) -> list[tuple[GameState, list[SheepMove]]]:
    rng = random.Random(seed)
    games = []
    for start in starts:
        state = start.copy()
        moves = []
        while not state.is_over:
            move = rng.choice(state.legal_moves())
            assert isinstance(move, SheepMove)
            moves.append(move)
            state.apply(move)
        games.append((start, moves))
    return games


def js_game(start: GameState, moves: list[SheepMove]) -> dict[str, Any]:
    state = start.copy()
    out = []
    for m in moves:
        src = state.board.index[m.source]
        dest = state.board.coords[state.slide_end(src, m.direction)]
        out.append([m.q, m.r, dest[0], dest[1], m.count])
        state.apply(m)
    return {"start": js_position(start), "moves": out}


# --- the engines ------------------------------------------------------------------------


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


BATCH = 10  # positions per clock reading in move generation: a reading costs about as much as a short step


def batch(step: Callable[[], object]) -> int:
    for _ in range(BATCH):
        step()
    return BATCH


def timed(step: Callable[[], int], clock: Callable[[], float]) -> Timed:
    return lambda seconds: measure(lambda: (step(), 0), seconds, clock)[:2]


def cycle(items: list[Any]) -> Callable[[], Any]:
    state = {"i": 0}

    def next_item() -> Any:
        state["i"] += 1
        return items[state["i"] % len(items)]

    return next_item


def ours(
    mids: list[GameState], starts: list[GameState], games: list[Any], seed: int, clock: Callable[[], float]
) -> dict[str, Timed]:
    rng = random.Random(seed)
    mid, start, game = cycle(mids), cycle(starts), cycle(games)
    seeds = iter(range(seed * 1_000_000, 2**62))

    def apply() -> int:
        first, moves = game()
        state = first.copy()
        for m in moves:
            state.apply(m)
        return len(moves)

    return {
        "movegen": timed(lambda: batch(lambda: mid().legal_moves()), clock),
        "apply": timed(apply, clock),
        "playout": timed(lambda: (random_playout(start().copy(), rng), 1)[1], clock),
        "playout (API)": timed(lambda: (api_playout(start().copy(), rng), 1)[1], clock),
        "boardgen": timed(lambda: (random_board(next(seeds), 8), 1)[1], clock),
    }


class JsPeer:
    """The JS engine in one node process, answering timing requests on its stdin."""

    def __init__(self, git_dir: Path, workdir: Path, payload: dict[str, Any], clock: str) -> None:
        self.clock = clock
        export_repo(git_dir, workdir)
        (workdir / "package.json").write_text('{"type": "module"}\n')
        (workdir / "driver.mjs").write_text(JS_DRIVER.replace("%(batch)d", str(BATCH)))
        self.proc = subprocess.Popen(
            ["node", "driver.mjs"], cwd=workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            self.ask({"op": "load", **payload}, deadline=60.0)
        except BaseException:
            self.close()
            raise

    def ask(self, request: dict[str, Any], deadline: float) -> Any:
        """Send one request and read its one-line answer, waiting at most ``deadline`` seconds."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        # One request, one line: nothing is left in the reader's buffer between answers.
        if not select.select([self.proc.stdout], [], [], deadline)[0]:
            raise RuntimeError(f"the JS driver did not answer {request['op']!r} within {deadline:g} s")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the JS driver stopped (exit status {self.proc.wait()})")
        return json.loads(line)

    def ops(self) -> dict[str, Timed]:
        def op(name: str) -> Timed:
            request = {"op": name, "clock": self.clock}
            return lambda seconds: tuple(  # type: ignore[return-value]
                self.ask({**request, "seconds": seconds}, deadline=10 * seconds + 30)
            )

        names = ("movegen", "movegen+counts", "apply", "playout", "boardgen")
        return {name: op(name) for name in names}

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def py_peer(
    git_dir: Path,
    workdir: Path,
    mids: list[GameState],
    starts: list[GameState],
    games: list[Any],
    seed: int,
    clock: Callable[[], float],
) -> dict[str, Timed]:
    """The Python peer's Game on our boards: its pastures placed on our hexes."""
    export_repo(git_dir, workdir)
    sys.path.insert(0, str(workdir / "src"))
    from constants import HALF_RADIUS, MINIMAL_RADIUS, PASTURE_RADIUS  # type: ignore[import-not-found]
    from game import Game  # type: ignore[import-not-found]
    from pasture import Pasture  # type: ignore[import-not-found]

    def build(state: GameState) -> tuple[Any, dict[tuple[int, int], Any]]:
        # Flat-top hexes: axial (q, r) has its centre at (1.5 R q, m (2 r + q)),
        # m the inner radius; our six neighbours are its six directions.  The
        # offset keeps coordinates off 0 (it compares them with a relative tolerance).
        game = Game(4, 8, True)
        at = {}
        for q, r in state.board.coords:
            x = 100 + 1.5 * PASTURE_RADIUS * q
            y = 100 + MINIMAL_RADIUS * (2 * r + q)
            at[(q, r)] = Pasture((x - HALF_RADIUS, y - MINIMAL_RADIUS))
        for (q, r), (p, n) in state.stacks().items():
            at[(q, r)].occupy(p, n)
        game.pastures = list(at.values())
        game._turn = 3  # past the two herd placements
        game.is_players_turn = state.to_move == 0
        return game, at

    rng = random.Random(seed)
    mid = cycle([build(s)[0] for s in mids])
    start = cycle([build(s)[0] for s in starts])

    def moves_of(game: Any) -> list[tuple[Any, Any, int]]:
        return [
            (p, t, k)
            for p in game.get_potential_pastures_to_choose_this_turn()
            for t in p.get_potential_targets(game.pastures)
            for k in range(1, p.get_amount_of_sheep())
        ]

    replays = []
    for first, moves in games:
        game, at = build(first)
        state = first.copy()
        plan = []
        for m in moves:
            dest = state.board.coords[state.slide_end(state.board.index[m.source], m.direction)]
            plan.append((at[m.source], at[dest], m.count))
            state.apply(m)
        replays.append((game, plan))
    replay = cycle(replays)

    def timed_then_undone(
        play: Callable[[], tuple[Any, list[tuple[Any, Any, int]]]], per_move: bool
    ) -> Timed:
        def run(seconds: float) -> tuple[float, int]:
            elapsed, ops = 0.0, 0
            while elapsed < seconds:
                t0 = clock()
                game, done = play()
                elapsed += clock() - t0
                ops += len(done) if per_move else 1
                for p, t, k in reversed(done):  # back to the start, untimed
                    game.undo_normal_turn(p, t, k)
            return elapsed, ops

        return run

    def apply() -> tuple[Any, list[tuple[Any, Any, int]]]:
        game, plan = replay()
        for p, t, k in plan:
            game.make_normal_turn(p, t, k)
        return game, plan

    def playout() -> tuple[Any, list[tuple[Any, Any, int]]]:
        game = start()
        done = []
        while not game.is_over():
            move = rng.choice(moves_of(game))
            game.make_normal_turn(*move)
            done.append(move)
        game._winner = None  # is_over() kept the winner; the undo below brings the game back
        return game, done

    return {
        "movegen": timed(lambda: batch(lambda: moves_of(mid())), clock),
        "apply": timed_then_undone(apply, per_move=True),
        "playout": timed_then_undone(playout, per_move=False),
    }


# --- the comparison -----------------------------------------------------------------------

OPS = ("movegen", "apply", "playout", "boardgen")
# (label, our operation, peer, peer's operation)
ROWS = [
    ("move generation, every move (ours legal_moves)", "movegen", "js", "movegen+counts"),
    ("move generation vs JS getMoves (a slide each)", "movegen", "js", "movegen"),
    ("apply: replay a recorded game, per move", "apply", "js", "apply"),
    ("random playout (ours random_playout)", "playout", "js", "playout"),
    ("random playout (ours legal_moves+apply)", "playout (API)", "js", "playout"),
    ("random board, 8 tiles", "boardgen", "js", "boardgen"),
    ("move generation, every move", "movegen", "py", "movegen"),
    ("apply: replay a recorded game, per move", "apply", "py", "apply"),
    ("random playout (ours random_playout)", "playout", "py", "playout"),
    ("random playout (ours legal_moves+apply)", "playout (API)", "py", "playout"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--seconds", type=float, default=0.3, help="time per figure per round (default 0.3)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: each engine's process CPU time, all its threads (default; steady on a shared machine); "
        "wall: elapsed time",
    )
    ap.add_argument("--ops", default=",".join(OPS), help=f"operations to time (default all: {','.join(OPS)})")
    ap.add_argument("--js-git", help=f"git dir of a {JS_REPO} snapshot")
    ap.add_argument("--py-git", help=f"git dir of a {PY_REPO} snapshot")
    args = ap.parse_args()

    starts = start_positions(args.seed, 2, 8)
    mids = mid_game(starts, args.seed)
    games = recorded_games(starts, args.seed)
    avg_moves = sum(len(s.legal_moves()) for s in mids) / len(mids)
    plies = sum(len(m) for _, m in games) / len(games)
    print(f"clock: {args.clock} time")
    print(
        f"{len(starts)} start positions (2 players, 16 sheep, 8-tile boards), {len(mids)} mid-game "
        f"positions (avg {avg_moves:.1f} legal moves), {len(games)} recorded games (avg {plies:.1f} plies)"
    )
    engines: dict[str, dict[str, Timed]] = {"ours": ours(mids, starts, games, args.seed, CLOCKS[args.clock])}
    js: JsPeer | None = None
    with tempfile.TemporaryDirectory(prefix="peers-") as tmp:
        js_git, why = find_repo(args.js_git, "--js-git", "PEER_JS_GIT", JS_REPO)
        if js_git is None or shutil.which("node") is None:
            print(f"skipping {JS_REPO}: {why or 'node is not on PATH'}")
        else:
            payload = {
                "mids": [js_position(s) for s in mids],
                "starts": [js_position(s) for s in starts],
                "games": [js_game(s, m) for s, m in games],
            }
            js = JsPeer(js_git, Path(tmp) / "js", payload, args.clock)
            engines["js"] = js.ops()
            print(
                f"{JS_REPO}: node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}"
            )
        py_git, why = find_repo(args.py_git, "--py-git", "PEER_PY_GIT", PY_REPO)
        if py_git is None:
            print(f"skipping {PY_REPO}: {why}")
        else:
            engines["py"] = py_peer(
                py_git, Path(tmp) / "py", mids, starts, games, args.seed, CLOCKS[args.clock]
            )
            print(f"{PY_REPO}: Python {sys.version.split()[0]} (this interpreter)")
        try:
            chosen = {op for op in args.ops.split(",") if op}
            if chosen - set(OPS):
                ap.error(f"unknown operation {sorted(chosen - set(OPS))[0]!r} (one of {', '.join(OPS)})")
            rates = run_rounds(engines, chosen, args.rounds, args.seconds)
        finally:
            if js is not None:
                js.close()
    report(rates, engines)


def run_rounds(
    engines: dict[str, dict[str, Timed]], chosen: set[str], rounds: int, seconds: float
) -> dict[tuple[str, str], list[float]]:
    """Every (engine, operation) once per round, the engines' order turning each round; a warm-up first."""
    names = list(engines)
    rates: dict[tuple[str, str], list[float]] = {}
    for rnd in range(rounds + 1):
        order = names[rnd % len(names) :] + names[: rnd % len(names)]
        for op in ("movegen", "movegen+counts", "apply", "playout", "playout (API)", "boardgen"):
            if op.split("+")[0].split(" ")[0] not in chosen:
                continue
            for name in order:
                if op in engines[name]:
                    elapsed, n = engines[name][op](seconds)
                    if rnd:  # round 0 warms up (JIT, memos)
                        rates.setdefault((name, op), []).append(n / elapsed)
        print(f"round {rnd}/{rounds} done", file=sys.stderr)
    return rates


def report(rates: dict[tuple[str, str], list[float]], engines: dict[str, dict[str, Timed]]) -> None:
    print(f"\n{'operation':<48} {'ours /s median (min-max)':>30} {'peer /s median (min-max)':>30}  ours/peer")
    for label, mine, peer, theirs in ROWS:
        if ("ours", mine) not in rates or (peer, theirs) not in rates:
            continue
        a, b = rates[("ours", mine)], rates[(peer, theirs)]
        ratios = [x / y for x, y in zip(a, b, strict=True)]
        lo, hi = min(ratios), max(ratios)
        print(
            f"{peer + ': ' + label:<48} {spread(a):>30} {spread(b):>30}  "
            f"{statistics.median(ratios):6.2f}x ({lo:.2f}-{hi:.2f})"
        )
    print("\nours/peer > 1: ours is that many times faster (median of the per-round ratios, min-max).")


if __name__ == "__main__":
    main()
