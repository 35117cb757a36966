"""The ladder service (``arena serve``): how soon a submitted bot is placed, against a round
robin of the same bots; its pages' latency under readers, with and without games playing; its
CPU share while idle.

**Placing.**  A ladder whose two house bots are ``sample_bots/c/greedy --greedy P`` for P = 1
and P = 0; once their league has settled, the bench submits the graded bots between them (P
evenly spaced; 6 of them for ``--bots 8``), strongest first and one after the other: each
``arena submit --wait`` starts when the previous one returned (its check passed), while the
league plays.  Each is a folder holding the greedy binary, command ``./greedy --greedy P``,
sent with an admin's token (no quota).  For each, seconds from its submit command's start to

- (a) its check passing (the submission's own ``updated`` time, from the API);
- (b) its first game stored in ``results.sqlite`` (a rated game: standings.json counts it);
- (c) its place being sure: each adjacent pair it is in, in the ranking of the league's bots,
  settled by the league's own pair test (ordered, or tied within its indifference:
  :meth:`ContinuousLeague.pairs`, what stops a continuous league).  A bot that joins later
  between two others can unsettle a place: *sure* is the first time, *for good* the last
  time it became sure (it stayed so to the league's settled stop).

(b) and (c) are seen by polling the store once a second.  The ladder's cost to its league's
settled stop: its games, the wall time from the service's start, and the CPU time of the
service's process tree (its own, the league's processes', the checks'; read from /proc).

Against it: the same bots in a round robin (``bench_continuous.play_round_robin``, through
the tournament runner, ``--step`` rounds a run, each run resuming the last) to the first round
after which the same pair tests settle its standings, or ``--rr-rounds`` rounds (the default,
90, keeps a default run under 15 minutes and is far too few for 8 bots: for the figure to the
same certainty run ``--rr-rounds 900 --step 30``, about 16 minutes; see docs/PERFORMANCE.md).

**Pages.**  On the settled ladder: the CPU share of one core the service's process tree uses
over ``--idle`` seconds.  Then the bench submits ``twin``, a copy of the P = 0 house bot (a
pair slow to settle as tied: the league keeps playing), and for each N of ``--readers``
measures ``--window`` seconds of N concurrent readers (httpx, one connection each, on
127.0.0.1) fetching the pages in turn, first with the ladder paused (no games), then resumed
(games playing): p50/p99/max per page, requests/s, the service's CPU over the window, the
games stored meanwhile and their time faults.  Pages: ``/``, ``/games/{id}`` and
``/api/standings`` where the service has them, else ``/api/bots`` and ``/api/ladder``.

Run from the repository root (it builds sample_bots/c first):

    python bench/bench_ladder.py [--bots 8] [--seeds 1] [-j 2] [--move 200ms] [--quick]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import yaml
from bench_continuous import RoundRobin, play_round_robin

from arena.game.proctree import children, command_line, cpu_seconds, tree_cpu_total
from arena.game.record import FaultKind
from arena.ladder.roster import LEAGUE_FILE
from arena.ladder.settings import Ladder, load_ladder
from arena.league.continuous import ContinuousLeague, describe_pairs
from arena.league.store import STORE_NAME, ResultStore
from tests.support.ladder_helpers import Server, read_concurrently

ROOT = Path(__file__).resolve().parent.parent
GREEDY = ROOT / "sample_bots" / "c" / "greedy"
ARENA = [sys.executable, "-m", "arena"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # the arena's processes import this checkout
POLL_S = 1.0
PARTS = {"arena.ladder.league_job": "league", "arena.ladder.job": "checks"}  # the service's children
PENDING = {"received", "unpacked", "built", "checking"}  # a submission's states before its verdict
T = TypeVar("T")


def grades(n: int) -> dict[str, str]:
    """``n`` bots of graded strength, strongest first: ``pNNN`` -> P, from 1 down to 0."""
    ps = [1 - i / (n - 1) for i in range(n)]
    return {f"p{round(p * 100):03d}": f"{p:.3g}" for p in ps}


def ladder_yaml(folder: Path, seed: int, jobs: int, move: str, house: Mapping[str, str]) -> Path:
    """The ladder file: a continuous league of the house bots, clock and concurrency as the
    round robin's (bench_continuous.tournament_yaml), checks ``jobs`` games at once."""
    bots = "".join(
        f"  - {{name: {name}, command: [sample_bots/c/greedy, --greedy, '{p}']}}\n"
        for name, p in house.items()
    )
    path = folder / "ladder.yaml"
    path.write_text(
        f"name: bench-ladder\nseed: {seed}\nplayers: 2\nformat: continuous\nconfidence: 0.95\n"
        f"max_games: 100000\ncwd: {ROOT}\nconcurrency: {jobs}\n"
        f"time_control: {{move: {move}, startup: 10s}}\nend_grace: 200ms\noutput: {folder / 'results'}\n"
        f"bots:\n{bots}ladder:\n  check: {{concurrency: {jobs}}}\n"
    )
    return path


