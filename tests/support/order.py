"""The order tests start in under ``pytest -n N``: the long ones first, spread over the workers.

xdist's ``worksteal`` hands each of the N workers an equal count of the collected tests, in
order, and a worker that runs out takes half of what another has not yet started, from its
end.  A test of half a minute that starts last keeps its worker busy while the others idle;
and long tests that all fall in one worker's share run one after another.  So each worker's
share starts with its part of the tests marked ``slow``, dealt in turn, then the rest of the
system tier, then the unit tier, whose short tests fill the others' idle ends.

The order only changes when tests start: every test still runs, with its own fixtures, and no
test may rely on another having run before it.  Each worker collects and orders the same
tests the same way (xdist checks that the collections agree).
"""

from __future__ import annotations

import os

import pytest


def _rank(item: pytest.Item) -> int:
    if item.get_closest_marker("slow") is not None:
        return 0
    return 2 if "/tests/unit/" in f"/{item.nodeid}" else 1


def _shares(total: int, workers: int) -> list[int]:
    """How many tests xdist's worksteal first gives each worker (as its ``check_schedule`` does)."""
    shares = []
    left = total
    for i in range(workers):
        shares.append(left // (workers - i))
        left -= shares[-1]
    return shares


def dealt(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """``items`` reordered so that each of ``workers`` contiguous shares starts with its turn of
    the slow tests, then system tests, then unit tests."""
    ranked = sorted(items, key=_rank)  # stable: the order collected within a rank
    slow = [item for item in ranked if _rank(item) == 0]
    rest = ranked[len(slow) :]
    workers = max(1, min(workers, len(items)))
    shares = _shares(len(items), workers)
    chunks = [slow[k::workers] for k in range(workers)]
    for item in rest:
        # The share furthest from full takes the next test: an even mix of system and unit.
        k = max(range(workers), key=lambda j: (shares[j] - len(chunks[j]), -j))
        chunks[k].append(item)
    return [item for chunk in chunks for item in chunk]


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    items[:] = dealt(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
