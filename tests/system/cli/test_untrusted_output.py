"""Nothing a bot writes can change a terminal, a table, a spreadsheet or a report.

Hostile text goes through every output: each escape of ``arena/untrusted.py``, the standings
in every format and their files, ``arena games``/``replay``/``standings`` on a store holding
hostile records, the JUnit report; and, with real processes, a bot that writes escapes against
``arena play``, ``arena check`` and a league.

The cases that start processes; the others are in tests/unit/cli/test_untrusted_output.py.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.league.store import ResultStore
from tests.support.untrusted_output import (
    assert_markdown_safe,
    assert_terminal_safe,
)

REPO = Path(__file__).resolve().parents[3]
PY = sys.executable


# -- the escapes themselves ---------------------------------------------------------------------


# -- records with hostile text, as a forged or old store could hold --------------------------------


# -- real bots: a bot that writes escapes ---------------------------------------------------------


ESCAPER = f"{PY} tests/bots/hostile/writes_escapes.py"


def test_arena_play_shows_a_bots_escapes_made_visible(marker: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(
        main,
        [
            "play",
            f"{ESCAPER} {marker}",
            f"{PY} sample_bots/random_bot.py {marker}",
            "--seed",
            "3",
            "--no-colour",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "forfeits: protocol_error" in result.output
    assert_terminal_safe(result.output)


def test_arena_check_output_and_junit_escape_the_bots_answer(marker: str, tmp_path: Path) -> None:
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    result = CliRunner().invoke(
        main,
        [
            "check",
            f"{ESCAPER} {marker}",
            "--cwd",
            str(REPO),
            "-j",
            "2",
            "--fail-fast",
            "--junit",
            str(junit),
            "--json",
            str(report),
        ],
    )
    assert result.exit_code == 1, result.output
    assert "FAIL  protocol" in result.output and "bot> " in result.output
    assert_terminal_safe(result.output)
    assert not re.search(r"^PASS every check", result.output, flags=re.M)
    suite = ET.parse(junit).getroot()
    failure = suite.find("testcase[@name='protocol']/failure")
    assert failure is not None and failure.text is not None and "\\x1b]0;owned" in failure.text
    assert_terminal_safe(junit.read_text())
    assert json.loads(report.read_text())["passed"] is False


def test_a_league_with_a_bot_that_writes_escapes(marker: str, tmp_path: Path) -> None:
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: t\nseed: 1\nplayers: 2\nrounds: 1\ncwd: {REPO}\nconcurrency: 2\n"
        "time_control: {move: 2s, startup: 10s}\nend_grace: 200ms\nbots:\n"
        f"  - {{name: esc, command: [{PY}, tests/bots/hostile/writes_escapes.py, {marker}]}}\n"
        f"  - {{name: ann, command: [{PY}, sample_bots/random_bot.py, {marker}]}}\n"
    )
    runner = CliRunner()
    run = runner.invoke(main, ["run", str(path)])
    assert run.exit_code == 0, run.output
    assert_terminal_safe(run.output)
    out = tmp_path / "results" / "t"
    with ResultStore.open(out) as store:
        recs = list(store.records())
    esc = [s for r in recs for s in r.seats if s.name == "esc"]
    assert all(s.fault is not None for s in esc) and any("\x1b" in s.stderr_tail for s in esc)
    for args in (["games", str(out)], *(["replay", str(out), r.game_id, "--no-colour"] for r in recs)):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert_terminal_safe(result.output)
    assert_markdown_safe((out / "standings.md").read_text(), rows=2)
