"""Every bad input gets a one-line error, exit 2, never a traceback or a hang (issue 9).

A table of bad tournament files, board files, game records, positions and
options, each run through the real command line: each case must end within a
deadline, exit 2 with exactly one ``Error:`` line that names the file (and the
line or key where there is one), and show no traceback.  Inputs that could
hang (a FIFO, ``--step`` with no terminal, Ctrl-C) run in a subprocess with a
timeout.  Valid inputs at the limits must still work, and fuzzers feed the
readers random text.

The cases that need no process; the others are in tests/system/cli/test_bad_inputs.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.botkit import Turn
from arena.cli import main
from arena.errors import ArenaError, ConfigError
from arena.game.record import FaultKind, GameRecord
from arena.game.referee import GameSetup, Referee
from arena.league.config import parse_config
from arena.rules import (
    GameState,
    Move,
    Params,
    Phase,
    TilePlacement,
    format_position,
    legal_tile_placements,
    parse_board_file,
    parse_move,
    parse_position,
)
from arena.rules.board import MAX_BOARD_HEXES
from arena.rules.hexgrid import COORD_LIMIT
from arena.textfile import BOARD_FILE_MAX_BYTES
from tests.support.bad_inputs import (
    BASE,
    GOOD_RECORD,
    base_with,
    check_clean_error,
    invoke_with_deadline,
)
from tests.support.fakebot import ScriptedChannel, engine_bot, scripted
from tests.support.referee_helpers import specs

REPO = Path(__file__).resolve().parents[3]


def rows(width: int, height: int) -> str:
    """A board file of ``height`` rows of ``width`` hexes."""
    return "".join(" " * r + " ".join("." * width) + "\n" for r in range(height))


@dataclass(frozen=True)
class Case:
    """A bad input: files to write (name -> text or bytes), the command line, what the error says."""

    id: str
    files: dict[str, str | bytes]
    args: list[str]
    needles: tuple[str, ...]


def yaml_case(id: str, text: str | bytes, *needles: str, command: str = "run") -> Case:
    return Case(id, {"t.yaml": text}, [command, "t.yaml"], ("t.yaml", *needles))


def board_case(id: str, text: str | bytes, *needles: str) -> Case:
    return Case(id, {"b.board": text}, ["board", "--file", "b.board"], ("b.board", *needles))


def record_case(id: str, change: Callable[[dict], object] | str, *needles: str) -> Case:
    """``change`` edits a copy of a good record, or is the file's whole text."""
    if isinstance(change, str):
        text = change
    else:
        data = json.loads(json.dumps(GOOD_RECORD))
        change(data)
        text = json.dumps(data)
    return Case(id, {"g.json": text}, ["replay", "g.json"], ("g.json", *needles))


def deep(opening: str, closing: str, n: int) -> str:
    return opening * n + closing * n


ALIAS_BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 7)
)

