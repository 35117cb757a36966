"""The continuous league: what it chooses, when it stops, and that a resumed one goes on alike.

The chooser and the stopping rules are tested without processes: games are
"played" by a stand-in that ranks the seats by a known strength plus noise
drawn from the game's id and seed.  A few end-to-end runs use fast C bots.

The cases that start processes; the others are in tests/unit/league/test_continuous.py.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.league.store import ResultStore
from tests.support.process_helpers import interrupt_when_stored, start_run, wait_no_leftovers

REPO = Path(__file__).resolve().parents[3]


# -- the chooser ---------------------------------------------------------------------------


# -- sets, ids and seeds -------------------------------------------------------------------


# -- stopping ------------------------------------------------------------------------------


# -- the file ------------------------------------------------------------------------------


# -- end to end ----------------------------------------------------------------------------


def league_file(tmp_path: Path, marker: str, concurrency: int = 1, extra: str = "") -> Path:
    """Three fast bots of plain order: greedy, random, and one that crashes at once."""
    text = f"""\
name: t
seed: 3
format: continuous
max_games: 60
cwd: {REPO}
concurrency: {concurrency}
time_control: {{move: 2s, startup: 10s}}
end_grace: 200ms
{extra}bots:
  - name: greedy
    command: [sample_bots/c/greedy, {marker}]
  - name: random
    command: [sample_bots/c/greedy, --random, {marker}]
  - name: crash
    command: [sh, -c, 'exit 3', {marker}]
"""
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


def stored_schedule(folder: Path) -> list[tuple[str, tuple[str, ...], int]]:
    with ResultStore.open(folder) as store:
        assert store.finished_ids() == {g.game_id for g in store.schedule()}  # all played
        return [(g.game_id, g.seats, g.seed) for g in store.schedule()]


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_continuous_run_stops_once_the_order_is_sure(tmp_path: Path, marker: str, concurrency: int) -> None:
    path = league_file(tmp_path, marker, concurrency)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        "continuous league: until every adjacent pair is settled at 95% (ordered, or tied within 20 Elo), "
        "at most 60 games" in result.output
    )
    games = len(stored_schedule(tmp_path / "results" / "t"))
    assert 6 < games < 60
    settled = f"stopped: the standings are settled at 95% after {games} games: ordered greedy > random, random > crash"
    assert settled in result.output
    standings = CliRunner().invoke(main, ["standings", str(tmp_path / "results" / "t"), "--format", "json"])
    rows = json.loads(standings.output)["rows"]
    assert [r["bot"] for r in rows] == ["greedy", "random", "crash"]
    ordered = [
        {"above": "greedy", "below": "random", "verdict": "ordered"},
        {"above": "random", "below": "crash", "verdict": "ordered"},
    ]
    assert json.loads(standings.output)["pairs"] == ordered
    written = json.loads((tmp_path / "results" / "t" / "standings.json").read_text())
    assert written["pairs"] == ordered and written["pair_test"] == {"confidence": 0.95, "indifference": 20.0}
    line = "pairs at 95%: ordered greedy > random, random > crash"
    plain = CliRunner().invoke(main, ["standings", str(tmp_path / "results" / "t")])
    assert line in plain.output
    md = (tmp_path / "results" / "t" / "standings.md").read_text()
    assert f"|\n\n{line}\n\n" in md  # the line under the table
    assert line not in result.output  # the run's own stopped line says it
    # Run again: nothing more to play.
    again = CliRunner().invoke(main, ["run", str(path)])
    assert again.exit_code == 0 and settled in again.output
    assert len(stored_schedule(tmp_path / "results" / "t")) == games


def test_a_results_folder_of_the_previous_format_reads_and_gets_its_pairs(tmp_path: Path, marker: str) -> None:
    # A file as older arenas had it: 'rounds: until_stable' and no 'indifference' (the key
    # came later); the folder as they left it: standings.json of format 4, without pairs.
    path = league_file(tmp_path, marker)
    path.write_text(path.read_text().replace("format: continuous\n", "rounds: until_stable\n"))
    assert CliRunner().invoke(main, ["run", str(path), "-q"]).exit_code == 0
    folder = tmp_path / "results" / "t"
    with ResultStore.open(folder) as store:
        assert store.get_meta("config")["rounds"] == "until_stable"
    old = json.loads((folder / "standings.json").read_text())
    del old["pairs"], old["pair_test"]
    (folder / "standings.json").write_text(json.dumps({**old, "format": 4}))
    for fmt in ("json", "csv", "plain"):
        read = CliRunner().invoke(main, ["standings", str(folder), "--format", fmt])
        assert read.exit_code == 0, read.output
    data = json.loads(CliRunner().invoke(main, ["standings", str(folder), "--format", "json"]).output)
    assert data["format"] == 5 and data["pair_test"] == {"confidence": 0.95, "indifference": 20.0}
    assert [p["verdict"] for p in data["pairs"]] == ["ordered", "ordered"]
    csv_out = CliRunner().invoke(main, ["standings", str(folder), "--format", "csv"]).output
    assert [r["pair_test"] for r in csv.DictReader(io.StringIO(csv_out))] == ["ordered", "ordered", ""]
    # A run of the file again plays nothing and writes standings.json in the new format.
    again = CliRunner().invoke(main, ["run", str(path), "-q"])
    assert again.exit_code == 0, again.output
    written = json.loads((folder / "standings.json").read_text())
    assert written["format"] == 5 and written["pairs"] == data["pairs"]


def test_ctrl_c_then_resume_plays_what_an_uninterrupted_league_plays(tmp_path: Path, marker: str) -> None:
    ref = tmp_path / "ref"
    ref.mkdir()
    # Both leagues draw their seats' private seeds from one secret (each keeps its own in its
    # results folder: the resumed run goes on with the one its first run drew).
    for out in (ref / "results" / "t", tmp_path / "results" / "t"):
        out.mkdir(parents=True)
        (out / ".seed-secret").write_text("7" * 32 + "\n")
    assert CliRunner().invoke(main, ["run", str(league_file(ref, marker)), "-q"]).exit_code == 0
    path = league_file(tmp_path, marker)
    store_file = tmp_path / "results" / "t" / "results.sqlite"
    proc = start_run(path, tmp_path)
    _out, err = interrupt_when_stored(proc, store_file, 7)
    assert wait_no_leftovers(marker) == []
    if proc.returncode == 0:  # it finished before the Ctrl-C arrived: nothing to resume
        pytest.skip("the league ended before it could be interrupted")
    assert proc.returncode == 130, err
    with ResultStore.open(store_file) as store:
        partial = store.count()
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert f"resuming: {partial} of 60 games already played" in result.output
    assert stored_schedule(tmp_path / "results" / "t") == stored_schedule(ref / "results" / "t")


def test_a_bot_added_to_a_continuous_league_gets_its_meetings(tmp_path: Path, marker: str) -> None:
    path = league_file(tmp_path, marker)
    assert CliRunner().invoke(main, ["run", str(path), "-q"]).exit_code == 0
    before = stored_schedule(tmp_path / "results" / "t")
    path.write_text(
        path.read_text() + f"  - name: random2\n    command: [sample_bots/c/greedy, --random, {marker}-2]\n"
    )
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert f"kept {len(before)}" in result.output
    after = stored_schedule(tmp_path / "results" / "t")
    assert after[: len(before)] == before
    met = {frozenset(seats) for _id, seats, _seed in after[len(before) :]}
    assert {frozenset({"random2", b}) for b in ("greedy", "random", "crash")} <= met
