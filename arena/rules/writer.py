"""Writing a position in the one-line notation (the grammar is in :mod:`.notation`).

Kept apart from the reader so that :mod:`.state` can quote the position in
an error without importing the reader, which builds states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.rules.params import PLAYER_LETTERS, Params, Phase

if TYPE_CHECKING:
    from arena.rules.state import GameState


MAX_RUN = 999  # the longest run of '_' or '.' one count gives (the parser reads no more)


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