CASES = [
    # --- tournament files: YAML that is more than plain data --------------------------
    yaml_case("custom-tag", base_with("seed: 3", "seed: !foo 3"), "t.yaml:2", "'!foo'"),
    yaml_case(
        "python-tag", base_with("name: t", "name: !!python/name:os.system t"), "t.yaml:1", "!!python/name"
    ),
    yaml_case(
        "python-apply",
        base_with("rounds: 1", 'rounds: !!python/object/apply:os.system ["true"]'),
        "t.yaml:3",
        "python/object/apply",
    ),
    yaml_case("binary-tag", base_with("name: t", "name: !!binary dGVzdA=="), "t.yaml:1", "!!binary"),
    yaml_case("set-tag", base_with("rounds: 1", "rounds: !!set {a, b}"), "t.yaml:3", "!!set"),
    yaml_case("recursive-alias", "loop: &a [*a]\n" + BASE, "t.yaml:1", "alias *a"),
    yaml_case("alias-bomb", ALIAS_BOMB + BASE, "t.yaml:2", "alias"),
    yaml_case("scalar-alias", base_with("seed: 3", "x: &s 3\nseed: *s"), "t.yaml:3", "alias *s"),
    yaml_case("deep-list", base_with("name: t", "name: " + deep("[", "]", 100_000)), "t.yaml:1", "nested"),
    yaml_case("deep-map", base_with("name: t", "name: " + deep("{a: ", "}", 60)), "t.yaml:1", "nested"),
    yaml_case("huge-value", 'name: "' + "x" * (10 * 1024 * 1024) + '"\n', "larger than 1 MiB"),
    yaml_case("long-value", base_with("name: t", 'name: "' + "x" * 20_000 + '"'), "t.yaml:1", "20000"),
    yaml_case("not-utf8", base_with("name: t", "name: t").encode() + b"# \xff\xfe\n", "t.yaml:12", "UTF-8"),
    yaml_case("latin1", base_with("name: t", "name: caf\xe9").encode("latin-1"), "t.yaml:1", "UTF-8"),
    yaml_case("raw-nul", base_with("name: t", "name: t\x00"), "t.yaml:1", "#x0000"),
    yaml_case("escaped-nul", base_with("name: t", 'name: "t\\0"'), "t.yaml:1", "NUL"),
    yaml_case("bell", base_with("name: t", "name: t\x07"), "t.yaml:1", "not valid YAML"),
    yaml_case("binary-file", b"\x89PNG\r\n\x1a\n\x00\x00", "t.yaml:1", "UTF-8"),
    yaml_case("empty", "", "empty"),
    yaml_case("only-comment", "# nothing\n", "empty"),
    yaml_case("top-list", "[1, 2]\n", "t.yaml:1", "mapping"),
    yaml_case("top-scalar", "hello\n", "t.yaml:1", "mapping"),
    yaml_case("two-documents", BASE + "---\nname: u\n", "t.yaml:12", "another document"),
    yaml_case("tab-indent", base_with("  - name: one", "\t- name: one"), "t.yaml:8", "not valid YAML"),
    yaml_case("unclosed", base_with("seed: 3", "seed: [3"), "not valid YAML"),
    yaml_case("complex-key", base_with("seed: 3", "? [a, b]\n: 3"), "t.yaml:2", "keys must be names"),
    yaml_case("duplicate-key", base_with("seed: 3", "seed: 3\nseed: 4"), "t.yaml:3", "given twice"),
    yaml_case("yaml11-bool-key", base_with("seed: 3", "on: 3"), "t.yaml:2", "unknown key 'on'"),
    yaml_case("date-name", base_with("name: t", "name: 2024-01-01"), "t.yaml:1", "'name' must be a string"),
    yaml_case("bad-date", base_with("seed: 3", "seed: 2024-13-45"), "t.yaml:2", "!!timestamp"),
    yaml_case("int-tag-text", base_with("seed: 3", "seed: !!int abc"), "t.yaml:2", "!!int"),
    yaml_case("5000-digit-seed", base_with("seed: 3", "seed: " + "9" * 5000), "t.yaml:2", "digits"),
    yaml_case("float-seed", base_with("seed: 3", "seed: 1.5"), "t.yaml:2", "'seed'"),
    yaml_case("bool-rounds", base_with("rounds: 1", "rounds: true"), "t.yaml:3", "'rounds'"),
    # --- tournament files: values out of range -----------------------------------------
    yaml_case("move-nan", base_with("{move: 300ms}", "{move: .nan}"), "t.yaml:6", "time_control.move"),
    yaml_case("move-inf", base_with("{move: 300ms}", "{move: .inf}"), "t.yaml:6", "time_control.move"),
    yaml_case("move-negative", base_with("{move: 300ms}", "{move: -1}"), "t.yaml:6", "time_control.move"),
    yaml_case("base-nan", base_with("{move: 300ms}", "{base: .nan}"), "t.yaml:6", "time_control.base"),
    yaml_case("rating-mu-nan", base_with("seed: 3", "rating: {mu: .nan}"), "t.yaml:2", "'rating.mu'"),
    yaml_case("rating-mu-huge", base_with("seed: 3", "rating: {mu: 1.0e+300}"), "t.yaml:2", "'rating.mu'"),
    yaml_case("rating-beta-inf", base_with("seed: 3", "rating: {beta: .inf}"), "t.yaml:2", "'rating.beta'"),
    yaml_case("rating-sigma-0", base_with("seed: 3", "rating: {sigma: 0}"), "t.yaml:2", "'rating.sigma'"),
    yaml_case("rating-tau-neg", base_with("seed: 3", "rating: {tau: -1}"), "t.yaml:2", "'rating.tau'"),
    yaml_case(
        "rating-draw-nan",
        base_with("seed: 3", "rating: {draw_probability: .nan}"),
        "t.yaml:2",
        "'rating.draw_probability'",
    ),
    yaml_case("rating-key", base_with("seed: 3", "rating: {muu: 3}"), "t.yaml:2", "unknown key 'rating.muu'"),
    yaml_case("cpus-nan", base_with("seed: 3", "limits: {cpus: .nan}"), "t.yaml:2", "limits.cpus"),
    yaml_case(
        "memory-huge", base_with("seed: 3", "limits: {memory_mb: 1099511627776}"), "t.yaml:2", "memory_mb"
    ),
    yaml_case("output-dev-null", base_with("seed: 3", "output: /dev/null"), "t.yaml:2", "'output'"),
    yaml_case("output-proc", base_with("seed: 3", "output: /proc/self/x"), "t.yaml:2", "'output'"),
    yaml_case("output-sys", base_with("seed: 3", "output: /sys/kernel"), "t.yaml:2", "'output'"),
    Case(
        "output-is-a-file",
        {"t.yaml": base_with("seed: 3", "output: taken"), "taken": "a file\n"},
        ["run", "t.yaml"],
        ("t.yaml:2", "'output'", "not a folder"),
    ),
    yaml_case(
        "env-name", base_with("    command: [", '    env: {"A=B": x}\n    command: ['), "t.yaml:9", "env"
    ),
    yaml_case(
        "env-list", base_with("    command: [", "    env: {A: [1]}\n    command: ["), "t.yaml:9", "env"
    ),
    yaml_case(
        "command-nul", base_with("    command: [", '    build: "make\\0"\n    command: ['), "t.yaml:9", "NUL"
    ),
    yaml_case(
        "challenger-list",
        base_with("seed: 3", "format: gauntlet\nchallengers: [[one]]"),
        "t.yaml:3",
        "'challengers'",
    ),
    yaml_case("bots-scalar", BASE.split("bots:")[0] + "bots: 5\n", "t.yaml:7", "'bots'"),
    yaml_case("bots-null", BASE.split("bots:")[0] + "bots:\n", "t.yaml:7", "'bots'"),
    yaml_case("bot-scalar", base_with("  - name: one", "  - 5\n  - name: one"), "t.yaml:8", "mapping"),
    yaml_case("time-control-scalar", base_with("{move: 300ms}", "5"), "t.yaml:6", "mapping"),
    # --- tournament files and their board files: what may not be read -------------------
    Case(
        "board-dev-zero",
        {"t.yaml": base_with("seed: 3", "board: /dev/zero")},
        ["run", "t.yaml"],
        ("t.yaml:2", "'board'", "/dev/zero", "not a regular file"),
    ),
    Case(
        "board-folder",
        {"t.yaml": base_with("seed: 3", "board: ."), "x": ""},
        ["run", "t.yaml"],
        ("t.yaml:2", "'board'", "a folder"),
    ),
    Case(
        "board-200x200",
        {"t.yaml": base_with("seed: 3", "board: b.board"), "b.board": rows(200, 200)},
        ["run", "t.yaml"],
        ("b.board", "line 6", f"more than {MAX_BOARD_HEXES} hexes"),
    ),
    Case(
        "board-not-utf8",
        {"t.yaml": base_with("seed: 3", "board: b.board"), "b.board": b". .\n\xff\n"},
        ["run", "t.yaml"],
        ("t.yaml:2", "b.board:2", "UTF-8"),
    ),
    Case("tournament-dev-zero", {}, ["run", "/dev/zero"], ("/dev/zero", "not a regular file")),
    Case("standings-dev-zero-yaml", {}, ["standings", "/dev/zero"], ("/dev/zero",)),
    Case("tournament-folder.yaml", {"d.yaml/x": ""}, ["standings", "d.yaml"], ("d.yaml", "a folder")),
    # --- board files ---------------------------------------------------------------------
    board_case("board-file-200x200", rows(200, 200), "line 6", f"more than {MAX_BOARD_HEXES} hexes"),
    board_case("board-file-1025", rows(41, 25), "line 25", f"more than {MAX_BOARD_HEXES} hexes"),
    board_case("board-file-too-wide", " ".join(["."] * (COORD_LIMIT + 2)) + "\n", "spans more than"),
    board_case("board-file-too-tall", "".join(" " * r + ".\n" for r in range(COORD_LIMIT + 2)), "spans"),
    board_case("board-file-big", "#" * (BOARD_FILE_MAX_BYTES + 1), "larger than 1 MiB"),
    board_case("board-file-latin1", ". .\n. caf\xe9\n".encode("latin-1"), "b.board:2", "UTF-8"),
    board_case("board-file-tab", ". .\n\t. .\n", "line 2", "tabs"),
    board_case("board-file-letter", ". x .\n", "line 1, column 3", "'x'"),
    board_case("board-file-off-grid", ". .\n. .\n", "line 2", "off the grid"),
    board_case("board-file-two-pieces", ". .\n\n. .\n", "not in one piece"),
    board_case("board-file-empty", "# nothing\n", "no pasture"),
    Case("board-file-dev-zero", {}, ["board", "--file", "/dev/zero"], ("/dev/zero", "not a regular file")),
    Case("board-file-folder", {"d/x": ""}, ["board", "--file", "d"], ("'d'",)),
    # (arena play with a bad board or command: tests/system/cli/test_bad_inputs.py)
    # --- game records --------------------------------------------------------------------
    record_case("record-no-seats", lambda d: d.update(seats=[]), "0 seats"),
    record_case(
        "record-ply-x",
        lambda d: d["seats"][0].update(fault={"kind": "crash", "detail": "", "ply": "x"}),
        "fault.ply",
        "'x'",
    ),
    record_case(
        "record-ply-far",
        lambda d: d["seats"][1].update(fault={"kind": "crash", "detail": "", "ply": 10**6}),
        "seats[1].fault.ply",
    ),
    record_case(
        "record-fault-kind",
        lambda d: d["seats"][0].update(fault={"kind": "boom", "detail": "", "ply": 1}),
        "'boom'",
    ),
    record_case("record-deep", '{"a": ' + deep("[", "]", 100_000) + "}", "nested too deeply"),
    record_case(
        "record-nan", json.dumps(GOOD_RECORD).replace('"duration_ms": ', '"x": NaN, "duration_ms": '), "NaN"
    ),
    record_case("record-bigint", '{"format": ' + "9" * 5000 + "}", "not JSON"),
    record_case("record-list", "[]", "not a JSON object"),
    record_case("record-not-json", "hello", "not JSON"),
    record_case("record-empty", "", "not JSON"),
    record_case("record-format", lambda d: d.update(format=99), "format 99"),
    record_case("record-seat-scalar", lambda d: d["seats"].__setitem__(0, 5), "seats[0]"),
    record_case("record-command-string", lambda d: d["seats"][0].update(command="ls"), "seats[0].command"),
    record_case("record-move-short", lambda d: d["moves"].__setitem__(0, [0]), "moves[0]"),
    record_case("record-move-player", lambda d: d["moves"][0].__setitem__(0, 7), "moves[0]", "player 7"),
    record_case("record-move-illegal", lambda d: d["moves"][0].__setitem__(1, "999,0B"), "ply 1", "999,0B"),
    record_case(
        "record-move-junk", lambda d: d["moves"][0].__setitem__(1, "9" * 5000), "ply 1", "cannot read"
    ),
    record_case("record-params-key", lambda d: d["params"].update(bogus=1), "params", "bogus"),
    record_case("record-params-type", lambda d: d["params"].update(players="two"), "params.players"),
    record_case("record-players-5", lambda d: d["params"].update(players=5), "players must be 2 to 4"),
    record_case("record-standings", lambda d: d.pop("standings"), "record.standings is missing"),
    record_case("record-rank", lambda d: d["standings"][0].update(rank=9), "rank 9"),
    record_case("record-start", lambda d: d.update(start_position="." * 100_000), "start_position"),
    record_case("record-final", lambda d: d.update(final_position="_ over - players=2"), "final position"),
    record_case(
        "record-time-control", lambda d: d["time_control"].update(move_ms="x"), "time_control.move_ms"
    ),
    Case("record-latin1", {"g.json": b'{"format": "caf\xe9"}'}, ["replay", "g.json"], ("g.json:1", "UTF-8")),
    Case("record-dev-zero", {}, ["replay", "/dev/zero"], ("/dev/zero", "not a regular file")),
    Case("record-tournament-file", {"t.yaml": BASE}, ["replay", "t.yaml"], ("t.yaml", "GAME_ID")),
    Case(
        "replay-delay-nan",
        {"g.json": json.dumps(GOOD_RECORD)},
        ["replay", "--delay", "nan", "g.json"],
        ("--delay",),
    ),
    Case(
        "replay-delay-negative",
        {"g.json": json.dumps(GOOD_RECORD)},
        ["replay", "--delay", "-1", "g.json"],
        ("--delay",),
    ),
    # --- positions and perft -------------------------------------------------------------
    Case("perft-depth-64", {}, ["perft", "start", "64"], ("DEPTH", "64", "0<=x<=12")),
    Case("perft-depth-negative", {}, ["perft", "start", "-1"], ("DEPTH", "-1")),
    Case("perft-negative-position-64", {}, ["perft", "-2,0:a3..b2 moves a players=2", "64"], ("DEPTH",)),
    Case("position-long-number", {}, ["show", "a" + "9" * 5000 + ".. moves a players=2"], ("5000 digits",)),
    Case("position-too-long", {}, ["show", "." * 70_000 + " moves a players=2"], ("70018 characters",)),
    Case(
        "position-too-many-hexes",
        {},
        ["show", "/".join([".999"] * 3) + " moves a players=2"],
        (f"more than {MAX_BOARD_HEXES}",),
    ),
    Case("position-far-origin", {}, ["show", "5000,0:a3..b2 moves a players=2"], ("5000,0", "outside")),
    Case("position-far-negative", {}, ["show", "-5000,0:a3..b2 moves a players=2"], ("-5000,0", "outside")),
    Case("position-far-run", {}, ["show", "_999_999.a3 moves a players=2"], ("outside",)),
    Case("perft-random-seed-digits", {}, ["perft", "random:" + "9" * 5000 + ":2", "1"], ("random:SEED",)),
    Case("perft-random-players", {}, ["perft", "random:1:9", "1"], ("players must be 2 to 4",)),
]


