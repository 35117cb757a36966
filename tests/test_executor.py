"""The worker pool: failures of the arena itself are retried, never charged to a bot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.clock import TimeControl
from arena.executor import GamePool
from arena.record import GameRecord
from arena.referee import BotSpec
from arena.rules import Params
from arena.schedule import ScheduledGame, make_schedule

from .flaky_settings import FlakySettings

REPO = Path(__file__).resolve().parent.parent


def settings(tmp_path: Path, mode: str) -> FlakySettings:
    bot = (sys.executable, "sample_bots/random_bot.py")
    return FlakySettings(
        bots={"a": BotSpec("a", bot, cwd=REPO), "b": BotSpec("b", bot, cwd=REPO)},
        params=Params(),
        time_control=TimeControl(move_ms=2000, startup_ms=10_000),
        board="random",
        end_grace_s=0.5,
        flag_dir=str(tmp_path),
        mode=mode,
    )


@pytest.mark.parametrize(("mode", "needle"), [("raise", "injected arena failure"), ("die", "worker died")])
def test_failed_games_are_run_again(tmp_path: Path, mode: str, needle: str) -> None:
    games = make_schedule(["a", "b"], 2, 1, seed=1)
    results: list[tuple[ScheduledGame, GameRecord]] = []
    failures: list[tuple[str, str, bool]] = []
    failed = GamePool(settings(tmp_path, mode), 2).run(
        games,
        lambda g, r: results.append((g, r)),
        lambda g, why, retry: failures.append((g.game_id, why, retry)),
        2,
    )
    assert failed == []
    assert sorted(g.game_id for g, _ in results) == ["r1-g001", "r1-g002"]
    assert all(s.fault is None for _, r in results for s in r.seats)  # never charged to a bot
    assert sorted(f[0] for f in failures) == ["r1-g001", "r1-g002"]
    assert all(retry and needle in why for _, why, retry in failures)


def test_a_game_that_keeps_failing_is_reported_not_dropped(tmp_path: Path) -> None:
    games = make_schedule(["a", "b"], 2, 1, seed=1)[:1]
    results: list[tuple[ScheduledGame, GameRecord]] = []
    failed = GamePool(settings(tmp_path, "raise"), 1).run(
        games, lambda g, r: results.append((g, r)), lambda g, why, retry: None, 0
    )
    assert results == [] and [g.game_id for g, _ in failed] == ["r1-g001"]
    assert "injected arena failure" in failed[0][1]
