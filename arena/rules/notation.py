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

from ..errors import NotationError, RulesError
from .board import MAX_BOARD_HEXES, Board
from .hexgrid import COORD_LIMIT, Hex, within_limit
from .state import PLAYER_LETTERS, GameState, Params, Phase

_CELL_RE = re.compile(r"([_.])(\d*)|([a-d])(\d+)")
# The longest position read: 1024 hexes with stacks and daisies take some 20 000 characters.
MAX_POSITION_CHARS = 64 * 1024
MAX_RUN = 999  # the longest run of '_' or '.' one count gives
_LONG_NUMBER_RE = re.compile(r"\d{19,}")  # more digits than a signed 64-bit integer holds


def format_position(state: GameState) -> str:
    """Write ``state`` in the position notation."""
    board = state.board
    params = state.params
    coords = board.coords
    if coords:
        q0 = min(q for q, _ in coords)
        r0 = min(r for _, r in coords)
        rmax = max(r for _, r in coords)
        rows: list[list[str]] = [[] for _ in range(rmax - r0 + 1)]
        by_row: dict[int, dict[int, int]] = {}
        for i, (q, r) in enumerate(coords):
            by_row.setdefault(r, {})[q] = i
        for r in range(r0, rmax + 1):
            cells = by_row.get(r, {})
            last = max(cells, default=q0 - 1)
            tokens = rows[r - r0]
            for q in range(q0, last + 1):
                i = cells.get(q, -1)
                if i < 0:
                    tokens.append("_")
                elif state.owner[i] < 0:
                    tokens.append(".")
                else:
                    tokens.append(f"{PLAYER_LETTERS[state.owner[i]]}{state.height[i]}")
        text = "/".join(_compress(tokens) for tokens in rows)
        if (q0, r0) != (0, 0):
            text = f"{q0},{r0}:{text}"
    else:
        text = "_"
    turn = PLAYER_LETTERS[state.to_move] if state.to_move >= 0 else "-"
    fields = [text, state.phase.value, turn, f"players={params.players}"]
    defaults = Params(players=params.players)
    if params.sheep != defaults.sheep:
        fields.append(f"sheep={params.sheep}")
    if params.tiles != defaults.tiles:
        fields.append(f"tiles={params.tiles}")
    if params.contact != defaults.contact:
        fields.append(f"contact={params.contact}")
    if params.hole_border:
        fields.append("holeborder=1")
    if state.phase is Phase.TILES:
        fields.append("left=" + ",".join(str(t) for t in state.tiles_left))
    if any(state.forfeited):
        fields.append("forfeit=" + "".join(PLAYER_LETTERS[p] for p, f in enumerate(state.forfeited) if f))
    daisies = [(h, d) for h, d in zip(coords, board.daisies, strict=True) if d]
    if daisies:
        fields.append("daisies=" + ";".join(f"{q},{r}:{d}" for (q, r), d in daisies))
    return " ".join(fields)


