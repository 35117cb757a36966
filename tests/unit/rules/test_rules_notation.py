"""Position notation, move notation and board files: what they read, and how they fail."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import NotationError
from arena.rules import (
    Board,
    Direction,
    GameState,
    HerdPlacement,
    Params,
    Phase,
    SheepMove,
    TilePlacement,
    format_board_file,
    format_position,
    parse_board_file,
    parse_move,
    parse_position,
    random_board,
    read_move,
)

# --- positions: reading and writing ----------------------------------------------


def test_position_fields_are_read() -> None:
    state = parse_position("a16.../....b16. moves b players=2")
    assert state.phase is Phase.MOVES
    assert state.to_move == 1
    assert state.board.size == 10
    assert state.stacks() == {(0, 0): (0, 16), (4, 1): (1, 16)}
    assert state.params == Params(players=2)


def test_position_is_written_canonically() -> None:
    # Runs of empty hexes are counted, runs of one are not.
    state = parse_position("a16.../....b16. moves a players=2")
    assert format_position(state) == "a16.3/.4b16. moves a players=2"
    assert format_position(parse_position("a16.3/.4b16. moves a players=2")) == format_position(state)


def test_position_with_origin_and_gaps() -> None:
    state = parse_position("-1,-2:_2a3/.3b2 moves a players=2")
    assert state.stacks() == {(1, -2): (0, 3), (2, -1): (1, 2)}
    assert set(state.board.coords) == {(1, -2), (-1, -1), (0, -1), (1, -1), (2, -1)}
    assert format_position(state) == "-1,-2:_2a3/.3b2 moves a players=2"


def test_position_options_round_trip() -> None:
    texts = [
        "_ tiles a players=2 left=4,4",
        "_ tiles a players=3 sheep=5 tiles=2 contact=2 holeborder=1 left=2,2,2",
        ".4/_.4 tiles c players=3 left=1,2,1",
        "a1.3/.4 herds b players=2 sheep=7",
        "a3.2b2/c4d5.2 moves c players=4 forfeit=bd",
        "a1.b1 over - players=2 daisies=0,0:1;2,0:3",
    ]
    for text in texts:
        assert format_position(parse_position(text)) == text


def test_options_are_applied() -> None:
    state = parse_position("a3..b2/c4d5.2 moves c players=4 sheep=9 contact=2 holeborder=1 forfeit=bd")
    assert state.params == Params(players=4, sheep=9, contact=2, hole_border=True)
    assert state.forfeited == [False, True, False, True]
    state = parse_position(".4/_.4 tiles c players=3 left=1,2,1")
    assert state.tiles_left == [1, 2, 1]
    state = parse_position("a1.b1 over - players=2 daisies=2,0:3")
    assert state.board.daisies == (0, 0, 3)


def test_new_game_positions() -> None:
    assert format_position(GameState(Params())) == "_ tiles a players=2 left=4,4"
    state = parse_position("_ tiles a players=4 left=4,4,4,4")
    assert state.board.size == 0
    assert len(state.legal_moves()) == 3
    board = random_board(5, 8)
    state = GameState(Params(), board)
    again = parse_position(format_position(state))
    assert again.board == board and again.phase is Phase.HERDS and again.to_move == 0


# --- positions: errors name the column --------------------------------------------

BAD_POSITIONS = [
    # (text, column, part of the message)
    ("a3..b2", 1, "at least a board, a phase and a turn"),
    ("a16..x/....b16. moves a players=2", 6, "cannot read board cell"),
    ("a3../.x moves a players=2", 7, "cannot read board cell"),
    ("1,1:a3..x moves a players=2", 9, "cannot read board cell"),
    ("a3..b2 move a players=2", 8, "unknown phase"),
    ("a3..b2 moves e players=2", 14, "turn must be a player"),
    ("a3..b2 moves ab players=2", 14, "turn must be a player"),
    ("a3..b2 moves - players=2", 14, "only a finished game"),
    ("a1..b2 over a players=2", 13, "write '-'"),
    ("a3..b2 moves a players=2 colour=red", 26, "unknown option"),
    ("a3..b2 moves a players=2 sheep", 26, "unknown option"),
    ("a3..b2 moves a players=2 players=3", 26, "given twice"),
    ("a3..b2 moves a players=x", 24, "whole number"),
    ("a3..b2 moves a players=2 sheep=-3", 32, "whole number"),
    ("a3..c2 moves a players=2", 5, "player 'c'"),
    ("a0..b2 moves a players=2", 1, "at least one sheep"),
    (".0a3 moves a players=2", 1, "run length"),
    ("a3..b2 moves a players=2 forfeit=az", 35, "'z'"),
    ("a3..b2 moves b players=2 forfeit=b", 14, "forfeited"),
    ("a1b2.. moves a players=2", 14, "no legal move"),
    ("a3..b2 moves a players=2 left=1,1", 31, "only for the tiles phase"),
    ("_ tiles a players=2 left=1", 26, "left must be 2"),
    ("a3..b2 tiles a players=2", 1, "no stacks"),
    ("a3..b2 moves a players=2 daisies=9,9:1", 34, "not pasture"),
    ("a3..b2 moves a players=2 daisies=0,0:1;0,1", 40, "cannot read daisies"),
    ("_ herds a players=2", 1, "no pasture"),
    # Parameters out of range point at the offending value.
    ("a3..b2 moves a players=5", 24, "players"),
    ("a3..b2 moves a players=2 sheep=0", 32, "sheep"),
    ("a3..b2 moves a players=2 tiles=65", 32, "tiles"),
    ("a3..b2 moves a players=2 contact=3", 34, "contact"),
    ("a3..b2 moves a players=2 holeborder=2", 37, "holeborder"),
]


@pytest.mark.parametrize(("text", "column", "message"), BAD_POSITIONS)
def test_bad_position_names_the_column(text: str, column: int, message: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_position(text)
    assert err.value.where == f"column {column}"
    assert str(err.value).startswith(f"column {column}: ")
    assert message in str(err.value)


# --- moves ------------------------------------------------------------------------


def test_move_tokens_are_read() -> None:
    assert parse_move("2,-1B") == TilePlacement(2, -1, "B")
    assert parse_move("3,0") == HerdPlacement(3, 0)
    assert parse_move("3,0NE5") == SheepMove(3, 0, Direction.NE, 5)
    assert parse_move("-12,-3SW16") == SheepMove(-12, -3, Direction.SW, 16)
    assert parse_move(" 0,7E1\n") == SheepMove(0, 7, Direction.E, 1)
    for d in Direction:
        assert parse_move(f"1,2{d.name}3") == SheepMove(1, 2, d, 3)


def test_move_tokens_round_trip() -> None:
    moves = [
        TilePlacement(0, 0, "A"),
        TilePlacement(-3, 9, "C"),
        HerdPlacement(-1, 0),
        SheepMove(4, -4, Direction.NW, 15),
        SheepMove(0, 0, Direction.SE, 1),
    ]
    for move in moves:
        assert parse_move(str(move)) == move
        assert " " not in str(move)


def test_move_tokens_read_again_come_from_a_bounded_memo() -> None:
    from arena.rules import moves

    # The referee reads one token per ply: a text read before gives the same move again,
    # a bad one is refused every time, and a bot sending ever new texts cannot grow the memo.
    assert parse_move("5,1SW3") is parse_move("5,1SW3")
    for _ in range(2):
        with pytest.raises(NotationError):
            parse_move("5,1SW")
    for i in range(moves._PARSED_KEPT + 100):
        assert parse_move(f"{i},0") == HerdPlacement(i, 0)
    assert len(moves._PARSED) <= moves._PARSED_KEPT
    assert parse_move(f"{moves._PARSED_KEPT + 99},0") == HerdPlacement(moves._PARSED_KEPT + 99, 0)


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"-?0{0,2}[0-9]{1,19},-?0{0,2}[0-9]{1,19}(?:[ABC]|(?:NE|NW|SE|SW|E|W)0{0,2}[0-9]{1,19})?", fullmatch=True)
)
def test_the_canonical_text_read_with_a_move_is_its_str(text: str) -> None:
    try:
        move, canonical = read_move(text)
    except NotationError:
        assert any(len(n.lstrip("-")) > 19 or abs(int(n)) >= 2**63 for n in re.findall(r"-?\d+", text))
        return
    assert canonical == str(move) and parse_move(canonical) == move


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "3,",
        ",0",
        "a,b",
        "3;0",
        "3,0X1",
        "3,0NE",
        "3,0ne5",
        "3,0D",
        "3,0 NE5",
        "3,0NE99999999999999999999",
        "99999999999999999999,0A",
        "3,0AB",
        "3,0E1E",
        "3,0N1",
        "3,0S2",
        "\u0663,0",  # an Arabic-Indic three: the notation's digits are 0-9
        "3,0NE\uff15",  # a full-width five
    ],
)
def test_bad_move_token(text: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_move(text)
    assert repr(text) in str(err.value)


# --- board files ------------------------------------------------------------------


def test_board_file_is_read_with_daisies_and_comments() -> None:
    text = "# a small pasture\n 2 .   # two daisies on the first hex\n. . 5\n"
    board = parse_board_file(text)
    assert board.daisy_map() == {(1, 0): 2, (2, 0): 0, (0, 1): 0, (1, 1): 0, (2, 1): 5}
    assert format_board_file(board) == " 2 .\n. . 5\n"


def test_board_file_shifted_left_rows() -> None:
    # Row 1 starts one column left of row 0: its first hex is south-west of (0,0).
    board = parse_board_file(" .\n. .\n")
    assert set(board.coords) == {(1, 0), (0, 1), (1, 1)}  # normalized


def test_board_file_round_trips_random_boards() -> None:
    for seed in range(5):
        board = random_board(seed, 8)
        assert parse_board_file(format_board_file(board)) == board


def test_board_file_underscore_is_no_pasture() -> None:
    board = parse_board_file(". . .\n . _ .\n  . . .\n")
    assert board.size == 8
    assert board.holes == frozenset({(1, 1)})


BAD_BOARDS = [
    # (text, line, column, part of the message)
    (" . .\n. x .\n", 2, 3, "'x'"),
    (".\t.\n", 1, 2, "tabs"),
    (". . .\n. . .\n", 2, 1, "off the grid"),
    (".  .\n", 1, 4, "off the grid"),
    ("# header\n\n . .\n. .a\n", 4, 4, "'a'"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), BAD_BOARDS)
def test_bad_board_file_names_line_and_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_board_file(text, "my.board")
    assert err.value.where == f"my.board: line {line}, column {column}"
    assert message in str(err.value)


def test_board_file_without_pasture() -> None:
    with pytest.raises(NotationError, match="no pasture") as err:
        parse_board_file("# nothing\n\n   \n", "empty.board")
    assert "empty.board" in str(err.value)


def test_board_file_in_two_pieces() -> None:
    with pytest.raises(NotationError, match="not in one piece") as err:
        parse_board_file(". .\n\n. .\n", "split.board")
    assert "split.board" in str(err.value)


def test_random_board_is_pinned() -> None:
    # The same seed gives the same board on every machine and version: these
    # pictures must never change (bot authors reproduce boards from seeds).
    assert format_board_file(random_board(1, 8)) == (
        "    .\n"
        "   . .   . .\n"
        "    .   . .\n"
        "     .   . . . .\n"
        "    . . . .   . .\n"
        " . . . . .\n"
        ". .     . .\n"
        "       . .\n"
        "        . .\n"
    )
    assert format_board_file(random_board(2, 4)) == (
        "        .\n       . .\n        . .\n     . . . .\n    . .   .\n . .\n. .\n"
    )


def test_board_equality_ignores_construction_order() -> None:
    hexes = [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert Board(hexes) == Board(list(reversed(hexes)))
    assert Board(hexes) != Board({h: (1 if h == (0, 0) else 0) for h in hexes})
