"""SandboxMode: a closed set whose values stay the strings files and records spell; and
what running without a sandbox (``sandbox: none``) keeps of each bot's private folder.

The cases that start processes; the others are in tests/unit/game/test_sandbox_mode.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.game.record import GameRecord
from arena.league.config import load_config
from arena.tournament import run_tournament

REPO = Path(__file__).resolve().parents[3]


def test_without_a_sandbox_bots_that_build_in_one_folder_play_from_their_own_builds(tmp_path: Path) -> None:
    # Each build writes a private copy of the folder; with no sandbox to show the copy at
    # the folder's path, each bot must run in its copy (the shared folder has no program).
    src = tmp_path / "src"
    src.mkdir()
    for name in ("greedy.c", "Makefile"):
        shutil.copy(REPO / "sample_bots" / "c" / name, src / name)
    path = tmp_path / "league.yaml"
    path.write_text(
        f"name: nb\nseed: 1\nplayers: 2\nrounds: 1\nsandbox: none\ncwd: {src}\noutput: {tmp_path / 'out'}\n"
        "time_control: {move: 5s, startup: 20s}\nretries: 0\nbots:\n"
        "  - {name: a, command: ./greedy --random, build: make}\n"
        "  - {name: b, command: ./greedy, build: make}\n"
    )
    played: list[GameRecord] = []
    state = run_tournament(load_config(path), echo=lambda line: None, on_progress=lambda s, g, r: played.append(r))
    assert state.failures == [], state.failures
    assert len(played) == 2
    assert [s.fault for r in played for s in r.seats] == [None] * 4
    assert sorted(p.name for p in src.iterdir()) == ["Makefile", "greedy.c"]  # built in the copies only
