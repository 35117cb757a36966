"""The deterministic list of games of a tournament.

Every combination of bots meets on one board per round, in every seat order
(``all``) or in a rotation where each bot holds each seat once (``rotate``),
so the first seat's advantage cancels out.  The list follows from the
tournament's seed alone: same file, same games, same boards, on any machine.
Rounds are generated one after another, so adding rounds extends the
schedule without changing the games already in it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game: its place in the schedule, who sits where, and its seed."""

    index: int  # position in the schedule: ratings are computed in this order
    game_id: str  # stable name: "r2-g017"
    round: int
    seats: tuple[str, ...]  # bot names in seat order
    seed: int  # the board's seed and the bots' seed

    def key(self) -> tuple[str, tuple[str, ...], int]:
        return (self.game_id, self.seats, self.seed)


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the tournament seed and a game's coordinates (stable everywhere)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def seat_orders(group: Sequence[str], mode: str) -> list[tuple[str, ...]]:
    """Every permutation (``all``) or the cyclic rotations (``rotate``) of a group."""
    if mode == "all":
        return list(itertools.permutations(group))
    n = len(group)
    return [tuple(group[(i + k) % n] for i in range(n)) for k in range(n)]


def groups(bots: Sequence[str], players: int, challengers: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The combinations of bots that meet: all of them, or each challenger with the field."""
    if not challengers:
        return list(itertools.combinations(bots, players))
    field = [b for b in bots if b not in challengers]
    return [(c, *rest) for c in challengers for rest in itertools.combinations(field, players - 1)]


def make_schedule(
    bots: Sequence[str],
    players: int,
    rounds: int,
    seed: int,
    mode: str = "all",
    challengers: Sequence[str] = (),
) -> list[ScheduledGame]:
    """The whole schedule, round by round."""
    games: list[ScheduledGame] = []
    meetings = groups(bots, players, challengers)
    for rnd in range(1, rounds + 1):
        number = 0
        for g in meetings:
            # One board per meeting and round, shared by all its seat orders.
            game_seed = derive_seed(seed, rnd, *g)
            for seats in seat_orders(g, mode):
                number += 1
                games.append(ScheduledGame(len(games), f"r{rnd}-g{number:03d}", rnd, seats, game_seed))
    return games
