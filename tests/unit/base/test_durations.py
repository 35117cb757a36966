"""Durations need a unit: a bare number other than 0 is refused, showing both readings."""

from __future__ import annotations

import pytest

from arena.durations import parse_duration_ms
from arena.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "ms"),
    [("250ms", 250), ("1s", 1000), ("1.5s", 1500), ("2m", 120_000), ("2min", 120_000), ("0", 0), (0, 0)],
)
def test_durations_with_a_unit_and_a_bare_zero_are_read(text: str | int, ms: int) -> None:
    assert parse_duration_ms(text, "x") == ms


@pytest.mark.parametrize("value", ["500", 500, 1.5, " 20 "])
def test_a_bare_number_is_refused_showing_both_readings(value: str | float) -> None:
    with pytest.raises(ConfigError) as err:
        parse_duration_ms(value, "--move-time")
    text = str(value).strip()
    message = str(err.value)
    assert message.startswith("--move-time: ") and f"{text}ms" in message and f"{text}s " in message
