"""End-to-end games between the sample bots, through the real referee."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.game.clock import TimeControl
from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import unavailable_reason
from arena.rules import Params, random_board
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def sample_bots() -> list[BotSpec]:
    subprocess.run(["make", "-s", "-C", str(REPO / "sample_bots" / "c")], check=True)
    bots = [
        BotSpec("greedy-c", ("sample_bots/c/greedy",), cwd=REPO),
        BotSpec("mcts", (sys.executable, "sample_bots/mcts_bot.py"), cwd=REPO),
        BotSpec("random", (sys.executable, "sample_bots/random_bot.py"), cwd=REPO),
        BotSpec("random-c", ("sample_bots/c/greedy", "--random"), cwd=REPO),
    ]
    if shutil.which("node"):
        bots.insert(1, BotSpec("greedy-js", ("node", "sample_bots/greedy.js"), cwd=REPO))
    return bots


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("build", [False, True], ids=["board", "build"])
def test_sample_bots_play_whole_games_without_a_fault(
    players: int, build: bool, sample_bots: list[BotSpec]
) -> None:
    seed = 10 * players + build
    bots = [sample_bots[(seed + i) % len(sample_bots)] for i in range(players)]
    params = Params(players=players)
    setup = GameSetup(
        game_id=f"e2e-{players}-{build}",
        seed=seed,
        params=params,
        # The bots think within 300 ms a move; the referee forgives a machine too busy to let
        # them answer in time (the point is whole games without a fault of the bots' own).
        time_control=TimeControl(move_ms=300, startup_ms=10_000, margin_ms=3_000),
        board=None if build else random_board(seed, 4 * players),
        seed_secret=FIXED_SECRET,
    )
    record = play_game(setup, bots)
    assert [s.fault for s in record.seats] == [None] * players, [s.fault for s in record.seats]
    assert all(s.exited_cleanly and not s.leftover_processes for s in record.seats)
    assert all(s.sandboxed for s in record.seats) == (unavailable_reason() is None)
    assert [s.reported_name is not None for s in record.seats] == [True] * players
    final = record.replay()
    assert final.is_over and sum(final.hexcount) == len(record.moves) - (4 * players if build else 0)
    assert GameRecord.from_json(record.to_json()) == record
