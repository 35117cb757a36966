"""A bot's lines at each ply in `arena replay` (the terminal) and in the replay page (HTML):
shown at the move they were written for, every byte the bot chose made harmless.

The browser half (the viewer puts them beside the board) is in
tests/system/report/test_report_browser.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.record import GameRecord, StderrTurn
from arena.game.referee import GameSetup
from arena.report import replay_page
from arena.untrusted import printable
from tests.support.fakebot import engine_bot
from tests.support.referee_helpers import run
from tests.support.untrusted_output import HOSTILE, assert_terminal_safe

FLOOD_LINE = "z" * 5000  # longer than a terminal line; a record may hold one (a tampered one, more)


@pytest.fixture(scope="module")
def game() -> GameRecord:
    """A real game (fake bots, no process) whose first seat wrote hostile lines at its first move,
    a flood at its second, and a line at the start."""
    record = run([engine_bot("a"), engine_bot("b")], GameSetup(board=None, seed=6))
    a = replace(
        record.seats[0],
        stderr_turns=(
            StderrTurn(-1, ("started",)),
            StderrTurn(0, tuple(HOSTILE)),
            StderrTurn(2, (FLOOD_LINE,), 98765),
        ),
        infos=tuple(HOSTILE),
        info_plies=(0,) * len(HOSTILE),
    )
    return replace(record, seats=(a, record.seats[1]))


def replay_output(game: GameRecord, tmp_path: Path) -> str:
    path = tmp_path / "game.json"
    path.write_text(game.to_json())
    result = CliRunner().invoke(main, ["replay", str(path), "--no-colour"])
    assert result.exit_code == 0, result.output
    return result.output


def positions(output: str) -> dict[int, str]:
    """The replay's text of each position: ``start`` is 0, ``ply N: ...`` is N."""
    parts = re.split(r"\n(?=start\n|ply \d+: )", output)
    out = {}
    for part in parts[1:]:
        m = re.match(r"ply (\d+): ", part)
        out[int(m.group(1)) if m else 0] = part
    return out


def test_replay_shows_each_bots_lines_at_the_move_they_were_written_for(game: GameRecord, tmp_path: Path) -> None:
    shown = positions(replay_output(game, tmp_path))
    assert f"a {game.seats[0].name} wrote:\n  stderr started" in shown[0]
    first = shown[1]
    assert first.count("  stderr ") == len(HOSTILE) and first.count("  info   ") == len(HOSTILE)
    assert f"  stderr {printable(HOSTILE[4])}" in first  # the bidi override made visible
    assert "wrote:" not in shown[2]  # b wrote nothing; a's lines are not repeated
    assert f"  stderr {FLOOD_LINE}" in shown[3]
    assert "(98765 more bytes on stderr this turn, past what a turn keeps)" in shown[3]
    assert sum("wrote:" in text for text in shown.values()) == 3


def test_replay_lets_no_control_character_a_bot_wrote_reach_the_terminal(game: GameRecord, tmp_path: Path) -> None:
    output = replay_output(game, tmp_path)
    assert_terminal_safe(output)
    assert "\\x1b]0;title\\x07\\x1b[2J" in output and "\\x00" in output and "\\ud800" in output


def test_a_record_without_turns_replays_as_before(game: GameRecord, tmp_path: Path) -> None:
    d = game.to_dict()
    for seat in d["seats"]:
        del seat["stderr_turns"]
        del seat["info_plies"]
    old = GameRecord.from_dict(d)
    output = replay_output(old, tmp_path)
    assert "wrote:" not in output and "ply 1: " in output


def test_the_replay_page_carries_the_turns_and_no_active_text(game: GameRecord) -> None:
    html = replay_page(game)
    for raw in ("\x1b", "\u202e", "\x00arena", "<script>alert", "<img src=x"):
        assert raw not in html
    data = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', html, re.S)
    assert data is not None
    (seat, _other) = json.loads(data.group(1))["games"][0]["seats"]
    assert seat["stderr_turns"] == [t.to_dict() for t in game.seats[0].stderr_turns]
    assert seat["stderr_turns"][1]["lines"] == HOSTILE  # the exact text: the viewer escapes it
