"""A finished game in brief: what standings, listings and resume need, without its record.

The store keeps one summary beside each record, written in the same
transaction, so that reading a league of 100,000 games never parses a record.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.record import Fault, GameRecord, seat_half_points


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat of a finished game: the bot, its place, its hexes and its forfeit if any."""

    name: str
    rank: int
    hexes: int
    fault: Fault | None
    sandboxed: bool
    network: bool  # it had the machine's network


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One finished game: ``index`` is its place in the schedule (ratings follow it)."""

    game_id: str
    index: int
    seed: int
    players: int
    moves: int
    duration_ms: float
    seats: tuple[SeatSummary, ...]

    @classmethod
    def of(cls, record: GameRecord, index: int) -> GameSummary:
        """The summary of ``record``, at place ``index`` of the schedule."""
        seats = tuple(
            SeatSummary(s.name, st.rank, st.hexes, s.fault, s.sandboxed, bool(s.isolation.get("network")))
            for s, st in zip(record.seats, record.standings, strict=True)
        )
        return cls(
            record.game_id,
            index,
            record.seed,
            record.params.players,
            len(record.moves),
            record.duration_ms,
            seats,
        )

    @property
    def names(self) -> list[str]:
        """The bots, in seat order."""
        return [s.name for s in self.seats]

    @property
    def ranking(self) -> list[int]:
        """Each seat's place (1 = first; a tie shares one)."""
        return [s.rank for s in self.seats]

    @property
    def faults(self) -> list[tuple[int, Fault]]:
        """(seat, fault) for each seat that was forfeited."""
        return [(i, s.fault) for i, s in enumerate(self.seats) if s.fault is not None]

    def half_points(self, seat: int) -> int:
        """The half points ``seat`` earned (:func:`arena.game.record.seat_half_points`)."""
        return seat_half_points(self.ranking, seat)
