"""Small helpers shared by the rules tests."""

from __future__ import annotations

from arena.rules import GameState, format_position, parse_move

# The six directions by name, from the picture in docs/rules-engine.md (not the engine's table),
# for reference code in the tests.
VECTORS = {"E": (1, 0), "NE": (1, -1), "NW": (0, -1), "W": (-1, 0), "SW": (-1, 1), "SE": (0, 1)}


def play(state: GameState, token: str) -> None:
    state.apply(parse_move(token))


def reason(state: GameState, token: str) -> str:
    """Why ``token`` is illegal in ``state`` (the test fails if it is legal)."""
    why = state.why_illegal(parse_move(token))
    assert why is not None, f"{token} should be illegal in {format_position(state)}"
    return why
