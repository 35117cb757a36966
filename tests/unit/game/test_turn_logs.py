"""A bot's stderr is kept turn by turn, within a turn's and a game's bounds; the record keeps
it, reads it back, opens records without it, and says which lines go with which move.

The cases that need no process; a real bot's turns are in tests/system/game/test_turn_logs.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.errors import ConfigError, RecordError
from arena.game.record import Fault, FaultKind, GameRecord, StderrTurn, WrittenAt, written_at
from arena.game.referee import GameSetup
from arena.game.turnlog import (
    INFO_TURN_KEEP,
    MAX_GAME_BYTES,
    STDERR_GAME_KEEP,
    STDERR_TURN_KEEP,
    LogBounds,
    TurnLog,
)
from tests.support.fakebot import engine_bot
from tests.support.referee_helpers import run

# -- capture -----------------------------------------------------------------------------------


def test_each_line_is_kept_with_the_ply_it_was_written_at() -> None:
    log = TurnLog()
    log.take(b"started\n", -1)
    log.take(b"thinking at 0\nin two ", 0)
    log.take(b"pieces\n", 0)
    log.take(b"thinking at 2\r\n", 2)
    assert log.record() == (
        StderrTurn(-1, ("started",)),
        StderrTurn(0, ("thinking at 0", "in two pieces")),
        StderrTurn(2, ("thinking at 2",)),
    )


def test_a_line_begun_in_one_turn_is_kept_whole_in_that_turn() -> None:
    log = TurnLog()
    log.take(b"searching ", 0)
    log.take(b"done\nnext turn\n", 2)  # its next request came before the line's end
    log.take(b"more", 2)
    assert log.record() == (StderrTurn(0, ("searching done",)), StderrTurn(2, ("next turn", "more")))


def test_bytes_past_a_turns_bound_are_counted_not_kept() -> None:
    log = TurnLog()
    flood = (b"F" * 99 + b"\n") * 1000  # 100,000 bytes in one turn
    log.take(flood, 4)
    log.take(b"next turn\n", 6)
    turn, after = log.record()
    assert sum(len(line) + 1 for line in turn.lines) == STDERR_TURN_KEEP + 1  # (the cut line has no newline)
    assert turn.dropped == len(flood) - STDERR_TURN_KEEP
    assert after == StderrTurn(6, ("next turn",))  # the next turn keeps its own


def test_a_game_keeps_at_most_its_bound_and_counts_the_rest_turn_by_turn() -> None:
    log = TurnLog()
    chunk = b"x" * (STDERR_TURN_KEEP - 1) + b"\n"
    turns = STDERR_GAME_KEEP // STDERR_TURN_KEEP + 3
    for ply in range(turns):
        log.take(chunk, ply)
    record = log.record()
    kept = sum(len(line) + 1 for t in record for line in t.lines)
    assert kept == STDERR_GAME_KEEP
    assert [t.dropped for t in record][-3:] == [len(chunk)] * 3 and [t.lines for t in record][-1] == ()
    assert kept + sum(t.dropped for t in record) == turns * len(chunk)


def test_a_huge_line_without_an_end_is_cut_at_the_bound() -> None:
    log = TurnLog()
    for _ in range(100):
        log.take(b"y" * 65536, 0)
    (turn,) = log.record()
    assert turn.lines == ("y" * STDERR_TURN_KEEP,) and turn.dropped == 100 * 65536 - STDERR_TURN_KEEP


def test_bytes_that_are_not_utf8_are_replaced_and_controls_kept_for_the_outputs_to_escape() -> None:
    log = TurnLog()
    log.take(b"bad \xff\xfe byte \x1b[2J \xe2\x80\xae\n", 0)
    assert log.record() == (StderrTurn(0, ("bad \ufffd\ufffd byte \x1b[2J \u202e",)),)


def test_a_turn_keeps_at_most_its_share_of_info_lines() -> None:
    log = TurnLog()
    kept = [log.keep_info(0) for _ in range(INFO_TURN_KEEP + 5)]
    assert kept == [True] * INFO_TURN_KEEP + [False] * 5 and log.infos_full(0)
    assert not log.infos_full(2) and log.keep_info(2)  # the next turn starts afresh


def test_a_bots_own_bounds_hold_in_place_of_the_defaults() -> None:
    log = TurnLog(LogBounds(turn_bytes=10, game_bytes=25, turn_infos=1))
    for ply in range(4):
        log.take(b"0123456789abcdef\n", ply)
    assert [(t.lines, t.dropped) for t in log.record()] == [
        (("0123456789",), 7),
        (("0123456789",), 7),
        (("01234",), 12),
        ((), 17),
    ]
    assert [log.keep_info(0), log.keep_info(0), log.keep_info(1)] == [True, False, True]


@pytest.mark.parametrize(
    ("bounds", "error"),
    [
        ({"game_bytes": MAX_GAME_BYTES + 1}, f"game_bytes must be a whole number from 0 to {MAX_GAME_BYTES}"),
        ({"turn_bytes": STDERR_GAME_KEEP + 1}, f"turn_bytes must be a whole number from 0 to {STDERR_GAME_KEEP}"),
        ({"turn_bytes": -1}, "turn_bytes must be a whole number from 0 to"),
        ({"turn_infos": 201}, "turn_infos must be a whole number from 0 to 200, got 201"),
        ({"turn_infos": True}, "turn_infos must be a whole number"),
        ({"game_bytes": 2.5}, "game_bytes must be a whole number from 0 to 1048576, got 2.5"),
    ],
)
def test_bounds_out_of_range_are_refused_naming_the_bound(bounds: dict[str, object], error: str) -> None:
    with pytest.raises(ConfigError, match=r"^log bounds: ") as caught:
        LogBounds(**bounds)  # type: ignore[arg-type]
    assert error in str(caught.value)


# -- the record --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def game() -> GameRecord:
    record = run([engine_bot("a"), engine_bot("b")], GameSetup(board=None, seed=4))
    a, b = record.seats
    a = replace(
        a,
        stderr_turns=(StderrTurn(-1, ("started",)), StderrTurn(0, ("first",)), StderrTurn(2, ("third",), 77)),
        infos=("eval 1", "eval 2"),
        info_plies=(0, 2),
    )
    b = replace(b, stderr_turns=(StderrTurn(1, ("second",)),))
    return replace(record, seats=(a, b))


def test_the_turns_survive_json_and_a_record_without_them_still_opens(game: GameRecord) -> None:
    assert GameRecord.from_json(game.to_json()) == game
    d = game.to_dict()
    assert d["seats"][0]["stderr_turns"][2] == {"ply": 2, "lines": ["third"], "dropped": 77}
    for seat in d["seats"]:
        del seat["stderr_turns"]
    for fmt in (1, 2):  # as an older arena wrote them
        old = GameRecord.from_dict({**d, "format": fmt})
        assert [s.stderr_turns for s in old.seats] == [(), ()]
        assert old.seats[0].stderr_tail == game.seats[0].stderr_tail
        assert written_at(old, 1) == [WrittenAt(0, ("eval 1",), (), 0)]  # its info lines still show


@pytest.mark.parametrize(
    ("turn", "error"),
    [
        ({"ply": "0", "lines": []}, "seats[0].stderr_turns[0].ply must be a whole number"),
        ({"ply": 0, "lines": [1]}, "seats[0].stderr_turns[0].lines[0] must be a string"),
        ({"lines": []}, "seats[0].stderr_turns[0].ply is missing"),
        ({"ply": -2, "lines": []}, "seats[0].stderr_turns[0]: ply must be -1 or more"),
        ({"ply": 0, "lines": [], "dropped": -1}, "dropped 0 or more, got 0 and -1"),
        ({"ply": 10_000, "lines": []}, "seats[0].stderr_turns[0].ply is 10000, not -1.."),
        ("x", "seats[0].stderr_turns must be"),
    ],
)
def test_a_bad_turn_in_a_record_is_an_error_naming_it(game: GameRecord, turn: object, error: str) -> None:
    d = game.to_dict()
    d["seats"][0]["stderr_turns"] = [turn] if turn != "x" else "x"
    if turn == "x":
        error = "seats[0].stderr_turns must be a list"
    with pytest.raises(RecordError, match=r"^not a valid game record: .*") as caught:
        GameRecord.from_dict(d)
    assert error in str(caught.value)


def test_each_move_shows_what_its_bot_wrote_while_it_was_chosen(game: GameRecord) -> None:
    assert written_at(game, 0) == [WrittenAt(0, (), ("started",), 0)]
    assert written_at(game, 1) == [WrittenAt(0, ("eval 1",), ("first",), 0)]
    assert written_at(game, 2) == [WrittenAt(1, (), ("second",), 0)]
    assert written_at(game, 3) == [WrittenAt(0, ("eval 2",), ("third",), 77)]
    assert written_at(game, 4) == []


def test_a_seat_forfeited_at_a_ply_shows_what_it_wrote_after(game: GameRecord) -> None:
    a, b = game.seats
    b = replace(b, fault=Fault(FaultKind.TIMEOUT, "slow", 1), stderr_turns=(StderrTurn(1, ("late",)),))
    forfeit = replace(game, seats=(a, b))
    assert WrittenAt(1, (), ("late",), 0) in written_at(forfeit, 1)
    assert all(w.seat == 0 for w in written_at(forfeit, 2))
