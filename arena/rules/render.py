"""An ASCII picture of a position for a terminal.

Hexes are drawn four columns apart and each row is shifted two columns, as
the hexes lie.  Every row starts with its ``r`` and the ``q`` of its first hex
so a reader can work out any hex's coordinates::

     r=0 q=0 |  a16  .    .
     r=1 q=0 |     .   .   b16
"""

from __future__ import annotations

from arena.rules.state import PLAYER_LETTERS, GameState, Phase

_COLOURS = ("\x1b[1;31m", "\x1b[1;34m", "\x1b[1;32m", "\x1b[1;33m")  # red, blue, green, yellow
_RESET = "\x1b[0m"
_DIM = "\x1b[2m"


def render(state: GameState, colour: bool = False) -> str:
    """The board with every stack (owner letter and sheep), and a status line."""
    board = state.board
    lines: list[str] = []
    if board.coords:
        cmin = min(2 * q + r for q, r in board.coords)
        rmin = min(r for _, r in board.coords)
        rmax = max(r for _, r in board.coords)
        by_row: dict[int, list[tuple[int, int]]] = {}
        for i, (q, r) in enumerate(board.coords):
            by_row.setdefault(r, []).append((q, i))
        labels = []
        for r in range(rmin, rmax + 1):
            row = sorted(by_row.get(r, []))
            labels.append(f"r={r} q={row[0][0]}" if row else f"r={r}")
        width = max(len(s) for s in labels)
        for r, label in zip(range(rmin, rmax + 1), labels, strict=True):
            chars: list[str] = []
            used = 0
            for q, i in sorted(by_row.get(r, [])):
                col = 2 * (2 * q + r - cmin)
                chars.append(" " * (col - used))
                cell = _cell(state, i, colour)
                chars.append(cell[0])
                used = col + cell[1]
            lines.append(f"{label:>{width}} | " + "".join(chars).rstrip())
    lines.append(_status(state, colour))
    return "\n".join(lines)


def _cell(state: GameState, i: int, colour: bool) -> tuple[str, int]:
    """The text of one hex and its printed width (ANSI codes take no room)."""
    o = state.owner[i]
    if o >= 0:
        text = f"{PLAYER_LETTERS[o]}{state.height[i]}"
        return (f"{_COLOURS[o]}{text}{_RESET}" if colour else text), len(text)
    d = state.board.daisies[i]
    text = f"*{d}" if d else "."
    return (f"{_DIM}{text}{_RESET}" if colour else text), len(text)


def _status(state: GameState, colour: bool) -> str:
    def name(p: int) -> str:
        letter = PLAYER_LETTERS[p]
        return f"{_COLOURS[p]}{letter}{_RESET}" if colour else letter

    parts = []
    for p in range(state.players):
        note = ""
        if state.forfeited[p]:
            note = " forfeited"
        elif state.phase is Phase.MOVES and state.out[p]:
            note = " out"
        parts.append(f"{name(p)}: {state.hexcount[p]} hexes{note}")
    if state.phase is Phase.OVER:
        head = "game over"
    else:
        head = f"{state.phase.value} phase, {name(state.to_move)} to move"
        if state.phase is Phase.TILES:
            head += f" ({sum(state.tiles_left)} tiles left)"
    return f"{head} | " + ", ".join(parts)
