"""The rules commands of the CLI: perft, show, board."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.rules import parse_board_file, parse_position, random_board


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def test_perft_counts_hand_position(runner: CliRunner) -> None:
    # a: 3 sheep on the west end of a 4-hex strip; b: 2 sheep on the east end.
    # a can only go E (1 or 2 sheep): 2 moves.
    result = runner.invoke(main, ["perft", "a3..b2 moves a players=2", "1"])
    assert result.exit_code == 0, result.output
    assert "perft(1) = 2" in result.output


def test_perft_divide_lists_first_moves(runner: CliRunner) -> None:
    result = runner.invoke(main, ["perft", "a3..b2 moves a players=2", "2", "--divide"])
    assert result.exit_code == 0, result.output
    assert "0,0E1: 1" in result.output
    assert "0,0E2: 1" in result.output
    assert "perft(2) = 2" in result.output


def test_show_renders_and_echoes_position(runner: CliRunner) -> None:
    result = runner.invoke(main, ["show", "a16.../....b16. moves a players=2", "--no-colour"])
    assert result.exit_code == 0, result.output
    assert "a16" in result.output and "b16" in result.output
    assert "a16.3/.4b16. moves a players=2" in result.output  # canonical: runs counted


def test_show_bad_position_names_column(runner: CliRunner) -> None:
    result = runner.invoke(main, ["show", "a16..x/....b16. moves a players=2"])
    assert result.exit_code != 0
    assert "column 6" in result.output


def test_board_is_deterministic_and_parses_back(runner: CliRunner) -> None:
    first = runner.invoke(main, ["board", "--seed", "7", "--format", "file"])
    second = runner.invoke(main, ["board", "--seed", "7", "--format", "file"])
    assert first.exit_code == 0 and first.output == second.output
    assert parse_board_file(first.output) == random_board(7, 8)


def test_board_file_option_reports_line_and_column(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.board"
    bad.write_text(" . .\n. x .\n")
    result = runner.invoke(main, ["board", "--file", str(bad)])
    assert result.exit_code != 0
    assert "line 2, column 3" in result.output and "'x'" in result.output


def test_board_position_output_is_a_position(runner: CliRunner) -> None:
    result = runner.invoke(main, ["board", "--seed", "3", "--players", "3", "--format", "position"])
    assert result.exit_code == 0
    state = parse_position(result.output.strip())
    assert state.players == 3 and state.board == random_board(3, 12)


def test_board_file_comment_lines_are_not_rows(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "c.board"
    path.write_text("# my board\n . .\n# between the rows\n. . .  # trailing comment\n")
    result = runner.invoke(main, ["board", "--file", str(path), "--format", "file"])
    assert result.exit_code == 0, result.output
    assert result.output == " . .\n. . .\n"