def wait_for(get: Callable[[], T], done: Callable[[T], bool], seconds: float, what: str) -> T:
    """``get()`` once ``done`` holds for it; SystemExit naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = get()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {seconds:.0f} s waiting for {what}: {value!r}")
        time.sleep(0.25)


class Service(Server):
    """One ``arena serve --port 0`` on 127.0.0.1 (the tests' :class:`Server`), with a client of
    its API."""

    def __init__(self, ladder: Path) -> None:
        super().__init__(ladder)
        self.http = httpx.Client(base_url=self.url, timeout=60)

    def get(self, path: str, token: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.get(path, headers=headers)
        r.raise_for_status()
        return r.json()

    def post(self, path: str, token: str) -> Any:
        r = self.http.post(path, headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        return r.json()

    def league(self) -> dict[str, Any]:
        """What the ladder says its league is doing: state, detail, since."""
        league: dict[str, Any] = self.get("/api/ladder")["league"]
        return league

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        """SIGTERM (the service drains and stops its league), SIGKILL to its group after 90 s."""
        try:
            return super().stop(sig)
        finally:
            self.http.close()


def add_admin(ladder: Path) -> str:
    """An admin's token (``arena serve --add-author bench --admin``): submits without quotas."""
    added = subprocess.run(
        [*ARENA, "serve", str(ladder), "--add-author", "bench", "--admin"],
        capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120, check=True,
    )  # fmt: skip
    return added.stdout.strip()


@dataclass(frozen=True)
class Submitted:
    """One bot sent: when its submit command started, and when its check passed."""

    name: str  # as the league knows it: BOT.v1
    p: str
    began: float
    passed: float


def submit(service: Service, token: str, folder: Path, name: str, p: str) -> Submitted:
    """Send the greedy bot with P = ``p`` as ``name`` (``arena submit``), and wait for its
    check to pass.

    The bench waits on its own kept-alive connection rather than with ``--wait``, which opens
    one per poll: on the shared machine this was measured on, loopback connects now and then
    went unanswered for several seconds (an idle ``python -m http.server`` too), and one
    connect timing out ends ``--wait``.  For the same reason a send that failed before the
    ladder took the bot is tried again."""
    bot = folder / "bots" / name
    bot.mkdir(parents=True)
    shutil.copy2(GREEDY, bot / "greedy")
    began = time.time()
    for _attempt in range(3):
        sent = subprocess.run(
            [*ARENA, "submit", service.url, str(bot), "--command", f"./greedy --greedy {p}", "--name", name],
            capture_output=True, text=True, env={**ENV, "ARENA_TOKEN": token}, cwd=ROOT, timeout=300,
        )  # fmt: skip
        found = re.search(r"/api/submissions/(\d+)", sent.stdout)
        taken = any(b["bot"] == name for b in service.get("/api/bots")["bots"])
        if found is not None or taken:
            break
    if sent.returncode != 0 or found is None:
        raise SystemExit(
            f"arena submit of {name} ended {sent.returncode}:\n{sent.stdout[-3000:]}{sent.stderr[-3000:]}"
        )
    status = f"/api/submissions/{found.group(1)}"
    sub = wait_for(
        lambda: service.get(status, token), lambda s: s["state"] not in PENDING, 1500, f"{name}'s check"
    )
    if sub["state"] != "passed":
        raise SystemExit(f"{name}: {sub['state']}: {sub.get('reason')}")
    return Submitted(f"{name}.v{sub['version']}", p, began, float(sub["updated"]))


@dataclass
class Placing:
    """When the monitor first saw a bot's first game, and its place sure (wall clock times)."""

    first_game: float | None = None
    first_sure: float | None = None
    sure_since: float | None = None  # None while it is not sure


@dataclass
class Cpu:
    """The service's process tree's CPU seconds, by part (from /proc)."""

    total: float = 0.0  # everything, finished children included
    own: float = 0.0  # the service's process itself
    parts: dict[str, float] = field(default_factory=dict)  # league, checks, other: by direct child


class Monitor(threading.Thread):
    """Polls the ladder's store and the service's processes once a second: each bot's first
    game and the times its place is sure, the CPU time of each part of the service."""

    def __init__(self, ladder: Ladder, pid: int) -> None:
        super().__init__(daemon=True)
        self.folder = ladder.folder
        self.settings = ladder.league.continuous
        self.rating = ladder.league.rating
        self.pid = pid
        self.placing: dict[str, Placing] = {}
        self.pairs = ""
        self.games = 0
        self._children: dict[int, tuple[str, float]] = {}  # direct child -> its part, last tree CPU
        self.cpu = Cpu()
        self._seen: tuple[int, tuple[str, ...]] = (0, ())
        self._halt = threading.Event()
        self.lock = threading.Lock()

    def run(self) -> None:
        while not self._halt.wait(POLL_S):
            self.poll()

    def stop(self) -> None:
        self._halt.set()
        self.join(30)

    def poll(self) -> None:
        now = time.time()
        cpu = self._sample_cpu()
        bots = self._bots()
        if not bots or not (self.folder / STORE_NAME).is_file():
            return
        with ResultStore.open(self.folder) as store:
            games = [(index, seats) for index, _board, seats in store.fit_games()]
            if (len(games), bots) == self._seen:
                with self.lock:
                    self.cpu = cpu
                return
            schedule = store.schedule()
        playing = set(bots)
        league = ContinuousLeague(
            bots, 2, 0, "all", self.settings, self.rating, schedule,
            [(i, s) for i, s in games if all(name in playing for name, _ in s)],
        )  # fmt: skip
        pairs = league.pairs()
        played = Counter(name for _, seats in games for name, _ in seats)
        with self.lock:
            self._seen, self.games, self.cpu = (len(games), bots), len(games), cpu
            self.pairs = describe_pairs(pairs, self.settings.indifference)
            for bot in bots:
                p = self.placing.setdefault(bot, Placing())
                if p.first_game is None and played[bot]:
                    p.first_game = now
                sure = all(pair.settled() for pair in pairs if bot in (pair.above, pair.below))
                if sure and p.sure_since is None:
                    p.sure_since = now
                    p.first_sure = p.first_sure or now
                elif not sure:
                    p.sure_since = None

    def _bots(self) -> tuple[str, ...]:
        """The bots the league plays now, from the league file the service wrote."""
        try:
            data = yaml.safe_load((self.folder / LEAGUE_FILE).read_text())
        except (OSError, yaml.YAMLError):
            return ()
        return tuple(b["name"] for b in data.get("bots", []) if not b.get("retired"))

    def _sample_cpu(self) -> Cpu:
        for child in children(self.pid):
            argv = command_line(child)
            part = PARTS.get(argv[2] if len(argv) > 2 and argv[1] == "-m" else "", "other")
            # A child is named by its module once it runs it (just forked it still has the
            # service's arguments; a zombie has none) and keeps that name; its CPU time only
            # grows (once reaped /proc has nothing: its time is then in the service's cutime).
            named, last = self._children.get(child, ("other", 0.0))
            self._children[child] = (part if named == "other" else named, max(last, tree_cpu_total(child)))
        parts: Counter[str] = Counter()
        for part, seconds in self._children.values():
            parts[part] += seconds
        return Cpu(tree_cpu_total(self.pid), cpu_seconds(self.pid)[0], dict(parts))

    def final(self) -> tuple[dict[str, Placing], int, Cpu, str]:
        """Stop polling, poll once more, and say what was seen."""
        self.stop()
        self.poll()
        return self.placing, self.games, self.cpu, self.pairs


@dataclass
class LadderRun:
    """One seed's ladder, placed: what the bench measured."""

    began: float
    settled: float | None  # when the league stopped, settled (None: not by the deadline)
    detail: str
    games: int
    cpu: Cpu
    house: dict[str, str]
    submitted: list[Submitted]
    placing: dict[str, Placing]
    pairs: str


def place_bots(args: argparse.Namespace, seed: int, folder: Path) -> tuple[LadderRun, Service, str]:
    """Start a ladder of the house bots, submit the others one after the other, and wait for
    the league to settle; the service is left running (for the pages)."""
    every = grades(args.bots)
    names = list(every)
    house = {names[0]: every[names[0]], names[-1]: every[names[-1]]}
    path = ladder_yaml(folder, seed, args.jobs, args.move, house)
    ladder = load_ladder(path)
    token = add_admin(path)
    began = time.time()
    service = Service(path)
    try:
        return _place(args, service, ladder, token, began, folder, every, house)
    except BaseException:
        service.stop()
        raise


def _place(
    args: argparse.Namespace,
    service: Service,
    ladder: Ladder,
    token: str,
    began: float,
    folder: Path,
    every: dict[str, str],
    house: dict[str, str],
) -> tuple[LadderRun, Service, str]:
    names = list(every)
    monitor = Monitor(ladder, service.proc.pid)
    monitor.start()
    wait_for(service.league, lambda s: s["state"] == "idle", args.ladder_timeout, "the house bots' league")
    sent = []
    for name in names[1:-1]:
        sent.append(submit(service, token, folder, name, every[name]))
        print(f"  {sent[-1].name}: check passed after {sent[-1].passed - sent[-1].began:.1f} s", flush=True)
    last = sent[-1].passed
    deadline = time.monotonic() + args.ladder_timeout
    settled = None
    while time.monotonic() < deadline:
        league = service.league()
        if league["state"] == "idle" and league["since"] > last:
            settled = float(league["since"])
            break
        if league["state"] == "failed":
            raise SystemExit(f"the ladder's league failed: {league['detail']}")
        time.sleep(0.5)
    placing, games, cpu, pairs = monitor.final()
    run = LadderRun(began, settled, service.league()["detail"], games, cpu, house, sent, placing, pairs)
    return run, service, token


def seconds(t: float | None, since: float) -> str:
    return "-" if t is None else f"{t - since:.1f} s"


def print_placing(run: LadderRun) -> None:
    print(f"{'bot':<10} {'P':>6} {'(a) passed':>11} {'(b) 1st game':>13} {'(c) sure':>10} {'for good':>10}")
    for name, p in run.house.items():
        seen = run.placing.get(name, Placing())
        print(
            f"{name:<10} {p:>6} {'house':>11} {seconds(seen.first_game, run.began):>13} "
            f"{seconds(seen.first_sure, run.began):>10} {seconds(seen.sure_since, run.began):>10}"
        )
    for s in run.submitted:
        seen = run.placing.get(s.name, Placing())
        print(
            f"{s.name:<10} {s.p:>6} {s.passed - s.began:>9.1f} s {seconds(seen.first_game, s.began):>13} "
            f"{seconds(seen.first_sure, s.began):>10} {seconds(seen.sure_since, s.began):>10}"
        )
    print(
        "(seconds from the bot's own `arena submit` start, a house bot's from the service's start; "
        "(b) and (c) seen by a poll a second)"
    )
    print(f"pairs at the end: {run.pairs}")


def print_costs(run: LadderRun, rr: RoundRobin, bots: int) -> None:
    """The ladder's league and the round robin, side by side: games, wall, CPU."""
    wall = None if run.settled is None else run.settled - run.began
    parts = run.cpu.parts
    league_cpu = parts.get("league", 0.0)
    other = run.cpu.total - run.cpu.own - sum(parts.values())
    print(f"{'':<34} {'games':>6} {'wall s':>7} {'CPU s':>7} {'CPU/wall':>8}  settled")
    print(
        f"{'ladder: service, all of it':<34} {run.games:>6} {_num(wall):>7} {run.cpu.total:>7.0f} "
        f"{_ratio(run.cpu.total, wall):>8}  {'yes' if run.settled else 'NO'}"
    )
    print(f"{'  of which the league processes':<34} {'':>6} {'':>7} {league_cpu:>7.0f}")
    print(f"{'  the checks':<34} {'':>6} {'':>7} {parts.get('checks', 0.0):>7.0f}")
    print(f"{'  the service process itself':<34} {'':>6} {'':>7} {run.cpu.own:>7.0f}")
    print(f"{'  other or unattributed':<34} {'':>6} {'':>7} {parts.get('other', 0.0) + other:>7.0f}")
    rounds, rr_wall, rr_cpu = next(c for c in rr.cost if c[0] >= rr.rounds)
    print(
        f"{'round robin, all bots from the start':<34} {rr.games:>6} {rr_wall:>7.0f} {rr_cpu:>7.0f} "
        f"{_ratio(rr_cpu, rr_wall):>8}  "
        + (
            f"yes, at round {rr.rounds}"
            if rr.settled
            else f"NO after {rr.rounds} rounds: {', '.join(rr.still_open)} open"
        )
    )
    print(
        f"(the round robin's wall and CPU: its runs through round {rounds}, {rounds * bots * (bots - 1)} games; "
        "the checks between runs not counted)"
    )
    if run.games:
        print(
            f"round robin / ladder: games {rr.games / run.games:.2f}, CPU (league only) {rr_cpu / max(league_cpu, 1e-9):.2f}"
        )


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}"


