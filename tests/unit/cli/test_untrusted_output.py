"""Nothing a bot writes can change a terminal, a table, a spreadsheet or a report.

Hostile text goes through every output: each escape of ``arena/untrusted.py``, the standings
in every format and their files, ``arena games``/``replay``/``standings`` on a store holding
hostile records, the JUnit report; and, with real processes, a bot that writes escapes against
``arena play``, ``arena check`` and a league.

The cases that need no process; the others are in tests/system/cli/test_untrusted_output.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from arena.check import CheckReport, CheckResult, FailureReport
from arena.cli import main
from arena.cli.check_cmds import junit_xml
from arena.game.record import GameRecord
from arena.league.schedule import ScheduledGame
from arena.league.standings import FORMATS, render, write_files
from arena.league.store import ResultStore
from arena.league.tally import compute_standings
from arena.untrusted import csv_cell, html, markdown, printable, printable_lines, xml_text
from tests.support.untrusted_output import (
    HOSTILE,
    assert_markdown_safe,
    assert_terminal_safe,
    markdown_cells,
)

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# -- the escapes themselves ---------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_each_escape_leaves_nothing_active(text: str) -> None:
    one_line = printable(text)
    assert "\n" not in one_line
    assert_terminal_safe(one_line)
    assert_terminal_safe(printable_lines(text))
    md = markdown(text)  # one table cell: no line break, no tag, no '|' that ends the cell
    assert "\n" not in md and "<" not in md and ">" not in md, md
    assert_terminal_safe(md)
    assert len(markdown_cells(f"| {md} |")) == 1, md
    cell = csv_cell(text)
    assert not cell.lstrip(" ").startswith(FORMULA_START), cell
    page = html(text)
    assert "<" not in page and ">" not in page and '"' not in page, page
    element = ET.Element("r", a=xml_text(text))
    element.text = xml_text(text)
    assert ET.fromstring(ET.tostring(element, encoding="unicode")).text == xml_text(text)  # it parses
    if text.isprintable():  # nothing is lost: what needs no escape is the text itself
        assert one_line == text


def test_printable_writes_what_it_escapes_visibly() -> None:
    assert printable("\x1b[2J\x00\u202e\ud800\U000e0001") == "\\x1b[2J\\x00\\u202e\\ud800\\U000e0001"
    assert printable_lines("a\x1b\nb") == "a\\x1b\nb"
    assert markdown("a|b<c>&`d`*") == "a\\|b&lt;c&gt;&amp;\\`d\\`\\*"
    assert [csv_cell(t) for t in ("=1+1", "-2+3", "ann", " @x")] == ["'=1+1", "'-2+3", "ann", "' @x"]
    assert xml_text("a\x00\x1b\nb\ufffe") == "a\\x00\\x1b\nb\\ufffe"


# -- records with hostile text, as a forged or old store could hold --------------------------------


@pytest.fixture(scope="module")
def store_folder(records: list[GameRecord], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / "results"
    names = list(dict.fromkeys(s.name for r in records for s in r.seats))
    with ResultStore.create(folder) as store:
        store.set_meta(config={"name": "t", "bots": [{"name": n} for n in names]})
        for i, r in enumerate(records):
            store.save_game(ScheduledGame(i, r.game_id, 1, tuple(s.name for s in r.seats), r.seed), r)
    return folder


def test_standings_in_every_format_escape_bot_names(records: list[GameRecord]) -> None:
    names = list(dict.fromkeys(s.name for r in records for s in r.seats))
    st = compute_standings(records, names)
    assert {r.bot for r in st.rows} == set(names)
    for fmt in FORMATS:
        text = render(st, fmt)
        assert_terminal_safe(text)
        if fmt == "github":
            assert_markdown_safe(text, rows=2 * len(names))
        elif fmt == "html":
            tags = set(re.findall(r"</?([A-Za-z]+)", text))
            assert tags <= {"table", "thead", "tbody", "tr", "th", "td", "p", "strong"}, tags
            assert "onerror=alert" not in text.replace("onerror=alert(1)&gt;", "")
        elif fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            assert len(rows) == len(names)
            for row in rows:
                assert not row["bot"].startswith(FORMULA_START), row
                float(row["rating"])  # the arena's own numbers stay numbers...
            assert any(row["rating"].startswith("-") for row in rows)  # ...negative ones too
        elif fmt == "json":
            assert {r["bot"] for r in json.loads(text)["rows"]} == set(names)  # JSON carries them exactly


def test_standings_files_escape_the_title_and_the_names(records: list[GameRecord], tmp_path: Path) -> None:
    names = list(dict.fromkeys(s.name for r in records for s in r.seats))
    write_files(tmp_path, "# <b>t</b>|\x1b[2J", compute_standings(records, names), len(records))
    md = (tmp_path / "standings.md").read_text()
    assert md.startswith("# \\# &lt;b&gt;t&lt;/b&gt;\\|\\\\x1b\\[2J\n")  # renders as: # <b>t</b>|\x1b[2J
    assert_markdown_safe(md, rows=2 * len(names))
    assert {r["bot"] for r in json.loads((tmp_path / "standings.json").read_text())["rows"]} == set(names)


def test_reading_commands_escape_everything_a_store_holds(
    store_folder: Path, records: list[GameRecord]
) -> None:
    runner = CliRunner()
    outputs = []
    for fmt in FORMATS:
        outputs.append(runner.invoke(main, ["standings", str(store_folder), "--format", fmt]))
    outputs.append(runner.invoke(main, ["games", str(store_folder)]))
    outputs.append(runner.invoke(main, ["games", str(store_folder), "--format", "json"]))
    outputs.append(runner.invoke(main, ["games", str(store_folder), "--bot", records[0].seats[0].name]))
    for r in records:
        outputs.append(runner.invoke(main, ["replay", str(store_folder), r.game_id, "--no-colour"]))
    for result in outputs:
        assert result.exit_code == 0, result.output
        assert_terminal_safe(result.output)
    replays = "".join(o.output for o in outputs[-len(records) :])
    assert replays.count("forfeits: protocol_error") == len(records)
    assert "\\x1b]0;title\\x07\\x1b[2J" in replays  # shown, made visible
    games = json.loads(outputs[len(FORMATS) + 1].output)
    assert games[0]["seats"] == [s.name for s in records[0].seats]  # JSON keeps the exact text


def test_a_tampered_record_cannot_reach_the_terminal(records: list[GameRecord], tmp_path: Path) -> None:
    bad_move = replace(records[0].moves[0], move=HOSTILE[0])
    tampered = replace(records[0], game_id=HOSTILE[0], moves=(bad_move, *records[0].moves[1:]))
    path = tmp_path / "game.json"
    path.write_text(tampered.to_json())
    result = CliRunner().invoke(main, ["replay", str(path), "--no-colour"])
    assert result.exit_code == 2  # the move cannot be read: a clean error, escaped like the rest
    assert_terminal_safe(result.output)
    assert "\\x1b" in result.output


def test_junit_report_parses_and_holds_no_illegal_character() -> None:
    report = CheckReport(("./bot", HOSTILE[0]), 1)
    report.checks = [
        CheckResult("protocol", "fail", "protocol_error: " + "".join(HOSTILE)),
        CheckResult("time", "skip", HOSTILE[1]),
        CheckResult("handshake", "pass", HOSTILE[6]),
    ]
    report.failure = FailureReport("protocol", HOSTILE[0], "2 players", [f"bot> {h}" for h in HOSTILE], "x")
    text = junit_xml(report)
    suite = ET.fromstring(text.split("\n", 1)[1])
    assert_terminal_safe(text)
    failure = suite.find("testcase/failure")
    assert failure is not None and "\\x1b]0;title" in failure.get("message", "")
    assert failure.text is not None and "bot> <script>alert(1)</script>" in failure.text  # escaped by XML


# -- real bots: a bot that writes escapes ---------------------------------------------------------