def _compress(tokens: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        j = i
        while j < len(tokens) and tokens[j] == t:
            j += 1
        run = j - i
        if t in "_." and run > 1:
            # A count is at most MAX_RUN (what the parser reads): a longer run is written in parts.
            full, rest = divmod(run, MAX_RUN)
            out.extend([f"{t}{MAX_RUN}"] * full)
            out.append(f"{t}{rest}" if rest > 1 else t * rest)
        else:
            out.extend([t] * run)
        i = j
    return "".join(out)


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


def parse_position(text: str) -> GameState:
    """Read a position; errors say what is wrong and at which column."""
    if len(text) > MAX_POSITION_CHARS:
        raise NotationError(f"a position of {len(text)} characters; at most {MAX_POSITION_CHARS}", "column 1")
    long_number = _LONG_NUMBER_RE.search(text)
    if long_number is not None:
        raise _error(
            f"a number of {len(long_number[0])} digits, more than a signed 64-bit integer holds",
            text,
            long_number.start(),
        )
    fields = []
    for m in re.finditer(r"\S+", text):
        fields.append((m.group(), m.start()))
    if len(fields) < 3:
        raise NotationError(
            f"a position needs at least a board, a phase and a turn, got {_excerpt(text, 0)!r}", "column 1"
        )
    (board_text, board_pos), (phase_text, phase_pos), (turn_text, turn_pos) = fields[:3]

    options: dict[str, tuple[str, int]] = {}
    for field, pos in fields[3:]:
        key, sep, value = field.partition("=")
        if not sep or key not in {
            "players",
            "sheep",
            "tiles",
            "contact",
            "holeborder",
            "left",
            "forfeit",
            "daisies",
        }:
            raise _error(f"unknown option {field!r}", text, pos)
        if key in options:
            raise _error(f"option {key!r} given twice", text, pos)
        options[key] = (value, pos + len(key) + 1)

    def int_option(key: str, default: int) -> int:
        if key not in options:
            return default
        value, pos = options[key]
        if not value.isdigit():
            raise _error(f"{key} must be a whole number, got {value!r}", text, pos)
        return int(value)

    # Read the numbers first: their own errors must not be caught below.
    numbers = {k: int_option(k, d) for k, d in (("players", 2), ("sheep", 16), ("tiles", 4), ("contact", 1))}
    if int_option("holeborder", 0) > 1:
        raise _error("holeborder must be 0 or 1", text, options["holeborder"][1])
    try:
        params = Params(
            players=numbers["players"],
            sheep=numbers["sheep"],
            tiles=numbers["tiles"],
            contact=numbers["contact"],
            hole_border=bool(int_option("holeborder", 0)),
        )
    except RulesError as e:
        # Point at the option that Params rejects on its own.
        bad = [k for k in numbers if k in options and _rejected(k, numbers[k])]
        raise _error(str(e), text, options[bad[0]][1] if bad else 0) from None

    try:
        phase = Phase(phase_text)
    except ValueError:
        raise _error(f"unknown phase {phase_text!r} (tiles, herds, moves or over)", text, phase_pos) from None

    cells, stacks = _parse_board(board_text, text, board_pos)
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

    state = GameState.__new__(GameState)
    state.params = params
    state.board = Board(cells)
    n = params.players
    state.phase = phase
    state.owner = [-1] * state.board.size
    state.height = [0] * state.board.size
    state.movable = [[] for _ in range(n)]
    state.hexcount = [0] * n
    state.out = [False] * n
    state.forfeited = [False] * n
    state.tiles_left = [0] * n

    for h, (player, sheep, pos) in stacks.items():
        if player >= n:
            raise _error(f"stack of player {PLAYER_LETTERS[player]!r} in a {n}-player game", text, pos)
        i = state.board.index[h]
        state.owner[i] = player
        state.height[i] = sheep
        state.hexcount[player] += 1
        if sheep >= 2:
            state.movable[player].append(i)

    forfeit_text, forfeit_pos = options.get("forfeit", ("", 0))
    for k, ch in enumerate(forfeit_text):
        p = PLAYER_LETTERS.find(ch)
        if not 0 <= p < n:
            raise _error(f"forfeit names {ch!r}, not a player of this game", text, forfeit_pos + k)
        state.forfeited[p] = True

    if phase is Phase.TILES:
        left_text, left_pos = options.get("left", (",".join([str(params.tiles)] * n), 0))
        parts = left_text.split(",")
        if len(parts) != n or not all(p.isdigit() for p in parts):
            raise _error(f"left must be {n} whole numbers separated by commas", text, left_pos)
        state.tiles_left = [int(p) for p in parts]
        if stacks:
            raise _error("no stacks may stand on the pasture while it is being built", text, board_pos)
    elif "left" in options:
        raise _error("left= is only for the tiles phase", text, options["left"][1])
    elif state.board.size == 0:
        raise _error("the board has no pasture", text, board_pos)

    if turn_text == "-":
        if phase is not Phase.OVER:
            raise _error("only a finished game has no player to move", text, turn_pos)
        state.to_move = -1
    else:
        p = PLAYER_LETTERS.find(turn_text)
        if len(turn_text) != 1 or not 0 <= p < n:
            raise _error(
                f"turn must be a player a-{PLAYER_LETTERS[n - 1]} or '-', got {turn_text!r}", text, turn_pos
            )
        if phase is Phase.OVER:
            raise _error("a finished game has no player to move: write '-'", text, turn_pos)
        if state.forfeited[p]:
            raise _error(f"player {turn_text!r} forfeited and cannot be to move", text, turn_pos)
        state.to_move = p
    if phase is Phase.MOVES:
        for p in range(n):
            state.out[p] = not state.has_legal_move(p)
        if state.out[state.to_move]:
            raise _error(f"player {turn_text!r} is to move but has no legal move", text, turn_pos)
    return state


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
