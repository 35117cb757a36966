"""End-to-end fault tests: small, deliberately broken bots in real games.

Each test plays one real game through :func:`play_game` between a broken bot
from ``tests/bots/broken/`` and ``sample_bots/random_bot.py``, then checks what
the referee recorded: the fault and its detail, that the other bot finished
the game without a fault and ranks above the broken one, that the record
round-trips through JSON and replays, and that the game left nothing behind
(no process, no zombie, no file descriptor).

Every bot runs as ``python -X bsa_marker=MARKER ...``: the marker sits in its
command line (and in its forked children's), so a scan of ``/proc`` finds
whatever a game left running.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import secrets
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.game import botproc
from arena.game.clock import TimeControl
from arena.game.record import Fault, FaultKind, GameRecord, MoveRecord, SeatRecord
from arena.game.referee import BotSpec, GameSetup, Observer, play_game
from arena.game.sandbox.bwrap import SandboxPolicy
from arena.game.turnlog import INFO_TURN_KEEP
from arena.protocol import MAX_LINE_BYTES
from arena.rules import GameState, Params, SheepMove, parse_move, parse_position, random_board
from tests.support.referee_helpers import FIXED_SECRET

REPO = Path(__file__).resolve().parents[3]
BROKEN_BOTS = Path(__file__).resolve().parents[2] / "bots" / "broken"
RANDOM_BOT = REPO / "sample_bots" / "random_bot.py"
MARKER = f"bsa-fault-test-{os.getpid()}-{secrets.token_hex(4)}"

SEED = 3  # random_board(3, 8); every seat gets plenty of move requests
TC = TimeControl(move_ms=500, startup_ms=5000)
END_GRACE_S = 0.3
MB = 1024 * 1024


# -- the process table, descriptors and children --------------------------------------------


def marker_processes() -> dict[int, str]:
    """Every live process whose command line holds this test run's marker (zombies have none)."""
    found = {}
    needle = MARKER.encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue  # gone meanwhile
        if needle in cmdline:
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def leftovers(settle_s: float = 1.0) -> dict[int, str]:
    """Marker processes still there after ``settle_s``: a SIGKILLed process takes the
    kernel a moment to tear down, but none may stay running."""
    deadline = time.monotonic() + settle_s
    found = marker_processes()
    while found and time.monotonic() < deadline:
        time.sleep(0.02)
        found = marker_processes()
    return found


