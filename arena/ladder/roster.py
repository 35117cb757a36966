"""Which versions play in the ladder's league, and under which names.

A version that passed its check joins the league as ``BOT.vN`` (bot ``BOT``, version ``N``)
and retires the author's previous one: a retired version plays no new games, but its games
already played keep counting in the standings.
"""

from __future__ import annotations

from arena.ladder.store import Submission


def league_name(sub: Submission) -> str:
    """The name version ``sub`` plays under in the league: ``BOT.vN``."""
    return f"{sub.bot}.v{sub.version}"
