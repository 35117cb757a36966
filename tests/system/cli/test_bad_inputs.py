"""Every bad input gets a one-line error, exit 2, never a traceback or a hang (issue 9).

A table of bad tournament files, board files, game records, positions and
options, each run through the real command line: each case must end within a
deadline, exit 2 with exactly one ``Error:`` line that names the file (and the
line or key where there is one), and show no traceback.  Inputs that could
hang (a FIFO, ``--step`` with no terminal, Ctrl-C) run in a subprocess with a
timeout.  Valid inputs at the limits must still work, and fuzzers feed the
readers random text.

The cases that start processes; the others are in tests/unit/cli/test_bad_inputs.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.bad_inputs import (
    BASE,
    DEADLINE_S,
    GOOD_RECORD,
    arena_process,
    base_with,
    check_clean_error,
    invoke_with_deadline,
    one_error_line,
    run_arena,
)

REPO = Path(__file__).resolve().parents[3]


# --- inputs that could hang: a subprocess with a timeout, killed in cleanup ---------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["run", "{fifo}"], ("pipe", "FIFO")),
        (["standings", "{fifo}.yaml"], ("pipe.yaml", "FIFO")),
        (["board", "--file", "{fifo}"], ("pipe", "FIFO")),
        (["replay", "{fifo}"], ("pipe", "FIFO")),
        (["play", "--board", "{fifo}", "a", "b"], ("pipe", "FIFO")),
        (["run", "t.yaml"], ("t.yaml:2", "'board'", "FIFO")),
    ],
    ids=["tournament", "tournament-yaml", "board-file", "record", "play-board", "tournament-board"],
)
def test_a_fifo_is_refused_not_waited_on(
    fifo: Path, tmp_path: Path, args: list[str], needles: tuple[str, ...]
) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "t.yaml").write_text(base_with("seed: 3", f"board: {fifo}"))
    code, output = run_arena([a.format(fifo=fifo) for a in args], tmp_path)
    assert code == 2 and "Traceback" not in output, output
    line = one_error_line(output)
    assert all(n in line for n in needles), line


def test_replay_step_without_a_terminal_says_why(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text(json.dumps(GOOD_RECORD))
    code, output = run_arena(["replay", "--step", "g.json"], tmp_path)
    assert code == 2 and "Traceback" not in output, output
    assert "--step" in one_error_line(output) and "terminal" in output


def test_perft_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    # --divide prints a line per first move as it is counted; after the first of 32, the
    # search surely runs on (for many seconds).
    with arena_process(["perft", "random:1:2", "5", "--divide"], tmp_path) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        assert first.startswith("5,0: "), first
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            pytest.fail("perft did not stop on SIGINT")
        err = proc.stderr.read()
    assert code == 130 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0] and "perft(5)" in lines[0], err


# --- results: games and standings -------------------------------------------------------------


def test_games_for_a_bot_not_in_the_tournament(results: Path) -> None:
    for target in ("t.yaml", "results/t"):
        result = invoke_with_deadline(["games", target, "--bot", "onee"], results)
        check_clean_error(result, ("'onee'", "did you mean 'one'", "one, two"))
    assert "2 game(s)" in invoke_with_deadline(["games", "t.yaml", "--bot", "one"], results).output


def test_tournament_whose_output_holds_another_tournaments_results(results: Path) -> None:
    (results / "u.yaml").write_text(base_with("name: t", "name: u\noutput: results/t"))
    for command in ("games", "standings"):
        result = invoke_with_deadline([command, "u.yaml"], results)
        check_clean_error(result, ("u.yaml", "results of tournament 't'", "not of 'u'"))


def test_tournament_not_run_yet(results: Path) -> None:
    (results / "v.yaml").write_text(base_with("name: t", "name: v"))
    result = invoke_with_deadline(["standings", "v.yaml"], results)
    check_clean_error(result, ("v.yaml", "no results yet", "arena run v.yaml"))


@pytest.mark.parametrize("name", ["t.txt", "results/t/standings.json", "results/t/standings.md"])
def test_a_file_that_is_not_results(results: Path, name: str) -> None:
    if name.endswith(".txt"):
        (results / name).write_text(BASE)
    result = invoke_with_deadline(["games", name], results)
    check_clean_error(result, (name, "not results", ".yaml"))


# --- tile anchors: one coordinate limit, judged by the rules ----------------------------------


# --- valid inputs at the limits still work ----------------------------------------------------


# --- fuzzers: random text into every reader ---------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["play", "--board", "/dev/zero", "a", "b"], ("/dev/zero", "regular file")),
        (["play", "'unclosed", "b"], ("'unclosed", "No closing quotation")),
    ],
    ids=["play-board-dev-zero", "play-unclosed-quote"],
)
def test_bad_input_to_play_is_one_clean_error(args: list[str], needles: tuple[str, ...], tmp_path: Path) -> None:
    # (arena play looks for the sandbox, a process, before it reads its arguments.)
    check_clean_error(invoke_with_deadline(args, tmp_path), needles)
