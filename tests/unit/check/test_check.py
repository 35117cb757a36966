"""``arena check``: sample bots pass, each broken bot fails the right check, reports are valid.

The cases that need no process; the others are in tests/system/check/test_check.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.check import CONFIGS, CheckOptions, conformance_plan
from arena.cli import main

REPO = Path(__file__).resolve().parents[3]
PY = sys.executable
BROKEN = REPO / "tests" / "bots" / "broken"


def check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args, "--cwd", str(REPO), "-j", "2"])
    return result.exit_code, result.output


@pytest.mark.parametrize("count", [23, 24, 40])
def test_the_plan_has_exactly_the_conformance_games_asked(count: int) -> None:
    plan = conformance_plan(CheckOptions(command=("x",), cwd=REPO, conformance_games=count))
    assert len(plan) == count
    assert {(g.players, g.seat, g.build) for g in plan if g.purpose == "conformance"} == set(CONFIGS)


def test_too_few_conformance_games_is_refused_before_any_game() -> None:
    code, out = check(f"{PY} {BROKEN / 'exits_at_once.py'}", "--conformance-games", "22")
    assert code == 2 and "22 is not in the range 23<=x<=10000" in out, out


def test_board_pairs_all_split_one_one_are_said_to_say_nothing_about_strength() -> None:
    # What deterministic self-play gives (a bot that ignores its seed: each seat has a seed of
    # its own, so a seeded bot's self-play is not mirrored any more).
    from arena.check.strength import _mirror_warning

    assert "say nothing about strength" in _mirror_warning([0, 0, 4, 0, 0])
    assert _mirror_warning([0, 1, 3, 0, 0]) == "" and _mirror_warning([0, 0, 0, 0, 0]) == ""


def test_a_replay_command_names_no_folder_for_a_built_in_opponent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command printed on a CI runner or by a ladder must run in the author's own folder."""
    from arena import builtin_bots
    from arena.check.plan import _cwd_words
    from arena.game.bothost import BotSpec

    monkeypatch.chdir(tmp_path)
    builtin = BotSpec("random", builtin_bots.command_of("random"), cwd=Path("/elsewhere"))
    here = BotSpec("mine", ("python3", "bot.py"), cwd=tmp_path)
    away = BotSpec("mine", ("python3", "bot.py"), cwd=tmp_path / "bot")
    assert _cwd_words([builtin, here]) == [] and _cwd_words([here, builtin]) == []
    assert _cwd_words([builtin, away]) == ["--cwd", ".", "--cwd", str(tmp_path / "bot")]
