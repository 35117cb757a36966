"""The ``arena`` group and what its commands share.

Only the command line turns :class:`~arena.errors.ArenaError` into exit codes:
every other module raises, and the group reports it in one line.
"""

from __future__ import annotations

import sys

import click

from .. import __version__
from ..errors import ArenaError


class ArenaFailure(click.ClickException):
    """An error of the arena itself (bad file, bad option value): exit code 2."""

    exit_code = 2


class ArenaGroup(click.Group):
    """Turns the arena's own errors into a one-line message and exit code 2."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ArenaError as e:
            raise ArenaFailure(str(e)) from e


def colour_wanted(option: bool | None) -> bool:
    return sys.stdout.isatty() if option is None else option


colour_option = click.option(
    "--colour/--no-colour",
    "--color/--no-color",
    "colour",
    default=None,
    help="Colour the players' stacks (default: when writing to a terminal).",
)


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Battle Sheep Arena: referee, tournaments and ratings for Battle Sheep bots.

    Positions are written in the one-line position notation, for example
    'a16.../....b16. moves a players=2' (see 'arena show --help'); bots speak
    the protocol in protocol/PROTOCOL.md.
    """
