"""``arena check``: is a bot fit to enter a league (and, if asked, strong enough)?

Conformance: the bot plays games as 2, 3 and 4 players, in every seat, on
random boards and building the pasture itself, against the arena's built-in
opponents (or the ones given), plus a game where an opponent forfeits.  Each
named check then reads the game records.  An optional strength gate plays
2-player games against named bots, with a fixed number of games and a
minimum score, or as a sequential probability ratio test (SPRT) that stops as
soon as the answer is clear.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from arena.builtin_bots import command_of, spelling
from arena.errors import ArenaError, ConfigError
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.proctree import adopt_orphans
from arena.game.record import FaultKind, GameRecord
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.schedule import derive_seed
from arena.league.standings import game_scores
from arena.rules import PLAYER_LETTERS, Params, Phase, random_board
from arena.stats import sprt

CANDIDATE = "candidate"


@dataclass(frozen=True)
class PlannedGame:
    """One game of the check and what it is for."""

    purpose: str  # "conformance", "forfeit", "pass", "strength"
    players: int
    seat: int  # the candidate's seat
    build: bool  # the bots build the pasture
    seed: int
    specs: tuple[BotSpec, ...]
    params: Params

    def setup(self, tc: TimeControl, grace: float) -> GameSetup:
        board = (
            None
            if self.build
            else random_board(self.seed, self.params.tiles * self.players, self.params.contact)
        )
        return GameSetup(
            game_id=f"check-{self.purpose}-{self.seed}",
            seed=self.seed,
            params=self.params,
            time_control=tc,
            board=board,
            end_grace_s=grace,
            keep_transcript=True,
        )

    def describe(self) -> str:
        where = "building the pasture" if self.build else "random board"
        return f"{self.players} players, seat {PLAYER_LETTERS[self.seat]}, {where}, seed {self.seed}"


@dataclass
class CheckResult:
    name: str
    status: str  # "pass", "fail" or "skip"
    detail: str
    games: int = 0


@dataclass
class FailureReport:
    """The first failure, with what a bot author needs to reproduce it."""

    check: str
    reason: str
    game: str
    transcript: list[str]
    replay: str


@dataclass
class CheckReport:
    command: tuple[str, ...]
    seed: int
    checks: list[CheckResult] = field(default_factory=list)
    failure: FailureReport | None = None
    strength: dict[str, Any] | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "command": list(self.command),
            "seed": self.seed,
            "passed": self.passed,
            "seconds": round(self.seconds, 3),
            "checks": [c.__dict__ for c in self.checks],
            "first_failure": None if self.failure is None else self.failure.__dict__,
            "strength": self.strength,
        }


@dataclass(frozen=True)
class SprtOptions:
    baseline: tuple[str, ...]
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = None  # None: the number fitted to the bounds (sprt.fitted_max_games)


@dataclass(frozen=True)
class CheckOptions:
    command: tuple[str, ...]
    cwd: Path
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    seed: int = 1
    conformance_games: int = 24
    time_control: TimeControl = field(default_factory=TimeControl)
    end_grace_s: float = 1.0
    concurrency: int = 2
    opponents: tuple[tuple[str, ...], ...] = ()
    against: tuple[tuple[str, ...], ...] = ()
    games: int = 20
    min_points: float = 0.5
    sprt: SprtOptions | None = None
    conformance: bool = True
    fail_fast: bool = False


# --- planning -------------------------------------------------------------------


def _spec(
    name: str,
    command: Sequence[str],
    cwd: Path,
    limits: ResourceLimits | None = None,
    sandbox: SandboxPolicy | None = None,
) -> BotSpec:
    return BotSpec(
        name=name,
        command=tuple(command),
        cwd=cwd,
        limits=limits or ResourceLimits(),
        sandbox=sandbox or SandboxPolicy(),
    )


# Every (players, seat, given or built board) of a conformance game.
CONFIGS = [(n, seat, build) for n in (2, 3, 4) for build in (False, True) for seat in range(n)]
SPECIAL_GAMES = 5  # one where an opponent forfeits, four where the bot runs out of moves
MIN_CONFORMANCE_GAMES = len(CONFIGS) + SPECIAL_GAMES


def check_conformance_games(count: int) -> None:
    """Refuse a count of conformance games too small to play every seat and special game once."""
    if count < MIN_CONFORMANCE_GAMES:
        raise ConfigError(
            f"--conformance-games {count!r}: at least {MIN_CONFORMANCE_GAMES} are needed "
            f"({len(CONFIGS)} for every seat of 2-4 player games on a given and a built board, "
            f"{SPECIAL_GAMES} for a forfeiting opponent and for running out of moves)"
        )


def conformance_plan(opts: CheckOptions) -> list[PlannedGame]:
    """Exactly ``conformance_games`` games: every (players, seat, board or build) at least
    once, round again up to the count, then the special games."""
    check_conformance_games(opts.conformance_games)
    configs = CONFIGS
    opponents = [tuple(o) for o in opts.opponents] or [command_of("random")]
    count = opts.conformance_games - SPECIAL_GAMES
    plan = []
    for i in range(count):
        n, seat, build = configs[i % len(configs)]
        seed = derive_seed(opts.seed, "conformance", i)
        others = [opponents[(i + k) % len(opponents)] for k in range(n - 1)]
        specs = [
            _spec(f"opponent{k + 1}", cmd, opts.cwd, sandbox=opts.sandbox) for k, cmd in enumerate(others)
        ]
        specs.insert(seat, _spec(CANDIDATE, opts.command, opts.cwd, opts.limits, opts.sandbox))
        plan.append(PlannedGame("conformance", n, seat, build, seed, tuple(specs), Params(players=n)))
    # An opponent forfeits: the candidate plays on alone.
    seed = derive_seed(opts.seed, "forfeit")
    pair = (
        _spec(CANDIDATE, opts.command, opts.cwd, opts.limits, opts.sandbox),
        _spec("forfeiter", command_of("forfeit"), opts.cwd, sandbox=opts.sandbox),
    )
    plan.append(PlannedGame("forfeit", 2, 0, False, seed, pair, Params()))
    # Herds of 2 sheep allow one move each: seated first or second of three, the
    # bot is out of moves while the others still play, whatever it does.
    for i in range(4):
        seed = derive_seed(opts.seed, "pass", i)
        specs_l = [
            _spec(f"opponent{k + 1}", opponents[k % len(opponents)], opts.cwd, sandbox=opts.sandbox)
            for k in range(2)
        ]
        specs_l.insert(i % 2, _spec(CANDIDATE, opts.command, opts.cwd, opts.limits, opts.sandbox))
        plan.append(
            PlannedGame("pass", 3, i % 2, False, seed, tuple(specs_l), Params(players=3, sheep=2, tiles=1))
        )
    return plan


def strength_plan(
    opts: CheckOptions, opponent: Sequence[str], name: str, start: int, count: int
) -> list[PlannedGame]:
    """2-player games against ``opponent``, both seat orders on each board."""
    plan = []
    for i in range(start, start + count):
        seed = derive_seed(opts.seed, "strength", name, i // 2)
        seat = i % 2
        specs = [_spec(name, opponent, opts.cwd, sandbox=opts.sandbox)]
        specs.insert(seat, _spec(CANDIDATE, opts.command, opts.cwd, opts.limits, opts.sandbox))
        plan.append(PlannedGame("strength", 2, seat, False, seed, tuple(specs), Params()))
    return plan


# --- running ----------------------------------------------------------------------


def _play(setup: GameSetup, specs: tuple[BotSpec, ...]) -> dict[str, Any]:
    return play_game(setup, specs).to_dict()


def run_plan(
    plan: Sequence[PlannedGame],
    opts: CheckOptions,
    progress: Callable[[int, int], None] | None = None,
    stop_at_fault: bool = False,
) -> list[GameRecord | None]:
    """Play the planned games, ``concurrency`` at a time, in worker processes.

    With ``stop_at_fault``, games not yet started when the candidate commits
    its first fault are not played (their record is None).
    """
    if not plan:
        return []
    setups = [g.setup(opts.time_control, opts.end_grace_s) for g in plan]
    out: list[GameRecord | None] = [None] * len(plan)

    def faulted(i: int) -> bool:
        rec = out[i]
        return stop_at_fault and rec is not None and rec.seats[plan[i].seat].fault is not None

    if opts.concurrency <= 1:
        for i, (s, g) in enumerate(zip(setups, plan, strict=True)):
            out[i] = play_game(s, g.specs)
            if progress:
                progress(i + 1, len(plan))
            if faulted(i):
                break
        return out
    # Workers whose only children are bots: subreapers, so a bot's leftovers are found in
    # the worker's own process tree rather than by scanning all of /proc after each game.
    with ProcessPoolExecutor(
        max_workers=opts.concurrency, mp_context=get_context("spawn"), initializer=adopt_orphans
    ) as pool:
        futures = {
            pool.submit(_play, s, g.specs): i for i, (s, g) in enumerate(zip(setups, plan, strict=True))
        }
        for done, future in enumerate(as_completed(futures), start=1):
            i = futures[future]
            out[i] = GameRecord.from_dict(future.result())
            if progress:
                progress(done, len(plan))
            if faulted(i):
                for f in futures:
                    f.cancel()
                break
    return out


# --- judging -----------------------------------------------------------------------


def phase_at(record: GameRecord, ply: int) -> Phase:
    for i, (_move, state) in enumerate(record.positions()):
        if i == ply:
            return state.phase
    return Phase.OVER


def replay_command(game: PlannedGame, opts: CheckOptions) -> str:
    """The ``arena play`` command that plays this game again, move for move.

    Deterministic bots replay it exactly; only the game's id differs.
    """
    tc = opts.time_control
    # A built-in opponent by its stable spelling: a command printed in CI then runs on a laptop.
    parts = ["arena", "play"] + [
        shlex.quote(spelling(s.command) or shlex.join(s.command)) for s in game.specs
    ]
    parts += ["--seed", str(game.seed)]
    if game.build:
        parts.append("--build-board")
    if game.params.sheep != 16:
        parts += ["--sheep", str(game.params.sheep)]
    if game.params.tiles != 4:
        parts += ["--tiles", str(game.params.tiles)]
    parts += ["--move-time", f"{tc.move_ms}ms" if tc.move_ms is not None else "none"]
    if tc.base_ms is not None:
        parts += ["--base", f"{tc.base_ms}ms", "--increment", f"{tc.increment_ms}ms"]
    parts += ["--startup", f"{tc.startup_ms}ms", "--margin", f"{tc.margin_ms}ms"]
    limits = opts.limits
    parts += ["--memory-mb", str(limits.memory_mb or 0), "--cpu-seconds", str(limits.cpu_seconds or 0)]
    parts += ["--tasks", str(limits.tasks or 0)]
    if opts.sandbox.mode != "auto":
        parts.append("--sandbox" if opts.sandbox.mode == "bwrap" else "--no-sandbox")
    command = " ".join(parts)
    return command if opts.cwd == Path.cwd() else f"cd {shlex.quote(str(opts.cwd))} && {command}"


class _Judge:
    """Reads the records of the plan and fills the named checks."""

    def __init__(
        self, plan: Sequence[PlannedGame], records: Sequence[GameRecord | None], opts: CheckOptions
    ) -> None:
        self.games = [(g, r) for g, r in zip(plan, records, strict=True) if r is not None]
        self.opts = opts
        self.failure: FailureReport | None = None

    def fault(self, g: PlannedGame, r: GameRecord) -> Any:
        return r.seats[g.seat].fault

    def fail_with(self, check: str, g: PlannedGame, r: GameRecord, reason: str) -> str:
        detail = f"{reason} ({g.describe()})"
        if self.failure is None:
            self.failure = FailureReport(
                check,
                reason,
                g.describe(),
                list(r.seats[g.seat].transcript),
                replay_command(g, self.opts),
            )
        return detail

    def check(
        self,
        name: str,
        games: Iterable[tuple[PlannedGame, GameRecord]],
        bad: Callable[[PlannedGame, GameRecord], str | None],
        ok_detail: str,
    ) -> CheckResult:
        played = 0
        for g, r in games:
            played += 1
            reason = bad(g, r)
            if reason is not None:
                return CheckResult(name, "fail", self.fail_with(name, g, r, reason), played)
        if played == 0:
            return CheckResult(name, "skip", "not exercised", 0)
        return CheckResult(name, "pass", ok_detail.format(n=played), played)

    def results(self) -> list[CheckResult]:
        """The named checks, most basic first: the first failing one is reported in detail."""
        conf = [(g, r) for g, r in self.games if g.purpose != "strength"]
        out: list[CheckResult] = []

        def handshake(g: PlannedGame, r: GameRecord) -> str | None:
            seat = r.seats[g.seat]
            if seat.ready:
                return None
            f = seat.fault
            return f"{f.kind.value}: {f.detail}" if f else "did not complete the handshake"

        out.append(self.check("handshake", conf, handshake, "hello and ready in {n} games"))
        ready = [(g, r) for g, r in conf if r.seats[g.seat].ready]

        def fault_of(*kinds: FaultKind) -> Callable[[PlannedGame, GameRecord], str | None]:
            def bad(g: PlannedGame, r: GameRecord) -> str | None:
                f = self.fault(g, r)
                return f"{f.kind.value}: {f.detail}" if f and f.kind in kinds else None

            return bad

        out.append(
            self.check(
                "protocol", ready, fault_of(FaultKind.PROTOCOL_ERROR), "no protocol error in {n} games"
            )
        )
        res = self.check("time", ready, fault_of(FaultKind.TIMEOUT), "no timeout")
        times = [m.ms for g, r in ready for m in r.moves if m.player == g.seat]
        if res.status == "pass" and times:
            res.detail = (
                f"slowest answer {max(times):.0f} ms, mean {sum(times) / len(times):.1f} ms "
                f"({self.opts.time_control.describe()})"
            )
        out.append(res)
        out.append(self.check("stays-alive", ready, fault_of(FaultKind.CRASH), "never crashed in {n} games"))

        def illegal_in(phase: Phase) -> Callable[[PlannedGame, GameRecord], str | None]:
            def bad(g: PlannedGame, r: GameRecord) -> str | None:
                f = self.fault(g, r)
                if f and f.kind is FaultKind.ILLEGAL_MOVE and phase_at(r, f.ply) is phase:
                    return f"{f.kind.value}: {f.detail}"
                return None

            return bad

        # Exercised only where the bot answered in the phase: a bot forfeited at each of
        # its herd answers for a malformed line gave no herd answer to judge.
        answered = {id(r): _answered_in(g, r) for g, r in ready}
        for name, phase in (
            ("legal-tiles", Phase.TILES),
            ("legal-herds", Phase.HERDS),
            ("legal-moves", Phase.MOVES),
        ):
            games = [(g, r) for g, r in ready if phase in answered[id(r)]]
            out.append(self.check(name, games, illegal_in(phase), "legal answers in {n} games"))

        def exits(g: PlannedGame, r: GameRecord) -> str | None:
            seat = r.seats[g.seat]
            if seat.fault is None and not seat.exited_cleanly:
                return f"still running {self.opts.end_grace_s:g}s after 'end' ({seat.exit})"
            if seat.leftover_processes:
                return (
                    f"exited but left {seat.leftover_processes} process(es) running (the arena killed them)"
                )
            return None

        sandboxed = bool(ready) and all(r.seats[g.seat].sandboxed for g, r in ready)
        leaving = "its sandbox ended whatever it left running" if sandboxed else "leaving nothing running"
        # A bot that forfeited was stopped by the arena: only the others show how it exits.
        unfaulted = [(g, r) for g, r in ready if self.fault(g, r) is None]
        out.append(
            self.check("exits", unfaulted, exits, f"exited by itself after 'end', {leaving}, in {{n}} games")
        )
        clean = fault_of(*FaultKind)
        for n in (2, 3, 4):
            games = [(g, r) for g, r in ready if g.players == n and g.purpose == "conformance"]
            out.append(self.check(f"{n}-players", games, clean, "{n} games without a fault"))
        every = [(g, r) for g, r in ready if g.purpose == "conformance"]
        seats = {(g.players, g.seat) for g, _ in every}
        res = self.check("every-seat", every, clean, f"all {len(seats)} seats of 2-4 player games")
        if res.status == "pass" and len(seats) < 9:
            res = CheckResult("every-seat", "skip", f"only {len(seats)} of 9 seats were played", res.games)
        out.append(res)
        passed = [(g, r) for g, r in ready if _had_to_pass(g, r)]
        out.append(self.check("passes", passed, clean, "out of moves while the game went on, in {n} games"))
        forfeits = [(g, r) for g, r in ready if g.purpose == "forfeit" and any(s.fault for s in r.seats)]
        out.append(self.check("opponent-forfeits", forfeits, clean, "played on after an opponent forfeited"))
        return out


def _answered_in(g: PlannedGame, r: GameRecord) -> set[Phase]:
    """The phases in which the candidate gave a move the referee judged (played or illegal)."""
    before = [state.phase for _move, state in r.positions()]  # before[i]: the phase of move i
    phases = {before[i] for i, m in enumerate(r.moves) if m.player == g.seat}
    f = r.seats[g.seat].fault
    if f is not None and f.kind is FaultKind.ILLEGAL_MOVE:
        phases.add(phase_at(r, f.ply))
    return phases


def _had_to_pass(g: PlannedGame, r: GameRecord) -> bool:
    """Whether the candidate was out of moves while others still moved."""
    last_own = max((i for i, m in enumerate(r.moves) if m.player == g.seat), default=-1)
    out_early = any(m.player != g.seat for m in r.moves[last_own + 1 :])
    final = r.standings[g.seat]
    return out_early and not final.forfeited and last_own >= 0


# --- the strength gate ----------------------------------------------------------------


def run_check(
    opts: CheckOptions,
    echo: Callable[[str], None] = print,
    progress: Callable[[int, int], None] | None = None,
) -> CheckReport:
    started = time.monotonic()
    report = CheckReport(opts.command, opts.seed)
    if opts.conformance:
        plan = conformance_plan(opts)
        records = run_plan(plan, opts, progress, stop_at_fault=opts.fail_fast)
        opponents_started(plan, records)
        judge = _Judge(plan, records, opts)
        report.checks = judge.results()
        report.failure = judge.failure
        if opts.fail_fast and not report.passed:
            report.seconds = time.monotonic() - started
            return report
    if opts.against:
        report.checks.append(_fixed_strength(opts, report))
    if opts.sprt is not None:
        report.checks.append(_sprt(opts, report, echo))
    report.seconds = time.monotonic() - started
    return report


def _strength_pairs(opts: CheckOptions, cmd: Sequence[str], name: str, start: int, count: int) -> list[float]:
    """The candidate's points (0 to 2) in each board pair of games ``start`` to ``start + count``.

    A pair with a game that was not played is left out whole, so pairs stay pairs.
    """
    plan = strength_plan(opts, cmd, name, start, count)
    records = run_plan(plan, opts)
    opponents_started(plan, records)
    boards: sprt.BoardPairs[int] = sprt.BoardPairs()
    pairs = []
    for g, r in zip(plan, records, strict=True):
        if r is not None:
            pair = boards.add(g.seed, game_scores(r)[g.seat])
            if pair is not None:
                pairs.append(pair)
    return pairs


def _elo_text(est: sprt.EloEstimate) -> str:
    if est.low == est.high:
        return "Elo not estimable (every pair scored alike)"
    return f"Elo {est.elo:+.1f} (95% {est.low:+.1f} to {est.high:+.1f}), LOS {est.los:.3f}"


def _mirror_warning(counts: Sequence[int]) -> str:
    if not sprt.mirrored(counts):
        return ""
    return (
        " WARNING: every board pair was split 1-1 (each side won in its own seat, or both drew),"
        " as deterministic self-play does: these games say nothing about strength."
    )


def opponents_started(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> None:
    """Raise if an opponent could not even start: its forfeits would make any bot look good."""
    for g, r in zip(plan, records, strict=True):
        if r is None:
            continue
        for seat, s in enumerate(r.seats):
            if seat != g.seat and not s.ready:
                why = f"{s.fault.kind.value}: {s.fault.detail}" if s.fault else "no handshake"
                raise ArenaError(f"opponent {shlex.join(s.command)!r} could not be started ({why})")


def _fixed_strength(opts: CheckOptions, report: CheckReport) -> CheckResult:
    per: dict[str, Any] = {}
    all_pairs: list[float] = []
    for i, cmd in enumerate(opts.against):
        name = f"against{i + 1}"
        pairs = _strength_pairs(opts, cmd, name, 0, opts.games)
        all_pairs += pairs
        counts = sprt.pair_counts(pairs)
        games = 2 * len(pairs)
        per[shlex.join(cmd)] = {
            "games": games,
            "points": round(sum(pairs) / games, 4) if games else 0.0,
            "pairs": counts,
        }
    games = 2 * len(all_pairs)
    mean = sum(all_pairs) / games if games else 0.0
    counts = sprt.pair_counts(all_pairs)
    low, high = sprt.points_interval(counts)
    report.strength = {
        "mode": "fixed",
        "min_points": opts.min_points,
        "min_score": opts.min_points,  # its name in reports before 'points' was the one word
        "points": round(mean, 4),
        "interval95": [round(low, 4), round(high, 4)],
        "pairs": counts,
        "opponents": per,
    }
    # What this gate tests: the mean points of these games reach the threshold. It is a
    # point estimate; the interval says how far the same bots could land on other boards.
    # Mirrored pairs (deterministic self-play) are no evidence either way: they fail.
    verdict = "pass" if games and mean >= opts.min_points and not sprt.mirrored(counts) else "fail"
    noise = " (the threshold is inside the interval: within noise)" if low < opts.min_points < high else ""
    listing = "; ".join(f"{k}: {v['points']:.3f} over {v['games']} games" for k, v in per.items())
    text = (
        f"points {mean:.3f} over {games} games, 95% interval {low:.3f}-{high:.3f} over "
        f"{len(all_pairs)} board pairs (needs a mean of at least {opts.min_points:g}){noise}"
        f" — {listing}{_mirror_warning(counts)}"
    )
    return CheckResult("strength", verdict, text, games)


def _sprt(opts: CheckOptions, report: CheckReport, echo: Callable[[str], None]) -> CheckResult:
    sp = opts.sprt
    assert sp is not None
    lower, upper = sprt.bounds(sp.alpha, sp.beta)
    max_games = sp.max_games or sprt.fitted_max_games(sp.elo0, sp.elo1)
    pairs: list[float] = []
    batch = max(2, 2 * opts.concurrency)
    played = 0
    value = 0.0
    verdict = "inconclusive"
    while played < max_games:
        count = min(batch, max_games - played)
        count -= count % 2
        if count == 0:
            break
        pairs += _strength_pairs(opts, sp.baseline, "baseline", played, count)
        played += count
        counts = sprt.pair_counts(pairs)
        value = sprt.llr(counts, sp.elo0, sp.elo1)
        echo(
            f"  sprt: {2 * len(pairs)} games ({len(pairs)} board pairs {counts}), "
            f"LLR {value:.2f} [{lower:.2f}, {upper:.2f}]"
        )
        if value >= upper:
            verdict = "H1"
            break
        if value <= lower:
            verdict = "H0"
            break
    counts = sprt.pair_counts(pairs)
    est = sprt.elo_estimate(counts)
    games = 2 * len(pairs)
    mean = sum(pairs) / games if games else 0.0
    report.strength = {
        "mode": "sprt",
        "baseline": list(sp.baseline),
        "elo0": sp.elo0,
        "elo1": sp.elo1,
        "alpha": sp.alpha,
        "beta": sp.beta,
        "max_games": max_games,
        "games": games,
        "pairs": counts,
        "points": round(mean, 4),
        "llr": round(value, 3),
        "bounds": [round(lower, 3), round(upper, 3)],
        "elo": round(est.elo, 1),
        "elo95": [round(est.low, 1), round(est.high, 1)],
        "los": round(est.los, 4),
        "verdict": verdict,
    }
    meaning = {
        "H1": f"the test accepts elo1={sp.elo1:g} over elo0={sp.elo0:g}",
        "H0": f"the test accepts elo0={sp.elo0:g} over elo1={sp.elo1:g}",
        "inconclusive": f"no decision within {max_games} games",
    }[verdict]
    text = (
        f"{verdict}: {meaning}; {games} games, Ptnml(0-2) {' '.join(map(str, counts))}, LLR {value:.2f} in "
        f"[{lower:.2f}, {upper:.2f}]; {_elo_text(est)}{_mirror_warning(counts)}"
    )
    return CheckResult("sprt", "pass" if verdict == "H1" else "fail", text, games)