def _ratio(a: float, b: float | None) -> str:
    return "-" if not b else f"{a / b:.2f}"


# -- pages ---------------------------------------------------------------------------------


def store_counts(folder: Path) -> tuple[int, int]:
    """Games stored so far, and the time faults among them."""
    with ResultStore.open(folder) as store:
        tally = store.tally()
    return tally.count, sum(c[FaultKind.TIMEOUT.value] for c in tally.faults.values())


def pages_of(service: Service, folder: Path) -> tuple[list[str], str]:
    """The pages to read, and a line saying which and why."""
    with ResultStore.open(folder) as store:
        game = next(iter(store.summaries())).game_id
    home = service.http.get("/")
    standings = service.http.get("/api/standings").status_code == 200
    if home.status_code == 200 and "text/html" in home.headers.get("content-type", ""):
        paths = ["/", f"/games/{game}", *(["/api/standings"] if standings else [])]
        return paths, "the standings and replay pages"
    paths = ["/api/bots", "/api/ladder", *(["/api/standings"] if standings else [])]
    return paths, f"no HTML pages on this service (GET / answers {home.status_code}): the JSON API"


@dataclass
class Window:
    """One measure: N readers for a while, games playing or not."""

    readers: int
    playing: bool
    seconds: float
    latencies: dict[str, list[float]]
    errors: int
    server_cpu: float
    bench_cpu: float
    games: int
    time_faults: int
    state: str  # the league's, at the window's end
    load: float  # the machine's load average (1 minute) at the window's end


