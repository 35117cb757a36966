"""The one-line position notation (the FEN of Battle Sheep).

Grammar (fields are separated by single spaces)::

    position := board " " phase " " turn (" " option)*
    board    := [origin ":"] row ("/" row)*
    origin   := Q "," R                 (the q and r of each row's first cell;
                                         omitted when both are 0)
    row      := cell*                   (cells of one row r, from q = Q up)
    cell     := "_" [N]                 N (default 1) hexes with no pasture
              | "." [N]                 N empty pasture hexes
              | PLAYER SHEEP            a stack: player a-d, then its sheep
    phase    := tiles | herds | moves | over
    turn     := a | b | c | d | -       (the player to move; - when over)
    option   := players=N  sheep=N  tiles=N  contact=1|2  holeborder=0|1
              | left=N,N,...            tiles each player still holds (tiles phase)
              | forfeit=PLAYERS         e.g. forfeit=bd
              | daisies=Q,R:N;Q,R:N     hexes that show daisies

Row i of the board is r = R + i.  Trailing cells with no pasture may be left
out.  ``players`` is always written; other options only when they differ from
their defaults.  Example, two herds on an 8-hex strip::

    a16.../....b16. moves a players=2
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from arena.errors import NotationError, RulesError
from arena.rules.board import MAX_BOARD_HEXES, Board
from arena.rules.hexgrid import COORD_LIMIT, Hex, within_limit
from arena.rules.params import PLAYER_LETTERS, Params, Phase
from arena.rules.state import GameState
from arena.rules.writer import MAX_RUN, format_position

__all__ = ["format_position", "parse_position"]

_CELL_RE = re.compile(r"([_.])(\d*)|([a-d])(\d+)")
# The longest position read: 1024 hexes with stacks and daisies take some 20 000 characters.
MAX_POSITION_CHARS = 64 * 1024
_LONG_NUMBER_RE = re.compile(r"\d{19,}")  # more digits than a signed 64-bit integer holds


def _rejected(field: str, value: int) -> bool:
    try:
        changes: dict[str, Any] = {field: value}
        replace(Params(), **changes)
    except RulesError:
        return True
    return False


def _error(message: str, text: str, pos: int) -> NotationError:
    return NotationError(f"{message} in {_excerpt(text, pos)!r}", f"column {pos + 1}")


def _excerpt(text: str, pos: int, width: int = 100) -> str:
    """``text``, or the part around column ``pos`` when it is long (errors stay one short line)."""
    if len(text) <= width:
        return text
    start = max(0, min(pos - width // 2, len(text) - width))
    return (
        ("..." if start else "") + text[start : start + width] + ("..." if start + width < len(text) else "")
    )


_OPTIONS = frozenset({"players", "sheep", "tiles", "contact", "holeborder", "left", "forfeit", "daisies"})

# The options as read: key -> (value, column of the value's first character, from 0).
_Options = dict[str, tuple[str, int]]


def parse_position(text: str) -> GameState:
    """Read a position; errors say what is wrong and at which column."""
    fields = _split_fields(text)
    (board_text, board_pos), (phase_text, phase_pos), (turn_text, turn_pos) = fields[:3]
    options = _read_options(fields[3:], text)
    params = _read_params(options, text)
    phase = _read_phase(phase_text, text, phase_pos)
    cells, stacks = _parse_board(board_text, text, board_pos)
    _read_daisies(options, cells, text)
    n = params.players
    for player, _sheep, pos in stacks.values():
        if player >= n:
            raise _error(f"stack of player {PLAYER_LETTERS[player]!r} in a {n}-player game", text, pos)
    forfeited = _read_forfeits(options, n, text)
    tiles_left = _read_tiles_left(options, phase, params, text)
    if phase is Phase.TILES and stacks:
        raise _error("no stacks may stand on the pasture while it is being built", text, board_pos)
    if phase is not Phase.TILES and not cells:
        raise _error("the board has no pasture", text, board_pos)
    to_move = _read_turn(turn_text, phase, forfeited, text, turn_pos)
    state = GameState.from_parts(
        params,
        Board(cells),
        phase,
        to_move,
        {h: (player, sheep) for h, (player, sheep, _pos) in stacks.items()},
        tiles_left,
        forfeited,
    )
    if phase is Phase.MOVES and state.out[to_move]:
        raise _error(f"player {turn_text!r} is to move but has no legal move", text, turn_pos)
    return state


def _split_fields(text: str) -> list[tuple[str, int]]:
    """The position's space-separated fields with their columns, once its size is known to be sane."""
    if len(text) > MAX_POSITION_CHARS:
        raise NotationError(f"a position of {len(text)} characters; at most {MAX_POSITION_CHARS}", "column 1")
    long_number = _LONG_NUMBER_RE.search(text)
    if long_number is not None:
        raise _error(
            f"a number of {len(long_number[0])} digits, more than a signed 64-bit integer holds",
            text,
            long_number.start(),
        )
    fields = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]
    if len(fields) < 3:
        raise NotationError(
            f"a position needs at least a board, a phase and a turn, got {_excerpt(text, 0)!r}", "column 1"
        )
    return fields


