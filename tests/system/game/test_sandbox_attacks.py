"""Hostile bots against the sandbox: one real game (or league) per attack.

Each test plays a bot from ``tests/bots/hostile/`` (it plays random legal moves,
and attacks at startup or at its first turn) against a plain random bot that
lives in a folder of its own, outside the attacker's.  Every bot runs under
bubblewrap with ``mode="bwrap"``, so no attack ever runs unsandboxed; where
bubblewrap cannot run, the whole module is skipped.

Each test checks what the attacker itself found (it reports on its stderr, which
the seat record keeps), that the attack did not reach the opponent (no fault, a
finished game, a clean exit), the arena or the machine, and that nothing of the
game runs afterwards: no process with the test's marker in its command line, and
no process at all left in the bots' PID namespaces (whatever its user).  Where
the arena runs as root, a *canary* runs beside the games as the user the bots
run as (``nobody``), with a secret in its environment: a bot that could see or
signal the host's processes would find it and could kill it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.game import botproc, proctree
from arena.game.clock import TimeControl
from arena.game.limits import ResourceLimits
from arena.game.record import Fault, FaultKind, GameRecord, MoveRecord, SeatRecord
from arena.game.referee import BotSpec, GameSetup, Observer, play_game
from arena.game.sandbox import cgroups
from arena.game.sandbox.bwrap import BOT_UID_BASE, DEFAULT_TMP_MB, SandboxPolicy, unavailable_reason
from arena.league.config import load_config
from arena.league.store import ResultStore
from arena.rules import GameState, Params, random_board
from arena.tournament import run_tournament
from tests.support.referee_helpers import FIXED_SECRET

if (_why := unavailable_reason()) is not None:
    pytest.skip(f"no bubblewrap sandbox here: {_why}", allow_module_level=True)

REPO = Path(__file__).resolve().parents[3]
HOSTILE = Path(__file__).resolve().parents[2] / "bots" / "hostile"
RANDOM_BOT = REPO / "sample_bots" / "random_bot.py"
MARKER = f"bsa-attack-test-{os.getpid()}-{secrets.token_hex(4)}"
CANARY = f"bsa-attack-canary-{os.getpid()}-{secrets.token_hex(4)}"
REPORT_PREFIX = "BSA-REPORT "

AS_ROOT = os.geteuid() == 0
NOBODY = 65534  # the canary: a process of an ordinary unprivileged user outside every sandbox
BWRAP = SandboxPolicy(mode="bwrap")
SEED = 3
TC = TimeControl(move_ms=2000, startup_ms=10_000)
END_GRACE_S = 0.5
SETTLE_S = 2.0
# For attacks that take the machine's processes or time at their turn, and for a machine
# loaded by other work: room enough that only the defence under test decides the outcome
# (a slow start, move, exit or kill is no failure; a process left at the end still is).
LOADED = TimeControl(move_ms=30_000, startup_ms=60_000)
LOADED_END_GRACE_S = 10.0
LOADED_SETTLE_S = 10.0  # still far below the minute the escapers live
FAILED = ("EACCES", "EPERM", "EROFS", "ENOENT", "ESRCH", "EBUSY")  # how a refused attack ends


# -- processes: the marker, the bots' namespaces, the canary -----------------------------------------


def _cmdline(pid: int | str) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().replace(b"\0", b" ").decode(errors="replace").strip()


def _uid(pid: int | str) -> int:
    return os.stat(f"/proc/{pid}").st_uid


def _pid_namespace(pid: int | str) -> str:
    return os.readlink(f"/proc/{pid}/ns/pid")


def is_wrapper(cmdline: str) -> bool:
    """bwrap (and its init, and prlimit/setpriv before they exec) carry the bot's command line too."""
    return os.path.basename(cmdline.split(" ", 1)[0]) in ("bwrap", "prlimit", "setpriv")


def _state(pid: int | str) -> str:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()[0].decode()