def open_fds() -> dict[int, str]:
    fds = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the descriptor of the listing itself is gone
            fds[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return fds


def assert_no_zombie_children() -> None:
    with contextlib.suppress(ChildProcessError):  # raised when there are no children at all
        assert os.waitpid(-1, os.WNOHANG) == (0, 0), "a child of the test process was left unreaped"


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


@pytest.fixture(scope="module", autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """No process of any game of this file survives it."""
    assert marker_processes() == {}
    yield
    assert leftovers() == {}


# -- playing a game -----------------------------------------------------------------------------


def command(script: Path, *args: str) -> tuple[str, ...]:
    return (sys.executable, "-X", f"bsa_marker={MARKER}", str(script), *args)


def broken_bot(script: str, *args: str, sandbox: str = "auto") -> BotSpec:
    return BotSpec(
        name=script.replace("_", "-"),
        command=command(BROKEN_BOTS / f"{script}.py", *args),
        cwd=REPO,
        sandbox=SandboxPolicy(mode=sandbox),
    )


def is_wrapper(cmdline: str) -> bool:
    """bwrap (and its own init) carry the bot's command line too; they are not the bot."""
    return os.path.basename(cmdline.split(" ", 1)[0]) in ("bwrap", "prlimit", "setpriv")


RANDOM = BotSpec(name="random", command=command(RANDOM_BOT), cwd=REPO)


@dataclass
class Game:
    """A finished game, the broken bot's seat, and what was seen while it ran."""

    record: GameRecord
    seat: int
    seconds: float
    rss_growth_mb: float
    events: list[tuple[float, MoveRecord | None, tuple[int, Fault] | None]] = field(default_factory=list)
    started: float = 0.0

    @property
    def broken(self) -> SeatRecord:
        return self.record.seats[self.seat]

    @property
    def other(self) -> SeatRecord:
        return self.record.seats[1 - self.seat]

    def fault_time(self) -> tuple[float, float]:
        """When the broken bot was forfeited: (seconds since the game began, seconds since
        the event before it, i.e. how long the referee waited for the bot)."""
        prev = self.started
        for t, _, fault in self.events:
            if fault is not None and fault[0] == self.seat:
                return t - self.started, t - prev
            prev = t
        raise AssertionError("the broken bot was never forfeited")


def play(
    bot: BotSpec,
    *,
    seat: int = 0,
    seed: int = SEED,
    tc: TimeControl = TC,
    end_grace_s: float = END_GRACE_S,
    tiles: bool = False,
    check_leftovers: bool = True,
    observe: Observer | None = None,
) -> Game:
    """Play ``bot`` against the random bot on a random 8-tile pasture (or from the tile
    phase), then check what must hold after every game, whatever the bots did."""
    setup = GameSetup(
        game_id=f"faults-{bot.name}",
        seed=seed,
        time_control=tc,
        board=None if tiles else random_board(seed, 8),
        end_grace_s=end_grace_s,
        keep_transcript=True,
        # The seats' private seeds, and so the random bots' moves, come from this secret:
        # drawn afresh, a game now and then walls the broken bot in before its fault comes.
        seed_secret=FIXED_SECRET,
    )
    events: list[tuple[float, MoveRecord | None, tuple[int, Fault] | None]] = []

    def observer(state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        events.append((time.monotonic(), move, fault))
        if observe is not None:
            observe(state, move, fault)

    fds = open_fds()
    rss = maxrss_mb()
    started = time.monotonic()
    record = play_game(setup, [bot, RANDOM] if seat == 0 else [RANDOM, bot], observer)
    seconds = time.monotonic() - started
    game = Game(record, seat, seconds, maxrss_mb() - rss, events, started)

    assert_no_zombie_children()
    assert open_fds() == fds, "the game leaked file descriptors"
    if check_leftovers:
        assert leftovers() == {}, "a process of the game survived it"
    assert GameRecord.from_json(record.to_json()) == record
    assert record.replay().is_over
    assert [s.name for s in record.seats] == [s.name for s in ([bot, RANDOM] if seat == 0 else [RANDOM, bot])]
    return game


def assert_forfeited(game: Game, kind: FaultKind) -> Fault:
    """The broken bot, and only it, was forfeited for ``kind``; the other bot played the
    game out and ranks above it."""
    r = game.record
    fault = game.broken.fault
    assert fault is not None, f"no fault recorded; seats: {r.seats}"
    assert fault.kind is kind, fault
    assert fault.detail
    assert r.faults == [(game.seat, fault)]
    assert_other_finished(game)
    me, them = r.standings[game.seat], r.standings[1 - game.seat]
    assert me.forfeited and not them.forfeited
    assert me.rank > them.rank
    assert all(m.player != game.seat for m in r.moves[fault.ply :]), "a forfeited bot moved"
    return fault


def assert_other_finished(game: Game) -> None:
    other = game.other
    assert other.fault is None, other.fault
    assert other.reported_name == "random"
    assert other.exited_cleanly and other.exit == "exit 0", (other.exit, other.stderr_tail)
    assert any(m.player == 1 - game.seat for m in game.record.moves)


def assert_no_fault(game: Game) -> None:
    assert game.record.faults == [], game.record.faults
    assert_other_finished(game)
    assert not any(s.forfeited for s in game.record.standings)
    assert any(m.player == game.seat for m in game.record.moves)


def sheep_moves(game: Game, upto: int | None = None) -> list[str]:
    """The broken bot's moves of the moving phase (before ply ``upto``)."""
    return [
        m.move
        for m in game.record.moves[:upto]
        if m.player == game.seat and isinstance(parse_move(m.move), SheepMove)
    ]


def last_answer(game: Game) -> str:
    """The last line the broken bot sent, from the transcript."""
    said = [line for line in game.broken.transcript if line.startswith("bot> ")]
    assert said, game.broken.transcript
    return said[-1].removeprefix("bot> ")


@dataclass
class BufferSpy:
    """The largest buffers the referee held for any bot during a game."""

    outbuf: int = 0
    lines: int = 0
    stderr_tail: int = 0
    stdout_bytes: int = 0


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> BufferSpy:
    seen = BufferSpy()
    take_stdout = botproc.BotProcess.take_stdout
    take_stderr = botproc.BotProcess.take_stderr

    def spy_stdout(self: botproc.BotProcess, data: bytes, now: float) -> None:
        take_stdout(self, data, now)
        seen.stdout_bytes += len(data)
        seen.outbuf = max(seen.outbuf, len(self.outbuf))
        seen.lines = max(seen.lines, len(self.lines))

    def spy_stderr(self: botproc.BotProcess, data: bytes) -> None:
        take_stderr(self, data)
        seen.stderr_tail = max(seen.stderr_tail, len(self.stderr_tail))

    monkeypatch.setattr(botproc.BotProcess, "take_stdout", spy_stdout)
    monkeypatch.setattr(botproc.BotProcess, "take_stderr", spy_stderr)
    return seen


# -- starting up ----------------------------------------------------------------------------------


def test_bot_that_exits_at_once_is_a_crash() -> None:
    # It exits before reading "hello": the referee either finds the pipe closed when
    # it writes, or the output closed when it reads.  Both are a crash by the spec
    # ("the bot exits ... before answering"), with the exit status quoted.
    game = play(broken_bot("exits_at_once"))
    fault = assert_forfeited(game, FaultKind.CRASH)
    assert "exit 7" in fault.detail
    assert re.fullmatch(
        r"(closed its output|stopped reading its input|exited before answering) \(exit 7\)", fault.detail
    ), fault
    assert fault.ply == 0
    assert game.broken.exit == "exit 7"
    assert game.broken.reported_name is None
    assert not any(m.player == game.seat for m in game.record.moves)


@pytest.mark.parametrize("cmd", ["/nonexistent/bsa-no-such-bot", "bsa-no-such-bot-on-path"])
def test_command_that_does_not_exist_is_a_startup_failure(cmd: str) -> None:
    bot = BotSpec(name="missing", command=(cmd, "--marker", MARKER), cwd=REPO)
    game = play(bot)  # play_game does not raise
    fault = assert_forfeited(game, FaultKind.STARTUP_FAILURE)
    assert cmd in fault.detail
    assert "No such file or directory" in fault.detail
    assert fault.ply == 0
    assert game.broken.exit is None and game.broken.reported_name is None


@pytest.mark.parametrize(
    "seat",
    [
        0,
        1,
    ],
    ids=["silent-bot-in-seat-a", "silent-bot-in-seat-b"],
)
def test_bot_that_never_says_hello_is_a_startup_failure_within_the_allowance(seat: int) -> None:
    # Small, but the random bot (a Python start-up and imports) must be ready within it.
    tc = TimeControl(move_ms=500, startup_ms=3000)
    game = play(broken_bot("never_says_hello"), seat=seat, tc=tc)
    fault = assert_forfeited(game, FaultKind.STARTUP_FAILURE)
    assert fault.detail.startswith("no hello within the startup allowance (3000 ms + margin ")
    assert fault.ply == 0
    assert game.broken.reported_name is None
    since_start, _ = game.fault_time()
    allowance = (tc.startup_ms + tc.margin_ms) / 1000
    assert allowance - 0.05 <= since_start < allowance + 3.0


# -- crashes -------------------------------------------------------------------------------------------


def test_bot_that_exits_mid_game_is_a_crash_with_its_exit_status() -> None:
    game = play(broken_bot("dies_mid_game"))
    fault = assert_forfeited(game, FaultKind.CRASH)
    assert "exit 3" in fault.detail
    assert re.fullmatch(r"(closed its output|exited before answering) \(exit 3\)", fault.detail), fault
    assert game.broken.exit == "exit 3"
    assert len(sheep_moves(game, fault.ply)) == 1  # it died on its second move request
    assert game.record.moves[fault.ply - 1].player != game.seat


@pytest.mark.parametrize(
    ("sandbox", "details"),
    [
        ("none", {"exited before answering (exit 3)"}),
        # In a sandbox the child dies with the bot: which the referee sees first, the exit
        # or the end of the output, is a race; either way a crash, seen at once.
        ("auto", {"exited before answering (exit 3)", "closed its output (exit 3)"}),
    ],
)
def test_bot_that_exits_while_a_child_holds_its_output_is_a_crash_not_a_timeout(
    sandbox: str, details: set[str]
) -> None:
    # A clock of 20 s: a referee that only watched for end-of-file would wait it out.
    clock = TimeControl(move_ms=None, base_ms=20_000, startup_ms=5000)
    started = time.monotonic()
    game = play(broken_bot("exits_child_holds_output", sandbox=sandbox), tc=clock)
    fault = assert_forfeited(game, FaultKind.CRASH)
    assert fault.detail in details
    assert time.monotonic() - started < 10  # seen at once, not after the clock ran out


def test_every_bot_hears_end_at_once_and_shares_one_grace() -> None:
    # Three bots that ignore "end": with one grace each, after another, the end would
    # take three graces; with one shared grace it takes one.
    grace = 1.5
    bots = [broken_bot("ignores_end") for _ in range(3)]
    setup = GameSetup(
        game_id="end-grace",
        seed=SEED,
        params=Params(players=3),
        time_control=TC,
        board=random_board(SEED, 12),
        end_grace_s=grace,
    )
    last_move = [0.0]

    def observer(state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        last_move[0] = time.monotonic()

    record = play_game(setup, bots, observer)
    ending = time.monotonic() - last_move[0]
    assert all(s.fault is None and not s.exited_cleanly for s in record.seats)
    assert grace - 0.1 <= ending < 2 * grace, f"the end took {ending:.2f}s"


@pytest.mark.parametrize("signame", ["SIGSEGV", "SIGKILL"])
def test_bot_killed_by_a_signal_is_a_crash_naming_the_signal(signame: str) -> None:
    game = play(broken_bot("killed_by_signal", signame))
    fault = assert_forfeited(game, FaultKind.CRASH)
    assert f"signal {signame}" in fault.detail
    assert game.broken.exit == f"signal {signame}"
    assert len(sheep_moves(game, fault.ply)) == 1


# -- time -------------------------------------------------------------------------------------------------


def test_bot_that_never_answers_a_move_times_out_without_holding_up_the_game() -> None:
    tc = TimeControl(move_ms=300, startup_ms=5000)
    game = play(broken_bot("sleeps_on_move"), tc=tc)
    fault = assert_forfeited(game, FaultKind.TIMEOUT)
    assert "within 350 ms (its clock's 300 ms + margin 50 ms)" in fault.detail
    assert sheep_moves(game) == []
    _, waited = game.fault_time()
    limit = (tc.move_ms or 0) / 1000
    assert limit <= waited < limit * 10, waited
    assert game.broken.exit == "killed"  # forfeited at once: it was still sleeping


# -- what a bot says ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("garbage", ["move banana", "hello there"])
def test_garbage_answer_is_a_protocol_error_quoting_the_line(garbage: str) -> None:
    game = play(broken_bot("answers_garbage", garbage))
    fault = assert_forfeited(game, FaultKind.PROTOCOL_ERROR)
    assert repr(garbage) in fault.detail
    assert last_answer(game) == garbage
    assert sheep_moves(game) == []


def test_wrong_phase_word_is_a_protocol_error() -> None:
    game = play(broken_bot("wrong_phase_word"))
    fault = assert_forfeited(game, FaultKind.PROTOCOL_ERROR)
    assert fault.detail == "expected 'move MOVE', got 'tile 0,0A'"


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("foreign", r"the stack on -?\d+,-?\d+ belongs to player [ab]"),
        ("whole", r"cannot split (\d+) sheep off a stack of \1: between 1 and \d+ must go and .*"),
    ],
)
def test_illegal_move_names_the_move_and_the_reason(mode: str, reason: str) -> None:
    game = play(broken_bot("illegal_move", mode))
    fault = assert_forfeited(game, FaultKind.ILLEGAL_MOVE)
    answer = last_answer(game)
    assert answer.startswith("move ")
    move = answer.removeprefix("move ")
    # The position the bot was asked about, and what the rules say of its move there.
    state = parse_position(game.record.start_position)
    for m in game.record.moves[: fault.ply]:
        state.apply(parse_move(m.move))
    assert state.to_move == game.seat
    why = state.why_illegal(parse_move(move))
    assert why is not None and re.fullmatch(reason, why), why
    assert fault.detail == f"{move!r} at ply {fault.ply + 1}: {why}"


@pytest.mark.parametrize(("mode", "quoted"), [("latin", r"b'move \xff\xfe'"), ("utf8", r"\xc3\xa9")])
def test_bytes_that_are_not_ascii_are_a_protocol_error(mode: str, quoted: str) -> None:
    game = play(broken_bot("non_ascii", mode))
    fault = assert_forfeited(game, FaultKind.PROTOCOL_ERROR)
    assert "not ASCII" in fault.detail
    assert quoted in fault.detail


def test_endless_line_is_a_protocol_error_and_memory_stays_bounded(spy: BufferSpy) -> None:
    game = play(broken_bot("endless_line"))
    fault = assert_forfeited(game, FaultKind.PROTOCOL_ERROR)
    assert f"longer than {MAX_LINE_BYTES} bytes" in fault.detail
    assert spy.stdout_bytes > MAX_LINE_BYTES  # it wrote more than a line may hold ...
    assert spy.outbuf <= MAX_LINE_BYTES + botproc.READ_CHUNK  # ... and little of it was kept
    assert game.rss_growth_mb < 100


def test_unasked_line_is_a_protocol_error_at_the_next_request() -> None:
    game = play(broken_bot("stray_line"))
    fault = assert_forfeited(game, FaultKind.PROTOCOL_ERROR)
    first = sheep_moves(game)[0]
    assert sheep_moves(game) == [first]  # the answer counted; the line after it did not
    assert fault.detail == f"sent {'move ' + first!r} without being asked"
    assert game.record.moves[fault.ply - 1].player != game.seat  # caught at its next request


# -- not faults -------------------------------------------------------------------------------------------------


def test_stderr_flood_is_no_fault_and_only_its_tail_is_kept(spy: BufferSpy) -> None:
    # The flood comes before "hello": a high ceiling on start-up costs nothing when it is fast.
    game = play(broken_bot("floods_stderr", "300"), tc=TimeControl(move_ms=500, startup_ms=20000))
    assert_no_fault(game)
    seat = game.broken
    assert seat.stderr_bytes >= 300 * MB
    assert botproc.STDERR_KEEP == 16 * 1024
    assert len(seat.stderr_tail.encode()) <= botproc.STDERR_KEEP
    assert seat.stderr_tail.endswith("stderr flood done\n")
    assert spy.stderr_tail <= botproc.STDERR_KEEP + botproc.READ_CHUNK
    assert game.rss_growth_mb < 100
    assert seat.exited_cleanly and seat.exit == "exit 0"


def test_info_flood_is_no_fault_and_infos_are_capped() -> None:
    game = play(broken_bot("floods_info", "200000"), tc=TimeControl(move_ms=500, startup_ms=20000))
    assert_no_fault(game)
    seat = game.broken
    assert seat.info_count == 200_000
    assert len(seat.infos) <= 200
    # all before its hello: one turn, which keeps its share of the game's 200
    assert seat.infos == tuple(f"flood {i}" for i in range(INFO_TURN_KEEP))
    assert seat.reported_name == "floods-info"


def test_answer_in_pieces_with_crlf_is_accepted() -> None:
    # From the tile phase, so every kind of answer (hello, ready, tile, herd, move) is split.
    game = play(broken_bot("split_lines"), tiles=True)
    assert_no_fault(game)
    assert game.broken.reported_name == "split-lines"
    kinds = {type(parse_move(m.move)).__name__ for m in game.record.moves if m.player == game.seat}
    assert kinds == {"TilePlacement", "HerdPlacement", "SheepMove"}
    assert all(m.ms >= 45 for m in game.record.moves if m.player == game.seat)  # the 50 ms pause counted
    assert game.broken.exited_cleanly


def test_bot_that_ignores_end_is_killed_without_fault() -> None:
    game = play(broken_bot("ignores_end"))
    assert_no_fault(game)
    assert game.broken.exited_cleanly is False
    assert game.broken.exit == "killed"
    last_move_at = game.events[-1][0]
    assert game.started + game.seconds - last_move_at >= END_GRACE_S  # it was given its grace


# -- teardown --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_children_and_orphaned_grandchildren_are_killed_with_the_bot(sandbox: str) -> None:
    seen: dict[int, str] = {}

    def look(state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        if not seen:
            seen.update({pid: cmd for pid, cmd in marker_processes().items() if not is_wrapper(cmd)})

    game = play(broken_bot("leaves_children", "group", MARKER, sandbox=sandbox), observe=look)
    assert_no_fault(game)
    # While the game ran: the bot, its grandchild (a fork: same command line), the
    # sleep (argv[0] = the marker), and the random bot.
    assert sum(cmd.startswith(MARKER + " 300") for cmd in seen.values()) == 1, seen
    assert sum("leaves_children.py" in cmd for cmd in seen.values()) == 2, seen
    assert sum("random_bot.py" in cmd for cmd in seen.values()) == 1, seen
    # play() checked that none of them survived the game.


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_daemonized_grandchild_is_killed_with_the_bot(sandbox: str) -> None:
    try:
        play(broken_bot("leaves_children", "setsid", MARKER, sandbox=sandbox), check_leftovers=False)
        assert leftovers() == {}, "a process of the game survived it"
    finally:
        for pid in marker_processes():  # ours by the marker: clean up what escaped
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# -- teardown and memory bounds ---------------------------------------------------------------------------------------


def test_stopping_a_bot_closes_its_input_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        play(broken_bot("exits_at_once"))
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []


def test_flood_of_unasked_lines_after_end_keeps_memory_bounded(spy: BufferSpy) -> None:
    game = play(broken_bot("floods_unasked_lines"), end_grace_s=1.0)
    assert_no_fault(game)  # after "end": nothing left to forfeit
    assert game.broken.exited_cleanly is False
    assert spy.stdout_bytes >= 2 * botproc.READ_CHUNK
    assert spy.lines <= 1000, f"the referee held {spy.lines} unasked lines of one bot"
