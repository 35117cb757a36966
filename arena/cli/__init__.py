"""The ``arena`` command line; each module adds its commands to :data:`main` when imported.

A command's module is imported when the command is asked for (``arena --help`` imports
them all): ``arena check`` does not load the ladder's web stack.
"""

from __future__ import annotations

from arena.cli.common import main

main.add_lazy("arena.cli.check_cmds", "check")
main.add_lazy("arena.cli.ladder_cmds", "serve", "submit", "scrimmage")
main.add_lazy("arena.cli.new_cmds", "new")
main.add_lazy("arena.cli.play_cmds", "play", "replay")
main.add_lazy("arena.cli.report_cmds", "report")
main.add_lazy("arena.cli.rules_cmds", "perft", "show", "board")
main.add_lazy("arena.cli.tournament_cmds", "run", "standings", "games")

__all__ = ["main"]
