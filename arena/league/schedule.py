"""The deterministic list of games of a tournament.

Every combination of bots meets on one board per round, in every seat order
(``all``), in a rotation where each bot holds each seat once (``rotate``), or
in ``balanced`` orders: each round a rotation too, but of a cyclic turn order
that changes from round to round, so that over the schedule every bot moves
right after every other one equally often (``rotate`` fixes who follows whom).
Either way the first seat's advantage cancels out.  The list follows from the
tournament's seed alone: same file, same games, same boards, on any machine.
Rounds are generated one after another, so adding rounds extends the
schedule without changing the games already in it.

In a gauntlet every challenger meets each group of the field on the same
board in a round (the board comes from the round and the field group), so
challengers are compared on the same boards.  Schedules made before that
(``boards="group"``) drew a board per challenger.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
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
        """What identifies the game: its id, its seats and its seed."""
        return (self.game_id, self.seats, self.seed)


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the tournament seed and a game's coordinates (stable everywhere)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def cyclic_orders(n: int) -> list[tuple[int, ...]]:
    """The (n - 1)! turn orders of n seats up to rotation, each starting at 0, in a fixed order."""
    return [(0, *rest) for rest in itertools.permutations(range(1, n))]


def seat_orders(group: Sequence[str], mode: str, turn: int = 0) -> list[tuple[str, ...]]:
    """The seat orders a group plays in one round.

    ``all``: every permutation.  ``rotate``: the n rotations of the group.
    ``balanced``: the n rotations of the group's ``turn``-th cyclic order (mod their
    number): over any (n - 1)! consecutive turns each bot holds each seat, and
    moves right after each other bot (counting the last seat before the first,
    as turns go round), equally often.
    """
    n = len(group)
    if mode == "all":
        return list(itertools.permutations(group))
    order: Sequence[str] = group
    if mode == "balanced":
        cycles = cyclic_orders(n)
        order = [group[i] for i in cycles[turn % len(cycles)]]
    return [tuple(order[(i + k) % n] for i in range(n)) for k in range(n)]


def follows(games: Sequence[ScheduledGame]) -> Counter[tuple[str, str]]:
    """How often each bot moves right after each other (the last seat before the first)."""
    counts: Counter[tuple[str, str]] = Counter()
    for g in games:
        n = len(g.seats)
        counts.update((g.seats[i], g.seats[(i + 1) % n]) for i in range(n))
    return counts


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
    boards: str = "field",
) -> list[ScheduledGame]:
    """The whole schedule, round by round.

    ``boards``: ``field`` (a gauntlet's board comes from the round and the field
    group, the same for every challenger) or ``group`` (from the whole group: how
    schedules were made before; the same as ``field`` outside a gauntlet).
    """
    games: list[ScheduledGame] = []
    meetings = groups(bots, players, challengers)
    for rnd in range(1, rounds + 1):
        number = 0
        for m, g in enumerate(meetings):
            # One board per meeting and round, shared by all its seat orders.
            board_of = g[1:] if challengers and boards == "field" else g
            game_seed = derive_seed(seed, rnd, *board_of)
            # Meetings start at different turn orders, so that they do not all lean the same way.
            # Who-follows-whom is exact only after a multiple of (n - 1)! rounds (6 for 4
            # players, 2 for 3); in between it can be far off (5 bots, 4 players: after one
            # round a bot follows another 0 to 12 times, evening out to 24 each at round 6).
            for seats in seat_orders(g, mode, rnd - 1 + m):
                number += 1
                games.append(ScheduledGame(len(games), f"r{rnd}-g{number:03d}", rnd, seats, game_seed))
    return games