def test_the_table_is_wide() -> None:
    assert len(CASES) >= 100 and len({c.id for c in CASES}) == len(CASES)


# --- inputs that could hang: a subprocess with a timeout, killed in cleanup ---------------


# --- results: games and standings -------------------------------------------------------------


# --- tile anchors: one coordinate limit, judged by the rules ----------------------------------


def first_tile(move: str) -> ScriptedChannel:
    return ScriptedChannel(scripted(["hello 1 edge", "ready", f"tile {move}"]))


@pytest.mark.parametrize(
    ("move", "kind"),
    [
        ("999,0B", FaultKind.ILLEGAL_MOVE),  # anchored within, but lays 1000,0 and 1001,-1
        ("999,0A", FaultKind.ILLEGAL_MOVE),  # lays 1000,0 and 1000,1
        ("9999,0A", FaultKind.ILLEGAL_MOVE),
        ("10000,0A", FaultKind.ILLEGAL_MOVE),  # the same limit, however far
        ("0,-1000C", FaultKind.ILLEGAL_MOVE),
        ("9223372036854775807,0A", FaultKind.ILLEGAL_MOVE),  # the largest signed 64-bit number
        ("9223372036854775808,0A", FaultKind.PROTOCOL_ERROR),  # no number of the protocol
        ("99999999999999999999999,0A", FaultKind.PROTOCOL_ERROR),
    ],
)
def test_a_tile_beyond_the_coordinate_limit(move: str, kind: FaultKind) -> None:
    record = Referee(
        GameSetup(params=Params(players=2), seed=1), specs(2), [first_tile(move), engine_bot()]
    ).run()
    fault = record.seats[0].fault
    assert fault is not None and fault.kind is kind and fault.ply == 0, fault
    if kind is FaultKind.ILLEGAL_MOVE:
        assert f"-{COORD_LIMIT}..{COORD_LIMIT}" in fault.detail
    assert record.seats[1].fault is None  # the other bot builds on alone, every tile legal


