"""The strength gate: 2-player games against named bots, scored by board pairs.

Two ways to judge them: a fixed number of games and a least mean of points
(:func:`fixed_strength`), or a sequential probability ratio test that plays batches
until the answer is clear (:func:`sprt_strength`).  Each gives a named check and the
figures of the JSON report's ``strength``.
"""

from __future__ import annotations

import enum
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.check.plan import CheckOptions, PlannedGame, SprtOptions, strength_plan
from arena.check.play import opponents_started, run_batches, run_plan
from arena.check.results import CheckResult, CheckStatus
from arena.game.record import GameRecord, game_points
from arena.league.listener import Listener
from arena.stats import sprt
from arena.stats.stopped import StoppedElo, power_at_cap, stopped_elo

Strength = tuple[CheckResult, dict[str, Any]]  # the named check, and the report's 'strength'


class SprtVerdict(enum.StrEnum):
    """Where the SPRT stopped; the value is the report's ``verdict`` and the check's first word."""

    H1 = "H1"  # accepts elo1 over elo0: the gate passes
    H0 = "H0"  # accepts elo0 over elo1
    INCONCLUSIVE = "inconclusive"  # no decision within the most games allowed


@dataclass(frozen=True)
class OpponentFault:
    """A strength game the opponent forfeited: a point for the candidate that says nothing of
    its strength, so the gate says so (a baseline that breaks makes any bot look strong)."""

    opponent: str  # its command, as typed
    game: str
    kind: str
    detail: str  # the referee's words (may quote the bot: escaped by each output)

    def to_dict(self) -> dict[str, str]:
        """The fault as the JSON report's ``strength.opponent_faults`` holds it."""
        return {"opponent": self.opponent, "game": self.game, "kind": self.kind, "detail": self.detail[:300]}


@dataclass
class StrengthGames:
    """The candidate's board pairs in some strength games, and what the opponents forfeited."""

    pairs: list[float] = field(default_factory=list)
    opponent_faults: list[OpponentFault] = field(default_factory=list)

    def extend(self, other: StrengthGames) -> None:
        """Add another batch's games."""
        self.pairs += other.pairs
        self.opponent_faults += other.opponent_faults


