"""The referee's cost per move, beside a plain pipe ping-pong, in one run.

(a) Plays N games between two instant C bots (``sample_bots/c/greedy --random``)
with :func:`arena.game.referee.play_game` on random 8-tile boards, 1 s per move,
and measures wall time per game, moves, the bots' round trips as the referee
records them (``MoveRecord.ms``), and the wall-clock cost of one move: the
time between consecutive moves as seen by a game observer (request built and
sent, bot answers, answer parsed, checked against the rules and applied), so
process start, handshake and teardown are left out of it.  The request's
``write()`` system call is timed too (``os.write`` is wrapped during these
games): the referee's own work per move is the move's wall clock minus the
bot's round trip timed from the request's ``write()`` to the answer read
(the pipe both ways and the bot's thinking), the same interval a ping-pong
round trip of (b) is timed over.  The bot's clock (``MoveRecord.ms``) starts
only when ``write()`` has returned, and in a real game that call wakes the
bot, often on the other CPU, which costs far more than in a ping-pong; the
older figure, which counts that call as the referee's work, is printed beside.

(b) Starts a tiny C echo program (compiled at run time with ``cc -O2``) and
does M round trips over raw pipe fds with ``os.write``/``os.read``: a real
move request line out (taken from a game transcript), a real answer back.
For reference, the same over a non-blocking fd and a selector (as the arena
waits), and the same request sent to the real bot (its think time).

(c) Replays the games of (a) through :class:`arena.game.referee.Referee` over
in-process channels that answer with the recorded moves: the referee's own
work per move with no pipes and no bot.  Once more with each answer coming
after ``--idle-ms`` asleep (not counted): the same work done by a process that
has just woken up, as in a real game, where the referee sleeps while the bot
thinks.  On a shared virtual machine that alone can triple it.

(a), (b) and (c) alternate in blocks so that a noisy machine hits all alike.
Prints the per-move costs (means and medians), their ratios to the plain
ping-pong with the target (the referee's own work per move within 5x the
plain ping-pong, in a real game and alone: PASS/FAIL), and the fixed
per-game cost (process start, handshake and teardown).  Run from the repository root:

    python bench/bench_referee.py [--games 30] [--round-trips 5000] [--blocks 10] [--replays 5] [--idle-ms 1]
"""

from __future__ import annotations

import argparse
import itertools
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.game import referee
from arena.game.clock import TimeControl
from arena.game.record import BotFault, GameRecord, MoveRecord
from arena.game.referee import BotChannel, BotSpec, GameSetup, Referee, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.rules import GameState, random_board

ROOT = Path(__file__).resolve().parent.parent
BOT = ("sample_bots/c/greedy", "--random")
TILES = 8
TARGET_OWN = 5.0  # the target: the referee's own work per move

ECHO_C = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char line[1 << 16];

int main(int argc, char **argv)
{
    static char out[8192];
    const char *answer = argc > 1 ? argv[1] : "move 3,0NE5";
    size_t n = strlen(answer);
    if (n + 1 > sizeof out)
        return 2;
    memcpy(out, answer, n);
    out[n++] = '\n';
    while (fgets(line, sizeof line, stdin)) {
        if (write(STDOUT_FILENO, out, n) != (ssize_t)n) /* unbuffered: one write per answer */
            return 1;
    }
    return 0;
}
"""


@dataclass
class GameTimes:
    """What one game cost, seen from outside and inside the referee."""

    wall_s: float
    moves: int
    head_s: float  # play_game called -> first move applied
    tail_s: float  # last move applied -> play_game returned


@dataclass
class Samples:
    """Every measurement, in seconds: one entry per move or round trip."""

    games: list[GameTimes] = field(default_factory=list)
    step: list[float] = field(default_factory=list)  # (a) one move's wall clock in the move loop
    bot_rt: list[float] = field(default_factory=list)  # (a) MoveRecord.ms: request written -> answer
    write: list[float] = field(default_factory=list)  # (a) the request's write() system call
    own: list[float] = field(default_factory=list)  # (a) step - write - bot_rt of the same move
    own_with_write: list[float] = field(default_factory=list)  # (a) step - bot_rt (the older measure)
    ping: list[float] = field(default_factory=list)  # (b) blocking echo round trip
    sel: list[float] = field(default_factory=list)  # (b) the same via a selector
    real: list[float] = field(default_factory=list)  # (b) the real bot over raw pipes
    replay: list[float] = field(default_factory=list)  # (c) referee over in-process channels
    replay_idle: list[float] = field(default_factory=list)  # (c) the same, woken up for each answer
    block_ratios: list[float] = field(default_factory=list)
    seen_before: int = 0  # (a) moves whose answer line the referee had read before
    memo_full: bool = False  # its memo of answer lines was full: new lines were not counted


def build_bots() -> None:
    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots/c")], check=True)


SANDBOX = SandboxPolicy()  # "auto": the sandbox where it works, as a league runs; --sandbox off


def bots() -> list[BotSpec]:
    return [BotSpec(name=f"random-{c}", command=BOT, cwd=ROOT, sandbox=SANDBOX) for c in "ab"]


def setup(seed: int, transcript: bool = False) -> GameSetup:
    return GameSetup(
        game_id=f"bench-{seed}",
        seed=seed,
        board=random_board(seed, TILES),
        time_control=TimeControl(move_ms=1000),
        keep_transcript=transcript,
    )


class WriteTimes:
    """Wraps ``os.write`` while in use: when each call began and how long it took."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float]] = []
        self.real = os.write

    def __enter__(self) -> WriteTimes:
        real, calls, clock = self.real, self.calls, time.perf_counter

        def timed_write(fd: int, data: bytes | memoryview) -> int:
            t0 = clock()
            try:
                return real(fd, data)
            finally:
                calls.append((t0, clock() - t0))

        os.write = timed_write
        return self

    def __exit__(self, *exc: object) -> None:
        os.write = self.real


