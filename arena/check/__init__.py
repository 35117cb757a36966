"""``arena check``: is a bot fit to enter a league (and, if asked, strong enough)?

Conformance: the bot plays games as 2, 3 and 4 players, in every seat, on
random boards and building the pasture itself, against the arena's built-in
opponents (or the ones given), plus a game where an opponent forfeits.  Each
named check then reads the game records.  An optional strength gate plays
2-player games against named bots, with a fixed number of games and a
minimum score, or as a sequential probability ratio test (SPRT) that stops as
soon as the answer is clear.

The modules, in the order a check uses them:

- :mod:`~arena.check.plan`: what a check plays: its options, its opponents, every
  planned game (and the ``arena play`` command that replays one).
- :mod:`~arena.check.play`: plays a plan on the league's worker pool, stopping early when the games say so.
- :mod:`~arena.check.judge`: the verdict of the conformance games, a table of named
  checks judged in order.
- :mod:`~arena.check.strength`: the strength gate, a fixed number of games or an SPRT.
- :mod:`~arena.check.results`: the values it all produces (statuses, the report).
- :mod:`~arena.check.run`: :func:`run_check`, the whole check.
"""

from __future__ import annotations

from arena.check.judge import CHECKS, NamedCheck, judge_conformance, phase_at
from arena.check.plan import (
    CANDIDATE,
    CONFIGS,
    MIN_CONFORMANCE_GAMES,
    SPECIAL_GAMES,
    CheckOptions,
    PlannedGame,
    Purpose,
    SprtOptions,
    check_conformance_games,
    conformance_plan,
    replay_command,
    strength_plan,
)
from arena.check.play import opponents_started, run_plan
from arena.check.results import CheckReport, CheckResult, CheckStatus, FailureReport
from arena.check.run import run_check
from arena.check.strength import SprtVerdict

__all__ = [
    "CANDIDATE",
    "CHECKS",
    "CONFIGS",
    "MIN_CONFORMANCE_GAMES",
    "SPECIAL_GAMES",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "CheckStatus",
    "FailureReport",
    "NamedCheck",
    "PlannedGame",
    "Purpose",
    "SprtOptions",
    "SprtVerdict",
    "check_conformance_games",
    "conformance_plan",
    "judge_conformance",
    "opponents_started",
    "phase_at",
    "replay_command",
    "run_check",
    "run_plan",
    "strength_plan",
]