def _opponent_faults(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> list[OpponentFault]:
    out = []
    for g, r in zip(plan, records, strict=True):
        if r is None:
            continue
        for seat, s in enumerate(r.seats):
            if seat != g.seat and s.fault is not None:
                out.append(OpponentFault(shlex.join(s.command), r.game_id, s.fault.kind.value, s.fault.detail))
    return out


def strength_pairs(opts: CheckOptions, cmd: Sequence[str], name: str, start: int, count: int) -> StrengthGames:
    """The candidate's points (0 to 2) in each board pair of games ``start`` to ``start + count``,
    and the opponent's forfeits among them.

    A pair with a game that was not played is left out whole, so pairs stay pairs.
    """
    plan = strength_plan(opts, cmd, name, start, count)
    return scored(plan, run_plan(plan, opts))


def scored(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> StrengthGames:
    """The candidate's points in each board pair of ``plan``'s games, and the opponent's forfeits.

    Raises if the opponent could not even start.
    """
    opponents_started(plan, records)
    boards: sprt.BoardPairs[int] = sprt.BoardPairs()
    pairs = []
    for g, r in zip(plan, records, strict=True):
        if r is not None:
            pair = boards.add(g.seed, game_points(r)[g.seat])
            if pair is not None:
                pairs.append(pair)
    return StrengthGames(pairs, _opponent_faults(plan, records))


def opponent_fault_warning(faults: Sequence[OpponentFault], games: int) -> str:
    """A warning naming the opponents' forfeits (empty when there were none)."""
    if not faults:
        return ""
    kinds = Counter(f.kind for f in faults)
    first = faults[0]
    return (
        f" WARNING: the opponent forfeited {len(faults)} of {games} games "
        f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), each scored as a win for this bot: "
        f"a baseline that breaks makes any bot look strong. First: {first.opponent} in {first.game}: "
        f"{first.kind}: {first.detail[:200]}"
    )


def _elo_text(est: sprt.EloEstimate) -> str:
    if est.low == est.high:
        return "Elo not estimable (every pair scored alike)"
    return f"Elo {est.elo:+.1f} (95% {est.low:+.1f} to {est.high:+.1f}), LOS {est.los:.3f}"


def _stopped_text(aware: StoppedElo | None, est: sprt.EloEstimate) -> str:
    """The stopping-aware Elo (the test's stop taken into account), LOS from the pairs."""
    if aware is None:
        return _elo_text(est)
    return (
        f"Elo {aware.elo:+.1f} (95% {aware.low:+.1f} to {aware.high:+.1f}, median-unbiased given where "
        f"the test stopped), LOS {est.los:.3f}"
    )


def _mirror_warning(counts: Sequence[int]) -> str:
    if not sprt.mirrored(counts):
        return ""
    return (
        " WARNING: every board pair was split 1-1 (each side won in its own seat, or both drew),"
        " as deterministic self-play does: these games say nothing about strength."
    )


def _mean_points(pairs: Sequence[float]) -> float:
    """Mean points per game of board pairs (each pair is two games)."""
    games = 2 * len(pairs)
    return sum(pairs) / games if games else 0.0


# --- a fixed number of games ----------------------------------------------------------


def fixed_strength(opts: CheckOptions) -> Strength:
    """``opts.games`` games against each ``--against`` bot; passes on a mean of at least ``min_points``."""
    per: dict[str, Any] = {}
    played = StrengthGames()
    for i, cmd in enumerate(opts.against):
        batch = strength_pairs(opts, cmd, f"against{i + 1}", 0, opts.games)
        played.extend(batch)
        pairs = batch.pairs
        per[shlex.join(cmd)] = {
            "games": 2 * len(pairs),
            "points": round(sum(pairs) / (2 * len(pairs)), 4) if pairs else 0.0,
            "pairs": sprt.pair_counts(pairs),
            "opponent_forfeits": len(batch.opponent_faults),
        }
    all_pairs = played.pairs
    games = 2 * len(all_pairs)
    mean = _mean_points(all_pairs)
    counts = sprt.pair_counts(all_pairs)
    low, high = sprt.points_interval(counts)
    figures = {
        "mode": "fixed",
        "min_points": opts.min_points,
        "min_score": opts.min_points,  # its name in reports before 'points' was the one word
        "points": round(mean, 4),
        "interval95": [round(low, 4), round(high, 4)],
        "pairs": counts,
        "opponents": per,
        "opponent_faults": [f.to_dict() for f in played.opponent_faults],
    }
    # What this gate tests: the mean points of these games reach the threshold. It is a
    # point estimate; the interval says how far the same bots could land on other boards.
    # Mirrored pairs (deterministic self-play) are no evidence either way: they fail.
    passed = bool(games) and mean >= opts.min_points and not sprt.mirrored(counts)
    noise = " (the threshold is inside the interval: within noise)" if low < opts.min_points < high else ""
    listing = "; ".join(f"{k}: {v['points']:.3f} over {v['games']} games" for k, v in per.items())
    text = (
        f"points {mean:.3f} over {games} games, 95% interval {low:.3f}-{high:.3f} over "
        f"{len(all_pairs)} board pairs (needs a mean of at least {opts.min_points:g}){noise}"
        f" — {listing}{_mirror_warning(counts)}{opponent_fault_warning(played.opponent_faults, games)}"
    )
    status = CheckStatus.PASS if passed else CheckStatus.FAIL
    return CheckResult("strength", status, text, games), figures


# --- the sequential test ------------------------------------------------------------------


@dataclass(frozen=True)
class SprtRun:
    """Where a sequential test stopped: its board pairs, its last LLR and its verdict."""

    pairs: tuple[float, ...]
    llr: float
    verdict: SprtVerdict
    bounds: tuple[float, float]
    max_games: int
    per_look: int = 1  # board pairs played between two looks at the LLR
    opponent_faults: tuple[OpponentFault, ...] = ()


def cap_warning(sp: SprtOptions, max_games: int) -> str:
    """A warning when ``max_games`` leaves the test much less power than its bounds ask
    (empty when it does not): the chance to pass a bot truly elo1 stronger, at the cap."""
    power = power_at_cap(sp.elo0, sp.elo1, sprt.bounds(sp.alpha, sp.beta), max_games)
    if power.pass_at_elo1 >= 1 - sp.beta - CAP_SLACK and power.fail_at_elo0 >= 1 - sp.alpha - CAP_SLACK:
        return ""
    return (
        f"WARNING: --max-games {max_games} is below what the bounds [{sp.elo0:g}, {sp.elo1:g}] need: at "
        f"this cap a bot truly {sp.elo1:g} Elo stronger passes {power.pass_at_elo1:.0%} of the time "
        f"(asked: {1 - sp.beta:.0%}) and one truly {sp.elo0:g} fails {power.fail_at_elo0:.0%} "
        f"(asked: {1 - sp.alpha:.0%}); the rest ends inconclusive. The cap fitted to these bounds "
        f"is {sprt.fitted_max_games(sp.elo0, sp.elo1)} games."
    )


# How far below its asked power (1 - beta, 1 - alpha) a cap may leave the test before it warns.
CAP_SLACK = 0.02


def run_sprt(opts: CheckOptions, sp: SprtOptions, listener: Listener) -> SprtRun:
    """Play batches against the baseline until the LLR leaves its bounds or the games run out.

    One pool plays every batch (its workers, and a kept candidate, stay from the first to
    the last); the LLR is looked at after each whole batch, as if each were played alone.
    """
    lower, upper = sprt.bounds(sp.alpha, sp.beta)
    max_games = sp.max_games or sprt.fitted_max_games(sp.elo0, sp.elo1)
    warning = cap_warning(sp, max_games)
    if warning:
        listener.say(f"  sprt: {warning}")
    games = StrengthGames()
    batch = max(2, 2 * opts.concurrency)
    value = 0.0
    verdict = SprtVerdict.INCONCLUSIVE

    def after_batch(plan: Sequence[PlannedGame], records: Sequence[GameRecord | None]) -> bool:
        nonlocal value, verdict
        games.extend(scored(plan, records))
        counts = sprt.pair_counts(games.pairs)
        value = sprt.llr(counts, sp.elo0, sp.elo1)
        listener.say(
            f"  sprt: {2 * len(games.pairs)} games ({len(games.pairs)} board pairs {counts}), "
            f"LLR {value:.2f} [{lower:.2f}, {upper:.2f}]"
        )
        if value >= upper:
            verdict = SprtVerdict.H1
        elif value <= lower:
            verdict = SprtVerdict.H0
        return verdict is SprtVerdict.INCONCLUSIVE

    # Whole board pairs only: an odd cap leaves its last game out.
    plan = strength_plan(opts, sp.baseline, "baseline", 0, max_games - max_games % 2)
    run_batches(plan, opts, batch, after_batch)
    return SprtRun(
        tuple(games.pairs), value, verdict, (lower, upper), max_games, batch // 2, tuple(games.opponent_faults)
    )


def sprt_strength(opts: CheckOptions, listener: Listener) -> Strength:
    """The SPRT against ``opts.sprt``'s baseline; passes when the test accepts elo1 (H1)."""
    sp = opts.sprt
    assert sp is not None
    run = run_sprt(opts, sp, listener)
    lower, upper = run.bounds
    counts = sprt.pair_counts(run.pairs)
    est = sprt.elo_estimate(counts)
    # The test stopped on what it saw: the Elo told knowing that (median-unbiased).
    aware = stopped_elo(counts, sp.elo0, sp.elo1, run.bounds, run.llr, per_look=run.per_look)
    games = 2 * len(run.pairs)
    figures = {
        "mode": "sprt",
        "baseline": list(sp.baseline),
        "elo0": sp.elo0,
        "elo1": sp.elo1,
        "alpha": sp.alpha,
        "beta": sp.beta,
        "max_games": run.max_games,
        "games": games,
        "pairs": counts,
        "points": round(_mean_points(run.pairs), 4),
        "llr": round(run.llr, 3),
        "bounds": [round(lower, 3), round(upper, 3)],
        "elo": round(aware.elo, 1) if aware else round(est.elo, 1),
        "elo95": [round(aware.low, 1), round(aware.high, 1)]
        if aware
        else [round(est.low, 1), round(est.high, 1)],
        "elo_estimate": "stopping-aware" if aware else "fixed-sample",
        "elo_fixed_sample": [round(est.elo, 1), round(est.low, 1), round(est.high, 1)],
        "los": round(est.los, 4),
        "verdict": run.verdict,
        "cap_warning": cap_warning(sp, run.max_games) or None,
        "opponent_faults": [f.to_dict() for f in run.opponent_faults],
    }
    meaning = {
        SprtVerdict.H1: f"the test accepts elo1={sp.elo1:g} over elo0={sp.elo0:g}",
        SprtVerdict.H0: f"the test accepts elo0={sp.elo0:g} over elo1={sp.elo1:g}",
        SprtVerdict.INCONCLUSIVE: f"no decision within {run.max_games} games",
    }[run.verdict]
    text = (
        f"{run.verdict}: {meaning}; {games} games, Ptnml(0-2) {' '.join(map(str, counts))}, "
        f"LLR {run.llr:.2f} in [{lower:.2f}, {upper:.2f}]; {_stopped_text(aware, est)}{_mirror_warning(counts)}"
        f"{opponent_fault_warning(run.opponent_faults, games)}"
    )
    status = {
        SprtVerdict.H1: CheckStatus.PASS,
        SprtVerdict.H0: CheckStatus.FAIL,
        SprtVerdict.INCONCLUSIVE: CheckStatus.INCONCLUSIVE,
    }[run.verdict]
    return CheckResult("sprt", status, text, games), figures
