"""The verdict of the conformance games: a table of named checks, most basic first.

Each row names a check, the games it reads, why one of those games fails it, and what
its pass says.  The rows are judged in order; the first game that fails the first failing
check is reported in detail (its transcript and the command that replays it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from arena.check.plan import CheckOptions, PlannedGame, Purpose, replay_command
from arena.check.results import CheckResult, CheckStatus, FailureReport
from arena.game.bothost import KEPT
from arena.game.record import Fault, FaultKind, GameRecord, SeatRecord, fault_evidence
from arena.rules import Phase

ALL_SEATS = 9  # the seats of 2-, 3- and 4-player games


@dataclass(frozen=True)
class Played:
    """A planned game with its record, seen from the candidate's seat."""

    game: PlannedGame
    record: GameRecord

    @property
    def seat(self) -> SeatRecord:
        """The candidate's seat in the record."""
        return self.record.seats[self.game.seat]

    @property
    def fault(self) -> Fault | None:
        """The candidate's fault, if it committed one."""
        return self.seat.fault


@dataclass(frozen=True)
class Evidence:
    """The played games of a conformance run, sorted the ways the checks read them."""

    opts: CheckOptions
    conformance: tuple[Played, ...]  # every game played, strength games aside
    ready: tuple[Played, ...]  # those where the candidate completed its handshake
    answered: tuple[frozenset[Phase], ...]  # per ready game: the phases the candidate answered in

    @classmethod
    def of(
        cls, plan: Sequence[PlannedGame], records: Sequence[GameRecord | None], opts: CheckOptions
    ) -> Evidence:
        """The evidence of the records of ``plan`` (a game not played has no record, and is left out)."""
        played = [Played(g, r) for g, r in zip(plan, records, strict=True) if r is not None]
        conformance = tuple(p for p in played if p.game.purpose is not Purpose.STRENGTH)
        ready = tuple(p for p in conformance if p.seat.ready)
        return cls(opts, conformance, ready, tuple(answered_in(p) for p in ready))


Why = Callable[[Evidence, Played], str | None]  # why a game fails a check; None: it does not


@dataclass(frozen=True)
class NamedCheck:
    """A row of the table: a check's name, the games it reads, how one fails it, what a pass says."""

    name: str
    games: Callable[[Evidence], Sequence[Played]]
    fails: Why
    passes: Callable[[Evidence, Sequence[Played]], str]  # the detail when every game passes
    # Why a pass is only a skip: the games did not cover what the check is about.
    too_few: Callable[[Evidence, Sequence[Played]], str | None] = lambda _ev, _games: None


# --- why a game fails ---------------------------------------------------------------


def _fault_text(f: Fault) -> str:
    return f"{f.kind.value}: {f.detail}"


def _no_handshake(_ev: Evidence, p: Played) -> str | None:
    if p.seat.ready:
        return None
    return _fault_text(p.fault) if p.fault else "did not complete the handshake"


def _fault_of(*kinds: FaultKind) -> Why:
    """A game fails when the candidate's fault is of one of ``kinds``."""

    def fails(_ev: Evidence, p: Played) -> str | None:
        f = p.fault
        return _fault_text(f) if f and f.kind in kinds else None

    return fails


_any_fault = _fault_of(*FaultKind)


def _illegal_in(phase: Phase) -> Why:
    """A game fails when the candidate's illegal move was in ``phase``."""

    def fails(_ev: Evidence, p: Played) -> str | None:
        f = p.fault
        if f and f.kind is FaultKind.ILLEGAL_MOVE and phase_at(p.record, f.ply, p.game.seat) is phase:
            return _fault_text(f)
        return None

    return fails


def _did_not_exit(ev: Evidence, p: Played) -> str | None:
    seat = p.seat
    if seat.fault is None and not seat.exited_cleanly:
        return f"still running {ev.opts.end_grace_s:g}s after 'end' ({seat.exit})"
    if seat.leftover_processes:
        return f"exited but left {seat.leftover_processes} process(es) running (the arena killed them)"
    return None


