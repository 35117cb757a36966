"""The values a check produces: each named check's status, the first failure, the whole report.

They are what ``arena check`` prints and what its JSON and JUnit reports hold, so their
strings (``pass``, ``fail``, ``skip``; the keys of :meth:`CheckReport.to_dict`) are stable.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class CheckStatus(enum.StrEnum):
    """How a named check ended; the value is the word in the JSON report."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"  # nothing exercised it (or not enough of it)
    INCONCLUSIVE = "inconclusive"  # a sequential test ran out of games before it decided

    @property
    def word(self) -> str:
        """``PASS``, ``FAIL``, ``SKIP`` or ``INCONCLUSIVE``: the status as the terminal shows it."""
        return self.value.upper()


@dataclass
class CheckResult:
    """One named check: its status and a line saying why."""

    name: str
    status: CheckStatus
    detail: str
    games: int = 0

    def __post_init__(self) -> None:
        # A status given as its word ("fail") is the member: comparisons and output are the same.
        self.status = CheckStatus(self.status)


@dataclass
class FailureReport:
    """The first failure, with what a bot author needs to reproduce it."""

    check: str
    reason: str
    game: str
    transcript: list[str]
    replay: str
    # Under the candidate's fault: the arena's hint, its first stdout lines and its stderr's
    # tail (raw text the bot chose: escaped by each output).
    evidence: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """Everything one ``arena check`` found: the checks in order, the first failure, the strength gate."""

    command: tuple[str, ...]
    seed: int
    checks: list[CheckResult] = field(default_factory=list)
    failure: FailureReport | None = None
    strength: dict[str, Any] | None = None
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Whether every check passed or was skipped (a skipped one does not fail the bot;
        an inconclusive one did not pass)."""
        return all(c.status in (CheckStatus.PASS, CheckStatus.SKIP) for c in self.checks)

    @property
    def inconclusive(self) -> bool:
        """Nothing failed, but a sequential test ran out of games before it decided."""
        return self.count(CheckStatus.FAIL) == 0 and self.count(CheckStatus.INCONCLUSIVE) > 0

    def count(self, status: CheckStatus) -> int:
        """How many checks ended with ``status``."""
        return sum(c.status is status for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        """The report as the JSON of ``--json``."""
        return {
            "command": list(self.command),
            "seed": self.seed,
            "passed": self.passed,
            "inconclusive": self.inconclusive,
            "seconds": round(self.seconds, 3),
            "checks": [c.__dict__ for c in self.checks],
            "first_failure": None if self.failure is None else self.failure.__dict__,
            "strength": self.strength,
        }