def timed_game(seed: int, out: Samples) -> GameRecord:
    """Play one game with play_game and add its timings to ``out``."""
    stamps: list[float] = []

    def observer(state: GameState, move: MoveRecord | None, fault: object) -> None:
        if move is not None:
            stamps.append(time.perf_counter())

    game, players = setup(seed), bots()  # random_board() is not the referee's cost
    lines_known = len(referee._ANSWERS)
    with WriteTimes() as writes:
        t0 = time.perf_counter()
        record = play_game(game, players, observer)
        t1 = time.perf_counter()
    if record.faults or len(stamps) != len(record.moves) or len(stamps) < 2:
        sys.exit(f"game {seed}: unexpected fault(s) or too short: {record.faults}")
    out.games.append(GameTimes(t1 - t0, len(record.moves), stamps[0] - t0, t1 - stamps[-1]))
    # A line read for the first time is kept (a plain answer, as greedy's are), unless the
    # memo is full: then this count would take it for a line read before.
    out.seen_before += len(record.moves) - (len(referee._ANSWERS) - lines_known)
    out.memo_full = out.memo_full or len(referee._ANSWERS) >= referee._ANSWERS_KEPT
    # Move k's step runs from move k-1 applied to move k applied: build and write
    # the request, the bot's round trip (MoveRecord.ms), parse, check, apply.
    for k in range(1, len(stamps)):
        step, rt = stamps[k] - stamps[k - 1], record.moves[k].ms / 1000
        between = [took for began, took in writes.calls if stamps[k - 1] < began < stamps[k]]
        if len(between) != 1:
            sys.exit(f"game {seed}, move {k}: {len(between)} writes between two moves, expected the request only")
        out.step.append(step)
        out.bot_rt.append(rt)
        out.write.append(between[0])
        out.own.append(step - between[0] - rt)
        out.own_with_write.append(step - rt)
    return record


