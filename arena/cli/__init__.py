"""The ``arena`` command line; each module adds its commands to :data:`main`."""

from __future__ import annotations

from . import play_cmds, rules_cmds  # noqa: F401  (they register their commands)
from .common import main

__all__ = ["main"]
