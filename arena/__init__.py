"""Battle Sheep Arena: a referee, tournament runner and rater for Battle Sheep bots.

Importing :mod:`arena` stays cheap and dependency-free so that Python bots can
use :mod:`arena.rules` and :mod:`arena.botkit` from a plain checkout.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"


def package_parent() -> str:
    """The folder that holds the ``arena`` package, wherever it was imported from.

    The sandbox binds it read-only so that Python bots can import the kit, and
    background children put it on their path.  Computed from this file, the
    package's root, so that it stays right wherever the module asking for it sits.
    """
    return str(Path(__file__).resolve().parent.parent)
