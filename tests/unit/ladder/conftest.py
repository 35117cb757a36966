"""Fixtures the unit tests of the ladder share."""

from tests.support.ladder_league import store  # noqa: F401 (a fixture)
