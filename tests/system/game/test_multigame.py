"""Bots that play several games in one process (``multigame``), through real processes.

The host keeps a bot's process between games only when the bot declares
``multigame`` and the referee tells it so in ``game``; it starts a fresh one
after a fault, a crash, a line sent between games, or ``restart_every`` games.
Records must not depend on whether a process was kept: for deterministic bots
the games are the same move for move, and nothing of one game (infos, stderr)
shows up in another's record.
"""

from __future__ import annotations

import re
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.game.botproc import INFO_KEEP, STDERR_KEEP
from arena.game.clock import TimeControl
from arena.game.record import FaultKind, GameRecord
from arena.game.referee import BotHost, BotSpec, GameSetup, play_game
from arena.game.sandbox.bwrap import SandboxPolicy, unavailable_reason
from arena.protocol import GameStart, format_message, parse_referee_line
from arena.rules import random_board

REPO = Path(__file__).resolve().parents[3]
COUNTING = str(REPO / "tests" / "bots" / "multigame" / "counting_bot.py")
C_BOT = ("sample_bots/c/greedy", "--random")
NO_SANDBOX = SandboxPolicy(mode="none")


def counting(name: str, *options: str, sandbox: SandboxPolicy = NO_SANDBOX) -> BotSpec:
    return BotSpec(name, (sys.executable, COUNTING, *options), cwd=REPO, sandbox=sandbox)


def setup(i: int) -> GameSetup:
    return GameSetup(
        game_id=f"g{i}",
        seed=100 + i,
        board=random_board(100 + i, 8),
        time_control=TimeControl(move_ms=5000),
        end_grace_s=2.0,
        seed_secret=f"{i:032x}",  # the same seats' seeds in every series: the same games
    )


def play_series(specs: Sequence[BotSpec], games: int, host: BotHost) -> list[GameRecord]:
    return [play_game(setup(i), specs, host=host) for i in range(1, games + 1)]


def processes(record: GameRecord, seat: int) -> list[tuple[int, int, str]]:
    """(pid, nth game of that process, game id) as the counting bot told its stderr."""
    return [
        (int(pid), int(n), gid)
        for pid, n, gid in re.findall(r"process (\d+) game (\d+) id (\S+)", record.seats[seat].stderr_tail)
    ]


def play_summary(record: GameRecord) -> tuple[object, ...]:
    return (
        record.start_position,
        [(m.player, m.move) for m in record.moves],
        record.final_position,
        record.standings,
        [(s.name, s.reported_name, s.fault) for s in record.seats],
    )


@pytest.mark.parametrize(
    "sandbox",
    [
        NO_SANDBOX,
        pytest.param(
            SandboxPolicy(mode="bwrap"),
            marks=pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason())),
        ),
    ],
    ids=["no-sandbox", "sandbox"],
)
def test_kept_processes_play_the_same_games_as_fresh_ones(sandbox: SandboxPolicy) -> None:
    specs = [
        BotSpec("random-c", C_BOT, cwd=REPO, sandbox=sandbox),
        counting("counting", sandbox=sandbox),
    ]
    with BotHost(keep=True) as kept_host:
        kept = play_series(specs, 4, kept_host)
        assert kept_host.started == 2  # one process per bot for all four games
    with BotHost(keep=False) as fresh_host:
        fresh = play_series(specs, 4, fresh_host)
        assert fresh_host.started == 8
    assert [play_summary(r) for r in kept] == [play_summary(r) for r in fresh]
    for i, record in enumerate(kept, start=1):
        assert all(s.fault is None for s in record.seats), record.seats
        assert [s.exit for s in record.seats] == ["kept for its next game"] * 2
        assert processes(record, 1)[0][1] == i  # the same process's i-th game
        assert [s.exit for s in fresh[i - 1].seats] == ["exit 0", "exit 0"]
        assert processes(fresh[i - 1], 1)[0][1] == 1
    assert len({processes(r, 1)[0][0] for r in kept}) == 1


