"""Fixtures the cluster tests share."""

from tests.support.dask_helpers import one_seed_secret  # noqa: F401 (every run draws the same seat secrets)
