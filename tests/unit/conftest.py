"""The unit tier: every test here starts no process, opens no network socket and never
sleeps (tests/support/no_io.py fails one that tries), so the tier runs in seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.no_io import forbid_io


def _guarded() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        forbid_io(patch)
        yield


# Held while each test of this folder is set up (its fixtures, shared ones included), run and
# torn down; never between tests, where pytest and its plugins do their own waiting.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _guarded()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _guarded()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield from _guarded()
