"""Each command is found by its name alone: the table of lazily imported commands names every
command of every module, in the module that registers it (a command left out of the table would
be missing from ``arena --help``; one in the wrong module, missing altogether)."""

from __future__ import annotations

import importlib
import pkgutil

import arena.cli
from arena.cli import main


def test_the_lazy_table_names_every_command_where_it_is_registered() -> None:
    for info in pkgutil.iter_modules(arena.cli.__path__, "arena.cli."):
        importlib.import_module(info.name)
    assert set(main.commands) == set(main.lazy)
    for name, command in main.commands.items():
        assert command.callback is not None
        assert command.callback.__module__ == main.lazy[name], name


def test_help_lists_every_command_in_order() -> None:
    assert main.list_commands(None) == sorted(main.lazy)  # type: ignore[arg-type]
