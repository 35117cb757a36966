"""The worker pool: failures of the arena itself are retried, never charged to a bot.

The cases that start processes; the others are in tests/unit/league/test_executor.py.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

from arena.game.clock import TimeControl
from arena.game.record import GameRecord
from arena.game.referee import BotSpec
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.league.executor import GamePool, GameSettings
from arena.league.schedule import ScheduledGame, make_schedule
from arena.rules import Params
from tests.support.flaky_settings import FlakySettings, LingerOnceSettings
from tests.support.process_helpers import kill_leftovers, leftovers, wait_no_leftovers

REPO = Path(__file__).resolve().parents[3]
BROKEN_BOTS = Path(__file__).resolve().parents[2] / "bots" / "broken"


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
    assert all(f"in game {gid}" in why or f"during game {gid}" in why for gid, why, _ in failures)
    assert all("(bots: a, b" in why or "(bots: b, a" in why for _, why, _ in failures)  # who played


def test_a_game_that_keeps_failing_is_reported_not_dropped(tmp_path: Path) -> None:
    games = make_schedule(["a", "b"], 2, 1, seed=1)[:1]
    results: list[tuple[ScheduledGame, GameRecord]] = []
    failed = GamePool(settings(tmp_path, "raise"), 1).run(
        games, lambda g, r: results.append((g, r)), lambda g, why, retry: None, 0
    )
    assert results == [] and [g.game_id for g, _ in failed] == ["r1-g001"]
    first_line = failed[0][1].splitlines()[0]
    assert first_line == "arena error in game r1-g001 (bots: a, b): RuntimeError: injected arena failure"


# -- the watchdog's limit ---------------------------------------------------------------------------


def test_max_game_seconds_bounds_a_real_game(tmp_path: Path) -> None:
    s = settings(tmp_path, "raise")
    game = make_schedule(["a", "b"], 2, 1, seed=1)[0]
    (tmp_path / game.game_id).touch()  # no injected failure
    results: list[GameRecord] = []
    assert GamePool(s, 1).run([game], lambda g, r: results.append(r), lambda g, why, retry: None) == []
    assert results[0].duration_ms / 1000 < s.max_game_seconds()
    assert len(results[0].moves) <= 2 * s.params.sheep  # 1 herd + (sheep - 1) moves each


# -- a game that never ends -------------------------------------------------------------------------

MARKER = f"bsa-executor-test-{os.getpid()}-{secrets.token_hex(4)}"


def marked(script: Path) -> tuple[str, ...]:
    """A bot command whose command line carries this run's marker, to find leftovers."""
    return (sys.executable, "-X", f"bsa_marker={MARKER}", str(script))


@pytest.fixture
def no_leftovers() -> Iterator[None]:
    """No bot of the test, and no worker, outlives it (killed if one does, and the test fails)."""
    assert leftovers(MARKER) == []
    yield
    left = wait_no_leftovers(MARKER, 10)
    if left:
        kill_leftovers(MARKER)
    assert left == [], "bot processes outlived the pool"
    assert mp.active_children() == [], "a worker outlived the pool"


