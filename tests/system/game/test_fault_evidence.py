"""Every fault shows its evidence: the arena's hint, the bot's first lines, its stderr tail.

A newcomer's first broken bots (a traceback at the start, no flush, a timeout, a script named
by an absolute path from another folder, a runtime under the memory limit) each get a message
that names the cause, in ``arena play``, ``arena check`` (text, JSON, JUnit) and ``arena replay``.

The cases that start processes; the others are in tests/unit/game/test_fault_evidence.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.record import GameRecord
from tests.support.fault_evidence import play

REPO = Path(__file__).resolve().parents[3]
BROKEN = REPO / "tests" / "bots" / "broken"
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"
SLOW_START = ["--startup", "20s", "--move-time", "3s"]  # a loaded machine: timing is not what is tested


# -- the evidence, as a value ------------------------------------------------------------------


def test_hint_and_stdout_head_round_trip_and_old_records_still_load(tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    play(RANDOM, f"{sys.executable} {BROKEN / 'never_flushes.py'}", "--startup", "2s", "--save", str(out))
    record = GameRecord.from_json(out.read_text())
    fault = record.seats[1].fault
    assert fault is not None and "flush" in fault.hint
    assert GameRecord.from_json(record.to_json()) == record
    old = json.loads(out.read_text())
    for s in old["seats"]:
        s.pop("stdout_head")
        if s["fault"]:
            s["fault"].pop("hint")
    loaded = GameRecord.from_dict(old)
    assert loaded.seats[1].fault is not None and loaded.seats[1].fault.hint == ""
    assert loaded.seats[1].stdout_head == ()


# -- the hints -------------------------------------------------------------------------------


# -- what the sandbox shows of a command -------------------------------------------------------


def test_a_script_named_by_absolute_path_runs_from_another_folder(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    script = mine / "my_bot.py"
    script.write_text((REPO / "sample_bots" / "random_bot.py").read_text().replace(
        "sys.path.insert(0, str(Path(__file__).resolve().parents[3]))", "pass"
    ))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for mode in ("--sandbox", "--no-sandbox"):
        if mode == "--sandbox" and not _bwrap_works():
            continue
        out = play(f"python3 {script}", RANDOM, mode, *SLOW_START, cwd=elsewhere)
        assert "fault" in out and "crash" not in out and "startup_failure" not in out, out


def _bwrap_works() -> bool:
    from arena.game.sandbox.bwrap import unavailable_reason

    return unavailable_reason() is None


# -- what a user sees ------------------------------------------------------------------------------


def test_play_shows_the_traceback_of_a_bot_that_crashes_at_start(tmp_path: Path) -> None:
    out = play(f"{sys.executable} {BROKEN / 'traceback_at_start.py'}", RANDOM, cwd=tmp_path)
    # Which it meets first, its closed output or its closed input, is the machine's timing.
    assert re.search(r"crash: (closed its output|stopped reading its input) \(exit 1\)", out), out
    assert "its stderr (last 5 lines" in out and "KeyError: 'depth'" in out and 'settings["depth"]' in out


def test_a_missing_script_is_named_with_the_folder_it_was_looked_for_in(tmp_path: Path) -> None:
    out = play(f"{sys.executable} nope.py", RANDOM, cwd=tmp_path)
    assert f"hint: the command names 'nope.py', which does not exist in the bot's folder {str(tmp_path)!r}" in out


def test_a_bot_that_never_flushes_is_told_to_flush(tmp_path: Path) -> None:
    out = play(f"{sys.executable} {BROKEN / 'never_flushes.py'}", RANDOM, "--startup", "2s", cwd=tmp_path)
    assert "startup_failure: no hello within the startup allowance (2000 ms + margin 50 ms)" in out
    assert "hint: the bot wrote nothing on stdout; does it flush its output after each line?" in out


def test_a_timeout_names_the_request_the_ply_the_time_and_the_margin() -> None:
    out = play(f"{sys.executable} {BROKEN / 'sleeps_on_move.py'}", RANDOM, "--move-time", "300ms", "--startup", "20s")
    assert "timeout: no answer to '" in out and "within 350 ms (its clock's 300 ms + margin 50 ms)" in out


def test_the_cpu_time_limit_is_named_when_it_kills_a_bot() -> None:
    out = play(f"{sys.executable} {BROKEN / 'burns_cpu.py'}", RANDOM, "--cpu-seconds", "1", "--startup", "60s")
    assert "hint: killed by its CPU-time limit (cpu_seconds 1 per process)" in out, out


def test_what_a_bot_writes_on_stderr_is_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "evil"  # pytest's own folder is root's alone; a sandboxed bot is not root
    folder.mkdir(mode=0o755)
    bot = folder / "evil.py"
    bot.write_text("import sys\nsys.stderr.write('\\x1b[2J\\x1b]0;PASSED\\x07 boom\\n')\nsys.exit(3)\n")
    out = play(f"{sys.executable} {bot}", RANDOM, cwd=folder)
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J\\x1b]0;PASSED\\x07 boom" in out


def test_replay_shows_the_evidence_under_the_forfeit(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    play(f"{sys.executable} {BROKEN / 'traceback_at_start.py'}", RANDOM, "--save", str(save), cwd=tmp_path)
    result = CliRunner().invoke(main, ["replay", str(save), "--no-colour"])
    assert result.exit_code == 0, result.output
    assert "a traceback_at_start forfeits: crash" in result.output and "KeyError: 'depth'" in result.output


def test_play_cwd_starts_each_seat_in_its_own_folder(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "bot.py").write_text((REPO / "sample_bots" / "random_bot.py").read_text().replace(
        "sys.path.insert(0, str(Path(__file__).resolve().parents[3]))", "pass"
    ))
    out = play("python3 bot.py", "python3 sample_bots/random_bot.py", "--cwd", str(mine), "--cwd", str(REPO),
               *SLOW_START, cwd=tmp_path)
    assert "crash" not in out and "startup_failure" not in out, out
    result = CliRunner().invoke(main, ["play", RANDOM, RANDOM, "--cwd", ".", "--cwd", ".", "--cwd", "."])
    assert result.exit_code == 2 and "3 --cwd options for 2 seats" in result.output


# -- arena check -----------------------------------------------------------------------------------


def test_check_shows_the_evidence_in_text_json_and_junit(tmp_path: Path) -> None:
    js, xml = tmp_path / "c.json", tmp_path / "c.xml"
    result = CliRunner().invoke(
        main,
        ["check", f"{sys.executable} {BROKEN / 'traceback_at_start.py'}", "--fail-fast", "-j", "2",
         "--json", str(js), "--junit", str(xml), "--cwd", str(tmp_path)],
    )
    assert result.exit_code == 1, result.output
    assert "KeyError: 'depth'" in result.output
    evidence = json.loads(js.read_text())["first_failure"]["evidence"]
    assert evidence[0].startswith("its stderr") and "  KeyError: 'depth'" in evidence
    case = next(c for c in ET.parse(xml).getroot().iter("testcase") if c.find("failure") is not None)
    err = case.find("system-err")
    assert err is not None and err.text is not None and "KeyError: 'depth'" in err.text


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_check_against_starts_the_opponents_where_the_user_is(tmp_path: Path) -> None:
    # The candidate in a folder of its own; the opponent named relative to where the user is
    # (the repository), where it exists: it would crash if it started in the candidate's folder.
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "greedy.js").write_text((REPO / "sample_bots" / "greedy.js").read_text())
    js = tmp_path / "c.json"
    old = Path.cwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(
            main,
            ["check", "node greedy.js", "--cwd", str(mine), "--skip-conformance", "--against",
             "python3 sample_bots/random_bot.py", "--games", "2", "--min-points", "0", "-j", "2",
             "--json", str(js), *SLOW_START],
        )
    finally:
        os.chdir(old)
    assert "crash" not in result.output and "startup_failure" not in result.output, result.output
    assert "sample_bots/random_bot.py: " in result.output and "over 2 games" in result.output, result.output
    replay = json.loads(js.read_text())
    assert replay["strength"] is not None


# -- a league: arena run's end, arena games --fault, the HTML replay -------------------------------


@pytest.fixture(scope="module")
def crashing_league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A 2-bot league in which one bot raises at its start; its folder and run's output."""
    folder = tmp_path_factory.mktemp("league")
    (folder / "t.yaml").write_text(
        "name: t\nplayers: 2\nrounds: 1\ntime_control: {move: 3s, startup: 20s}\noutput: out\n"
        f"cwd: {REPO}\nbots:\n"
        f"  - name: random\n    command: {sys.executable} sample_bots/random_bot.py\n"
        f"  - name: crashy\n    command: {sys.executable} tests/bots/broken/traceback_at_start.py\n"
    )
    result = CliRunner().invoke(main, ["run", str(folder / "t.yaml"), "--quiet"])
    assert result.exit_code == 0, result.output
    return folder / "out", result.output


