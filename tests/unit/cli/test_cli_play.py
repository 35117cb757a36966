"""``arena play`` and ``arena replay`` with real bot processes.

The cases that need no process; the others are in tests/system/cli/test_cli_play.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cli.play_cmds import bot_name
from arena.game.limits import ResourceLimits

REPO = Path(__file__).resolve().parents[3]
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"


def test_replay_rejects_a_broken_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "game_id": "x"}))
    result = CliRunner().invoke(main, ["replay", str(bad)])
    assert (
        result.exit_code == 2 and "bad.json" in result.output and "not a valid game record" in result.output
    )


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (("python3", "sample_bots/mcts_bot.py"), "mcts_bot"),
        (("node", "--stack-size=99", "sample_bots/greedy.js"), "greedy"),
        (("sample_bots/c/greedy", "--random"), "greedy"),
        (("./my-bot",), "my-bot"),
        (("python3", "bots/my bot ö.py"), "my_bot__"),
    ],
)
def test_bot_names_come_from_the_script_or_program(argv: tuple[str, ...], name: str) -> None:
    assert bot_name(argv) == name


def test_limits_above_the_arenas_own_are_capped_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    # The arena runs under a 1.8 GB hard data limit, below the bots' default
    # 2 GB.  An ordinary user may not raise a hard limit (setrlimit fails), so the
    # bots must get the arena's limit rather than fail to start.
    import resource

    cap = 1800 * 2**20
    hard = {resource.RLIMIT_DATA: cap}

    def getrlimit(kind: int) -> tuple[int, int]:
        return (hard.get(kind, resource.RLIM_INFINITY),) * 2

    monkeypatch.setattr(resource, "getrlimit", getrlimit)
    wanted = ResourceLimits().rlimits(whole_bot=False, per_user_tasks=False)
    assert wanted["data"] == cap  # capped at the arena's own, not the 2 GB asked for
    assert wanted["cpu"] == 600 and wanted["core"] == 0
    assert "nproc" not in wanted  # a per-user limit would count the arena's own processes
    command = ResourceLimits().prlimit_command(whole_bot=False, per_user_tasks=False)
    assert f"--data={cap}:{cap}" in command and command[-1] == "--"


def test_options_as_hands_the_command_one_value_made_from_its_options() -> None:
    from dataclasses import dataclass

    import click

    from arena.cli.common import options_as

    @dataclass(frozen=True)
    class Pair:
        left: int
        right: str

    @click.command()
    @click.option("--left", type=int, default=1)
    @click.option("--right", default="r")
    @click.option("--other", default="o")
    @options_as("pair", Pair)
    def cmd(pair: Pair, other: str) -> None:
        click.echo(f"{type(pair).__name__} {pair.left!r} {pair.right!r} {other}")

    result = CliRunner().invoke(cmd, ["--left", "7", "--other", "x"])
    assert result.exit_code == 0, result.output
    assert result.output == "Pair 7 'r' x\n"


def test_exit_codes_keep_the_numbers_the_commands_document() -> None:
    from arena.cli.common import ArenaFailure, ExitCode

    # 3: an SPRT that ran out of games (inconclusive), documented in arena check --help.
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 130]
    assert ArenaFailure("x").exit_code == ExitCode.ARENA_ERROR == 2


def test_a_check_status_given_as_its_word_is_the_member_and_prints_the_same() -> None:
    from arena.check import CheckReport, CheckResult, CheckStatus

    report = CheckReport(("bot",), 1, [CheckResult("time", "skip", "x"), CheckResult("exits", "fail", "y")])
    assert report.checks[0].status is CheckStatus.SKIP and report.checks[0].status.word == "SKIP"
    assert not report.passed and report.count(CheckStatus.FAIL) == 1
    assert json.loads(json.dumps(report.to_dict()))["checks"][1]["status"] == "fail"


@pytest.mark.parametrize("bad", ["xyz", "0123", "g" * 32])
def test_a_bad_seed_secret_is_a_usage_error_naming_the_option(bad: str) -> None:
    result = CliRunner().invoke(main, ["play", "arena:random", "arena:random", "--seed-secret", bad])
    assert result.exit_code == 2
    assert "--seed-secret" in result.output and "32 hex digits" in result.output
