"""``run_check``: the whole check, conformance first, then the strength gates asked for."""

from __future__ import annotations

import time

from arena.check.judge import judge_conformance
from arena.check.plan import CheckOptions, conformance_plan
from arena.check.play import EarlyStop, Progress, StopReason, opponents_started, run_plan
from arena.check.results import CheckReport
from arena.check.strength import fixed_strength, sprt_strength
from arena.league.listener import Lines, Listener


def run_check(
    opts: CheckOptions,
    listener: Listener | None = None,
    progress: Progress | None = None,
) -> CheckReport:
    """Play and judge the check ``opts`` describes; ``listener`` (printing by default) is told
    the SPRT's lines as it goes, ``progress`` each game.

    With ``fail_fast``, a failed conformance ends the check before any strength game.
    """
    listener = Lines() if listener is None else listener
    started = time.monotonic()
    report = CheckReport(opts.command, opts.seed)
    if opts.conformance:
        plan = conformance_plan(opts)
        early = EarlyStop(stop_at_fault=opts.fail_fast)
        records = run_plan(plan, opts, progress, early)
        if early.reason is StopReason.HANDSHAKE:
            listener.say(
                f"stopped: the handshake failed in the first {early.handshakes_failed} games and "
                "succeeded in none; every other check needs it"
            )
        opponents_started(plan, records)
        report.checks, report.failure = judge_conformance(plan, records, opts)
        if opts.fail_fast and not report.passed:
            report.seconds = time.monotonic() - started
            return report
    if opts.against:
        result, report.strength = fixed_strength(opts)
        report.checks.append(result)
    if opts.sprt is not None:
        result, report.strength = sprt_strength(opts, listener)
        report.checks.append(result)
    report.seconds = time.monotonic() - started
    return report
