"""The stored tournament file: what a results store keeps of the file that last ran, read back
as values by every command that reads a folder without its file (standings, report, games, the
ladder's pair line), tolerant where it can go on and naming the store where it cannot."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.errors import StoreError
from arena.league.config import ContinuousConfig, load_config
from arena.league.store import ResultStore
from arena.league.stored import StoredLeague, record_league
from arena.stats.settings import RatingConfig


def league_file(tmp_path: Path, extra: str = "") -> Path:
    bots = "".join(f"  - name: {b}\n    command: [{sys.executable}]\n" for b in ("a", "b", "c"))
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: stored\nseed: 4\nplayers: 2\nsandbox: none\noutput: {tmp_path / 'out'}\n{extra}"
        f"bots:\n{bots}  - name: old\n    command: [{sys.executable}]\n    retired: true\n"
    )
    return path


def stored_after(tmp_path: Path, extra: str = "", removed: tuple[str, ...] = ()) -> StoredLeague:
    config = load_config(league_file(tmp_path, extra))
    with ResultStore.create(config.output) as store:
        record_league(store, config, removed, 2)
        return StoredLeague.read(store)


def stored_with(tmp_path: Path, **meta: object) -> StoredLeague:
    """A store whose meta says ``meta`` as JSON, written by hand (as a damaged one would)."""
    with ResultStore.create(tmp_path / "out") as store:
        pass
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as conn:
        for key, value in meta.items():
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))
    conn.close()
    with ResultStore.open(tmp_path / "out") as store:
        return StoredLeague.read(store)


def test_a_store_no_run_has_written_reads_as_no_bots_default_settings_and_the_folder_s_name(
    tmp_path: Path,
) -> None:
    stored = stored_with(tmp_path)
    assert stored.file is None and stored.name is None and stored.schedule_version is None
    assert stored.bots() == [] and stored.retired() == []
    assert stored.rating() == RatingConfig()
    assert stored.continuous() is None
    assert stored.title() == "out"


def test_what_a_run_records_reads_back_bots_retired_and_removed_ones_name_and_version(
    tmp_path: Path,
) -> None:
    stored = stored_after(tmp_path, removed=("gone",))
    assert stored.name == "stored" == stored.title()
    assert stored.bots() == ["a", "b", "c", "old", "gone"]
    assert stored.retired() == ["old", "gone"]
    assert stored.with_removed(["c", "d"]) == ["c", "d", "gone"]
    assert stored.schedule_version == 2
    assert stored.conditions is not None and stored.schedule_digest is None  # no schedule was set
    assert stored.continuous() is None  # a round robin


@pytest.mark.parametrize("spelling", ["format: continuous\n", "rounds: until_stable\n"], ids=["format", "rounds"])
def test_a_continuous_league_s_stored_settings_read_back_with_the_file_s_defaults(
    tmp_path: Path, spelling: str
) -> None:
    assert stored_after(tmp_path, spelling + "confidence: 0.9\n").continuous() == ContinuousConfig(
        confidence=0.9
    )
    (tmp_path / "2").mkdir()
    assert stored_after(tmp_path / "2", spelling).continuous() == ContinuousConfig()


@pytest.mark.parametrize(
    "settings",
    [{"confidence": 1.5}, {"confidence": "high"}, {"indifference": 0.5}, {"indifference": None}],
    ids=["confidence-bound", "confidence-type", "indifference-bound", "indifference-null"],
)
def test_continuous_settings_the_file_s_reader_would_refuse_read_as_none(
    tmp_path: Path, settings: dict[str, object]
) -> None:
    assert stored_with(tmp_path, config={"format": "continuous", "bots": [], **settings}).continuous() is None


def test_a_damaged_bot_list_or_retired_list_reads_as_no_bots_where_a_reader_can_go_on(tmp_path: Path) -> None:
    stored = stored_with(
        tmp_path, config={"bots": [{"name": "a"}, "b", {"name": 3}, {"name": "c", "retired": True}]},
        retired=["gone", 7],
    )  # fmt: skip
    assert stored.bots() == ["a", "c", "gone"]
    assert stored.retired() == ["c", "gone"]
    (tmp_path / "2").mkdir()
    assert stored_with(tmp_path / "2", retired="gone").retired() == []


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ([1, 2], "the stored tournament is not a tournament file's contents"),
        ({"bots": {"a": 1}}, "the stored tournament is not a tournament file's contents"),
        ({"bots": [], "rating": {"muu": 1}}, "the stored tournament has a rating that cannot be used ({'muu': 1})"),
        ({"bots": [], "rating": {"mu": "x"}}, "has a rating that cannot be used ({'mu': 'x'})"),
    ],
    ids=["not-a-mapping", "bots-not-a-list", "rating-key", "rating-value"],
)
def test_a_stored_file_no_standings_can_be_read_from_is_an_error_naming_the_store(
    tmp_path: Path, config: object, says: str
) -> None:
    stored = stored_with(tmp_path, config=config)
    with pytest.raises(StoreError) as err:
        stored.bots()
        stored.rating()
    assert says in str(err.value)
    assert str(tmp_path / "out") in str(err.value)
