"""``arena play`` and ``arena replay`` with real bot processes.

The cases that start processes; the others are in tests/unit/cli/test_cli_play.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.record import GameRecord
from arena.game.sandbox.bwrap import unavailable_reason
from arena.game.sandbox.cgroups import support
from tests.support.process_helpers import leftovers

REPO = Path(__file__).resolve().parents[3]
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"


def test_play_shows_the_game_and_saves_a_record_that_replays(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    runner = CliRunner()
    result = runner.invoke(main, ["play", RANDOM, RANDOM, "--seed", "5", "--save", str(save), "--no-colour"])
    assert result.exit_code == 0, result.output
    assert "seed 5" in result.output and "game over" in result.output and "rank" in result.output
    record = GameRecord.from_json(save.read_text())
    assert record.seed == 5 and [s.name for s in record.seats] == ["random", "random"]  # as hello says
    assert all(s.fault is None and s.exited_cleanly for s in record.seats)
    replay = runner.invoke(main, ["replay", str(save), "--no-colour"])
    assert replay.exit_code == 0, replay.output
    assert replay.output.count("plays ") == len(record.moves)


def test_replay_names_each_seat_as_play_showed_it(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    greedy = f"node {REPO / 'sample_bots' / 'greedy.js'}"
    argv = ["play", RANDOM, greedy, RANDOM, "--name", "alice", "--seed", "4", "-q", "--save", str(save)]
    played = CliRunner().invoke(main, argv)
    assert played.exit_code == 0, played.output
    # --name names seat a; b and c show what their bots say in hello (not random_bot, greedy).
    assert "a=alice vs b=greedy-js vs c=random" in played.output, played.output
    replay = CliRunner().invoke(main, ["replay", str(save), "--no-colour"])
    assert replay.exit_code == 0, replay.output
    assert "a=alice vs b=greedy-js vs c=random" in replay.output.splitlines()[0]
    moved = {line.split()[3] for line in replay.output.splitlines() if line.startswith("ply ")}
    assert moved == {"alice", "greedy-js", "random"}, moved
    record = GameRecord.from_json(save.read_text())
    assert [s.reported_name for s in record.seats] == ["random", "greedy-js", "random"]  # hello still kept


def test_play_builds_the_board_with_three_bots(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    result = CliRunner().invoke(
        main, ["play", RANDOM, RANDOM, RANDOM, "--build-board", "--seed", "2", "--quiet", "--save", str(save)]
    )
    assert result.exit_code == 0, result.output
    record = GameRecord.from_json(save.read_text())
    assert record.params.players == 3 and record.start_position.split()[1] == "tiles"
    assert sum(1 for m in record.moves if m.move[-1] in "ABC") == 12


def test_a_bot_that_cannot_start_is_a_forfeit_not_an_arena_error() -> None:
    result = CliRunner().invoke(main, ["play", "no-such-bot-xyz", RANDOM, "--seed", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "startup_failure" in result.output and "no-such-bot-xyz" in result.output


def test_resource_limits_apply_to_the_bots() -> None:
    # Each bot asks for 256 MB at start, past a 64 MB data limit that an interpreter alone stays
    # well under: both die at start, and what they said (MemoryError) is shown with a hint that
    # names the limit.
    greedy = f'{sys.executable} -c "block = bytearray(256 << 20)"'
    argv = ["play", greedy, greedy, "--memory-mb", "64", "-q", "--seed", "1", "--no-sandbox"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert result.output.count("crash: ") == 2 and "MemoryError" in result.output
    assert "a per-process data limit of 64 MB (memory_mb; RLIMIT_DATA" in result.output
    roomy = CliRunner().invoke(main, ["play", RANDOM, RANDOM, "--memory-mb", "0", "--cpu-seconds", "0", "-q"])
    assert roomy.exit_code == 0 and "crash" not in roomy.output


@pytest.mark.parametrize("sandbox", ["--sandbox", "--no-sandbox"])
def test_memory_limit_holds_for_the_whole_bot_in_its_cgroup(sandbox: str, tmp_path: Path) -> None:
    # Three children of 200 MB each: each is under 512 MB, together they are over it.
    if sandbox == "--sandbox" and (unavailable_reason() is not None or support() is None):
        pytest.skip(f"no sandbox with a cgroup here: {unavailable_reason() or 'no cgroup'}")
    hog = f"{sys.executable} {REPO / 'tests' / 'bots' / 'broken' / 'hogs_memory.py'} 3 200"
    saved = tmp_path / "game.json"
    argv = ["play", hog, RANDOM, "--memory-mb", "512", "-q", "--seed", "1", "--move-time", "20s"]
    result = CliRunner().invoke(main, [*argv, sandbox, "--save", str(saved)])
    assert result.exit_code == 0, result.output
    seat = GameRecord.from_json(saved.read_text()).seats[0]
    assert seat.fault is None, seat.fault
    ends = [line for line in seat.stderr_tail.splitlines() if line.startswith("child ")]
    assert len(ends) == 3, seat.stderr_tail
    if sandbox == "--sandbox":  # the kernel killed at least one child for the bot's memory
        assert seat.isolation["limits"].startswith("cgroup")
        assert any(line.endswith("signal 9") for line in ends), ends
    else:  # per process, each child fits
        assert seat.isolation["sandbox"] == "none"
        assert all(line.endswith("exit 0") for line in ends), ends


def test_seats_show_the_hello_name_else_the_command_and_name_overrides() -> None:
    silent = f"{sys.executable} {REPO / 'tests' / 'bots' / 'broken' / 'never_says_hello.py'}"
    argv = ["play", RANDOM, silent, RANDOM, "--seed", "3", "-q", "--startup", "1s", "--no-colour"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    # random_bot.py says "hello 1 random"; the silent bot never names itself.
    assert "a=random vs b=never_says_hello vs c=random" in result.output, result.output
    named = CliRunner().invoke(main, ["play", RANDOM, RANDOM, "--name", "alice", "--seed", "3", "-q"])
    assert named.exit_code == 0 and "a=alice vs b=random" in named.output, named.output
    assert "a alice" in named.output


def test_play_ends_what_a_bot_left_running_even_a_daemon(tmp_path: Path, marker: str) -> None:
    """In its own process, as a user runs it: ``arena play`` adopts a bot's orphans, so it
    finds them below itself and ends them with the game.  Listing ``/proc`` (how a
    process that did not adopt finds them) fails in this run: the daemon is found, and
    ended, only if ``arena play`` adopted it."""
    leaver = f"{sys.executable} {REPO / 'tests' / 'bots' / 'broken' / 'leaves_children.py'} setsid {marker}"
    saved = tmp_path / "game.json"
    no_proc_scan = (
        "import os, sys\n"
        "listdir = os.listdir\n"
        "def no_proc(path='.'):\n"
        "    if str(path).rstrip('/') == '/proc':\n"
        "        raise PermissionError('listing /proc is off in this test')\n"
        "    return listdir(path)\n"
        "os.listdir = no_proc\n"
        "from arena.cli import main\n"
        "main(sys.argv[1:], prog_name='arena')\n"
    )
    argv = [sys.executable, "-c", no_proc_scan, "play", leaver, RANDOM, "--no-sandbox", "--seed", "3", "-q"]
    done = subprocess.run([*argv, "--save", str(saved)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seat = GameRecord.from_json(saved.read_text()).seats[0]
    assert seat.fault is None and seat.leftover_processes is not None and seat.leftover_processes >= 2
    assert leftovers(marker) == []  # ended with the game (the marker fixture kills what is left)


def test_the_same_seed_and_seed_secret_replay_a_game_of_random_bots_move_for_move(tmp_path: Path) -> None:
    secret = "0123456789abcdef" * 2
    moves = []
    for name in ("one.json", "two.json"):
        save = tmp_path / name
        result = CliRunner().invoke(
            main,
            ["play", "arena:random", "arena:random", "--seed", "11", "--seed-secret", secret,
             "--no-sandbox", "-q", "--save", str(save)],
        )
        assert result.exit_code == 0, result.output
        record = json.loads(save.read_text())
        assert record["seed_secret"] == secret
        moves.append([m[1] for m in record["moves"]])  # [seat, move, ms]
    assert moves[0] == moves[1] and len(moves[0]) > 10


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["play", RANDOM], "2 to 4 bots"),
        (["play", RANDOM, RANDOM, "--move-time", "fast"], "--move-time"),
        (["play", RANDOM, RANDOM, "--move-time", "500"], "write 500ms (milliseconds) or 500s (seconds)"),
        (["play", RANDOM, RANDOM, "--board", "/no/such.board"], "cannot read board file"),
        (["play", RANDOM, RANDOM, "--build-board", "--board", "x.board"], "exclude each other"),
    ],
    ids=["one-bot", "bad-duration", "bare-number", "missing-board", "board-conflict"],
)
def test_arena_errors_exit_2_with_a_clear_message(args: list[str], needle: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and needle in result.output


@pytest.mark.parametrize(
    ("names", "needle"),
    [(["--name", "a b"], "--name 'a b'"), (["--name", "x", "--name", "y", "--name", "z"], "3 --name")],
    ids=["bad-name", "too-many"],
)
def test_a_bad_name_option_is_refused(names: list[str], needle: str) -> None:
    result = CliRunner().invoke(main, ["play", RANDOM, RANDOM, *names])
    assert result.exit_code == 2 and needle in result.output, result.output
