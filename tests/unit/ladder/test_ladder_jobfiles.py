"""What the check queue and a version's check process hand each other: a job and a result,
each a value that reads back as it was written, and refused by key when it is not one; and
the names of the ladder's files, in one place, known to the league's results folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.errors import LadderError
from arena.ladder import folders
from arena.ladder.jobfiles import CheckJob, CheckResult
from arena.ladder.store import State
from arena.league.results_folder import LADDER_NAMES, claim_folder

JOB = CheckJob(
    ladder_path=Path("/srv/ladder.yaml"),
    ladder_text="name: x\nladder: {}\n",
    bot=Path("/srv/results-bots/3"),
    command=("python3", "bot.py"),
    build=("make", "-s"),
    seed=12345678901234,
)


@pytest.mark.parametrize(
    "value",
    [
        JOB,
        CheckJob(JOB.ladder_path, "", JOB.bot, ("./bot",), None, 0),
        CheckResult(State.PASSED, "passed the check", {"passed": True, "checks": []}, None),
        CheckResult(State.FAILED, "build exited with 2", None, "make: *** no rule"),
    ],
    ids=["job", "job-without-build", "passed", "build-failed"],
)
def test_a_job_and_a_result_read_back_as_they_were_written(value: CheckJob | CheckResult, tmp_path: Path) -> None:
    value.write(tmp_path)
    assert type(value).read(tmp_path) == value
    assert type(value).from_json(json.loads(json.dumps(value.to_json()))) == value
    assert not list(tmp_path.glob("*.part"))  # the result is written in one step


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"seed": "7"}, "job 'seed': a whole number expected"),
        ({"command": "python3 bot.py"}, "job 'command': a list of strings expected"),
        ({"build": [1]}, "job 'build': a list of strings expected"),
        ({"bot": None}, "job 'bot': a string expected"),
        ({"ladder_text": None}, "job 'ladder_text': a string expected"),
    ],
)
def test_a_job_that_is_not_one_is_refused_naming_its_key(change: dict[str, object], needle: str) -> None:
    with pytest.raises(LadderError, match=needle):
        CheckJob.from_json({**JOB.to_json(), **change})
    data = JOB.to_json()
    del data["seed"]
    with pytest.raises(LadderError, match="job: no 'seed'"):
        CheckJob.from_json(data)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"state": "checking"}, "result 'state': 'passed' or 'failed' expected"),
        ({"reason": 3}, "result 'reason': a string expected"),
        ({"report": []}, "result 'report': an object expected"),
        ({"build_log": 1}, "result 'build_log': a string expected"),
    ],
)
def test_a_result_that_is_not_one_is_refused_naming_its_key(change: dict[str, object], needle: str, tmp_path: Path) -> None:
    good = CheckResult(State.PASSED, "passed the check", {}, None).to_json()
    with pytest.raises(LadderError, match=needle):
        CheckResult.from_json({**good, **change})
    (tmp_path / folders.RESULT_FILE).write_text("[1, 2")
    with pytest.raises(LadderError, match="cannot read it"):
        CheckResult.read(tmp_path)


def test_the_league_takes_a_folder_holding_every_name_the_ladder_adds_for_a_results_folder(tmp_path: Path) -> None:
    # results_folder refuses a folder holding names it does not know.
    for name in (*folders.RESULTS_NAMES, f"{folders.LADDER_STORE}-wal", ".ladder-league.json.x1.tmp"):
        (tmp_path / name).write_text("")
    assert claim_folder(tmp_path, "ladder.yaml")[0] == tmp_path.resolve()
    assert folders.LEAGUE_JOB_FILE in LADDER_NAMES


def test_a_version_lives_beside_the_results_folder_unless_an_older_arena_put_it_inside(tmp_path: Path) -> None:
    results = tmp_path / "results"
    assert folders.version_folder(results, 4) == tmp_path / "results-bots" / "4"
    old = results / "submissions" / "4" / "bot"
    old.mkdir(parents=True)
    assert folders.version_folder(results, 4) == old