def _read(url: str, paths: Sequence[str], readers: int, seconds: float) -> tuple[dict[str, list[float]], int]:
    """``readers`` readers fetching ``paths`` in turn for ``seconds`` (what is timed is the
    service's answers, not the machine's loopback connects: see :func:`read_concurrently`):
    each answer's time by path, and the answers that were not a 200 with a body."""
    latencies: dict[str, list[float]] = {p: [] for p in paths}
    errors = 0
    for r in read_concurrently(url, paths, readers, seconds):
        latencies[r.path].append(r.seconds)
        errors += not (r.response is not None and r.response.status_code == 200 and bool(r.response.content))
    return latencies, errors


def window(
    service: Service, folder: Path, paths: Sequence[str], readers: int, seconds: float, playing: bool
) -> Window:
    games0, faults0 = store_counts(folder)
    cpu0, mine0, began = tree_cpu_total(service.proc.pid), time.process_time(), time.monotonic()
    latencies, errors = _read(service.url, paths, readers, seconds)
    wall = time.monotonic() - began
    cpu, mine = tree_cpu_total(service.proc.pid) - cpu0, time.process_time() - mine0
    games, faults = store_counts(folder)
    return Window(
        readers, playing, wall, latencies, errors, cpu / wall, mine / wall, games - games0, faults - faults0,
        service.league()["state"], os.getloadavg()[0],
    )  # fmt: skip


