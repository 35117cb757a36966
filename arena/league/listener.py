"""What a league run tells as it goes: a small listener interface instead of a print callable.

fastchess's model: progress is an interface, with one implementation per way of showing it.
Lower layers (the builds, the cluster's pool) tell a :class:`Listener` the lines a user should
see as they happen (a build starting, a worker leaving); what a helper merely finds (a store's
upgrade, the changes to a league's file) it returns as values, and the run says them.  The run's
own listener adds each finished game (:class:`arena.tournament.RunListener`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class Listener(Protocol):
    """Takes the lines a run has for its user, one at a time, as they happen."""

    def say(self, line: str) -> None:
        """A line for the user: a warning, a build starting, a worker leaving, a retry..."""
        ...


@dataclass(frozen=True)
class Lines:
    """A :class:`Listener` that hands each line to ``echo`` (``print`` by default)."""

    echo: Callable[[str], None] = print

    def say(self, line: str) -> None:
        self.echo(line)


class Quiet:
    """A :class:`Listener` that drops every line (a check's child process, a test)."""

    def say(self, line: str) -> None:
        pass
