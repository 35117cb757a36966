"""What the unit and the system tests of the results folder share."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.game.record import GameRecord
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.league.schedule import ScheduledGame
from arena.league.store import ResultStore
from arena.rules import random_board
from tests.support.fakebot import engine_bot

REPO = Path(__file__).resolve().parents[2]


PY = sys.executable


def record(game_id: str, seed: int) -> GameRecord:
    """A real game between two fake bots (no processes), named ann and bob."""
    specs = [BotSpec(name="ann", command=("fake",)), BotSpec(name="bob", command=("fake",))]
    rec = Referee(
        GameSetup(board=random_board(seed, 8), seed=seed), specs, [engine_bot("a"), engine_bot("b")]
    ).run()
    return replace(rec, game_id=game_id)


def make_results(folder: Path, games: int = 3) -> list[GameRecord]:
    """A finished results folder of ``games`` games, its store closed (no -wal, no -shm left)."""
    recs = [record(f"r1-g{i:03}", i + 1) for i in range(games)]
    with ResultStore.create(folder) as store:
        store.set_meta(config={"name": "t", "bots": [{"name": "ann"}, {"name": "bob"}]})
        for i, r in enumerate(recs):
            store.save_game(ScheduledGame(i, r.game_id, 1, ("ann", "bob"), r.seed), r)
    return recs


def tournament(tmp_path: Path, output: Path | str, rounds: int = 1, marker: str = "x") -> Path:
    path = tmp_path / "league.yaml"
    bots = "".join(
        f"  - {{name: {n}, command: [{PY}, sample_bots/random_bot.py, {marker}-{n}]}}\n"
        for n in ("ann", "bob", "cid")
    )
    path.write_text(
        f"name: t\nseed: 1\nplayers: 2\nrounds: {rounds}\ncwd: {REPO}\nconcurrency: 2\noutput: {output}\n"
        f"time_control: {{move: 2s, startup: 10s}}\nend_grace: 200ms\nbots:\n{bots}"
    )
    return path


def reading_commands(folder: Path) -> list[list[str]]:
    return [
        ["standings", str(folder)],
        ["standings", str(folder), "--format", "json"],
        ["games", str(folder)],
        ["replay", str(folder), "r1-g000", "--no-colour"],
    ]


def read_all(folder: Path) -> list[str]:
    """The output of every reading command on ``folder`` (each must succeed)."""
    outputs = []
    for args in reading_commands(folder):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.output)
    return outputs
