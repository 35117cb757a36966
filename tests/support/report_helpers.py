"""What the unit and the system tests of the report share."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.record import GameRecord

REPO = Path(__file__).resolve().parents[2]


GREEDY = str(REPO / "sample_bots" / "c" / "greedy")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    """A real game on a pasture the bots build: greedy (which sends info lines) against random."""
    save = tmp_path_factory.mktemp("game") / "game.json"
    result = CliRunner().invoke(
        main,
        # (the secret too: with --seed alone, the random bot's choices would differ run to run)
        ["play", GREEDY, f"{GREEDY} --random", "--build-board", "--seed", "11", "--seed-secret", "b" * 32,
         "-q", "--save", str(save)],
    )
    assert result.exit_code == 0, result.output
    return GameRecord.from_json(save.read_text())