# --- which games a check reads --------------------------------------------------------


def _ready(ev: Evidence) -> Sequence[Played]:
    return ev.ready


def _answered(phase: Phase) -> Callable[[Evidence], Sequence[Played]]:
    # Exercised only where the bot answered in the phase: a bot forfeited at each of
    # its herd answers for a malformed line gave no herd answer to judge.
    return lambda ev: [p for p, phases in zip(ev.ready, ev.answered, strict=True) if phase in phases]


def _told_to_exit(ev: Evidence) -> Sequence[Played]:
    # A bot that forfeited was stopped by the arena, and a process kept for its next game
    # was told not to exit: only the others show how it exits.
    return [p for p in ev.ready if p.fault is None and p.seat.exit != KEPT]


def _conformance(players: int | None = None) -> Callable[[Evidence], Sequence[Played]]:
    return lambda ev: [
        p for p in ev.ready if p.game.purpose is Purpose.CONFORMANCE and players in (None, p.game.players)
    ]


def _out_of_moves(ev: Evidence) -> Sequence[Played]:
    return [p for p in ev.ready if had_to_pass(p.game, p.record)]


def _opponent_forfeited(ev: Evidence) -> Sequence[Played]:
    return [p for p in ev.ready if p.game.purpose is Purpose.FORFEIT and any(s.fault for s in p.record.seats)]


# --- what a pass says -------------------------------------------------------------------


def _counted(text: str) -> Callable[[Evidence, Sequence[Played]], str]:
    """A pass's detail with ``{n}``, the number of games read."""
    return lambda _ev, games: text.format(n=len(games))


def _answer_times(ev: Evidence, games: Sequence[Played]) -> str:
    times = [m.ms for p in games for m in p.record.moves if m.player == p.game.seat]
    if not times:
        return "no timeout"
    return (
        f"slowest answer {max(times):.0f} ms, mean {sum(times) / len(times):.1f} ms "
        f"({ev.opts.time_control.describe()})"
    )


def _exited(ev: Evidence, games: Sequence[Played]) -> str:
    sandboxed = bool(ev.ready) and all(p.seat.sandboxed for p in ev.ready)
    leaving = "its sandbox ended whatever it left running" if sandboxed else "leaving nothing running"
    return f"exited by itself after 'end', {leaving}, in {len(games)} games"


def _seats_of(games: Sequence[Played]) -> set[tuple[int, int]]:
    return {(p.game.players, p.game.seat) for p in games}


def _all_seats(_ev: Evidence, games: Sequence[Played]) -> str:
    return f"all {len(_seats_of(games))} seats of 2-4 player games"


def _missing_seats(_ev: Evidence, games: Sequence[Played]) -> str | None:
    seats = len(_seats_of(games))
    return f"only {seats} of {ALL_SEATS} seats were played" if seats < ALL_SEATS else None


CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck(
        "handshake", lambda ev: ev.conformance, _no_handshake, _counted("hello and ready in {n} games")
    ),
    NamedCheck(
        "protocol", _ready, _fault_of(FaultKind.PROTOCOL_ERROR), _counted("no protocol error in {n} games")
    ),
    NamedCheck("time", _ready, _fault_of(FaultKind.TIMEOUT), _answer_times),
    NamedCheck("stays-alive", _ready, _fault_of(FaultKind.CRASH), _counted("never crashed in {n} games")),
    *(
        NamedCheck(name, _answered(phase), _illegal_in(phase), _counted("legal answers in {n} games"))
        for name, phase in (
            ("legal-tiles", Phase.TILES),
            ("legal-herds", Phase.HERDS),
            ("legal-moves", Phase.MOVES),
        )
    ),
    NamedCheck("exits", _told_to_exit, _did_not_exit, _exited),
    *(
        NamedCheck(f"{n}-players", _conformance(n), _any_fault, _counted("{n} games without a fault"))
        for n in (2, 3, 4)
    ),
    NamedCheck("every-seat", _conformance(), _any_fault, _all_seats, _missing_seats),
    NamedCheck(
        "passes", _out_of_moves, _any_fault, _counted("out of moves while the game went on, in {n} games")
    ),
    NamedCheck(
        "opponent-forfeits",
        _opponent_forfeited,
        _any_fault,
        _counted("played on after an opponent forfeited"),
    ),
)