def test_a_pasture_at_the_limit_offers_only_tiles_within_it() -> None:
    # The first tile fits exactly: 998,0A covers q 998..999 and r 0..1.
    state = GameState(Params(players=2))
    state.apply(parse_move("998,0A"))
    placements = legal_tile_placements(state.board.daisy_map(), 1)
    assert placements and all(state.why_illegal(TilePlacement(*p)) is None for p in placements)
    assert (996, 0, "A") in placements and (999, 2, "A") not in placements


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_built_at_the_limit_has_no_fault(seed: int) -> None:
    def choose(turn: Turn) -> Move:
        if turn.state.board.size == 0:
            return TilePlacement(COORD_LIMIT - 2, -COORD_LIMIT, "A")  # a corner of the grid
        return turn.rng.choice(turn.state.legal_moves())

    bots = [engine_bot("edge", choose), engine_bot("b", choose)]
    record = Referee(GameSetup(params=Params(players=2), seed=seed), specs(2), bots).run()
    assert all(s.fault is None for s in record.seats), [s.fault for s in record.seats]
    assert record.moves[0].move == f"{COORD_LIMIT - 2},-{COORD_LIMIT}A" and record.replay().is_over


# --- valid inputs at the limits still work ----------------------------------------------------


def real_negative_position() -> str:
    """A position the arena prints whose board starts left of 0,0 (a pasture being built)."""
    state = GameState(Params(players=2, tiles=2))
    for move in ("0,0A", "-2,0A", "-4,1A"):
        state.apply(parse_move(move))
    text = format_position(state)
    assert text.startswith("-"), text
    return text