def test_nothing_of_one_game_reaches_another_record() -> None:
    with BotHost() as host:
        records = play_series([counting("one"), counting("two")], 3, host)
    for record in records:
        for seat in record.seats:
            ids_in_stderr = set(re.findall(r"id (g\d+)", seat.stderr_tail))
            ids_in_infos = {m for info in seat.infos for m in re.findall(r"id (g\d+)", info)}
            assert ids_in_stderr == ids_in_infos == {record.game_id}, (record.game_id, seat)
            assert seat.info_count == 1


def test_a_fault_in_one_game_restarts_the_bot_for_the_next() -> None:
    with BotHost() as host:
        records = play_series([counting("faulty", "illegal-in=g2"), counting("fine")], 3, host)
        started = host.started
    g1, g2, g3 = records
    assert g2.seats[0].fault is not None and g2.seats[0].fault.kind is FaultKind.ILLEGAL_MOVE
    assert g1.seats[0].fault is None and g3.seats[0].fault is None
    # The faulty bot's second game was in its first process; game 3 has a fresh one.
    assert processes(g2, 0)[0][:2] == (processes(g1, 0)[0][0], 2)
    assert processes(g3, 0)[0][1] == 1 and processes(g3, 0)[0][0] != processes(g1, 0)[0][0]
    # The other bot kept its process throughout.
    assert [processes(r, 1)[0][1] for r in records] == [1, 2, 3]
    assert started == 3


def wait_until_it_misbehaved(host: BotHost, seconds: float = 10.0) -> None:
    """Until the first kept process has written a line or exited (the chatter must arrive
    before the next game begins; a line arriving later is a fault in that game)."""
    deadline = time.monotonic() + seconds
    bot = host.idle[0][1]
    while time.monotonic() < deadline and bot.reusable():
        host.pool.wait(time.monotonic() + 0.05)


@pytest.mark.parametrize("option", ["chatter-after=g1", "exit-after=g1", "flood-after=g1"])
def test_a_bot_that_misbehaves_between_games_is_replaced_not_faulted(option: str) -> None:
    specs = [counting("odd", option), counting("fine")]
    with BotHost() as host:
        records = [play_game(setup(1), specs, host=host)]
        wait_until_it_misbehaved(host)
        if option.startswith("flood"):  # all it wrote while waiting is held in bounded buffers
            idle = host.idle[0][1]
            deadline = time.monotonic() + 20
            while idle.stderr_bytes < 1_000_000 and time.monotonic() < deadline:
                host.pool.wait(time.monotonic() + 0.05)
            assert len(idle.infos) <= INFO_KEEP and len(idle.stderr_tail) <= STDERR_KEEP
            assert idle.flooded and not idle.lines and idle.stderr_bytes > STDERR_KEEP
        records.append(play_game(setup(2), specs, host=host))
    assert all(s.fault is None for r in records for s in r.seats), [r.seats for r in records]
    assert processes(records[1], 0)[0][1] == 1  # a fresh process for game 2
    assert processes(records[1], 1)[0][1] == 2  # the other bot's was kept
    assert "ready" not in records[1].seats[0].stderr_tail
    # Nothing it wrote between games reaches the next game's record.
    assert all("flood" not in text for text in (*records[1].seats[0].infos, records[1].seats[0].stderr_tail))
    assert records[1].seats[0].info_count == 1


def test_a_kept_bot_that_exits_as_its_next_game_begins_is_restarted_for_that_game() -> None:
    # It exits right after "end"; the next game is seated at once, so its exit may well
    # come after it was handed the game: the referee starts it afresh, no fault.
    specs = [counting("quitter", "exit-after=g1"), counting("fine")]
    with BotHost() as host:
        records = play_series(specs, 2, host)
    assert all(s.fault is None for r in records for s in r.seats), [r.seats for r in records]
    assert processes(records[1], 0)[0][1] == 1


def test_a_bot_killed_while_waiting_is_replaced() -> None:
    with BotHost() as host:
        first = play_game(setup(1), [counting("a"), counting("b")], host=host)
        _spec, idle = host.idle[0]
        idle.proc.kill()
        idle.proc.wait()
        second = play_game(setup(2), [counting("a"), counting("b")], host=host)
    assert all(s.fault is None for s in second.seats), second.seats
    assert processes(first, 0)[0][0] != processes(second, 0)[0][0]
    assert processes(second, 0)[0][1] == 1