class Judge:
    """Judges the evidence check by check, and keeps the first failure in detail."""

    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self.failure: FailureReport | None = None

    def results(self, checks: Sequence[NamedCheck] = CHECKS) -> list[CheckResult]:
        """The named checks, in order: the first failing one is reported in detail."""
        return [self.judge(check) for check in checks]

    def judge(self, check: NamedCheck) -> CheckResult:
        """One check over its games: it fails at the first game that fails it."""
        ev = self.evidence
        games = check.games(ev)
        for played, p in enumerate(games, start=1):
            reason = check.fails(ev, p)
            if reason is not None:
                return CheckResult(check.name, CheckStatus.FAIL, self._failed(check.name, p, reason), played)
        if not games:
            return CheckResult(check.name, CheckStatus.SKIP, "not exercised", 0)
        too_few = check.too_few(ev, games)
        if too_few is not None:
            return CheckResult(check.name, CheckStatus.SKIP, too_few, len(games))
        return CheckResult(check.name, CheckStatus.PASS, check.passes(ev, games), len(games))

    def _failed(self, check: str, p: Played, reason: str) -> str:
        """The failure's detail; the first one is also kept with its transcript and replay."""
        if self.failure is None:
            self.failure = FailureReport(
                check,
                reason,
                p.game.describe(),
                list(p.seat.transcript),
                replay_command(p.game, self.evidence.opts),
                fault_evidence(p.seat),
            )
        return f"{reason} ({p.game.describe()})"


def judge_conformance(
    plan: Sequence[PlannedGame], records: Sequence[GameRecord | None], opts: CheckOptions
) -> tuple[list[CheckResult], FailureReport | None]:
    """The named checks of the conformance games, and the first failure in detail (if any)."""
    judge = Judge(Evidence.of(plan, records, opts))
    return judge.results(), judge.failure


def phase_at(record: GameRecord, ply: int, seat: int | None = None) -> Phase:
    """The phase of the game at ``ply`` (over past its last move).

    With ``seat``: the phase that seat was asked to answer in at ``ply``, before its own
    forfeit there.  The record's positions apply a forfeit where it fell, and a game whose
    other players cannot move once that seat is out is over at that very ply: its illegal
    sheep move would read as made in no phase, and legal-moves would go unexercised.
    """
    own = record.seats[seat].fault if seat is not None else None
    if own is not None and own.ply == ply:
        seats = tuple(replace(s, fault=None) if i == seat else s for i, s in enumerate(record.seats))
        record = replace(record, seats=seats)
    for i, (_move, state) in enumerate(record.positions()):
        if i == ply:
            return state.phase
    return Phase.OVER


def answered_in(p: Played) -> frozenset[Phase]:
    """The phases in which the candidate gave a move the referee judged (played or illegal)."""
    g, r = p.game, p.record
    before = [state.phase for _move, state in r.positions()]  # before[i]: the phase of move i
    phases = {before[i] for i, m in enumerate(r.moves) if m.player == g.seat}
    f = p.fault
    if f is not None and f.kind is FaultKind.ILLEGAL_MOVE:
        phases.add(phase_at(r, f.ply, g.seat))
    return frozenset(phases)


def had_to_pass(g: PlannedGame, r: GameRecord) -> bool:
    """Whether the candidate was out of moves while others still moved."""
    last_own = max((i for i, m in enumerate(r.moves) if m.player == g.seat), default=-1)
    out_early = any(m.player != g.seat for m in r.moves[last_own + 1 :])
    final = r.standings[g.seat]
    return out_early and not final.forfeited and last_own >= 0
