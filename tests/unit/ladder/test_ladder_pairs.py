"""The ladder reads a continuous league's pair line from standings.json, as the league wrote
it: the pair tests read back as they were written, and no page opens the league's store (or
rebuilds its league) to say it again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.ladder.results import StandingsReader
from arena.league.neighbours import Neighbours, PairTests, Standing

TESTS = PairTests(
    0.95,
    20.0,
    (
        Neighbours("a.v2", "house", 0.9875, Standing.ORDERED),
        Neighbours("house", "b.v1", 0.5, Standing.TIED),
        Neighbours("b.v1", "c.v3", 0.8125, Standing.OPEN),
    ),
)
ROWS = [
    {"bot": "a.v2", "better_than_next": 0.9875, "retired": False},
    {"bot": "house", "better_than_next": 0.5, "retired": False},
    {"bot": "old.v1", "better_than_next": 0.7, "retired": True},
    {"bot": "b.v1", "better_than_next": 0.8125, "retired": False},
    {"bot": "c.v3", "better_than_next": None, "retired": False},
]


def _written(tests: PairTests | None) -> dict[str, object]:
    """standings.json's keys for the pairs, as arena.league.tally writes them."""
    return {
        "pairs": None if tests is None else tests.to_json(),
        "pair_test": None if tests is None else {"confidence": tests.confidence, "indifference": tests.indifference},
    }


def test_the_pair_tests_read_back_as_standings_json_writes_them() -> None:
    data = json.loads(json.dumps({**_written(TESTS), "rows": ROWS}))
    better = {r["bot"]: r["better_than_next"] for r in data["rows"]}
    read = PairTests.from_json(data["pairs"], data["pair_test"], better)
    assert read == TESTS
    assert read is not None and read.summary() == TESTS.summary()
    assert read.summary() == "at 95%: ordered a.v2 > house; tied within 20 Elo: house ~ b.v1; not settled: b.v1 vs c.v3 P=0.81"


@pytest.mark.parametrize(
    ("pairs", "test"),
    [
        (None, None),  # a round robin's standings: no pair tests
        ([{"above": "a", "below": "b", "verdict": "sure"}], {"confidence": 0.95, "indifference": 20}),
        ([{"above": "a"}], {"confidence": 0.95, "indifference": 20}),
        (["a > b"], {"confidence": 0.95, "indifference": 20}),
        ([], {"confidence": "high"}),
    ],
    ids=["none", "unknown-verdict", "no-below", "not-an-object", "bad-confidence"],
)
def test_pairs_that_cannot_be_read_are_no_pairs(pairs: object, test: object) -> None:
    assert PairTests.from_json(pairs, test, {}) is None


def test_the_ladder_shows_the_pair_line_of_standings_json_without_the_leagues_store(tmp_path: Path) -> None:
    (tmp_path / "standings.json").write_text(json.dumps({"games": 40, "players": 2, "rows": ROWS, **_written(TESTS)}))
    assert not (tmp_path / "results.sqlite").exists()  # nothing to recompute it from
    view = StandingsReader(tmp_path).read()
    assert view is not None and view.pairs == TESTS.summary()
    (tmp_path / "standings.json").write_text(json.dumps({"games": 40, "players": 2, "rows": ROWS, **_written(None)}))
    later = StandingsReader(tmp_path).read()
    assert later is not None and later.pairs == ""
