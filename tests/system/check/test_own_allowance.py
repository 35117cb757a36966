"""A bot the arena brings keeps its own startup allowance, whatever the bot under test gets.

``arena check --startup 1s`` once held the check's own opponents to that second too: one
whose imports took 1.4 s on a loaded machine was forfeited and killed by its own check.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import builtin_bots
from arena.check.plan import CANDIDATE, CheckOptions, conformance_plan, strength_plan
from arena.cli import main
from arena.game.clock import TimeControl
from arena.game.record import FaultKind
from arena.game.referee import BotSpec, GameSetup, Referee
from arena.rules import random_board
from tests.support.fakebot import ScriptedChannel, engine_bot
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]
C_BOT = REPO / "sample_bots" / "c" / "greedy"
SHORT = TimeControl(startup_ms=200)


def slow_starter(seconds: float) -> ScriptedChannel:
    """A bot whose hello arrives ``seconds`` after it is greeted; then it plays at random."""
    player = engine_bot("slow")
    first = [True]

    def answer(line: str) -> str | tuple[str, float]:
        reply = player.answer(line)
        assert isinstance(reply, str)
        if first[0]:
            first[0] = False
            return reply, seconds
        return reply

    return ScriptedChannel(answer)


def test_a_seat_with_its_own_allowance_is_not_held_to_the_games() -> None:
    specs = [BotSpec("opponent", ("fake",), startup_ms=5000), BotSpec("candidate", ("fake",))]
    setup = GameSetup(board=random_board(5, 8), time_control=SHORT, seed_secret=FIXED_SECRET)
    record = Referee(setup, specs, [slow_starter(0.5), engine_bot()]).run()
    assert [s.fault for s in record.seats] == [None, None], record.seats


def test_a_seat_without_one_is_held_to_the_games_and_told_which() -> None:
    specs = [BotSpec("candidate", ("fake",)), BotSpec("opponent", ("fake",), startup_ms=5000)]
    setup = GameSetup(board=random_board(5, 8), time_control=SHORT, seed_secret=FIXED_SECRET)
    record = Referee(setup, specs, [slow_starter(0.5), engine_bot()]).run()
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is FaultKind.STARTUP_FAILURE
    assert "(200 ms + margin 50 ms)" in fault.detail
    assert record.seats[1].fault is None


def test_the_checks_opponents_keep_the_default_allowance_under_a_short_startup() -> None:
    opts = CheckOptions(command=("bot",), cwd=Path("."), time_control=TimeControl(startup_ms=1000))
    plan = conformance_plan(opts) + strength_plan(opts, builtin_bots.command_of("random"), "random", 0, 2)
    for game in plan:
        for spec in game.specs:
            if spec.name == CANDIDATE:
                assert spec.startup_ms is None  # the time control's: --startup is the candidate's
            else:
                assert spec.startup_ms == TimeControl().startup_ms, (game.describe(), spec)


def test_a_longer_startup_is_given_to_the_opponents_too() -> None:
    opts = CheckOptions(command=("bot",), cwd=Path("."), time_control=TimeControl(startup_ms=20_000))
    assert {s.startup_ms for g in conformance_plan(opts) for s in g.specs if s.name != CANDIDATE} == {20_000}


def test_the_builtin_bots_allowance_is_the_default_time_controls() -> None:
    assert TimeControl().startup_ms == builtin_bots.STARTUP_MS


def test_a_check_with_a_short_startup_plays_an_opponent_that_starts_slower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: ``--startup 1s`` for a candidate that starts at once (a C program), and
    an opponent that takes 1.5 s to start; it is the candidate's allowance, not the
    opponent's (before, the check stopped: "opponent ... could not be started")."""
    if not C_BOT.exists():
        subprocess.run(["make", "-s", "-C", str(C_BOT.parent)], check=True)
    monkeypatch.chdir(REPO)  # where the opponents start
    slow = f"sh -c 'sleep 1.5; exec {sys.executable} sample_bots/random_bot.py'"
    args = ["check", f"{C_BOT} --random", "--skip-conformance", "--against", slow, "--games", "2"]
    args += ["--min-points", "0", "--startup", "1s", "--no-sandbox", "-j", "2"]
    result = CliRunner().invoke(main, args)
    # Both games played (whatever their verdict: two games may split 1-1, which says nothing).
    assert result.exit_code in (0, 1), result.output
    assert "could not be started" not in result.output
    assert "over 2 games" in result.output, result.output