def sample_exchange(seed: int) -> tuple[str, str, str]:
    """From a transcript: the ``game`` line, and a typical move request (median length) with its answer."""
    record = play_game(setup(seed, transcript=True), bots())
    lines = list(record.seats[0].transcript)
    games = [line[5:] for line in lines if line.startswith("ref> game ")]
    pairs = [
        (lines[i][5:], lines[i + 1][5:])
        for i in range(len(lines) - 1)
        if lines[i].startswith("ref> move ") and lines[i + 1].startswith("bot> move ")
    ]
    if not pairs or not games:
        sys.exit("no game line or move request in the sample game's transcript")
    pairs.sort(key=lambda p: len(p[0]))
    return games[0], *pairs[len(pairs) // 2]


def start_real_bot(game_line: str) -> subprocess.Popen[bytes]:
    """The sample bot itself, past its handshake, ready to answer move requests over raw pipes."""
    bot = subprocess.Popen(list(BOT), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert bot.stdin is not None and bot.stdout is not None
    for line in ("hello 1", game_line):
        ping_pong(bot.stdin.fileno(), bot.stdout.fileno(), (line + "\n").encode("ascii"), 1)
    return bot


class ReplayChannel:
    """An in-process bot that answers each request with its seat's recorded moves: no pipes, no process."""

    previous_hello: tuple[str, tuple[str, ...]] | None = None  # a fresh bot each game
    can_stay = False
    seated_at = 0.0  # seated before the game began: its startup allowance runs from the game's start

    def __init__(self, moves: list[str], idle_s: float = 0.0, waits: list[float] | None = None) -> None:
        self.moves = iter(moves)
        self.answer = ""
        self.idle_s = idle_s  # sleep this long before each answer, as if a bot thought
        self.waits = waits  # each such sleep's seconds, to take out of the referee's time

    def renew(self) -> bool:
        return False

    def stay(self, goodbye: str, hello: tuple[str, tuple[str, ...]]) -> None:
        pass

    def send(self, line: str, ply: int | None = None) -> None:
        head = line.split(" ", 1)[0]
        if head == "hello":
            self.answer = "hello 1 replay"
        elif head == "game":
            self.answer = "ready"
        else:
            self.answer = f"{head} {next(self.moves)}"

    def receive(self, timeout_s: float, deadline: float | None = None) -> tuple[str, float]:
        if self.idle_s and self.waits is not None:
            t0 = time.perf_counter()
            time.sleep(self.idle_s)
            self.waits.append(time.perf_counter() - t0)
        return self.answer, 0.0

    def wait(self, until: float) -> None:
        pass

    def pause(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def finish(self, goodbye: str) -> None:
        pass

    def stop(self, goodbye: str | None, grace_s: float, why: str | None = None) -> None:
        pass

    def seat_facts(self) -> dict[str, object]:
        return {}


def replay(record: GameRecord, game: GameSetup, out: list[float], idle_s: float = 0.0) -> None:
    """Referee.run over replay channels; add each move's wall clock (as in timed_game) to ``out``.

    With ``idle_s``, each answer comes after that long asleep (the time asleep is not
    counted): the same work, done by a process that has just woken up, as a referee is
    whenever a bot takes a while.
    """
    stamps: list[float] = []
    waits: list[float] = []
    asleep: list[float] = []

    def observer(state: GameState, move: MoveRecord | None, fault: object) -> None:
        if move is not None:
            stamps.append(time.perf_counter())
            asleep.append(sum(waits))

    channels: list[BotChannel | BotFault] = [
        ReplayChannel([m.move for m in record.moves if m.player == p], idle_s, waits) for p in range(2)
    ]
    done = Referee(game, bots(), channels, observer).run()
    if done.faults or len(done.moves) != len(record.moves):
        sys.exit(f"replay of {record.game_id} went wrong: {done.faults}")
    out += [(b - a) - (sb - sa) for (a, sa), (b, sb) in itertools.pairwise(zip(stamps, asleep, strict=True))]


def compile_echo(folder: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        sys.exit("no C compiler (cc) found")
    src, exe = folder / "echo.c", folder / "echo"
    src.write_text(ECHO_C)
    subprocess.run([cc, "-O2", "-o", str(exe), str(src)], check=True)
    return exe


def ping_pong(wfd: int, rfd: int, request: bytes, n: int, out: list[float] | None = None) -> None:
    """``n`` round trips over blocking raw fds; each one's seconds appended to ``out``."""
    clock = time.perf_counter
    last = clock()
    for _ in range(n):
        os.write(wfd, request)
        got = os.read(rfd, 65536)
        while not got.endswith(b"\n"):
            got += os.read(rfd, 65536)
        if out is not None:
            now = clock()
            out.append(now - last)
            last = now


def ping_pong_selector(wfd: int, rfd: int, request: bytes, n: int, out: list[float] | None = None) -> None:
    """The same over a non-blocking read fd and a selector, the way BotPool waits (for reference)."""
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ)
    os.set_blocking(rfd, False)
    clock = time.perf_counter
    try:
        last = clock()
        for _ in range(n):
            os.write(wfd, request)
            got = b""
            while not got.endswith(b"\n"):
                sel.select(1.0)
                try:
                    got += os.read(rfd, 65536)
                except BlockingIOError:
                    continue
            if out is not None:
                now = clock()
                out.append(now - last)
                last = now
    finally:
        os.set_blocking(rfd, True)
        sel.close()


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (i < total % parts) for i in range(parts)]


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f} us"


def mean_median(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), statistics.median(xs)


def row(label: str, xs: list[float], note: str = "") -> tuple[float, float]:
    mean, med = mean_median(xs)
    print(f"  {label:<44} {us(mean)} {us(med)}  {note}".rstrip())
    return mean, med


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="games to play (default 30)")
    ap.add_argument("--round-trips", type=int, default=5000, help="ping-pong round trips (default 5000)")
    ap.add_argument(
        "--blocks", type=int, default=10, help="alternate (a), (b) and (c) in this many blocks (default 10)"
    )
    ap.add_argument("--replays", type=int, default=5, help="in-process replays of every game (default 5)")
    ap.add_argument("--seed", type=int, default=1, help="first board seed (default 1)")
    ap.add_argument(
        "--warm-up-games",
        type=int,
        default=0,
        help="games played (untimed) before (a), as a league's worker has played many (default 0)",
    )
    ap.add_argument(
        "--idle-ms",
        type=float,
        default=1.0,
        help="(c) once more, asleep this long before each answer (default 1 ms)",
    )
    ap.add_argument(
        "--sandbox",
        choices=["auto", "off"],
        default="auto",
        help="run (a)'s bots in the sandbox (default auto)",
    )
    args = ap.parse_args()
    global SANDBOX
    SANDBOX = SandboxPolicy(mode="none" if args.sandbox == "off" else "auto")
    blocks = max(1, min(args.blocks, args.games, args.round_trips))

    build_bots()
    # A game with a transcript: the sample request, and a warm-up of caches and the bot binary.
    game_line, request, answer = sample_exchange(args.seed + 10_000)
    req = (request + "\n").encode("ascii")
    print(f"sample move request: {len(req)} bytes ({request[:40]}...), answer {answer!r}")
    for i in range(args.warm_up_games):  # other boards than the timed games'
        play_game(setup(args.seed + 20_000 + i), bots())

    s = Samples()
    with tempfile.TemporaryDirectory(prefix="bench-referee-") as tmp:
        echo = subprocess.Popen(
            [str(compile_echo(Path(tmp))), answer], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        real = start_real_bot(game_line)
        assert echo.stdin is not None and echo.stdout is not None
        assert real.stdin is not None and real.stdout is not None
        wfd, rfd = echo.stdin.fileno(), echo.stdout.fileno()
        real_w, real_r = real.stdin.fileno(), real.stdout.fileno()
        try:
            ping_pong(wfd, rfd, req, 200)  # warm-up
            ping_pong_selector(wfd, rfd, req, 200)
            ping_pong(real_w, real_r, req, 200)
            seed = args.seed
            for n_games, n_rt in zip(split(args.games, blocks), split(args.round_trips, blocks), strict=True):
                first = len(s.step)
                played = [(timed_game(seed + i, s), setup(seed + i)) for i in range(n_games)]
                seed += n_games
                block_step = statistics.fmean(s.step[first:])
                first = len(s.ping)
                ping_pong(wfd, rfd, req, n_rt, s.ping)
                s.block_ratios.append(block_step / statistics.fmean(s.ping[first:]))
                ping_pong_selector(wfd, rfd, req, n_rt, s.sel)
                ping_pong(real_w, real_r, req, n_rt, s.real)
                for _ in range(args.replays):
                    for record, game in played:
                        replay(record, game, s.replay)
                for record, game in played:
                    replay(record, game, s.replay_idle, args.idle_ms / 1000)
        finally:
            for proc in (echo, real):
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(5)

    g = s.games
    n_games = len(g)
    wall = sum(x.wall_s for x in g)
    moves = sum(x.moves for x in g)
    print(
        f"\n(a) play_game: {n_games} games, {moves} moves ({moves / n_games:.1f} per game), "
        f"in {blocks} blocks alternating with (b) and (c)"
    )
    print(f"  games/s                                   {n_games / wall:9.1f}")
    print(
        f"  answer lines read before                  "
        f"{'(memo full)' if s.memo_full else format(s.seen_before / moves, '9.0%')}  "
        f"(after {args.warm_up_games} warm-up games and the earlier timed ones)"
    )
    print(f"  moves/s (all moves / all game wall time)  {moves / wall:9.0f}")
    print(f"  moves/s in the move loop                  {1 / statistics.fmean(s.step):9.0f}")
    print(
        f"  wall per game (mean / median)             {us(wall / n_games)} / {us(statistics.median(x.wall_s for x in g))}"
    )
    print(f"  all game wall time / moves                {us(wall / moves)}")

    print(f"\nper move or round trip                          {'mean':>12} {'median':>12}")
    step = row("(a) wall clock per move, in the move loop", s.step, "<- the referee's per-move cost")
    bot_rt = row("(a)   bot round trip, referee-measured (ms)", s.bot_rt, "write returned -> answer read")
    row("(a)   the request's write() system call", s.write, "wakes the bot")
    own = row("(a)   referee's own work (the rest)", s.own, "request, parse, rules, apply")
    own_w = row("(a)   the same, write() counted as its own", s.own_with_write, "the older measure")
    rep = row("(c) referee alone: replay, in-process bots", s.replay, f"same games x{args.replays}, no pipes")
    rep_idle = row(
        f"(c) the same, {args.idle_ms:g} ms asleep before each answer", s.replay_idle, "(not counted)"
    )
    ping = row(
        f"(b) plain ping-pong ({len(req)} B out, {len(answer) + 1} B back)",
        s.ping,
        "blocking os.write/os.read",
    )
    row("(b) ping-pong, non-blocking fd + selector", s.sel, "how BotPool waits")
    real_rt = row("(b) same request to the real bot, raw pipes", s.real, "greedy --random, no referee")
    think = (max(0.0, real_rt[0] - ping[0]), max(0.0, real_rt[1] - ping[1]))
    print(f"  {'      so the bot thinks for about':<44} {us(think[0])} {us(think[1])}  real bot - echo")

    def ratio(label: str, xs: tuple[float, float], note: str = "") -> tuple[float, float]:
        r = (xs[0] / ping[0], xs[1] / ping[1])
        print(f"  {label:<44} {r[0]:11.2f}x {r[1]:11.2f}x  {note}".rstrip())
        return r

    print(f"\nratio to the plain ping-pong round trip          {'mean':>12} {'median':>12}")
    main_ratio = ratio("(a) wall clock per move", step)
    ratio("(a) minus the bot's think time", (step[0] - think[0], step[1] - think[1]))
    ratio("(a) bot round trip (ms)", bot_rt)
    own_ratio = ratio("(a) referee's own work", own, "<- the target, in a real game")
    own_w_ratio = ratio("(a) the same, write() counted as its own", own_w, "(the older measure)")
    alone_ratio = ratio("(c) referee alone", rep, "<- the target, the referee's work alone")
    idle_ratio = ratio(f"(c) referee alone, after {args.idle_ms:g} ms asleep", rep_idle)
    print(
        f"  per block (mean move / mean ping-pong): {min(s.block_ratios):.2f}x .. {max(s.block_ratios):.2f}x"
    )

    def verdict(label: str, target: float, r: tuple[float, float]) -> None:
        v = ["PASS" if x <= target else "FAIL" for x in r]
        print(f"  {label} <= {target:g}x: {r[0]:.2f}x (means) {v[0]}, {r[1]:.2f}x (medians) {v[1]}")

    print("\ntargets (ratio to the plain ping-pong round trip):")
    verdict("the referee's own work per move, in a real game", TARGET_OWN, own_ratio)
    verdict("the referee's own work per move, alone (in-process bots)", TARGET_OWN, alone_ratio)
    print(f"  (the whole move, bot and pipes included: {main_ratio[1]:.2f}x (medians); no target)")
    print(
        f"  (the referee's own work counting the request's write() as its own: {own_w_ratio[0]:.2f}x (means), "
        f"{own_w_ratio[1]:.2f}x (medians))"
    )
    print(
        f"  (the referee's work alone after {args.idle_ms:g} ms asleep: {idle_ratio[1]:.2f}x (medians): "
        "the same code, run by a process that has just woken up)"
    )

    per_move = step[0]
    fixed = [x.wall_s - x.moves * per_move for x in g]
    print("\nfixed cost per game (process start + handshake + teardown):")
    print(
        f"  wall - moves x per-move (mean / median)   {us(statistics.fmean(fixed))} / {us(statistics.median(fixed))}"
    )
    print(
        f"    start + handshake (to the first move)   {us(statistics.fmean(x.head_s - per_move for x in g))}"
    )
    print(f"    end, stop bots, record (after the last) {us(statistics.fmean(x.tail_s for x in g))}")
    print(f"  share of all game wall time               {sum(fixed) / wall:9.1%}")
    print(f"  = the time of {statistics.fmean(fixed) / per_move:.0f} moves; a game has {moves / n_games:.1f}")


if __name__ == "__main__":
    main()
