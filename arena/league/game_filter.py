"""Which finished games a listing wants: by bot, by who came first, by fault.

One value, two readings that agree: :meth:`GameFilter.matches` for a game's summary in
Python, :meth:`GameFilter.sql` for the store's ``summaries`` and ``seats`` tables, so a
listing of a large league is filtered (and paged) by SQLite, never by reading every game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.game.record import FaultKind
from arena.league.game_summary import GameSummary

ANY_FAULT = "any"
NO_FAULT = "none"
FAULT_CHOICES = (ANY_FAULT, NO_FAULT, *(k.value for k in FaultKind))


@dataclass(frozen=True)
class GameFilter:
    """Games with one of ``bots`` seated, one of ``won_by`` ranked first (alone or shared),
    a first place shared (``shared_first``), and a fault: ``any``, ``none`` or of one kind.
    Each part left empty (or False, or None) takes every game."""

    bots: tuple[str, ...] = ()
    won_by: tuple[str, ...] = ()
    shared_first: bool = False
    fault: str | None = None

    def __post_init__(self) -> None:
        if self.fault is not None and self.fault not in FAULT_CHOICES:
            raise ValueError(f"fault {self.fault!r}: must be one of {', '.join(FAULT_CHOICES)}")

    def matches(self, game: GameSummary) -> bool:
        """Whether ``game`` is one of the games wanted."""
        names = {s.name for s in game.seats}
        firsts = [s.name for s in game.seats if s.rank == 1]
        kinds = {s.fault.kind.value for s in game.seats if s.fault is not None}
        if self.bots and not names & set(self.bots):
            return False
        if self.won_by and not set(firsts) & set(self.won_by):
            return False
        if self.shared_first and len(firsts) < 2:
            return False
        if self.fault == ANY_FAULT:
            return bool(kinds)
        if self.fault == NO_FAULT:
            return not kinds
        return self.fault is None or self.fault in kinds

    def sql(self) -> tuple[str, list[Any]]:
        """The condition on a row ``s`` of the ``summaries`` table ("1": every game), and its
        arguments."""
        seat = "SELECT 1 FROM seats x WHERE x.game_id = s.game_id"
        conditions: list[str] = []
        args: list[Any] = []
        if self.bots:
            conditions.append(f"EXISTS ({seat} AND x.bot IN ({','.join('?' * len(self.bots))}))")
            args += self.bots
        if self.won_by:
            conditions.append(
                f"EXISTS ({seat} AND x.rank = 1 AND x.bot IN ({','.join('?' * len(self.won_by))}))"
            )
            args += self.won_by
        if self.shared_first:
            conditions.append("(SELECT count(*) FROM seats x WHERE x.game_id = s.game_id AND x.rank = 1) > 1")
        if self.fault == ANY_FAULT:
            conditions.append(f"EXISTS ({seat} AND x.fault IS NOT NULL)")
        elif self.fault == NO_FAULT:
            conditions.append(f"NOT EXISTS ({seat} AND x.fault IS NOT NULL)")
        elif self.fault is not None:
            conditions.append(f"EXISTS ({seat} AND x.fault = ?)")
            args.append(self.fault)
        return " AND ".join(conditions) or "1", args
