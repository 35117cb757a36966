"""Game records made for the report's and the tables' tests: a bare one, and one whose
every string a bot controls is an attack on the page."""

from __future__ import annotations

from dataclasses import replace

from arena.game.record import Fault, FaultKind, GameRecord, SeatRecord, Standing, StderrTurn
from arena.rules import Params

# (The NUL-delimited token is the one the page is split at to write its games a piece at a time.)
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> \'" <!-- \x1b[2J\x00 \u202eevil\u2028\x00arena-games\x00'


def hostile(record: GameRecord) -> GameRecord:
    """The record with every string a bot controls replaced by an attack on the page."""
    seats = tuple(
        replace(
            s,
            reported_name=HOSTILE,
            stderr_tail=HOSTILE + "\nsecond line",
            infos=(HOSTILE,),
            info_plies=(0,),
            stderr_turns=(StderrTurn(0, (HOSTILE, "turn line"), 1234),),
            fault=Fault(FaultKind.PROTOCOL_ERROR, f"got {HOSTILE!r}", len(record.moves)) if i else None,
        )
        for i, s in enumerate(record.seats)
    )
    return replace(record, seats=seats)


def fake_game(game_id: str, names: list[str], ranks: list[int], fault: int | None = None) -> GameRecord:
    """A record with just what the tables read: seats, ranking and faults."""
    seats = tuple(
        SeatRecord(n, ("x",), fault=Fault(FaultKind.TIMEOUT, "slow", 3) if i == fault else None)
        for i, n in enumerate(names)
    )
    return GameRecord(
        game_id=game_id,
        seed=1,
        params=Params(players=len(names)),
        time_control={"move_ms": 100},
        start_position="",
        seats=seats,
        moves=(),
        final_position="",
        standings=tuple(Standing(i, r, 10 - r, 1, 0, i == fault) for i, r in enumerate(ranks)),
    )
