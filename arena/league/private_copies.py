"""Which bots get a private copy of their folder, and making the copies: one rule for the
arena's own machine (``arena run``) and for each Dask worker that unpacked uploaded bots.

A bot that builds writes its folder, so it gets a copy; so does a ``writable`` bot whose
folder overlaps another bot's (or, on the arena's machine, the arena's checkout or the
results).  The sandbox then shows the copy at the folder's path (``SandboxPolicy.source``),
so no bot or build writes another's files, the results or the arena.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.game import workspace


@dataclass(frozen=True)
class BotFolder:
    """What the rule needs of one bot: its folder, whether it builds there, whether it writes."""

    name: str
    cwd: Path
    builds: bool
    writable: bool


def needs_copy(bot: BotFolder, bots: Sequence[BotFolder], shared: Sequence[Path] = ()) -> bool:
    """Whether ``bot`` (one of ``bots``) gets a private copy; ``shared``: folders besides the
    bots' that no bot may write (the arena's checkout, the results)."""
    if bot.builds:
        return True
    if not bot.writable:
        return False
    others = [o.cwd for o in bots if o.name != bot.name] + list(shared)
    return any(p.is_relative_to(bot.cwd) or bot.cwd.is_relative_to(p) for p in others)


def make_copies(
    bots: Sequence[BotFolder],
    root: Callable[[], Path],
    shared: Sequence[Path] = (),
    skip: Sequence[Path] = (),
) -> dict[str, Path]:
    """Copy the folder of each bot of ``bots`` that :func:`needs_copy`; each bot's name -> its copy.

    ``root()`` gives the folder to copy into (asked once, at the first copy: no copy, no
    folder).  A copy is named by the bot's place in ``bots`` and leaves out the other bots'
    folders nested in it and ``skip`` (the results).  A bot that builds gets its copy as it
    is (its build seals it); any other's is readied for the bot's users now.
    """
    copies: dict[str, Path] = {}
    into: Path | None = None
    for i, bot in enumerate(bots):
        if not needs_copy(bot, bots, shared):
            continue
        into = into or root()
        copy = workspace.make_copy(bot.cwd, into, f"bot{i}", [*skip, *(o.cwd for o in bots if o.cwd != bot.cwd)])
        if not bot.builds:
            workspace.seal(copy, bot.writable)
        copies[bot.name] = copy
    return copies
