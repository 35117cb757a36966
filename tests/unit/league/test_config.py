"""Tournament files: every kind of mistake gets the file, line and key.

The cases that need no process; the others are in tests/system/league/test_config.py.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import load_config, system_folder_of
from arena.league.config.reader import KEY_HINT_CUTOFF, did_you_mean
from arena.tournament import check_programs
from tests.support.config_helpers import GOOD, error_of, write

REPO = Path(__file__).resolve().parents[3]


def test_good_file_loads_with_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.name == "t" and cfg.players == 2 and cfg.rounds == 2 and cfg.seed == 3
    assert cfg.time_control.move_ms == 300 and cfg.time_control.startup_ms == 2000
    assert cfg.output == (tmp_path / "results" / "t").resolve()  # relative to the YAML file
    assert [b.name for b in cfg.bots] == ["one", "two"]
    assert cfg.bots[0].command == cfg.bots[1].command and cfg.bots[0].cwd == REPO
    assert cfg.params.sheep == 16 and cfg.format == "round_robin" and cfg.seat_orders == "all"
    check_programs(cfg)


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (("rounds: 2", "roundz: 2"), ["t.yaml:4", "unknown key 'roundz'", "did you mean 'rounds'"]),
        (("players: 2", "players: two"), ["t.yaml:3", "'players' must be a whole number", "'two'"]),
        (("players: 2", "players: 5"), ["t.yaml:3", "'players' must be 2, 3 or 4"]),
        (("move: 300ms", "move: soon"), ["t.yaml:6", "time_control.move", "'soon'"]),
        (("{move: 300ms, startup: 2s}", "{startup: 2s}"), ["t.yaml:6", "needs 'move'"]),
        (("  - name: two\n", "  - name: one\n"), ["t.yaml:10", "'one' is used twice", "line 8"]),
        (("seed: 3", "seed: -1"), ["t.yaml:2", "'seed'"]),
        (("name: t", "name: bad name"), ["t.yaml:1", "'name'"]),
        (("rounds: 2", "rounds: 2\nrules: {contact: 3}"), ["t.yaml:5", "contact must be 1 or 2"]),
        (("rounds: 2", "rounds: 2\nformat: gauntlet"), ["'challengers' is required"]),
        (("rounds: 2", "rounds: 2\nformat: gauntlet\nchallengers: [nobody]"), ["t.yaml:6", "'nobody'"]),
        (
            ("rounds: 2", "rounds: 2\nboard: missing.board"),
            ["t.yaml:5", "cannot read board file", "missing.board"],
        ),
        (("rounds: 2", "rounds: 2\nlimits: {memory_mb: -5}"), ["t.yaml:5", "limits.memory_mb", "positive"]),
        (("rounds: 2", "rounds: 2\nbots: []"), ["given twice"]),
        (
            ("{move: 300ms, startup: 2s}", "{move: 300ms, increment: 1s}"),
            ["t.yaml:6", "increment needs a clock"],
        ),
        (("move: 300ms", "move: 90000s"), ["t.yaml:6", "longer than a day"]),
        (("move: 300ms", "move: 500"), ["t.yaml:6", "time_control.move", "no unit", "500ms", "500s"]),
    ],
    ids=[
        "unknown-key",
        "wrong-type",
        "out-of-range",
        "bad-duration",
        "no-time-limit",
        "duplicate-bot",
        "negative-seed",
        "bad-name",
        "bad-rule",
        "gauntlet-without-challengers",
        "unknown-challenger",
        "missing-board-file",
        "bad-limit",
        "duplicate-key",
        "increment-without-clock",
        "too-long",
        "bare-number",
    ],
)
def test_each_mistake_names_file_line_and_key(
    tmp_path: Path, change: tuple[str, str], needles: list[str]
) -> None:
    old, new = change
    assert old in GOOD
    message = error_of(tmp_path, GOOD.replace(old, new, 1))
    for needle in needles:
        assert needle in message, message


def test_bot_without_command(tmp_path: Path) -> None:
    text = GOOD.replace(f"    command: [{sys.executable}, sample_bots/random_bot.py]\n", "    env: {A: b}\n")
    message = error_of(tmp_path, text)
    assert "t.yaml:10" in message and "'bots[1].command' is required" in message


def test_bot_given_by_a_cwd_without_command_is_a_bot_folder(tmp_path: Path) -> None:
    text = GOOD.replace(f"    command: [{sys.executable}, sample_bots/random_bot.py]\n", "    cwd: .\n")
    message = error_of(tmp_path, text)
    assert message == (
        f"{tmp_path / 't.yaml'}:11: 'bots[1].cwd': {tmp_path}: no bot here: looked for bot.toml, MyBot.py, "
        "MyBot.ts, MyBot.js, MyBot.c, MyBot.cpp, MyBot.java, MyBot.go, Cargo.toml, MyBot.cs (or give 'command')"
    )
    (tmp_path / "MyBot.py").write_text("")
    bot = load_config(write(tmp_path, text)).bots[1]
    assert (bot.name, bot.command, bot.cwd, bot.build) == ("two", ("python3", "MyBot.py"), tmp_path, None)


def test_bot_given_by_its_path_alone_is_built_and_named_as_its_folder_says(tmp_path: Path) -> None:
    kit = tmp_path / "c-bot"
    kit.mkdir()
    (kit / "bot.toml").write_text('command = "./MyBot"\nbuild = "make -s"\n')
    text = GOOD.replace(f"  - name: two\n    command: [{sys.executable}, sample_bots/random_bot.py]\n", "  - path: c-bot\n")
    bot = load_config(write(tmp_path, text)).bots[1]
    assert (bot.name, bot.command, bot.build, bot.cwd) == ("c-bot", ("./MyBot",), ("make", "-s"), kit)
    named = load_config(write(tmp_path, text.replace("  - path: c-bot\n", "  - path: c-bot\n    name: mine\n"))).bots[1]
    assert named.name == "mine"


@pytest.mark.parametrize(
    ("entry", "needles"),
    [
        ("  - path: c-bot\n    command: ./x\n", ["t.yaml:11", "'bots[1].command' and 'path' exclude each other"]),
        ("  - path: c-bot\n    cwd: c-bot\n", ["t.yaml:11", "'bots[1].cwd' and 'path' exclude each other"]),
        ("  - path: nowhere\n", ["t.yaml:10", "'bots[1].path': ", "nowhere: not a folder"]),
        ("  - path: c-bot\n", ["t.yaml:10", "'bots[1].path': ", "c-bot/bot.toml: unknown key 'comand'"]),
        ("  - path: 'bad name'\n", ["t.yaml:10", "'bots[1].name' must be 1-64 of", "the folder's name 'bad name'"]),
    ],
    ids=["with-command", "with-cwd", "missing", "bad-bot-toml", "bad-folder-name"],
)
def test_a_wrong_bot_folder_is_one_error_naming_the_line_and_key(tmp_path: Path, entry: str, needles: list[str]) -> None:
    (tmp_path / "c-bot").mkdir()
    (tmp_path / "c-bot" / "bot.toml").write_text('comand = "./MyBot"\n')
    (tmp_path / "bad name").mkdir()
    (tmp_path / "bad name" / "MyBot.py").write_text("")
    text = GOOD.replace(f"  - name: two\n    command: [{sys.executable}, sample_bots/random_bot.py]\n", entry)
    message = error_of(tmp_path, text)
    for needle in needles:
        assert needle in message, message


def test_too_few_bots(tmp_path: Path) -> None:
    message = error_of(tmp_path, GOOD.replace("players: 2", "players: 3"))
    assert "3-player games need at least 3 bots" in message and "t.yaml:8" in message


def test_command_that_does_not_exist(tmp_path: Path) -> None:
    message = error_of(
        tmp_path, GOOD.replace(f"command: {sys.executable} sample", "command: no-such-program-xyz sample")
    )
    assert "t.yaml:8" in message and "bot 'one'" in message and "'no-such-program-xyz' not found" in message


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    message = error_of(tmp_path, GOOD.replace("rounds: 2", "rounds: [2"))
    assert "t.yaml:" in message and "not valid YAML" in message


def test_unreadable_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read tournament file"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="empty"):
        load_config(write(tmp_path, ""))
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_config(write(tmp_path, "- just\n- a list\n"))


@pytest.mark.parametrize(
    ("word", "choices", "cutoff", "hint"),
    [
        ("roundz", {"rounds", "players"}, KEY_HINT_CUTOFF, " (did you mean 'rounds'?)"),
        ("mi", {"mu", "sigma", "model"}, KEY_HINT_CUTOFF, " (did you mean 'mu'?)"),
        ("dea", ["dee", "ann"], 0.6, " (did you mean 'dee'?)"),
        ("xyz", ["dee", "ann"], 0.6, ""),
        ("ab", ["ax", "bx", "xb"], KEY_HINT_CUTOFF, " (did you mean 'xb'?)"),  # a tie: the same every run
    ],
    ids=["key", "short-key", "bot", "nothing-close", "tie"],
)
def test_did_you_mean(word: str, choices: Iterable[str], cutoff: float, hint: str) -> None:
    assert did_you_mean(word, choices, cutoff) == hint
    assert did_you_mean(word, sorted(choices, reverse=True), cutoff) == hint


@pytest.mark.parametrize(
    ("path", "tree"),
    [
        ("/proc/1/results", "/proc"),
        ("/sys", "/sys"),
        ("/dev/null", "/dev"),
        ("/dev/shm/results", None),
        ("/dev/shm", None),
        ("/devices/results", None),
        ("/tmp/results", None),
    ],
)
def test_system_folder_of(path: str, tree: str | None) -> None:
    """The one rule of where results may not go, for the file's 'output' and the results folder."""
    assert system_folder_of(Path(path)) == (None if tree is None else Path(tree))
