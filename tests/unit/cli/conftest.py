"""Fixtures the unit tests of the command line share."""

from tests.support.untrusted_output import records  # noqa: F401 (a fixture)