def game_processes(namespaces: Set[str] = frozenset()) -> dict[int, str]:
    """Live processes of this file's games: the marker in their command line, or in one of
    ``namespaces`` (the bots' PID namespaces), whatever their user or command line."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            state = _state(entry.name)
            if state == "Z":  # a zombie runs nothing (and its parent reaps it)
                continue
            cmd = _cmdline(entry.name)
            in_sandbox = bool(namespaces) and _pid_namespace(entry.name) in namespaces
            if MARKER in cmd or in_sandbox:
                found[int(entry.name)] = f"uid {_uid(entry.name)} state {state}: {cmd}"
        except OSError:
            continue  # gone meanwhile
    return found


def survivors(namespaces: Set[str] = frozenset(), settle_s: float = 2.0) -> dict[int, str]:
    """Game processes still there after ``settle_s`` (a killed process takes a moment to go)."""
    deadline = time.monotonic() + settle_s
    found = game_processes(namespaces)
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = game_processes(namespaces)
    return found


def kill_survivors(namespaces: Set[str] = frozenset()) -> None:
    for pid in game_processes(namespaces):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def open_fds() -> dict[int, str]:
    fds = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            fds[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return fds


def assert_no_zombie_children() -> None:
    with contextlib.suppress(ChildProcessError):
        assert os.waitpid(-1, os.WNOHANG) == (0, 0), "a child of the test process was left unreaped"


@pytest.fixture(scope="module", autouse=True)
def nothing_left_by_this_file() -> Iterator[None]:
    assert game_processes() == {}
    yield
    left = survivors()
    kill_survivors()
    assert left == {}, f"processes of the games survived: {left}"


@dataclass
class Canary:
    """A host process of the bots' own user, outside every sandbox, with a secret in its
    environment: only a bot that escaped its PID namespace could read or signal it."""

    proc: subprocess.Popen[bytes]
    secret: str

    def state(self) -> str:
        """The canary's state letter (``S`` sleeping, ``T`` stopped...), or why it is gone."""
        if self.proc.poll() is not None:
            return f"exited ({self.proc.returncode})"
        return _state(self.proc.pid)