def test_run_ends_with_the_first_fault_of_each_bot_and_its_evidence(crashing_league: tuple[Path, str]) -> None:
    _out, output = crashing_league
    tail = output[output.index("faults (the first of each bot and kind"):]
    assert re.search(r"crashy: crash: (closed its output|stopped reading its input) \(exit 1\)", tail), tail
    assert "KeyError: 'depth'" in tail
    assert tail.count("KeyError") == 1  # two games, one bot, one kind of fault: shown once


def test_games_fault_shows_each_listed_fault_with_its_evidence(crashing_league: tuple[Path, str]) -> None:
    out, _ = crashing_league
    table = CliRunner().invoke(main, ["games", str(out), "--fault", "crash"])
    assert table.exit_code == 0, table.output
    assert table.output.count("KeyError: 'depth'") == 2
    listed = CliRunner().invoke(main, ["games", str(out), "--fault", "crash", "--format", "json"])
    faults = [f for g in json.loads(listed.output) for f in g["faults"]]
    assert len(faults) == 2 and all("KeyError: 'depth'" in f["stderr_tail"] for f in faults)
    plain = CliRunner().invoke(main, ["games", str(out)])
    assert "KeyError" not in plain.output  # without --fault, the listing stays one line a game


def test_the_html_replay_opens_a_forfeited_seats_evidence(crashing_league: tuple[Path, str], tmp_path: Path) -> None:
    from tests.support.browser import chromium, open_page, unavailable

    why = unavailable()
    if why is not None:
        pytest.skip(why)
    from selenium.webdriver.common.by import By

    out, _ = crashing_league
    page = tmp_path / "g.html"
    result = CliRunner().invoke(main, ["replay", str(out), "r1-g001", "--html", "--output", str(page)])
    assert result.exit_code == 0, result.output
    with chromium() as browser:
        open_page(browser, page)
        ends = browser.find_elements(By.CSS_SELECTOR, "#v-stderr details.seat-end")
        opened = [d for d in ends if d.get_attribute("open") is not None]
        assert len(opened) == 1 and "KeyError: 'depth'" in opened[0].text
