"""The worker pool: failures of the arena itself are retried, never charged to a bot.

The cases that need no process; the others are in tests/system/league/test_executor.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.game.clock import TimeControl
from arena.league.executor import GamePool, GameSettings
from arena.league.pool import GameQueue, PoolRun, Retries
from arena.league.schedule import ScheduledGame, make_schedule
from arena.rules import Params

# -- the watchdog's limit ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "board", "tc", "grace", "expected"),
    [
        # 16 plies each (1 herd + 15 moves) at 1000 + 50 ms: 2 * 16 * 1050 = 33600 ms; + 5050 startup
        (Params(), "random", TimeControl(move_ms=1000), 1.0, 33.6 + 5.05 + 1.0),
        # build: 2 tiles + 1 herd + 3 moves = 6 plies each; clock 10000 + 6 * (100 + 20) = 10720 ms each
        (
            Params(players=3, sheep=4, tiles=2),
            "build",
            TimeControl(move_ms=None, base_ms=10_000, increment_ms=100, margin_ms=20, startup_ms=2000),
            0.5,
            3 * 10.72 + 2.02 + 0.5,
        ),
        # both, the clock smaller: 3 plies each; per move 3 * 550 = 1650, clock 1000 + 3 * 50 = 1150 ms
        (
            Params(players=4, sheep=2, tiles=1),
            "build",
            TimeControl(move_ms=500, base_ms=1000, startup_ms=1000),
            0.0,
            4 * 1.15 + 1.05,
        ),
        # both, the per-move limit smaller: 16 * 150 = 2400 ms each, against 60000 + 16 * 50
        (
            Params(),
            "file",
            TimeControl(move_ms=100, base_ms=60_000, startup_ms=5000),
            1.0,
            2 * 2.4 + 5.05 + 1.0,
        ),
    ],
    ids=["per-move", "clock-build", "both-clock-smaller", "both-move-smaller"],
)
def test_max_game_seconds_is_the_longest_a_game_can_take(
    params: Params, board: str, tc: TimeControl, grace: float, expected: float
) -> None:
    s = GameSettings(bots={}, params=params, time_control=tc, board=board, end_grace_s=grace)
    assert s.max_game_seconds() == pytest.approx(expected)
    assert s.watchdog_seconds() == pytest.approx(expected * 1.5 + 30)
    assert GamePool(s, 2).watchdog_s == pytest.approx(expected * 1.5 + 30)  # the default
    assert GamePool(s, 2, watchdog_s=3.0).watchdog_s == 3.0


# -- a game that never ends -------------------------------------------------------------------------


# -- what bots leave behind, found below a worker (a child subreaper) ---------------------------------


def test_the_game_queue_reads_its_games_only_as_far_as_it_hands_them_out() -> None:
    schedule = make_schedule(["a", "b", "c"], 2, 4, seed=1)
    read: list[int] = []

    def games() -> Iterator[ScheduledGame]:
        for g in schedule:
            read.append(g.index)
            yield g

    queue = GameQueue(games())
    assert read == []  # nothing read until asked
    assert queue.ready(3) == 3 and len(read) == 3
    first = queue.popleft()
    assert first is schedule[0] and len(read) == 3
    queue.appendleft(first)  # a game to retry goes first
    queue.extend(schedule[:2])  # refilled games come after the whole sequence
    handed = []
    while queue:
        handed.append(queue.popleft())
    assert handed == [*schedule, *schedule[:2]]
    assert not queue and queue.ready(5) == 0


def test_a_failed_game_is_put_in_front_again_up_to_the_retry_limit_then_given_up() -> None:
    """The one retry rule of both pools (local workers and Dask), without a process."""
    schedule = make_schedule(["a", "b"], 2, 2, seed=1)
    told: list[tuple[str, str, bool]] = []
    run = PoolRun(
        GameQueue(schedule[1:]), lambda g, r: None, Retries(2, lambda g, why, retry: told.append((g.game_id, why, retry)))
    )
    game = schedule[0]
    for attempt in range(3):
        run.failed(game, f"failure {attempt}")
    assert told == [(game.game_id, f"failure {i}", i < 2) for i in range(3)]
    assert run.retries.given_up == [(game, "failure 2")]
    handed = []
    while run.queue:
        handed.append(run.queue.popleft())
    assert handed == [game, game, *schedule[1:]]  # each retry in front, the given-up one not again
