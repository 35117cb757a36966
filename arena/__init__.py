"""Battle Sheep Arena: a referee, tournament runner and rater for Battle Sheep bots.

Importing :mod:`arena` stays cheap and dependency-free so that Python bots can
use :mod:`arena.rules` and :mod:`arena.botkit` from a plain checkout.
"""

from __future__ import annotations

__version__ = "0.1.0"