@pytest.fixture
def canary() -> Iterator[Canary | None]:
    setpriv = shutil.which("setpriv")
    if not AS_ROOT or setpriv is None:  # bots then run as the arena's user, never as another
        yield None
        return
    secret = secrets.token_hex(16)
    uid = str(NOBODY)
    argv = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    argv += ["/bin/sh", "-c", "sleep 60 & wait", CANARY]
    proc = subprocess.Popen(
        argv,
        env={"PATH": "/usr/bin:/bin", "BSA_SECRET": secret},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 5
        while _uid(proc.pid) != NOBODY or CANARY not in _cmdline(proc.pid):
            assert time.monotonic() < deadline and proc.poll() is None, "the canary did not start"
            time.sleep(0.01)
        yield Canary(proc, secret)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def assert_canary_unharmed(canary: Canary | None) -> None:
    if canary is not None:
        assert canary.state() in ("S", "R"), f"the canary was harmed: {canary.state()}"


# -- the bots -------------------------------------------------------------------------------------------------


def command(script: Path, *args: str) -> tuple[str, ...]:
    return (sys.executable, "-X", f"bsa_marker={MARKER}", str(script), *args)


def hostile(
    script: str, *args: str, limits: ResourceLimits | None = None, policy: SandboxPolicy = BWRAP
) -> BotSpec:
    return BotSpec(
        name=script.replace("_", "-"),
        command=command(HOSTILE / f"{script}.py", *args),
        cwd=HOSTILE,
        limits=limits or ResourceLimits(),
        sandbox=policy,
    )


@dataclass(frozen=True)
class Opponent:
    folder: Path
    program: Path
    secret: str  # a comment in its source: an attacker that read the source would quote it

    def spec(self) -> BotSpec:
        return BotSpec(name="random", command=command(self.program), cwd=self.folder, sandbox=BWRAP)


@pytest.fixture(scope="module")
def opponent(tmp_path_factory: pytest.TempPathFactory) -> Opponent:
    """The random bot, copied into a temporary folder of its own (under /tmp: each sandbox
    has a private /tmp, so the host's is out of every bot's sight but its own folder)."""
    folder = tmp_path_factory.mktemp("opponent")
    folder.chmod(0o755)  # the bot's user (nobody, under root) reads its own folder
    secret = secrets.token_hex(16)
    program = folder / "random_bot.py"
    program.write_text(RANDOM_BOT.read_text() + f"\n# opponent's secret: {secret}\n")
    return Opponent(folder, program, secret)


# -- playing a game ---------------------------------------------------------------------------------------------


@dataclass
class Watch:
    """What was seen while a game ran: the bots' sandboxes and the game's processes.

    A PID namespace is named by its inode number, which the kernel gives to a new namespace
    as soon as the old one is freed: another test process's fresh sandbox (under pytest -n 2)
    would then count as this game's, and kill_survivors() would kill it.  So each recorded
    namespace is held open (``pins``) until the test ends: a namespace with a descriptor on it
    is not freed, and its number cannot be given out again meanwhile.
    """

    sandboxes: list[tuple[str, int]] = field(default_factory=list)  # bot name, sandbox init pid
    namespaces: set[str] = field(default_factory=set)
    pins: list[int] = field(default_factory=list)  # a descriptor on each recorded namespace
    started: list[str] = field(default_factory=list)  # each sandbox's PID namespace, in start order
    seen: list[dict[int, str]] = field(default_factory=list)  # game processes, after each move
    then: Observer | None = None  # a test's own observer, called after the snapshot

    def look(self, state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        self.seen.append(game_processes())
        if self.then is not None:
            self.then(state, move, fault)


def _pin_pid_namespace(pid: int) -> tuple[int, str]:
    """A descriptor on ``pid``'s PID namespace (which keeps it, and its number, from being
    freed) and the namespace's name, read through that descriptor."""
    fd = os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    return fd, os.readlink(f"/proc/self/fd/{fd}")


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    """Records (and holds) each sandbox's PID namespace the moment its bot starts."""
    w = Watch()
    start = botproc.BotPool.start

    def recording_start(self: botproc.BotPool, name: str, *args: Any, **kwargs: Any) -> botproc.BotProcess:
        bot = start(self, name, *args, **kwargs)
        assert bot.sandbox_init, f"{name} was not sandboxed"
        fd, namespace = _pin_pid_namespace(bot.sandbox_init)
        w.pins.append(fd)
        w.sandboxes.append((name, bot.sandbox_init))
        w.namespaces.add(namespace)
        w.started.append(namespace)
        return bot

    monkeypatch.setattr(botproc.BotPool, "start", recording_start)
    try:
        yield w
    finally:
        for fd in w.pins:
            os.close(fd)


@dataclass
class Game:
    record: GameRecord
    seat: int  # the attacker's

    @property
    def attacker(self) -> SeatRecord:
        return self.record.seats[self.seat]

    @property
    def other(self) -> SeatRecord:
        return self.record.seats[1 - self.seat]

    def report(self, attack: str) -> dict[str, Any]:
        """What the attacker reported of ``attack`` (its last such report)."""
        found = [r for r in reports(self.attacker) if r.get("attack") == attack]
        assert found, f"no {attack!r} report; stderr: {self.attacker.stderr_tail[-3000:]}"
        return found[-1]


def reports(seat: SeatRecord) -> list[dict[str, Any]]:
    return [
        json.loads(line.removeprefix(REPORT_PREFIX))
        for line in seat.stderr_tail.splitlines()
        if line.startswith(REPORT_PREFIX)
    ]


def play(
    attacker: BotSpec,
    opponent: Opponent,
    watch: Watch,
    *,
    seat: int = 0,
    tc: TimeControl = TC,
    end_grace_s: float = END_GRACE_S,
    settle_s: float = SETTLE_S,
) -> Game:
    """Play ``attacker`` against the random bot, then check what must hold after every
    game: no child or descriptor of the test left, nothing of the game running (``settle_s``
    after it), every seat sandboxed, and a record that round-trips and replays."""
    setup = GameSetup(
        game_id=f"attack-{attacker.name}",
        seed=SEED,
        time_control=tc,
        board=random_board(SEED, 8),
        end_grace_s=end_grace_s,
        keep_transcript=True,
        seed_secret=FIXED_SECRET,  # the same moves on every run (the seats' seeds come from it)
    )
    bots = [attacker, opponent.spec()]
    if seat == 1:
        bots.reverse()
    fds = open_fds()
    first = len(watch.started)
    try:
        record = play_game(setup, bots, watch.look)
        assert_no_zombie_children()
        new_pins = set(watch.pins) - set(fds)  # the test's own descriptors on the bots' namespaces
        assert {fd: p for fd, p in open_fds().items() if fd not in new_pins} == fds, (
            "the game leaked file descriptors"
        )
        left = survivors(watch.namespaces, settle_s)
        assert left == {}, f"processes of the game survived it: {left}"
    finally:
        kill_survivors(watch.namespaces)
    # Each bot of this game had a PID namespace of its own (the watch holds them all, so no
    # number was given out twice while the test ran).
    these = watch.started[first:]
    assert len(set(these)) == len(these) >= 2, watch.sandboxes
    assert [s.isolation.get("sandbox") for s in record.seats] == ["bwrap", "bwrap"], record.seats
    assert GameRecord.from_json(record.to_json()) == record
    assert record.replay().is_over
    return Game(record, seat)


def assert_opponent_unharmed(game: Game) -> None:
    other = game.other
    assert other.fault is None, other.fault
    assert other.reported_name == "random"
    assert other.exited_cleanly and other.exit == "exit 0", (other.exit, other.stderr_tail)
    assert any(m.player == 1 - game.seat for m in game.record.moves)
    assert not game.record.standings[1 - game.seat].forfeited


def assert_attacker_played_on(game: Game) -> None:
    """The attack cost the attacker nothing: it finished the game as any bot does."""
    assert game.attacker.fault is None, (game.attacker.fault, game.attacker.stderr_tail[-2000:])
    assert game.attacker.exited_cleanly, game.attacker.exit
    assert any(m.player == game.seat for m in game.record.moves)


def refused(outcome: str) -> bool:
    return outcome in FAILED


# -- 1. the arena's environment --------------------------------------------------------------------------


def test_reading_environments_finds_no_secret_and_only_its_own_processes(
    monkeypatch: pytest.MonkeyPatch, opponent: Opponent, watch: Watch, canary: Canary | None
) -> None:
    secret = secrets.token_hex(16)
    monkeypatch.setenv("BSA_SECRET", secret)
    game = play(hostile("reads_environments"), opponent, watch)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("environments")
    said = game.attacker.stderr_tail + "\n".join(game.attacker.infos)
    assert secret not in said and "BSA_SECRET" not in said
    if canary is not None:
        assert canary.secret not in said
    assert_canary_unharmed(canary)
    # Its own PID namespace: the sandbox's init and the bot; no opponent, no arena, no pytest
    # (pids there are the namespace's own: what they run tells whose they are).
    pids = set(found["pids"])
    assert pids == set(found["probed"]), found  # no process hidden from /proc answers a signal either
    assert found["me"] in pids and len(pids) <= 3, found["cmdlines"]
    for pid, cmd in found["cmdlines"].items():
        assert "reads_environments.py" in cmd or is_wrapper(cmd.replace("\0", " ")), (pid, cmd)
        assert "random_bot" not in cmd and "pytest" not in cmd and CANARY not in cmd
    # Its own environment holds the scrubbed variables only.
    allowed = {
        "PATH",
        "LANG",
        "HOME",
        "PWD",
        "PYTHONUNBUFFERED",
        "TMPDIR",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
    }
    assert set(found["own_env"]) <= allowed | {proctree.BOT_ID_VARIABLE}, found["own_env"]
    assert sorted(found["fds"]) == ["0", "1", "2"], found["fds"]  # nothing of bwrap's or the arena's
    if AS_ROOT:
        assert found["uid"] >= BOT_UID_BASE  # a user of its own, not root, not nobody
        caps = dict(line.split(":\t") for line in found["caps"])
        assert all(int(caps[k], 16) == 0 for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")), caps


# -- 2. the opponent's command line and source --------------------------------------------------------------


def test_the_opponents_process_and_source_are_out_of_reach(
    opponent: Opponent, watch: Watch, canary: Canary | None
) -> None:
    attacker = hostile("reads_opponent", str(opponent.program), str(opponent.folder), opponent.program.name)
    game = play(attacker, opponent, watch, seat=1)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("opponent")
    assert found["found"] == {}, found["found"]
    # Not refused but absent: the opponent's folder does not exist in the attacker's world.
    assert (found["source"], found["stat"], found["listdir"]) == ("!ENOENT", "ENOENT", "ENOENT"), found
    assert all(text.startswith("!") for text in found["via_links"].values()), found["via_links"]
    assert opponent.secret not in game.attacker.stderr_tail
    assert_canary_unharmed(canary)


# -- 3. the arena's code and the bot's own folder ------------------------------------------------------------


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_arena_code_and_the_bots_folder_are_read_only(opponent: Opponent, watch: Watch) -> None:
    token = secrets.token_hex(6)
    site = Path(sysconfig.get_paths()["purelib"])
    watched = [REPO / "arena" / "__init__.py", HOSTILE / "writes_code.py", HOSTILE / "_common.py"]
    before = {p: (digest(p), p.stat().st_mode, p.stat().st_mtime_ns) for p in watched}

    def planted() -> list[Path]:
        return [p for d in (REPO / "arena", site, HOSTILE) for p in d.glob(f"bsa_hacked_{token}*")]

    try:
        game = play(hostile("writes_code", token), opponent, watch)
    finally:
        for p in planted():  # only if the attack worked: leave no trace of it
            if p.is_dir() and not p.is_symlink():
                p.rmdir()
            else:
                p.unlink()
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("code")
    assert found["places"]["arena"] == str(REPO / "arena")
    tries = {
        f"{place}.{op}": out
        for place in ("arena", "site", "cwd", "arena_file", "own_file")
        for op, out in found[place].items()
    }
    assert all(refused(out) for out in tries.values()), tries
    assert planted() == []
    assert {p: (digest(p), p.stat().st_mode, p.stat().st_mtime_ns) for p in watched} == before


# -- 4. signals and descriptors of other processes ------------------------------------------------------------


def test_other_processes_cannot_be_found_signalled_or_tapped(
    opponent: Opponent, watch: Watch, canary: Canary | None
) -> None:
    game = play(hostile("attacks_processes"), opponent, watch)
    assert_opponent_unharmed(game)
    assert_canary_unharmed(canary)
    found = game.report("processes")
    # It found nothing but its own sandbox's init (bwrap) ...
    assert set(found["pids"]) == set(found["probed"]) == {1, found["me"]}, found
    assert set(found["results"]) == {"1"}, found["results"]
    assert is_wrapper(found["results"]["1"].pop("cmdline").replace("\0", " ")), found["results"]
    if AS_ROOT:  # ... which runs as root: it could do nothing to it either
        assert all(refused(out) for out in found["results"]["1"].values()), found["results"]
        assert_attacker_played_on(game)
    # (Without root, the init is the bot's own user: the kernel ignores SIGSTOP/SIGKILL sent to
    # a namespace's init from inside, and its descriptors are the bot's own pipes.)


# -- 5. kill(-1, SIGKILL) ---------------------------------------------------------------------------------------


def test_killing_every_process_it_may_reaches_only_its_own_sandbox(
    opponent: Opponent, watch: Watch, canary: Canary | None
) -> None:
    game = play(hostile("kills_everyone"), opponent, watch)
    assert_opponent_unharmed(game)  # it runs as the same user, and survived
    assert_canary_unharmed(canary)  # so does a process of that user outside any sandbox
    fault = game.attacker.fault
    assert fault is None or fault.kind is FaultKind.CRASH, fault
    after = [r for r in reports(game.attacker) if r.get("stage") == "after"]
    if fault is None:  # it survived its own attack, as kill(-1) spares the caller
        assert after and after[0]["result"] == "ok", after
        assert os.WIFSIGNALED(after[0]["child_status"]), after  # the signal did go out: to its child
        assert os.WTERMSIG(after[0]["child_status"]) == signal.SIGKILL
        assert_attacker_played_on(game)


# -- 6. the results of a league ---------------------------------------------------------------------------------


def league_file(
    folder: Path, output: Path, attacker_cwd: Path, opponent: Opponent, attack: bool, **forger: object
) -> Path:
    """A 4-game league (2 rounds, both seat orders) of the forger against the random bot."""
    bots = [
        {
            "name": "forger",
            "command": list(command(attacker_cwd / "forges_results.py", str(output))),
            "cwd": str(attacker_cwd),
            "env": {"BSA_ATTACK": "1" if attack else "0"},
            **forger,
        },
        {"name": "random", "command": list(command(opponent.program)), "cwd": str(opponent.folder)},
    ]
    text = (
        "name: attack\nseed: 5\nplayers: 2\nrounds: 2\nconcurrency: 2\nsandbox: bwrap\n"
        f"output: {json.dumps(str(output))}\n"
        "time_control: {move: 2s, startup: 10s}\nend_grace: 500ms\nretries: 0\n"
        "bots:\n" + "".join(f"  - {json.dumps(b)}\n" for b in bots)
    )
    path = folder / f"league-{'attack' if attack else 'quiet'}.yaml"
    path.write_text(text)
    return path


def run_league(path: Path) -> tuple[list[GameRecord], list[GameRecord]]:
    """Play a league; return the records as the referee made them, and as stored."""
    played: list[GameRecord] = []
    try:
        config = load_config(path)
        state = run_tournament(config, echo=lambda line: None, on_progress=lambda s, g, r: played.append(r))
        assert state.failures == [], state.failures
        left = survivors()
        assert left == {}, f"processes of the league survived it: {left}"
    finally:
        kill_survivors()
    with ResultStore.open(config.output) as store:  # the store opens and reads back whole
        stored = list(store.records())
        assert store.count() == len(stored)
    return played, stored


def outcome_of(records: list[GameRecord]) -> dict[str, Any]:
    """Per game: every move, the standings and the faults (not times, which vary)."""
    return {
        r.game_id: (
            [(m.player, m.move) for m in r.moves],
            r.standings,
            [s.name for s in r.seats],
            [None if s.fault is None else s.fault.kind for s in r.seats],
        )
        for r in records
    }


def assert_league_intact(played: list[GameRecord], stored: list[GameRecord], output: Path) -> None:
    """Every game the referee played is stored, exactly as played, and nothing else is."""
    assert len(played) == 4 and len(stored) == 4
    assert {r.game_id: r for r in stored} == {r.game_id: r for r in played}
    for r in stored:
        assert all(s.isolation.get("sandbox") == "bwrap" for s in r.seats), r.seats
        assert all(s.fault is None for s in r.seats), [s.fault for s in r.seats]
    names = sorted(p.name for p in output.iterdir() if not p.name.startswith("results.sqlite-"))
    assert names == [".seed-secret", "report.html", "results.sqlite", "standings.json", "standings.md"]
    assert not output.with_name(output.name + "-gone").exists()


def results_attacks(records: list[GameRecord]) -> list[dict[str, Any]]:
    """The forger's report of each game (one per game: it attacked in every one)."""
    found = []
    for r in records:
        seat = next(s for s in r.seats if s.name == "forger")
        mine = [x for x in reports(seat) if x.get("attack") == "results"]
        assert len(mine) == 1, seat.stderr_tail
        found.append(mine[0])
    return found


def assert_results_attack_failed(found: dict[str, Any], listing: object) -> None:
    assert found["via_fd"] == {}, found  # no process holding the store is in sight
    assert found["listing"] == listing, found
    tries = [found[k] for k in ("write", "forge", "replace", "rename")] + list(found["delete"].values())
    assert all(refused(t) for t in tries), found


def test_a_bot_cannot_forge_or_destroy_league_results(
    tmp_path: Path, opponent: Opponent, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.game import seeds

    monkeypatch.setattr(seeds, "new_secret", lambda: "3" * 32)  # both runs: the same seat seeds
    quiet_out, attack_out = tmp_path / "quiet", tmp_path / "attacked"
    quiet = run_league(league_file(tmp_path, quiet_out, HOSTILE, opponent, attack=False))
    attacked = run_league(league_file(tmp_path, attack_out, HOSTILE, opponent, attack=True))
    assert_league_intact(*quiet, quiet_out)
    assert_league_intact(*attacked, attack_out)
    assert outcome_of(attacked[1]) == outcome_of(quiet[1])  # the attack changed no game ...
    standings = [json.loads((out / "standings.json").read_text()) for out in (quiet_out, attack_out)]
    assert standings[0] == standings[1]  # ... nor the league's table
    assert not any(reports(s) for r in quiet[1] for s in r.seats)  # the quiet run made no attack
    for found in results_attacks(attacked[1]):
        assert_results_attack_failed(found, "ENOENT")  # the results folder is not in its world at all


def test_a_results_folder_inside_a_writable_bot_folder_is_hidden_from_it(
    tmp_path: Path, opponent: Opponent
) -> None:
    home = tmp_path / "forger"
    home.mkdir()
    for name in ("forges_results.py", "_common.py"):
        shutil.copy(HOSTILE / name, home / name)
    output = home / "results"
    played, stored = run_league(league_file(tmp_path, output, home, opponent, attack=True, writable=True))
    assert_league_intact(played, stored, output)
    for found in results_attacks(stored):
        assert_results_attack_failed(found, [])  # an empty, read-only folder in its place


# -- 7. escaping the end-of-game cleanup --------------------------------------------------------------------------


def test_daemons_pgid_changers_and_pid_hoppers_do_not_outlive_the_game(
    opponent: Opponent, watch: Watch
) -> None:
    loaded = {"tc": LOADED, "end_grace_s": LOADED_END_GRACE_S, "settle_s": LOADED_SETTLE_S}
    game = play(hostile("escapes_cleanup"), opponent, watch, **loaded)  # play() checks nothing survived
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("escape")
    assert set(found["pids"]) == {"dfork", "pgid", "hopper"}
    # They did run during the game (the test is not vacuous): each trick was seen.
    seen = [
        cmd for snapshot in watch.seen for cmd in snapshot.values() if not is_wrapper(cmd.split(": ", 1)[1])
    ]
    assert any(f"{MARKER}-dfork 60" in cmd for cmd in seen), seen[:20]
    assert any(f"{MARKER}-pgid 60" in cmd for cmd in seen), seen[:20]
    # The hopper told the bot its first pids: it ran under three of them (and play() saw none survive).
    assert len(set(found["hops"])) == 3 and found["hops"][0] == found["pids"]["hopper"], found


# -- 8. a fork and thread bomb ------------------------------------------------------------------------------------


def test_a_fork_and_thread_bomb_is_held_to_the_task_limit(opponent: Opponent, watch: Watch) -> None:
    limits = ResourceLimits()
    game = play(hostile("fork_bomb", "1000"), opponent, watch)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("bomb")
    assert limits.tasks is not None
    assert found["processes"] + found["threads"] < limits.tasks, found
    assert found["errors"], found  # it hit the limit
    assert max(len(s) for s in watch.seen) >= 100  # the bomb did go off
    if game.attacker.isolation["limits"].startswith("cgroup"):  # the cgroup's limit, not another one
        assert found["processes"] + found["threads"] >= limits.tasks - 10, found


# -- 9. the network -----------------------------------------------------------------------------------------------


@pytest.fixture
def listeners() -> Iterator[tuple[socket.socket, socket.socket, str]]:
    """A TCP server on 127.0.0.1 and a server on an abstract Unix socket, both on the host."""
    name = f"bsa-attack-{secrets.token_hex(8)}"
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(8)
        unix.bind("\0" + name)
        unix.listen(8)
        yield tcp, unix, name
    finally:
        tcp.close()
        unix.close()


def accepted(server: socket.socket) -> int:
    """Connections that arrived (the kernel completes them without accept)."""
    server.setblocking(False)
    count = 0
    while True:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def test_without_network_neither_the_hosts_loopback_nor_the_outside_is_reachable(
    opponent: Opponent, watch: Watch, listeners: tuple[socket.socket, socket.socket, str]
) -> None:
    tcp, unix, name = listeners
    port = str(tcp.getsockname()[1])
    game = play(hostile("uses_network", port, name, "outside"), opponent, watch)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("network")
    assert found["results"] == {
        "loopback": "ECONNREFUSED",
        "abstract": "ECONNREFUSED",
        "outside": "ENETUNREACH",
    }
    assert found["interfaces"] == ["lo"]
    assert accepted(tcp) == 0 and accepted(unix) == 0
    assert game.attacker.isolation["network"] is False


def test_with_network_the_bot_still_cannot_reach_the_hosts_listeners(
    opponent: Opponent, watch: Watch, listeners: tuple[socket.socket, socket.socket, str]
) -> None:
    # network: true is a network of the bot's own (tests/system/game/test_bot_network.py tests the outside):
    # the host's loopback listener and its abstract Unix socket stay out of reach.
    from arena.game.sandbox import network

    if network.unavailable_reason() is not None:
        pytest.skip(f"no network of its own here: {network.unavailable_reason()}")
    tcp, unix, name = listeners
    port = str(tcp.getsockname()[1])
    policy = SandboxPolicy(mode="bwrap", network=True)
    game = play(hostile("uses_network", port, name, policy=policy), opponent, watch)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("network")
    assert found["results"]["loopback"] != "ok" and found["results"]["abstract"] != "ok", found
    assert accepted(tcp) == 0 and accepted(unix) == 0
    assert set(found["interfaces"]) > {"lo"}, found  # an interface of its own to the outside
    assert game.attacker.isolation["network"] is True
    assert game.other.isolation["network"] is False


# -- 10. the disk ---------------------------------------------------------------------------------------------------


def test_filling_the_disk_stops_at_the_sandboxes_tmp_size(
    tmp_path: Path, opponent: Opponent, watch: Watch
) -> None:
    token = secrets.token_hex(6)
    host_places = [HOSTILE, Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"), tmp_path, opponent.folder]

    def fill_files() -> list[Path]:
        return [p for d in host_places if d.is_dir() for p in d.glob(f"bsa-fill-{token}-*")]

    try:
        game = play(hostile("fills_disk", token), opponent, watch)
    finally:
        for p in fill_files():
            p.unlink()
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("disk")["results"]
    assert found["/tmp"]["stopped_by"] == "ENOSPC" and 0 < found["/tmp"]["mb"] <= DEFAULT_TMP_MB, found
    assert found[str(HOSTILE)] == {"mb": 0, "stopped_by": "EROFS"}, found
    total = sum(place["mb"] for place in found.values())
    assert total <= DEFAULT_TMP_MB, found  # /tmp (and HOME in it) is all it could fill
    # None of it is left on the host, in any place the bot could have reached. (The host's free
    # space is no witness: every other process on the machine writes meanwhile.)
    assert fill_files() == []


# -- 11. memory ---------------------------------------------------------------------------------------------------------


def test_memory_is_capped_for_the_bot_as_a_whole(opponent: Opponent, watch: Watch) -> None:
    limits = ResourceLimits(memory_mb=512)
    game = play(hostile("hogs_memory_tree", "4", "600", limits=limits), opponent, watch)
    assert_opponent_unharmed(game)
    found = game.report("memory")
    assert len(found["children"]) == 4
    assert "exit 0" not in found["children"], found  # no child got its 600 MB
    attacker = game.attacker
    if attacker.isolation["limits"].startswith("cgroup"):
        assert attacker.exit is not None and "out of memory" in attacker.exit, attacker.exit
        # The kernel's OOM killer; on a loaded machine a child may still be filling its pages when
        # the bot stops waiting (5 s): it is killed then, short of its 600 MB all the same.
        assert set(found["children"]) <= {"signal 9", "still running"}, found
        assert "signal 9" in found["children"], found
    else:  # each process alone is held to its address space
        assert all(c == "exit 12" for c in found["children"]), found
    if attacker.fault is None:
        assert_attacker_played_on(game)
    else:
        assert attacker.fault.kind is FaultKind.CRASH, attacker.fault


# -- the system-call filter and a user per bot ------------------------------------------------------------


def test_a_bot_cannot_make_a_user_namespace(opponent: Opponent, watch: Watch) -> None:
    game = play(hostile("makes_user_namespace", "100"), opponent, watch)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("userns")
    assert found["steps"]["unshare"] in ("EPERM", "ENOSPC", "EUSERS", "EINVAL"), found
    assert found["written_mb"] == 0, found


def keyring_usable() -> bool:
    """Whether this machine lets a process use the kernel keyring at all (a container's
    seccomp profile often forbids it: then there is nothing to attack)."""
    probe = (
        "import ctypes, platform, sys; libc = ctypes.CDLL(None)\n"
        "nr = {'x86_64': 248, 'aarch64': 217}.get(platform.machine())\n"
        "sys.exit(nr is None or libc.syscall(nr, b'user', b'bsa-probe', b'x', 1, ctypes.c_int(-2)) <= 0)"
    )
    return subprocess.run([sys.executable, "-c", probe], check=False).returncode == 0


def test_the_kernel_keyring_is_no_channel_between_sandboxes(opponent: Opponent, watch: Watch) -> None:
    if not keyring_usable():
        pytest.skip("no process may use the kernel keyring on this machine")
    token = secrets.token_hex(8)
    loaded = {"tc": LOADED, "end_grace_s": LOADED_END_GRACE_S, "settle_s": LOADED_SETTLE_S}
    writer = play(hostile("shares_keyring", "write", token), opponent, watch, **loaded)
    reader = play(hostile("shares_keyring", "read", token), opponent, watch, **loaded)  # a later game
    for game in (writer, reader):
        assert_opponent_unharmed(game)
        assert_attacker_played_on(game)
    found = reader.report("keyring")
    assert found["found"] is None, (writer.report("keyring"), found)


@pytest.mark.parametrize(
    "limits",
    ["cgroup", "rlimits"],
)
def test_one_bot_holding_its_tasks_does_not_starve_other_games(
    limits: str, monkeypatch: pytest.MonkeyPatch, opponent: Opponent, watch: Watch
) -> None:
    if limits == "cgroup" and cgroups.support() is None:
        pytest.skip("no cgroups for bots on this machine")
    if limits == "rlimits":
        monkeypatch.setattr(cgroups, "support", lambda: None)  # as on a machine without cgroups
    meanwhile: list[GameRecord] = []

    def another_game(state: GameState, move: MoveRecord | None, fault: tuple[int, Fault] | None) -> None:
        if move is not None and move.player == 0 and not meanwhile:  # it holds its tasks from its first turn
            setup = GameSetup(
                game_id="meanwhile",
                seed=SEED,
                params=Params(players=4),
                time_control=LOADED,  # (its bots start and move while the attacker forks away)
                board=random_board(SEED, 16),
            )
            meanwhile.append(play_game(setup, [opponent.spec() for _ in range(4)]))

    watch.then = another_game
    # Its first turn lasts until it holds all it may (up to its 20 s): LOADED's 30 s a move.
    loaded = {"tc": LOADED, "end_grace_s": LOADED_END_GRACE_S, "settle_s": LOADED_SETTLE_S}
    game = play(hostile("holds_processes"), opponent, watch, **loaded)
    assert game.attacker.isolation["limits"].startswith(limits)
    assert_opponent_unharmed(game)
    assert_attacker_played_on(game)
    found = game.report("hold")
    assert found["full"] and found["processes"] >= 100, found  # it did take all it could
    assert meanwhile, "the other game was not played"
    assert [s.fault for s in meanwhile[0].seats] == [None] * 4, [s.fault for s in meanwhile[0].seats]
