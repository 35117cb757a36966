"""The ``arena`` command line; each module adds its commands to :data:`main`."""

from __future__ import annotations

from arena.cli import ladder_cmds, new_cmds, play_cmds, report_cmds, rules_cmds, tournament_cmds  # noqa: F401  (they register their commands)
from arena.cli.check_cmds import check_cmd
from arena.cli.common import main

main.add_command(check_cmd)

__all__ = ["main"]
