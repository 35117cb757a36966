"""Durations as people write them (``1s``, ``250ms``, ``1.5s``, ``2m``) and read them (``38 min``)."""

from __future__ import annotations

import math
import re

from arena.errors import ConfigError

MAX_MS = 24 * 3600 * 1000  # a day: far beyond any game, and within every timer's range
_UNITS = {"ms": 1.0, "s": 1000.0, "m": 60_000.0, "min": 60_000.0}
_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m)?\s*")


def parse_duration_ms(value: str | int | float, where: str = "duration") -> int:
    """Milliseconds from ``'1s'``, ``'250ms'``, ``'2m'``.

    A unit is required: a bare number other than 0 is an error that shows both readings,
    because ``500`` meant 500 s to us and 500 ms to nearly everyone who wrote it.
    ``where`` names the option or key in the error message.
    """
    if isinstance(value, bool):
        raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
    if isinstance(value, int | float):
        number, unit = float(value), None
    else:
        m = _RE.fullmatch(value)
        if m is None:
            raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
        number, unit = float(m[1]), m[2]
    if math.isnan(number):  # YAML's .nan; an infinity is caught as longer than a day below
        raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
    if number < 0:
        raise ConfigError(f"{where}: a duration cannot be negative, got {value!r}")
    if math.isinf(number):
        raise ConfigError(f"{where}: {value!r} is longer than a day, the longest time limit")
    if unit is None:
        if number != 0:
            _no_unit(value, where)
        unit = "s"
    ms = number * _UNITS[unit]
    if ms > MAX_MS:
        raise ConfigError(f"{where}: {value!r} is longer than a day, the longest time limit")
    return round(ms)


def _no_unit(value: str | int | float, where: str) -> None:
    text = str(value).strip()
    raise ConfigError(f"{where}: {value!r} has no unit: write {text}ms (milliseconds) or {text}s (seconds)")


def describe_seconds(seconds: float) -> str:
    """A wait as people read it, rounded up (``45 s``, ``38 min``, ``2 h 5 min``): what a
    message says of a delay, never sooner than it is."""
    whole = max(0, math.ceil(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes = math.ceil(whole / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h" if rest == 0 else f"{hours} h {rest} min"
