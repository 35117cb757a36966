"""The tournament file's ``logs`` (top level, or per bot): how much of a bot's stderr each game
record keeps per turn and per game, and its info lines per turn, handed to the referee; a bad
value is refused naming the file, line and key; a change between runs is allowed (it changes
what a record keeps, not how a game is played)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.game.turnlog import INFO_TURN_KEEP, MAX_GAME_BYTES, STDERR_GAME_KEEP, STDERR_TURN_KEEP, LogBounds
from arena.league.changes import compare_files
from arena.league.config import load_config
from arena.tournament import game_settings
from tests.support.config_helpers import GOOD, error_of, write


def test_logs_default_to_the_safe_bounds_and_are_set_at_the_top_and_per_bot(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD))
    assert [b.logs for b in cfg.bots] == [LogBounds(STDERR_TURN_KEEP, STDERR_GAME_KEEP, INFO_TURN_KEEP)] * 2
    text = GOOD.replace("rounds: 2", "rounds: 2\nlogs: {per_turn_bytes: 100, per_game_bytes: 1000}").replace(
        "  - name: two\n", "  - name: two\n    logs: {per_game_bytes: 50, per_turn_infos: 0}\n"
    )
    cfg = load_config(write(tmp_path, text))
    one, two = cfg.bots
    assert one.logs == LogBounds(turn_bytes=100, game_bytes=1000, turn_infos=INFO_TURN_KEEP)
    # A bot's own keys over the file's; its turn bound kept within its game's.
    assert two.logs == LogBounds(turn_bytes=50, game_bytes=50, turn_infos=0)
    cfg.output.mkdir(parents=True)  # (where the run's seed secret is kept)
    specs = game_settings(cfg).bots  # what the referee is handed, locally and on Dask
    assert specs["one"].logs == one.logs and specs["two"].logs == two.logs


@pytest.mark.parametrize(
    ("logs", "needles"),
    [
        ("{per_turn_bytes: -1}", ["t.yaml:5", "'logs.per_turn_bytes' must be from 0 to the game's bound"]),
        ("{per_turn_bytes: 5000, per_game_bytes: 4000}", ["t.yaml:5", "'logs.per_turn_bytes'", "(4000)"]),
        (f"{{per_game_bytes: {MAX_GAME_BYTES + 1}}}", ["t.yaml:5", "'logs.per_game_bytes' must be from 0 to 1048576"]),
        ("{per_turn_infos: 201}", ["t.yaml:5", "'logs.per_turn_infos' must be from 0 to 200"]),
        ("{per_turn_bytes: lots}", ["t.yaml:5", "'logs.per_turn_bytes' must be a whole number", "'lots'"]),
        ("{per_turn_bytes: true}", ["t.yaml:5", "'logs.per_turn_bytes' must be a whole number", "True"]),
        ("{per_turn_bytes: 1.5}", ["t.yaml:5", "'logs.per_turn_bytes' must be a whole number"]),
        ("{turn_bytes: 10}", ["t.yaml:5", "unknown key 'logs.turn_bytes'", "did you mean 'per_turn_bytes'"]),
        ("5", ["t.yaml:5", "expected a mapping"]),
    ],
)
def test_a_bad_logs_value_is_refused_naming_the_key(tmp_path: Path, logs: str, needles: list[str]) -> None:
    message = error_of(tmp_path, GOOD.replace("rounds: 2", f"rounds: 2\nlogs: {logs}"))
    for needle in needles:
        assert needle in message, message


def test_a_bad_logs_value_of_a_bot_names_the_bot(tmp_path: Path) -> None:
    text = GOOD.replace("  - name: two\n", "  - name: two\n    logs: {per_game_bytes: -3}\n")
    message = error_of(tmp_path, text)
    assert "t.yaml:11" in message and "'bots[1].logs.per_game_bytes' must be from 0" in message


def test_changing_logs_between_runs_is_allowed() -> None:
    old = {"name": "t", "bots": [{"name": "one", "command": "x"}]}
    new = {"name": "t", "logs": {"per_turn_bytes": 10}, "bots": [{"name": "one", "command": "x", "logs": {"per_game_bytes": 10}}]}
    changes = compare_files(old, new)
    assert changes.refused == [] and changes.allowed
