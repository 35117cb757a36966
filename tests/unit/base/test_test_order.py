"""The suite's own start order (tests/support/order.py): under ``pytest -n N`` each worker's
first share begins with its turn of the slow tests, so that no worker runs them all one after
another, and every test still runs exactly once."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.support.order import dealt


@dataclass(eq=False)
class FakeItem:
    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def _items() -> list[FakeItem]:
    items = [FakeItem(f"tests/unit/x/test_u.py::test_{i}") for i in range(20)]
    items += [FakeItem(f"tests/system/x/test_s.py::test_{i}") for i in range(9)]
    items += [FakeItem(f"tests/system/x/test_slow.py::test_{i}", {"slow"}) for i in range(5)]
    return items


def _shares(order: list[FakeItem], workers: int) -> list[list[FakeItem]]:
    """What worksteal first gives each worker: equal counts, in order."""
    shares, left = [], list(order)
    for i in range(workers):
        n = len(left) // (workers - i)
        shares.append(left[:n])
        left = left[n:]
    return shares


@pytest.mark.parametrize("workers", [1, 2, 3, 4])
def test_each_share_starts_with_its_slow_tests_then_system_then_unit(workers: int) -> None:
    items = _items()
    order = dealt(items, workers)  # type: ignore[arg-type]
    assert sorted(id(i) for i in order) == sorted(id(i) for i in items)  # each test once
    shares = _shares(order, workers)
    slow_counts = [sum("slow" in i.marks for i in share) for share in shares]
    assert max(slow_counts) - min(slow_counts) <= 1, slow_counts
    for share in shares:
        kinds = [0 if "slow" in i.marks else 2 if "/unit/" in i.nodeid else 1 for i in share]
        assert kinds == sorted(kinds), [i.nodeid for i in share]


def test_more_workers_than_tests_still_runs_each_once() -> None:
    items = _items()[:3]
    assert sorted(id(i) for i in dealt(items, 8)) == sorted(id(i) for i in items)  # type: ignore[arg-type]