@pytest.fixture
def bounded() -> Iterator[None]:
    """Fail, instead of hanging, a pool that does not finish within a generous bound."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("the pool did not finish within 120 s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(120)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_a_hung_game_is_stopped_by_the_watchdog_retried_and_reported(
    tmp_path: Path, no_leftovers: None, bounded: None
) -> None:
    hang = GameSettings(
        bots={
            "sleeper": BotSpec("sleeper", marked(BROKEN_BOTS / "sleeps_on_move.py"), cwd=REPO),
            "random": BotSpec("random", marked(REPO / "sample_bots" / "random_bot.py"), cwd=REPO),
        },
        params=Params(),
        time_control=TimeControl(move_ms=3_600_000, startup_ms=60_000),  # the bot never times out
        board="random",
        end_grace_s=0.3,
    )
    game = make_schedule(["sleeper", "random"], 2, 1, seed=1)[0]
    results: list[GameRecord] = []
    failures: list[tuple[str, str, bool]] = []
    pool = GamePool(hang, 1, watchdog_s=1.0)
    failed = pool.run(
        [game],
        lambda g, r: results.append(r),
        lambda g, why, retry: failures.append((g.game_id, why, retry)),
        2,
    )
    assert results == []
    assert [(gid, retry) for gid, _, retry in failures] == [(game.game_id, True)] * 2 + [
        (game.game_id, False)
    ]
    for _, why, _ in failures:
        assert why == (
            f"game {game.game_id} ran past its watchdog limit of 1.0 s (bots: sleeper, random); worker stopped"
        )
    assert failed == [(game, failures[-1][1])]
    assert pool.slots == []


@pytest.mark.slow
def test_a_stopped_worker_is_recovered_by_the_watchdog(
    tmp_path: Path, no_leftovers: None, bounded: None
) -> None:
    # The first time, the game lingers 2 s after its end (a bot that ignores "end"): time to
    # SIGSTOP its worker mid-game.  It would end well within the watchdog's 8 s, but a
    # stopped worker never answers; once stopped, continued and terminated, the game is
    # played again by a new worker, quickly.
    linger = LingerOnceSettings(
        bots={
            "lingers": BotSpec("lingers", marked(BROKEN_BOTS / "ignores_end.py"), cwd=REPO),
            "random": BotSpec("random", marked(REPO / "sample_bots" / "random_bot.py"), cwd=REPO),
        },
        params=Params(),
        time_control=TimeControl(move_ms=2000, startup_ms=10_000),
        board="random",
        end_grace_s=0.2,
        flag_dir=str(tmp_path),
        linger_s=2.0,
    )
    game = make_schedule(["lingers", "random"], 2, 1, seed=1)[0]
    # (A loaded machine may take several seconds to replay the game, or for the continued
    # worker to kill its bots: room for both, as what is tested is what happens, not how fast.)
    pool = GamePool(linger, 1, watchdog_s=8.0)
    pool.stop_grace_s = 30.0
    stopped: list[BaseProcess] = []
    done = threading.Event()

    def stop_worker_mid_game() -> None:
        while not done.is_set():
            busy = [s for s in pool.slots if s.game is not None]
            if busy and leftovers(MARKER):  # its bots are running
                os.kill(busy[0].proc.pid or 0, signal.SIGSTOP)
                stopped.append(busy[0].proc)
                return
            time.sleep(0.01)

    stopper = threading.Thread(target=stop_worker_mid_game, daemon=True)
    stopper.start()
    results: list[GameRecord] = []
    failures: list[tuple[str, str, bool]] = []
    try:
        failed = pool.run(
            [game],
            lambda g, r: results.append(r),
            lambda g, why, retry: failures.append((g.game_id, why, retry)),
            1,
        )
    finally:
        done.set()
        stopper.join(5)
    assert len(stopped) == 1 and failed == []
    assert failures == [
        (
            game.game_id,
            f"game {game.game_id} ran past its watchdog limit of 8.0 s (bots: lingers, random); worker stopped",
            True,
        )
    ]
    assert [r.game_id for r in results] == [game.game_id]
    assert all(s.fault is None for s in results[0].seats)
    # Continued, the stopped worker ran its SIGTERM handler (which kills the bots): no SIGKILL was needed.
    assert stopped[0].exitcode == 128 + signal.SIGTERM


# -- what bots leave behind, found below a worker (a child subreaper) ---------------------------------


@pytest.mark.parametrize("mode", ["group", "setsid", "envless"])
def test_processes_a_bot_leaves_are_found_below_the_worker_and_killed(
    mode: str, no_leftovers: None, bounded: None
) -> None:
    # The worker adopts the bot's orphans (PR_SET_CHILD_SUBREAPER), so it finds them by
    # walking its own tree: a daemon that left the bot's group and session too.
    plain = SandboxPolicy(mode="none")
    leaver = (*marked(BROKEN_BOTS / "leaves_children.py"), mode, f"{MARKER}-sleep")
    settings = GameSettings(
        bots={
            "leaver": BotSpec("leaver", leaver, cwd=REPO, sandbox=plain),
            "random": BotSpec(
                "random", marked(REPO / "sample_bots" / "random_bot.py"), cwd=REPO, sandbox=plain
            ),
        },
        params=Params(),
        time_control=TimeControl(move_ms=5000, startup_ms=20_000),
        board="random",
        end_grace_s=1.0,
        multigame=False,  # stopped after every game, so every game counts what it left
    )
    games = make_schedule(["leaver", "random"], 2, 1, seed=2)
    results: list[GameRecord] = []
    failed = GamePool(settings, 1).run(games, lambda g, r: results.append(r), lambda g, why, retry: None, 0)
    assert failed == [] and len(results) == 2
    for record in results:
        seat = next(s for s in record.seats if s.name == "leaver")
        assert seat.fault is None and seat.exited_cleanly, seat
        assert seat.leftover_processes is not None and seat.leftover_processes >= 1, seat


ADOPTION_PROBE = """
import os, sys, time
from arena.game.proctree import adopt_orphans, descendants, reap_adopted
assert adopt_orphans()
child = os.fork()
if child == 0:  # fork a daemon that leaves our session, then exit: it is an orphan
    if os.fork() == 0:
        os.setsid()
        time.sleep(30)
        os._exit(0)
    os._exit(0)
os.waitpid(child, 0)
time.sleep(0.2)
orphans = [p for p in descendants(os.getpid()) if p != child]
print(len(orphans), flush=True)
for p in orphans:
    os.kill(p, 9)
time.sleep(0.2)
reap_adopted()
print(len(descendants(os.getpid())), flush=True)
"""


def test_a_subreaper_finds_a_daemons_orphan_in_its_own_tree_and_reaps_it() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", ADOPTION_PROBE], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0"]  # the daemon was below us; killed and reaped, none left


