"""Every command that names a bot takes its folder alone; a folder that holds no bot, or whose
toolchain is not installed, stops the command with one line (exit 2) before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

LOOKED = "no bot here: looked for bot.toml, MyBot.py, MyBot.ts, MyBot.js, MyBot.c, MyBot.cpp, MyBot.java, MyBot.go, Cargo.toml, MyBot.cs"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check", "{folder}", "--no-sandbox"], id="check"),
        pytest.param(["play", "{folder}", "arena:random", "--no-sandbox"], id="play"),
        pytest.param(["submit", "http://127.0.0.1:9", "{folder}"], id="submit"),
    ],
)
def test_a_folder_that_holds_no_bot_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.setenv("ARENA_TOKEN", "t")
    folder = tmp_path / "empty"
    folder.mkdir()
    done = CliRunner().invoke(main, [a.format(folder=folder) for a in args])
    assert done.exit_code == 2
    assert done.output.strip().splitlines()[-1] == f"Error: {folder}: {LOOKED}"


@pytest.mark.parametrize("command", ["check", "play"], ids=["check", "play"])
def test_a_bot_folder_whose_toolchain_is_missing_is_one_line_naming_its_debian_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    folder = tmp_path / "go-bot"
    folder.mkdir()
    (folder / "MyBot.go").write_text("package main\n")
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    args = [command, str(folder), *(["arena:random"] if command == "play" else [])]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2
    assert done.output.strip().splitlines()[-1] == (
        f"Error: {folder}: its build needs 'go' (Debian package golang-go), which is not installed here (not on PATH)"
    )


def test_check_of_a_folder_refuses_another_cwd(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "MyBot.py").write_text("")
    done = CliRunner().invoke(main, ["check", str(folder), "--cwd", str(tmp_path), "--no-sandbox"])
    assert done.exit_code == 2 and "is a bot folder, which is where it runs" in done.output
