"""Every kit, as ``arena new`` writes it, builds with its Debian toolchain and passes
``arena check`` given its folder alone; all the kits play a league named by their folders.

The toolchains are the Debian packages the README's test command installs (golang-go,
mono-mcs, node-typescript, rustc, cargo, g++, default-jdk-headless): a kit that does not
build here is a failure, never a skip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.kitfiles import KITS as LANGUAGES

ARENA = [sys.executable, "-m", "arena"]
# A kit's bot answers in milliseconds; the JVM and Mono start within a second.
CHECK_TIMEOUT_S = 600


def arena(args: list[str], cwd: Path, timeout: float = CHECK_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_a_new_bot_passes_arena_check_given_its_folder_alone(tmp_path: Path, language: str) -> None:
    new = arena(["new", language, "my-bot"], tmp_path, timeout=60)
    assert new.returncode == 0, new.stdout + new.stderr
    # The fewest conformance games the check allows: each seat of 2-4 player games once.
    check = arena(["check", "my-bot", "--conformance-games", "23", "-j", "2", "--json", "report.json"], tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.startswith("my-bot: bot.toml: "), check.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] is True and not [c for c in report["checks"] if c["status"] == "fail"], report


@pytest.mark.slow
def test_every_kit_plays_a_league_named_by_its_folder_alone(tmp_path: Path) -> None:
    for language in LANGUAGES:
        assert arena(["new", language, language], tmp_path, timeout=60).returncode == 0
    league = tmp_path / "kits.yaml"
    league.write_text(
        "name: kits\nplayers: 2\nformat: gauntlet\nchallengers: [c]\nrounds: 1\nseat_orders: rotate\n"
        "time_control: {move: 1s}\nbots:\n"
        + "".join(f"  - path: {language}\n" for language in LANGUAGES)
    )
    run = arena(["run", str(league), "-j", "2"], tmp_path, timeout=1200)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "faults: none" in run.stdout, run.stdout
    # The C kit against each other kit, each in each seat once: 16 games.
    assert "16/16 games" in run.stdout, run.stdout
    rows = json.loads((tmp_path / "results" / "kits" / "standings.json").read_text())["rows"]
    assert {r["bot"] for r in rows} == set(LANGUAGES), rows
    assert all(r["games"] == (16 if r["bot"] == "c" else 2) for r in rows), rows
    # `arena play` builds each folder in place first, saying how, then plays them.
    play = arena(["play", "c", "python", "--seed", "1", "-q", "--save", "game.json"], tmp_path)
    assert play.returncode == 0, play.stdout + play.stderr
    assert "c: bot.toml: build 'make -s', run './MyBot'" in play.stdout, play.stdout
    seats = json.loads((tmp_path / "game.json").read_text())["seats"]
    assert [s["name"] for s in seats] == ["my-c-bot", "my-python-bot"] and not any(s.get("fault") for s in seats)


@pytest.mark.parametrize("language", ["c", "typescript"])
def test_a_kit_without_its_bot_toml_is_built_and_run_by_its_main_file(tmp_path: Path, language: str) -> None:
    assert arena(["new", language, "my-bot"], tmp_path, timeout=60).returncode == 0
    (tmp_path / "my-bot" / "bot.toml").unlink()
    check = arena(["check", "my-bot", "--conformance-games", "23", "-j", "2"], tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    rule = {"c": "MyBot.c (C)", "typescript": "MyBot.ts (TypeScript)"}[language]
    assert check.stdout.startswith(f"my-bot: {rule}: build "), check.stdout
