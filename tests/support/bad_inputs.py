"""What the unit and the system tests of bad inputs share."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.game.referee import GameSetup, Referee
from arena.rules import (
    Params,
)
from tests.support.fakebot import engine_bot
from tests.support.referee_helpers import specs

REPO = Path(__file__).resolve().parents[2]


DEADLINE_S = 60  # a case that takes longer hangs; the slowest valid one takes about a second


PY = sys.executable


BASE = f"""\
name: t
seed: 3
rounds: 1
sandbox: none
cwd: {REPO}
time_control: {{move: 300ms}}
bots:
  - name: one
    command: [{PY}, -m, arena.builtin_bots, random]
  - name: two
    command: [{PY}, -m, arena.builtin_bots, random]
"""


def base_with(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new, 1)


def good_record() -> dict[str, object]:
    """A real game record: a two-player game between scripted engine bots."""
    record = Referee(
        GameSetup(params=Params(players=2), seed=4), specs(2), [engine_bot(), engine_bot()]
    ).run()
    data: dict[str, object] = record.to_dict()
    return data


GOOD_RECORD = good_record()


def one_error_line(output: str) -> str:
    """The one ``Error:`` line, which nothing follows (a message of several lines would)."""
    lines = output.splitlines()
    errors = [i for i, line in enumerate(lines) if line.startswith("Error:")]
    assert len(errors) == 1, output[-2000:]
    assert not any(line.strip() for line in lines[errors[0] + 1 :]), output[-2000:]
    return lines[errors[0]]


def invoke_with_deadline(args: list[str], cwd: Path) -> Result:
    """Run the CLI in-process, failing (not hanging) when it takes past the deadline."""
    results: list[Result] = []
    old = Path.cwd()
    os.chdir(cwd)
    try:
        worker = threading.Thread(target=lambda: results.append(CliRunner().invoke(main, args)), daemon=True)
        worker.start()
        worker.join(DEADLINE_S)
    finally:
        os.chdir(old)
    assert results, f"'arena {' '.join(args)[:200]}' did not end within {DEADLINE_S} s"
    return results[0]


def check_clean_error(result: Result, needles: tuple[str, ...]) -> None:
    assert "Traceback" not in result.output, result.output[-3000:]
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output[-2000:]
    line = one_error_line(result.output)
    assert len(line) < 1000, line[:300]  # one line a person can read, not the input echoed back
    for needle in needles:
        assert needle in line, (needle, line)


@contextlib.contextmanager
def arena_process(args: list[str], cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """``arena ARGS`` in its own session (no controlling terminal); killed if still running."""
    proc = subprocess.Popen(
        [PY, "-m", "arena", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # lines as they are printed
        start_new_session=True,
        # The suite may run with SIGINT ignored (nohup, 'cmd &'); the arena must see Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def run_arena(args: list[str], cwd: Path) -> tuple[int, str]:
    with arena_process(args, cwd) as proc:
        try:
            out, err = proc.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"'arena {' '.join(args)}' did not end within {DEADLINE_S} s")
    return proc.returncode, out + err


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny finished tournament (two games of built-in random bots, no sandbox)."""
    folder = tmp_path_factory.mktemp("league")
    (folder / "t.yaml").write_text(BASE)
    code, output = run_arena(["run", "-q", "t.yaml"], folder)
    assert code == 0, output
    return folder