def _read_options(fields: list[tuple[str, int]], text: str) -> _Options:
    """The ``key=value`` fields after the turn, each known and given once."""
    options: _Options = {}
    for field, pos in fields:
        key, sep, value = field.partition("=")
        if not sep or key not in _OPTIONS:
            raise _error(f"unknown option {field!r}", text, pos)
        if key in options:
            raise _error(f"option {key!r} given twice", text, pos)
        options[key] = (value, pos + len(key) + 1)
    return options


def _int_option(options: _Options, key: str, default: int, text: str) -> int:
    if key not in options:
        return default
    value, pos = options[key]
    if not value.isdigit():
        raise _error(f"{key} must be a whole number, got {value!r}", text, pos)
    return int(value)


def _read_params(options: _Options, text: str) -> Params:
    """The game's parameters from the options; an error points at the option at fault."""
    # Read the numbers first: their own errors must not be caught below.
    numbers = {
        k: _int_option(options, k, d, text) for k, d in (("players", 2), ("sheep", 16), ("tiles", 4), ("contact", 1))
    }
    hole_border = _int_option(options, "holeborder", 0, text)
    if hole_border > 1:
        raise _error("holeborder must be 0 or 1", text, options["holeborder"][1])
    try:
        return Params(
            players=numbers["players"],
            sheep=numbers["sheep"],
            tiles=numbers["tiles"],
            contact=numbers["contact"],
            hole_border=bool(hole_border),
        )
    except RulesError as e:
        # Point at the option that Params rejects on its own.
        bad = [k for k in numbers if k in options and _rejected(k, numbers[k])]
        raise _error(str(e), text, options[bad[0]][1] if bad else 0) from None


def _read_phase(phase_text: str, text: str, pos: int) -> Phase:
    try:
        return Phase(phase_text)
    except ValueError:
        raise _error(f"unknown phase {phase_text!r} (tiles, herds, moves or over)", text, pos) from None


def _read_daisies(options: _Options, cells: dict[Hex, int], text: str) -> None:
    """Set the daisies of ``daisies=Q,R:N;...`` on ``cells``, which must hold each hex named."""
    daisy_text, daisy_pos = options.get("daisies", ("", 0))
    for part in filter(None, daisy_text.split(";")):
        dm = re.fullmatch(r"(-?\d+),(-?\d+):(\d+)", part)
        if dm is None:
            raise _error(f"cannot read daisies {part!r} (expected Q,R:N)", text, daisy_pos)
        h = (int(dm[1]), int(dm[2]))
        if h not in cells:
            raise _error(f"daisies on {h[0]},{h[1]}, which is not pasture", text, daisy_pos)
        cells[h] = int(dm[3])
        daisy_pos += len(part) + 1


def _read_forfeits(options: _Options, n: int, text: str) -> list[bool]:
    """Per seat, whether ``forfeit=`` names it."""
    forfeited = [False] * n
    forfeit_text, forfeit_pos = options.get("forfeit", ("", 0))
    for k, ch in enumerate(forfeit_text):
        p = PLAYER_LETTERS.find(ch)
        if not 0 <= p < n:
            raise _error(f"forfeit names {ch!r}, not a player of this game", text, forfeit_pos + k)
        forfeited[p] = True
    return forfeited


