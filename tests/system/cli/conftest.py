"""Fixtures the system tests of the command line share."""

from tests.support.bad_inputs import results  # noqa: F401 (a fixture)
