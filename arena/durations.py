"""Durations as people write them: ``1s``, ``250ms``, ``1.5s``, ``2m``."""

from __future__ import annotations

import math
import re

from .errors import ConfigError

MAX_MS = 24 * 3600 * 1000  # a day: far beyond any game, and within every timer's range
_UNITS = {"ms": 1.0, "s": 1000.0, "m": 60_000.0, "min": 60_000.0}
_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m)?\s*")


def parse_duration_ms(value: str | int | float, where: str = "duration") -> int:
    """Milliseconds from ``'1s'``, ``'250ms'``, ``'2m'``; a bare number is seconds.

    ``where`` names the option or key in the error message.
    """
    if isinstance(value, bool):
        raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
    if isinstance(value, int | float):
        ms = float(value) * 1000
    else:
        m = _RE.fullmatch(value)
        if m is None:
            raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
        ms = float(m[1]) * _UNITS[m[2] or "s"]
    if math.isnan(ms):  # YAML's .nan; an infinity is caught as longer than a day below
        raise ConfigError(f"{where}: expected a duration such as '1s' or '250ms', got {value!r}")
    if ms < 0:
        raise ConfigError(f"{where}: a duration cannot be negative, got {value!r}")
    if ms > MAX_MS:
        raise ConfigError(f"{where}: {value!r} is longer than a day, the longest time limit")
    return round(ms)
