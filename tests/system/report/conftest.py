"""Fixtures the system tests of the report share."""

from tests.support.report_helpers import record  # noqa: F401 (a fixture)