def set_playing(service: Service, folder: Path, token: str, playing: bool) -> None:
    """Resume the ladder and wait for a new game, or pause it and wait for its league to stop."""
    if playing:
        service.post("/api/ladder/resume", token)
        before = store_counts(folder)[0]
        # Past the league's start (its first games come slowly): measure it playing at its pace.
        wait_for(lambda: store_counts(folder)[0], lambda n: n > before + 20, 120, "games after the resume")
    else:
        service.post("/api/ladder/pause", token)
        wait_for(service.league, lambda s: s["state"] == "paused", 120, "the league to pause")


def idle_cpu(service: Service, seconds: float) -> tuple[float, float]:
    """The service tree's CPU seconds per second over ``seconds`` (league settled), and of the
    service's own process."""
    pid = service.proc.pid
    total0, own0, began = tree_cpu_total(pid), cpu_seconds(pid)[0], time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - began
    return (tree_cpu_total(pid) - total0) / wall, (cpu_seconds(pid)[0] - own0) / wall


def pages(args: argparse.Namespace, service: Service, folder: Path, token: str) -> None:
    league = service.league()
    print(f"\nPages: the service with its league {league['state']} ({league['detail'][:120]})")
    total, own = idle_cpu(service, args.idle)
    print(
        f"idle for {args.idle:g} s (league settled, nothing read): the service's tree used {total:.2%} of a core "
        f"({own:.2%} its own process)"
    )
    paths, which = pages_of(service, folder)
    print(f"read: {', '.join(paths)} ({which})")
    before = store_counts(folder)[0]
    twin = submit(service, token, folder.parent, "twin", "0")
    wait_for(lambda: store_counts(folder)[0], lambda n: n > before, 120, "twin's games")
    print(
        f"twin (P = 0, as p000) passed its check after {twin.passed - twin.began:.1f} s: the league plays on"
    )
    rows = []
    for n in args.readers:
        for playing in (False, True):
            set_playing(service, folder, token, playing)
            rows.append(window(service, folder, paths, n, args.window, playing))
    print_windows(rows)
    print(
        f"({args.window:g} s a window; paused: the organiser's pause, no game in flight; CPU: seconds per second "
        "of wall time, the service's whole tree and the bench's own process, which runs the readers)"
    )


