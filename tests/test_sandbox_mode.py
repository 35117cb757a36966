"""SandboxMode: a closed set whose values stay the strings files and records spell; and
what running without a sandbox (``sandbox: none``) keeps of each bot's private folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.game.record import GameRecord
from arena.game.sandbox.bwrap import MODES, Isolation, SandboxMode, SandboxPolicy
from arena.league.config import load_config
from arena.tournament import run_tournament

REPO = Path(__file__).resolve().parent.parent


def test_a_mode_given_as_a_string_becomes_its_member_and_still_equals_the_string() -> None:
    policy = SandboxPolicy(mode="bwrap")
    assert policy.mode is SandboxMode.BWRAP and policy.mode == "bwrap"
    assert SandboxPolicy() == SandboxPolicy(mode="auto") and SandboxPolicy().mode is SandboxMode.AUTO
    assert MODES == ("auto", "bwrap", "none")


def test_an_unknown_mode_is_refused_with_the_value_quoted() -> None:
    with pytest.raises(ConfigError, match=r"sandbox must be one of auto, bwrap, none, got 'jail'"):
        SandboxPolicy(mode="jail")


def test_a_seat_records_the_mode_as_a_plain_string() -> None:
    d = Isolation(SandboxMode.NONE, "rlimits", True).to_dict()
    assert type(d["sandbox"]) is str and json.dumps(d) == '{"sandbox": "none", "limits": "rlimits", "network": true}'


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