def _read_tiles_left(options: _Options, phase: Phase, params: Params, text: str) -> list[int]:
    """Per seat, the tiles still to lay: ``left=`` in the tiles phase (default: all), else none."""
    n = params.players
    if phase is not Phase.TILES:
        if "left" in options:
            raise _error("left= is only for the tiles phase", text, options["left"][1])
        return [0] * n
    left_text, left_pos = options.get("left", (",".join([str(params.tiles)] * n), 0))
    parts = left_text.split(",")
    if len(parts) != n or not all(p.isdigit() for p in parts):
        raise _error(f"left must be {n} whole numbers separated by commas", text, left_pos)
    return [int(p) for p in parts]


def _read_turn(turn_text: str, phase: Phase, forfeited: list[bool], text: str, pos: int) -> int:
    """The seat to move, or -1 (written ``-``) when the game is over."""
    if turn_text == "-":
        if phase is not Phase.OVER:
            raise _error("only a finished game has no player to move", text, pos)
        return -1
    n = len(forfeited)
    to_move = PLAYER_LETTERS.find(turn_text)
    if len(turn_text) != 1 or not 0 <= to_move < n:
        raise _error(f"turn must be a player a-{PLAYER_LETTERS[n - 1]} or '-', got {turn_text!r}", text, pos)
    if phase is Phase.OVER:
        raise _error("a finished game has no player to move: write '-'", text, pos)
    if forfeited[to_move]:
        raise _error(f"player {turn_text!r} forfeited and cannot be to move", text, pos)
    return to_move


def _check_cells(q: int, r: int, run: int, count: int, text: str, pos: int) -> None:
    """Refuse pasture cells ``q..q+run-1`` on row ``r`` beyond the coordinate limit, or too many."""
    for h in ((q, r), (q + run - 1, r)):
        if not within_limit(h):
            raise _error(
                f"hex {h[0]},{h[1]} is outside the coordinates -{COORD_LIMIT}..{COORD_LIMIT}", text, pos
            )
    if count > MAX_BOARD_HEXES:
        raise _error(f"more than {MAX_BOARD_HEXES} pasture hexes, the most a pasture has", text, pos)


def _parse_board(
    board_text: str, text: str, start: int
) -> tuple[dict[Hex, int], dict[Hex, tuple[int, int, int]]]:
    q0 = r0 = 0
    body = board_text
    offset = start
    m = re.match(r"(-?\d+),(-?\d+):", board_text)
    if m:
        q0, r0 = int(m[1]), int(m[2])
        body = board_text[m.end() :]
        offset += m.end()
    cells: dict[Hex, int] = {}
    stacks: dict[Hex, tuple[int, int, int]] = {}
    pos = offset
    for row_index, row in enumerate(body.split("/")):
        q = q0
        r = r0 + row_index
        k = 0
        while k < len(row):
            m = _CELL_RE.match(row, k)
            if m is None:
                raise _error(
                    f"cannot read board cell starting {row[k : k + 4]!r} "
                    "(expected '_' or '.', each maybe followed by a count, or a stack like 'a16')",
                    text,
                    pos + k,
                )
            if m[1]:
                run = int(m[2]) if m[2] else 1
                if run == 0 or run > MAX_RUN:
                    raise _error(f"run length {run} is out of range 1..{MAX_RUN}", text, pos + k)
                if m[1] == ".":
                    _check_cells(q, r, run, len(cells) + run, text, pos + k)
                    for dq in range(run):
                        cells[(q + dq, r)] = 0
                q += run
            else:
                sheep = int(m[4])
                if sheep < 1:
                    raise _error("a stack needs at least one sheep", text, pos + k)
                _check_cells(q, r, 1, len(cells) + 1, text, pos + k)
                cells[(q, r)] = 0
                stacks[(q, r)] = (PLAYER_LETTERS.index(m[3]), sheep, pos + k)
                q += 1
            k = m.end()
        pos += len(row) + 1
    return cells, stacks