def test_restart_every_starts_a_fresh_process_after_that_many_games() -> None:
    with BotHost(restart_every=2) as host:
        records = play_series([counting("a"), counting("b")], 5, host)
        started = host.started
    assert [processes(r, 0)[0][1] for r in records] == [1, 2, 1, 2, 1]
    assert [s.exit for s in records[1].seats] == ["exit 0", "exit 0"]  # told to exit after game 2
    assert started == 6


def test_a_bot_that_does_not_declare_multigame_starts_for_every_game() -> None:
    with BotHost() as host:
        records = play_series([counting("plain", "no-multigame"), counting("multi")], 3, host)
    assert [processes(r, 0)[0][1] for r in records] == [1, 1, 1]
    assert [processes(r, 1)[0][1] for r in records] == [1, 2, 3]
    assert all(r.seats[0].exit == "exit 0" and r.seats[0].exited_cleanly for r in records)


def test_two_seats_of_the_same_bot_get_two_processes() -> None:
    spec = counting("twin")
    with BotHost() as host:
        records = play_series([spec, spec], 3, host)
        assert host.started == 2
    for record in records:
        assert processes(record, 0)[0][0] != processes(record, 1)[0][0]
        assert all(s.fault is None for s in record.seats)


def test_kept_processes_are_stopped_when_the_host_closes() -> None:
    with BotHost() as host:
        play_game(setup(1), [counting("a"), counting("b")], host=host)
        kept = [bot.proc for _spec, bot in host.idle]
        assert len(kept) == 2 and all(p.poll() is None for p in kept)
    assert all(p.poll() is not None for p in kept)
    assert not host.idle


def test_the_game_message_says_multigame_only_when_the_referee_keeps_the_bot() -> None:
    plain = GameStart("g1", 0, 2, 7)
    kept = GameStart("g1", 0, 2, 7, multigame=True)
    assert "multigame" not in format_message(plain)
    assert format_message(kept).endswith(" multigame=1")
    assert parse_referee_line(format_message(kept)) == kept
    assert parse_referee_line(format_message(plain)) == plain


def league_file(tmp_path: Path, marker: str, extra: str) -> Path:
    bots = "".join(
        f"  - name: {n}\n    command: [{sys.executable}, {COUNTING}, {marker}]\n"
        for n in ("ann", "bob", "cid")
    )
    path = tmp_path / f"league{len(extra)}.yaml"
    path.write_text(
        f"name: t\nseed: 3\nplayers: 2\nrounds: 1\ncwd: {REPO}\nconcurrency: 2\nsandbox: none\n"
        f"output: {tmp_path / path.stem}\ntime_control: {{move: 5s, startup: 20s}}\n{extra}bots:\n{bots}"
    )
    return path


def test_a_league_keeps_processes_unless_told_not_to_and_leaves_none_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.game import seeds
    from arena.league.config import load_config
    from arena.league.store import ResultStore
    from arena.tournament import run_tournament
    from tests.support.process_helpers import wait_no_leftovers

    marker = f"bsa-multigame-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(seeds, "new_secret", lambda: "5" * 32)  # both runs: the same seat seeds
    results = {}
    for extra in ("", "multigame: false\n"):
        config = load_config(league_file(tmp_path, marker, extra))
        state = run_tournament(config, echo=lambda _line: None)
        assert state.done == 6 and not state.failures
        assert wait_no_leftovers(marker) == []  # every kept process ended with its worker
        with ResultStore.open(config.output) as store:
            results[extra] = list(store.records())
    kept, fresh = results[""], results["multigame: false\n"]
    assert [play_summary(r) for r in kept] == [play_summary(r) for r in fresh]
    assert max(processes(r, s)[0][1] for r in kept for s in (0, 1)) > 1
    assert {processes(r, s)[0][1] for r in fresh for s in (0, 1)} == {1}
