"""One submission's build and check, in a process of its own: ``python -m arena.ladder.job``.

The queue starts it per submission, so that stopping the service (or a check that runs past
its deadline) ends the check's games and processes with it.  It reads its
:class:`~arena.ladder.jobfiles.CheckJob` in the submission's folder and writes its
:class:`~arena.ladder.jobfiles.CheckResult` there; the queue stores what it says.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from arena.check import run_check
from arena.game.build import run_build
from arena.game.convention import missing_program
from arena.ladder.child import die_with_service
from arena.ladder.jobfiles import CheckJob, CheckResult
from arena.ladder.settings import parse_ladder
from arena.ladder.store import State
from arena.league.listener import Quiet

BUILD_LOG_LINES = 40


def describe_failure(report: dict[str, Any]) -> str:
    """The first failed check in one line: what the author reads first."""
    for c in report.get("checks", []):
        if c.get("status") != "pass" and c.get("status") != "skip":
            return f"{c.get('name')}: {c.get('status')}: {c.get('detail')}"
    return "the check did not pass"


def run_job(folder: Path) -> CheckResult:
    """Build (when asked) and check the bot in the job's ``bot`` folder; the result to store."""
    job = CheckJob.read(folder)
    ladder = parse_ladder(job.ladder_text, job.ladder_path)
    bot = job.bot
    opts = ladder.check_options(job.command, bot, job.seed)
    build_log = None
    if job.build:
        missing = missing_program(job.build)
        if missing is not None:  # one line for the author, not a build that cannot start
            return CheckResult(State.FAILED, f"its build needs {missing}, not installed on this ladder", None, None)
        timeout_s = ladder.league.build_timeout_ms / 1000
        result = run_build(job.build, bot, opts.sandbox, timeout_s, build_mb=ladder.league.build_mb)
        build_log = "\n".join(result.tail(BUILD_LOG_LINES))  # made printable by tail()
        if not result.ok:
            return CheckResult(State.FAILED, f"build {result.why}", None, build_log)
    # From the bot's own folder, so the replay command of a failure is one its author can run
    # in theirs (it names no folder of this machine for the bot or a built-in opponent).
    os.chdir(bot)
    report = run_check(opts, Quiet()).to_dict()
    passed = bool(report["passed"])
    reason = "passed the check" if passed else describe_failure(report)
    return CheckResult(State.PASSED if passed else State.FAILED, reason, report, build_log)


def main(argv: list[str]) -> int:
    """Run the job of the submission folder ``argv[0]`` for the service of pid ``argv[1]``;
    0 when a result was written, 3 when the service was gone before it started."""
    folder = Path(argv[0]).resolve()
    watch = die_with_service(int(argv[1]))
    if watch is None:
        return 3
    try:
        result = run_job(folder)
    finally:
        watch.end_group_if_gone()
    result.write(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