@pytest.mark.parametrize("command", ["show", "perft"])
def test_a_position_starting_with_a_negative_coordinate_works(command: str) -> None:
    position = real_negative_position()
    args = [command, position, "2"] if command == "perft" else [command, position, "--no-colour"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    if command == "show":
        assert position in result.output
    else:
        assert "perft(2) = " in result.output
    options_first = CliRunner().invoke(main, [command, "--help"])
    assert options_first.exit_code == 0


def test_perft_divide_with_a_negative_position_and_options_anywhere() -> None:
    position = real_negative_position()
    a = CliRunner().invoke(main, ["perft", "--divide", position, "2"])
    b = CliRunner().invoke(main, ["perft", position, "2", "--divide"])
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout and "perft(2) = " in a.stdout


@pytest.mark.parametrize(
    "text",
    [
        rows(32, 32),  # exactly 1024 hexes
        " ".join(["."] * (COORD_LIMIT + 1)) + "\n",  # a line exactly as wide as the limit allows
    ],
    ids=["1024-hexes", "1000-wide"],
)
def test_boards_at_the_limits_still_work(tmp_path: Path, text: str) -> None:
    path = tmp_path / "b.board"
    path.write_text(text)
    result = invoke_with_deadline(["board", "--file", str(path), "--format", "position"], tmp_path)
    assert result.exit_code == 0, result.output
    state = parse_position(result.output.strip())  # the printed position reads back
    assert state.board.size == len(parse_board_file(text).coords) and state.phase is Phase.HERDS


def test_perft_at_the_depth_limit_still_works() -> None:
    result = CliRunner().invoke(main, ["perft", "a3..b2 moves a players=2", "12"])
    assert result.exit_code == 0 and "perft(12) = 0" in result.output


def test_tournament_values_at_the_limits_still_load(tmp_path: Path) -> None:
    long_name = "x" * 16 * 1024
    text = base_with("seed: 3", f"seed: 3\nrating: {{mu: 1000000, tau: 0}}\nx_note: {long_name}")
    with pytest.raises(ConfigError, match="unknown key 'x_note'"):  # the long value itself is read
        parse_config(text, tmp_path / "t.yaml")
    config = parse_config(base_with("seed: 3", "seed: 3\nrating: {mu: 1000000, tau: 0}"), tmp_path / "t.yaml")
    assert config.rating.mu == 1e6 and config.rating.tau == 0
    nested = base_with("    command: [", "    env: {A: '1'}\n    command: [")
    assert parse_config(nested, tmp_path / "t.yaml").bots[0].env == {"A": "1"}


# --- fuzzers: random text into every reader ---------------------------------------------------

YAML_BITS = [
    "name: t\n",
    "seed: ",
    "!!int ",
    "!foo ",
    "&a ",
    "*a ",
    "[",
    "]",
    "{",
    "}",
    ": ",
    "- ",
    "\n  ",
    "'",
    '"',
    "\\0",
    ".nan",
    "1e999",
    "bots:",
    "\t",
    "\x00",
    "? ",
    "<<: ",
    "---\n",
    "#",
    "9" * 30,
]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(YAML_BITS), st.text(max_size=5)), max_size=30))
def test_fuzz_tournament_text_raises_only_config_errors(parts: list[str]) -> None:
    with contextlib.suppress(ConfigError):
        parse_config("".join(parts), Path("/nonexistent/t.yaml"))


