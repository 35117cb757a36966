"""The protocol codec: every message round-trips; nothing a bot sends crashes it."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ProtocolError
from arena.protocol import (
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    Info,
    MoveReply,
    Ready,
    TurnRequest,
    format_message,
    parse_bot_line,
    parse_referee_line,
)

coord = st.integers(-999, 999)
player = st.integers(0, 3)
names = st.text("abcXYZ019_.+-", min_size=1, max_size=64)

turn_requests = st.builds(
    TurnRequest,
    phase=st.sampled_from(["tile", "herd", "move"]),
    time=st.integers(0, 10**7),
    ply=st.integers(0, 500),
    clocks=st.lists(st.none() | st.integers(0, 10**7), min_size=2, max_size=4).map(tuple),
    since=st.lists(st.tuples(player, st.sampled_from(["0,0A", "3,-1", "2,2NE15"])), max_size=4).map(tuple),
    board=st.lists(st.tuples(coord, coord), max_size=40).map(tuple),
    stacks=st.lists(st.tuples(coord, coord, player, st.integers(1, 16)), max_size=10).map(tuple),
    tiles=st.lists(st.integers(0, 4), min_size=2, max_size=4).map(tuple),
    forfeited=st.lists(player, max_size=3, unique=True).map(tuple),
    daisies=st.lists(st.tuples(coord, coord, st.integers(0, 9)), max_size=5).map(tuple),
)
def _game_start(players: int) -> st.SearchStrategy[GameStart]:
    # The referee names every seat, so a game of N players carries N names (never one:
    # a lone name "-" would read back as "no names").
    return st.builds(
        GameStart,
        game_id=st.text("abc-123", min_size=1, max_size=10),
        seat=st.integers(0, players - 1),
        players=st.just(players),
        seed=st.integers(0, 2**63 - 1),
        sheep=st.integers(1, 99),
        tiles=st.integers(1, 9),
        contact=st.sampled_from([1, 2]),
        hole_border=st.booleans(),
        move_time=st.integers(0, 10**6),
        base_time=st.integers(0, 10**6),
        increment=st.integers(0, 10**4),
        names=st.lists(names, min_size=players, max_size=players).map(tuple) | st.just(()),
    )


game_starts = st.integers(2, 4).flatmap(_game_start)
game_ends = st.builds(
    GameEnd,
    ranks=st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple),
    hexes=st.lists(st.integers(0, 64), min_size=2, max_size=4).map(tuple),
    groups=st.lists(st.integers(0, 64), min_size=2, max_size=4).map(tuple),
    daisies=st.lists(st.integers(0, 64), min_size=2, max_size=4).map(tuple),
    faults=st.lists(st.none() | st.sampled_from(["timeout", "crash"]), min_size=2, max_size=4).map(tuple),
)


@settings(max_examples=100, deadline=None)
@given(st.one_of(turn_requests, game_starts, game_ends, st.builds(Hello, st.integers(1, 9))))
def test_referee_messages_round_trip(msg: object) -> None:
    line = format_message(msg)  # type: ignore[arg-type]
    assert "\n" not in line and line.isascii()
    assert parse_referee_line(line) == msg
    assert parse_referee_line(line + "\r\n") == msg  # CR LF tolerated


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.builds(HelloReply, st.integers(1, 9), names, st.lists(names, max_size=3).map(tuple)),
        st.builds(
            MoveReply, st.sampled_from(["tile", "herd", "move"]), st.sampled_from(["0,0A", "3,-1", "2,2NE15"])
        ),
        st.just(Ready()),
        st.builds(Info, st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=50)),
    )
)
def test_bot_messages_round_trip(msg: object) -> None:
    assert parse_bot_line(format_message(msg)) == msg  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_raise_anything_but_protocol_error(data: bytes) -> None:
    text = data.decode("latin-1")
    for parse in (parse_bot_line, parse_referee_line):
        with contextlib.suppress(ProtocolError):
            parse(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "move",
                "tile",
                "hello",
                "game",
                "end",
                "info",
                "ready",
                "time=",
                "ply=1",
                "board=1,2;x",
                "stacks=1,2,a",
                "since=a:",
                "clocks=-;5",
                "=",
                ";",
                ",",
                "-",
                "seat=z",
                "players=9",
                "999999999999999999999",
                " ",
                "\t",
                "\x00",
            ]
        ),
        max_size=8,
    )
)
def test_token_soup_never_raises_anything_but_protocol_error(parts: list[str]) -> None:
    line = " ".join(parts)
    for parse in (parse_bot_line, parse_referee_line):
        with contextlib.suppress(ProtocolError):
            parse(line)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("", "empty line"),
        ("move", "exactly one move token"),
        ("move 1,2E1 extra", "exactly one move token"),
        ("ready now", "nothing after it"),
        ("hello x bot", "version"),
        ("hello 1", "version and a name"),
        ("banana 1,2E1", "unknown message 'banana'"),
        ("move 1,2E1\x07", "control character"),
        ("move 1,2é", "non-ASCII"),
    ],
)
def test_bad_bot_lines_say_what_is_wrong_and_quote_the_line(line: str, needle: str) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_bot_line(line)
    assert needle in str(err.value) and repr(line) in str(err.value)


def test_info_lines_are_never_answers() -> None:
    assert parse_bot_line("info depth 3 score +2") == Info("depth 3 score +2")
    assert parse_bot_line("info") == Info("")
    with pytest.raises(ProtocolError, match="unknown message 'information'"):
        parse_bot_line("information 1")


def test_unknown_keys_are_ignored_for_compatibility() -> None:
    msg = parse_referee_line("game id=g seat=b players=3 seed=5 future=yes")
    assert isinstance(msg, GameStart) and msg.seat == 1 and msg.players == 3
