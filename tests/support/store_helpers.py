"""What the unit and the system tests of the store share."""

from __future__ import annotations

import random

from arena.game.record import Fault, FaultKind, GameRecord, MoveRecord, SeatRecord
from arena.league.schedule import ScheduledGame, make_schedule
from arena.rules import Params, Standing

BOTS = ["ann", "bob", "cid", "dan"]


def fake_record(game: ScheduledGame, rng: random.Random) -> GameRecord:
    """A finished game of ``game``'s seats with a random outcome: ties, forfeits, sandbox or not."""
    n = len(game.seats)
    points = [rng.randint(0, 3) for _ in range(n)]  # small range: ties are common
    plies = rng.randint(0, 30)
    faults = [
        Fault(rng.choice(list(FaultKind)), f"detail {i}", rng.randint(0, plies))
        if rng.random() < 0.15
        else None
        for i in range(n)
    ]
    key = [(f is None, p) for f, p in zip(faults, points, strict=True)]
    ranks = [1 + sum(k > mine for k in key) for mine in key]
    seats = tuple(
        SeatRecord(
            name,
            ("bot",),
            fault=faults[i],
            isolation={"sandbox": rng.choice(["bwrap", "none"]), "network": rng.random() < 0.1},
        )
        for i, name in enumerate(game.seats)
    )
    return GameRecord(
        game_id=game.game_id,
        seed=game.seed,
        params=Params(players=n),
        time_control={"move_ms": 1000},
        start_position="start",
        seats=seats,
        moves=tuple(MoveRecord(i % n, "m", 0.5) for i in range(plies)),
        final_position="end",
        standings=tuple(Standing(i, ranks[i], 8 + points[i], 1, 0, faults[i] is not None) for i in range(n)),
        duration_ms=rng.uniform(1, 50),
    )


def league_schedule(players: int = 2, rounds: int = 3, seed: int = 1) -> list[ScheduledGame]:
    return make_schedule(BOTS, players, rounds, seed)
