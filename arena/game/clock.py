"""Time controls and the players' clocks.

The referee measures time itself, with a monotonic clock, from the moment a
request is written to the moment the answer's newline arrives.  A bot may
overrun its budget by the margin before it loses on time; what it used is
still taken off its clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ConfigError


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A per-move limit, a clock (base + increment), or both; milliseconds."""

    move_ms: int | None = 1000
    base_ms: int | None = None
    increment_ms: int = 0
    startup_ms: int = 5000  # from starting the process to its ``ready``
    margin_ms: int = 50  # overrun tolerated before a timeout

    def __post_init__(self) -> None:
        if self.move_ms is None and self.base_ms is None:
            raise ConfigError("a time control needs a per-move limit, a clock base, or both")
        for key in ("move_ms", "base_ms", "increment_ms", "startup_ms", "margin_ms"):
            value = getattr(self, key)
            if value is not None and value < 0:
                raise ConfigError(f"time control {key} must not be negative, got {value!r}")
        if self.move_ms == 0 or self.base_ms == 0 or self.startup_ms == 0:
            raise ConfigError("a time limit of 0 ms leaves no time to answer")
        if self.increment_ms and self.base_ms is None:
            raise ConfigError("an increment needs a clock: give a base time too")

    def to_dict(self) -> dict[str, int | None]:
        """The time control as a game record stores it."""
        return {
            "move_ms": self.move_ms,
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "startup_ms": self.startup_ms,
            "margin_ms": self.margin_ms,
        }

    def describe(self) -> str:
        """A short description for people (``500 ms/move, clock 60000 ms + 100 ms``)."""
        parts = []
        if self.move_ms is not None:
            parts.append(f"{self.move_ms} ms/move")
        if self.base_ms is not None:
            parts.append(f"clock {self.base_ms} ms + {self.increment_ms} ms")
        return ", ".join(parts)


class Clock:
    """One player's remaining time under a :class:`TimeControl`."""

    __slots__ = ("control", "remaining_ms")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.remaining_ms: float | None = None if control.base_ms is None else float(control.base_ms)

    def budget_ms(self) -> int:
        """The time the bot has for its next answer, as told to it."""
        move_ms, left = self.control.move_ms, self.remaining_ms
        if left is None:
            return max(0, move_ms or 0)
        return max(0, int(left if move_ms is None or left < move_ms else move_ms))

    def charge(self, used_ms: float) -> bool:
        """Take ``used_ms`` off the clock; False when the bot overran (margin included)."""
        c = self.control
        ok = used_ms <= self.budget_ms() + c.margin_ms
        if self.remaining_ms is not None:
            self.remaining_ms = max(0.0, self.remaining_ms - used_ms) + c.increment_ms
        return ok