def print_windows(rows: Sequence[Window]) -> None:
    """One line per window and page; the window's own figures on its first page's line."""
    print(
        f"\n{'readers':>7} {'games':<8} {'page':<22} {'requests':>8} {'req/s':>6} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'errors':>6} {'service CPU':>11} {'bench CPU':>9} {'games/s':>7} {'time faults':>11} "
        f"{'league after':>12} {'load':>5}"
    )
    for w in rows:
        for i, (path, lat) in enumerate(w.latencies.items()):
            lat.sort()
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else 0.0
            p50 = statistics.median(lat) if lat else 0.0
            line = (
                f"{w.readers:>7} {'playing' if w.playing else 'paused':<8} {path[:22]:<22} {len(lat):>8} "
                f"{len(lat) / w.seconds:>6.1f} {p50 * 1000:>7.1f} {p99 * 1000:>7.1f} {(lat[-1] if lat else 0) * 1000:>7.1f}"
            )
            if i == 0:
                line += (
                    f" {w.errors:>6} {w.server_cpu:>11.2f} {w.bench_cpu:>9.2f} {w.games / w.seconds:>7.1f} "
                    f"{w.time_faults:>11} {w.state:>12} {w.load:>5.1f}"
                )
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bots", type=int, default=8, help="graded bots in all: 2 house bots and the rest submitted"
    )
    parser.add_argument("--seeds", type=int, default=1, help="ladders placed (and round robins), seeds 1..N")
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=2,
        help="games at once: the league's, the checks' and the round robin's",
    )
    parser.add_argument("--move", default="200ms", help="the time control's move time")
    parser.add_argument("--step", type=int, default=10, help="round robin rounds a run, between its checks")
    parser.add_argument("--rr-rounds", type=int, default=90, help="the round robin's most rounds")
    parser.add_argument("--ladder-timeout", type=float, default=900, help="seconds for a ladder to settle")
    parser.add_argument("--readers", default="1,8,32", help="concurrent readers, comma-separated")
    parser.add_argument("--window", type=float, default=10, help="seconds of reading per measure")
    parser.add_argument("--idle", type=float, default=30, help="seconds of the idle CPU measure")
    parser.add_argument("--quick", action="store_true", help="4 bots, readers 1 and 8, short windows")
    args = parser.parse_args()
    if args.quick:
        args.bots, args.rr_rounds, args.step, args.window, args.idle = 4, 30, 10, 4, 10
        args.readers = "1,8"
    args.readers = [int(n) for n in str(args.readers).split(",")]
    if not 3 <= args.bots <= 12:
        parser.error(f"--bots must be from 3 to 12, got {args.bots}")
    subprocess.run(["make", "-s", "-C", str(ROOT / "sample_bots" / "c")], check=True)
    every = grades(args.bots)
    print(
        f"{args.bots} graded bots (greedy with probability {', '.join(every.values())}); house bots "
        f"{next(iter(every))} and {list(every)[-1]}; 2 players, move {args.move}, -j {args.jobs}, confidence 0.95"
    )
    print("load average (1, 5, 15 min) at the start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    began = time.monotonic()
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory(prefix="bench-ladder-") as tmp:
            print(
                f"\nseed {seed}: submitting {', '.join(list(every)[1:-1])}, one after the other", flush=True
            )
            run, service, token = place_bots(args, seed, Path(tmp))
            try:
                print(f"the league: {run.detail}")
                print_placing(run)
                if seed == args.seeds:
                    pages(args, service, Path(tmp) / "results", token)
            finally:
                service.stop()
        print(f"\nseed {seed}: the round robin of the same {args.bots} bots", flush=True)
        rr = play_round_robin(seed, 0.95, args.jobs, args.step, args.rr_rounds, every, args.move)
        print_costs(run, rr, args.bots)
    print("\nload average (1, 5, 15 min) at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    print(f"({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
