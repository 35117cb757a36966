"""Each two neighbours of the standings as a continuous league's pair tests leave them.

The standings carry a :class:`PairTests` (standings.json writes it, the tables say it in
one line under them); :mod:`arena.league.continuous` makes it from its pair tests
(:mod:`arena.stats.pair_test`).  The line is the one the end of a run says too:
``ordered a > b; tied within 20 Elo: b ~ c; not settled: c vs d P=0.81``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class Standing(enum.StrEnum):
    """How a pair of neighbours stands by its test."""

    ORDERED = "ordered"  # the upper bot shown the stronger, as ranked
    TIED = "tied"  # shown within the league's indifference of each other
    # Neither yet; also when the test orders them the other way round than the ranking
    # (more games resolve that: the league plays on).
    OPEN = "open"


@dataclass(frozen=True)
class Neighbours:
    """Two bots next to each other in the standings: ``p`` is P(``above`` is the stronger)
    as the standings give it, ``standing`` what their pair test says."""

    above: str
    below: str
    p: float
    standing: Standing


def describe(pairs: Sequence[Neighbours], indifference: float, name: Callable[[str], str] = str) -> str:
    """``ordered a > b; tied within 20 Elo: b ~ c; not settled: c vs d P=0.81 (and 1 more)``
    (parts with no pair left out; the open pair named is the one with the lowest P, the
    highest of equals); each bot's name as ``name`` makes it (escaped for where it goes)."""
    ordered = [f"{name(p.above)} > {name(p.below)}" for p in pairs if p.standing is Standing.ORDERED]
    tied = [f"{name(p.above)} ~ {name(p.below)}" for p in pairs if p.standing is Standing.TIED]
    still = [p for p in pairs if p.standing is Standing.OPEN]
    parts = []
    if ordered:
        parts.append("ordered " + ", ".join(ordered))
    if tied:
        parts.append(f"tied within {indifference:g} Elo: " + ", ".join(tied))
    if still:
        least = min(still, key=lambda p: p.p)
        more = f" (and {len(still) - 1} more)" if len(still) > 1 else ""
        parts.append(f"not settled: {name(least.above)} vs {name(least.below)} P={least.p:.2f}{more}")
    return "; ".join(parts)


@dataclass(frozen=True)
class PairTests:
    """A continuous league's verdict on each two neighbours of its standings (retired bots,
    which it no longer plays, are not among them), at ``confidence`` with ``indifference``."""

    confidence: float
    indifference: float
    pairs: tuple[Neighbours, ...]

    def summary(self, name: Callable[[str], str] = str) -> str:
        """``at 95%: ordered a > b; ...`` (see :func:`describe`); "" without pairs."""
        text = describe(self.pairs, self.indifference, name)
        return f"at {self.confidence:.0%}: {text}" if text else ""

    def line(self, name: Callable[[str], str] = str) -> str:
        """The line under a table: ``pairs at 95%: ordered a > b; ...``; "" without pairs."""
        text = self.summary(name)
        return f"pairs {text}" if text else ""

    def verdict_of(self, above: str) -> Standing | None:
        """The standing of the pair whose upper bot is ``above`` (None: it has none)."""
        return next((p.standing for p in self.pairs if p.above == above), None)

    def to_json(self) -> list[dict[str, Any]]:
        """The pairs as standings.json writes them."""
        return [{"above": p.above, "below": p.below, "verdict": p.standing.value} for p in self.pairs]

    @classmethod
    def from_json(cls, pairs: Any, test: Any, better: Mapping[str, float | None]) -> PairTests | None:
        """The pair tests as standings.json holds them: ``pairs`` as :meth:`to_json` wrote
        them, ``test`` its ``pair_test`` (``confidence`` and ``indifference``), and each pair's
        P from ``better`` (the upper bot's ``better_than_next`` in the file's rows, as
        :func:`arena.league.continuous.standings_pairs` takes it).  None for a league without
        pair tests, or a file whose pairs cannot be read (a reader of a file another process
        writes takes what it can, and says nothing it cannot)."""
        if not isinstance(pairs, list) or not isinstance(test, dict):
            return None
        try:
            confidence, indifference = float(test["confidence"]), float(test["indifference"])
            read = tuple(
                Neighbours(str(p["above"]), str(p["below"]), float(better.get(str(p["above"])) or 0.0), Standing(p["verdict"]))
                for p in pairs
            )
        except (KeyError, TypeError, ValueError):
            return None
        return cls(confidence, indifference, read)