@FUZZ
@given(st.text(alphabet=" .\n#_0123456789\tx", max_size=300))
def test_fuzz_board_text_raises_only_arena_errors(text: str) -> None:
    with contextlib.suppress(ArenaError):
        parse_board_file(text, "fuzz.board")


POSITION_BITS = [
    "a16",
    ".",
    "_",
    "/",
    "-2,0:",
    "999,",
    ".999",
    " moves a",
    " tiles a",
    " herds b",
    " over -",
    " players=",
    "2",
    " left=",
    " daisies=0,0:3",
    " forfeit=a",
    "9" * 25,
    ",",
]


@FUZZ
@given(st.lists(st.sampled_from(POSITION_BITS), max_size=20))
def test_fuzz_positions_raise_only_arena_errors(parts: list[str]) -> None:
    with contextlib.suppress(ArenaError):
        parse_position("".join(parts))


@FUZZ
@given(st.text(alphabet="-0123456789,ABCNESW ", max_size=40))
def test_fuzz_move_tokens_raise_only_arena_errors(text: str) -> None:
    with contextlib.suppress(ArenaError):
        parse_move(text)


def _mutations() -> st.SearchStrategy[tuple[list[str | int], object]]:
    paths = st.sampled_from(
        [
            ["seats"],
            ["seats", 0],
            ["seats", 0, "fault"],
            ["moves"],
            ["moves", 0],
            ["moves", 0, 0],
            ["moves", 0, 1],
            ["standings", 0, "rank"],
            ["params", "players"],
            ["time_control"],
            ["game_id"],
            ["start_position"],
            ["seed"],
            ["extra"],
        ]
    )
    values = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.text(max_size=8),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    )
    return st.tuples(paths, values)


@FUZZ
@given(st.lists(_mutations(), min_size=1, max_size=3))
def test_fuzz_tampered_records_raise_only_arena_errors(changes: list[tuple[list[str | int], object]]) -> None:
    data = json.loads(json.dumps(GOOD_RECORD))
    for path, value in changes:
        target = data
        with contextlib.suppress(KeyError, IndexError, TypeError):
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
    with contextlib.suppress(ArenaError):
        GameRecord.from_json(json.dumps(data)).replay()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_clean_error(case: Case, tmp_path: Path) -> None:
    for name, content in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    check_clean_error(invoke_with_deadline(case.args, tmp_path), case.needles)
