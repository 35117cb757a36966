"""A real bot's stderr, kept turn by turn: each line with the turn it was written at, a flood
cut at the turn's bound and counted, the bot's exact text kept (the outputs escape it), and
nothing of one game in the next game of a kept (``multigame``) process.

The cases that need no process are in tests/unit/game/test_turn_logs.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.game.clock import TimeControl
from arena.game.record import GameRecord, StderrTurn
from arena.game.referee import BotHost, BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.turnlog import STDERR_TURN_KEEP, LogBounds
from arena.rules import random_board
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]
LOGGER = str(REPO / "tests" / "bots" / "logs_each_turn.py")
RANDOM = str(REPO / "sample_bots" / "random_bot.py")
HOSTILE = "<b>bold</b><script>window.pwned=1</script> \x1b[2J\x1b]0;title\x07 \u202eevil"
FLOOD_BYTES = 100 * 1024


def setup(i: int) -> GameSetup:
    return GameSetup(
        game_id=f"g{i}",
        seed=40 + i,
        board=random_board(40 + i, 8),
        time_control=TimeControl(move_ms=5000),
        seed_secret=FIXED_SECRET,
    )


@pytest.fixture(scope="module")
def games() -> list[GameRecord]:
    """Two games on one host (the logger's process kept between them), the logger flooding
    its stderr at its second turn of each."""
    sandbox = SandboxPolicy(mode="none")
    specs = [
        BotSpec("logger", (sys.executable, LOGGER, "flood"), cwd=REPO, sandbox=sandbox),
        BotSpec("random", (sys.executable, RANDOM), cwd=REPO, sandbox=sandbox),
    ]
    with BotHost(keep=True) as host:
        records = [play_game(setup(i), specs, host=host) for i in (1, 2)]
        assert host.started == 2, "the bots' processes were not kept for the second game"
    return records


def its_plies(record: GameRecord, seat: int) -> list[int]:
    """The plies of the turn requests the seat answered (ply k asks for move k + 1)."""
    return [k for k, m in enumerate(record.moves) if m.player == seat]


@pytest.mark.parametrize("game", [0, 1])
def test_each_turns_lines_are_kept_with_the_ply_of_its_request(games: list[GameRecord], game: int) -> None:
    record = games[game]
    seat = record.seats[0]
    assert seat.fault is None
    plies = its_plies(record, 0)
    turns = {t.ply: t for t in seat.stderr_turns}
    assert sorted(turns) == ([-1] if game == 0 else []) + plies  # "started" only in its process's first game
    if game == 0:
        assert turns[-1] == StderrTurn(-1, ("started",))
    for n, ply in enumerate(plies):
        lines = turns[ply].lines
        expected = [f"thinking at ply {ply}", f"in two pieces at {ply}"]
        if n == 0:
            expected.insert(0, HOSTILE)  # its exact text: every output escapes it
        assert list(lines[: len(expected)]) == expected, (ply, lines[:4])
        if n != 1:
            assert len(lines) == len(expected) and turns[ply].dropped == 0


def test_a_flood_keeps_the_turns_bound_and_counts_the_rest(games: list[GameRecord]) -> None:
    for record in games:
        seat = record.seats[0]
        flooded = next(t for t in seat.stderr_turns if t.ply == its_plies(record, 0)[1])
        kept = sum(len(line.encode()) + 1 for line in flooded.lines)
        assert kept - 1 <= STDERR_TURN_KEEP  # (the last kept line was cut: no newline of its own)
        written = len(f"thinking at ply {flooded.ply}\nin two pieces at {flooded.ply}\n") + FLOOD_BYTES
        assert kept - 1 + flooded.dropped == written
        assert seat.stderr_bytes >= written


def test_the_other_seat_and_the_info_lines_keep_their_own(games: list[GameRecord]) -> None:
    for record in games:
        assert record.seats[1].stderr_turns == ()  # the random bot writes nothing on stderr
        logger = record.seats[0]
        assert list(logger.info_plies) == its_plies(record, 0)
        assert list(logger.infos) == [f"info at {ply}" for ply in its_plies(record, 0)]
        assert GameRecord.from_json(record.to_json()) == record


def test_a_bot_whose_bounds_keep_nothing_has_its_turns_counted_not_kept() -> None:
    none = SandboxPolicy(mode="none")
    silent = LogBounds(turn_bytes=0, game_bytes=0, turn_infos=0)
    specs = [
        BotSpec("logger", (sys.executable, LOGGER), cwd=REPO, sandbox=none, logs=silent),
        BotSpec("random", (sys.executable, RANDOM), cwd=REPO, sandbox=none),
    ]
    record = play_game(setup(3), specs)
    seat = record.seats[0]
    assert seat.fault is None and seat.infos == () and seat.info_count == len(its_plies(record, 0))
    assert [t.ply for t in seat.stderr_turns] == [-1, *its_plies(record, 0)]
    assert all(t.lines == () and t.dropped > 0 for t in seat.stderr_turns)
    assert sum(t.dropped for t in seat.stderr_turns) == seat.stderr_bytes
